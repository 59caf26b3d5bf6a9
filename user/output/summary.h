/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What a profile holds and what it missed, three ways: a short line a
 * person reads at a glance, labelled lines under -v (and advice when
 * something is high), and every count as JSON for scripts (--stats FILE,
 * the fleet's interval log). */
#ifndef BPFPROF_SUMMARY_H
#define BPFPROF_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

struct profile;

/* The short line's bound, in columns, with stderr's "bpfprof: " prefix. */
#define SUMMARY_COLUMNS 160

struct summary {
	const struct profile *p;
	const char *why;	/* what ended it: "duration reached", "interval", ... */
	const char *dest;	/* where it went: a path, "standard output"; NULL: nowhere */
	size_t stacks;		/* distinct stacks written: the folded form's lines */
	size_t walked;		/* user stacks walked with tables (auto, dwarf); 0: none */
};

/* Counts what the summary needs once (the folded lines: one sort of the
 * profile's stacks). p must outlive s. */
void summary__init(struct summary *s, const struct profile *p, const char *why,
		   const char *dest);

/* "N samples, L lost, C% complete stacks, U% frames unresolved, D s (why), S stacks
 * to DEST": at most SUMMARY_COLUMNS columns once behind "bpfprof: " (DEST cut). */
void summary__short(const struct summary *s, char *buf, size_t size);

/* The -v lines, "label: text", one call of line() each. */
void summary__details(const struct summary *s, void (*line)(const char *text, void *arg),
		      void *arg);

/* What to do about what is high, in words ("16 files' unwind tables did not
 * fit: raise --unwind-rows"), one call of line() each; none on a clean run. */
void summary__advice(const struct summary *s, void (*line)(const char *text, void *arg),
		     void *arg);

/* Every count as the members of a JSON object, without its braces (the
 * fleet's log adds its own): "\"samples\":N,...". Returns 0 or -EIO. */
int summary__json_members(const struct summary *s, FILE *out);

/* The same as one object and a newline into path (written whole, then
 * renamed into place). Returns 0 or -errno with a message printed. */
int summary__json_file(const struct summary *s, const char *path);

/* s escaped as a JSON string, quotes included: invalid UTF-8 bytes become
 * \u00XX, so the text stays valid JSON whatever a path holds. */
void summary__json_string(const char *s, FILE *out);

#endif
