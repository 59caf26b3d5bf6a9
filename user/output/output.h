/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Where profiles go: one file or stdout (one-shot), or an output directory
 * and/or a Pyroscope server every interval (fleet mode). */
#ifndef BPFPROF_OUTPUT_H
#define BPFPROF_OUTPUT_H

#include <stdint.h>

#include "base/config.h"

struct output;
struct profile;

/* Opens what cfg names (a bad path fails now, not after the run). Returns
 * 0 or -errno with a message printed. */
int output__open(const struct config *cfg, struct output **out);

/* Writes one profile, with its summary line; why says what ended it.
 * Returns 0 or -errno with a message printed. In fleet mode it always
 * returns 0: an interval that cannot be written is counted as lost. */
int output__profile(struct output *o, const struct profile *p, const char *why);

/* --control snapshot: p (the profile so far) written whole over -o's file
 * now, atomically; the run goes on and writes it again at the end. Returns
 * 0 or -errno with a message printed (-ENOENT: no -o file to write). */
int output__snapshot(struct output *o, const struct profile *p);

/* -o's temporary (the directory's fd and the name in it), for a signal
 * handler that aborts the run to remove; -1 and NULL when there is none. */
void output__temporary(const struct output *o, int *dirfd, const char **name);

/* SIGHUP: reopen the output directory. */
void output__reopen(struct output *o);

/* Fleet mode: what was written (into the directory and the spools), and
 * what could not be (a full disk, a deleted directory): an interval that
 * some destination could not take, the others still got. */
struct fleet_totals {
	uint64_t intervals, samples;
	uint64_t lost_intervals, lost_samples;
	uint64_t late_intervals;	/* much longer than asked (output.c: late_part) */
};
void output__totals(const struct output *o, struct fleet_totals *tot);

/* Flushes what waits for the server; returns 0 or -errno (closing the
 * file; -EIO when fleet intervals were lost). */
int output__close(struct output *o);

#endif
