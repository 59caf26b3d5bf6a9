// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Folded stacks: merge samples by their line, print them sorted. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/frame_kind.h"
#include "base/grow.h"
#include "base/hash_bytes.h"
#include "profile/aggregate.h"
#include "output/folded.h"
#include "profile/group_by.h"
#include "base/term_safe.h"

struct line_count {
	char *line;
	uint64_t count;
};

/* A growing string: every line of a profile goes into one, so writing
 * 100,000 lines costs a few reallocations rather than a stream apiece. */
struct text {
	char *s;
	size_t len, cap;
	bool failed;
};

static void put_bytes(struct text *t, const char *b, size_t n)
{
	if (t->failed || GROW(t->s, t->cap, t->len + n + 1)) {
		t->failed = true;
		return;
	}
	memcpy(t->s + t->len, b, n);
	t->len += n;
	t->s[t->len] = '\0';
}

/* Appends name escaped by the folded format's one rule, the terminal's
 * (term_safe.h) plus one: ';' separates frames, so it becomes ':'. The rest
 * is term_safe's: a newline (it would end the record) is the two characters
 * \n, a carriage return \r, any other byte of a control character or of
 * invalid UTF-8 \xHH; printable UTF-8 is kept. The last space separates the
 * count: others are kept ("operator new"). So a profile is valid UTF-8
 * without control bytes, and shows the same as the views print it. */
static void put_name(struct text *t, const char *name)
{
	char esc[TERM_SAFE_ESC_MAX];
	const char *run = name, *c = name;
	size_t n;

	while (*c) {
		if (*c >= 0x20 && *c < 0x7f && *c != ';') {	/* most bytes: no call */
			c++;
			continue;
		}
		n = *c == ';' ? 0 : term_safe__char(c, NULL);
		if (n) {
			c += n;
			continue;
		}
		put_bytes(t, run, (size_t)(c - run));
		if (*c == ';')
			put_bytes(t, ":", 1);
		else
			put_bytes(t, esc, term_safe__escape_byte((unsigned char)*c, esc));
		run = ++c;
	}
	put_bytes(t, run, (size_t)(c - run));
}

/* s's line: the group's root (--group-by) and the event's root when there
 * are several (either NULL: none), its comm, its frames. */
static void put_line(struct text *t, const struct psample *s, const char *group, const char *root)
{
	char comm[TASK_COMM_LEN];
	size_t i;

	memcpy(comm, s->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	if (group) {
		put_name(t, group);
		put_bytes(t, ";", 1);
	}
	if (root) {
		put_name(t, root);
		put_bytes(t, ";", 1);
	}
	put_name(t, comm[0] ? comm : "[unknown]");
	for (i = 0; i < s->nframes; i++) {
		put_bytes(t, ";", 1);
		put_name(t, s->frames[i]->name);
		if (s->frames[i]->kernel)
			put_bytes(t, "_[k]", 4);
		else if (s->frames[i]->inlined)
			put_bytes(t, "_[i]", 4);	/* as stackcollapse-perf.pl --inline marks them */
		else if (s->frames[i]->runtime)
			put_bytes(t, frame_kind__row(s->frames[i]->runtime)->suffix,
				  strlen(frame_kind__row(s->frames[i]->runtime)->suffix));
		else if (s->frames[i]->jit)
			put_bytes(t, "_[j]", 4);
	}
}

char *folded__line(const struct psample *s, const char *root)
{
	struct text t = { 0 };

	put_line(&t, s, NULL, root);
	if (!t.failed && !t.s)
		put_bytes(&t, "", 0);
	if (t.failed) {
		free(t.s);
		return NULL;
	}
	return t.s;
}

/* One sample's line in the text, and its weight. */
struct line_ref {
	size_t off;
	uint64_t count;
};

static int cmp_line(const void *a, const void *b, void *text)
{
	const char *s = text;

	return strcmp(s + ((const struct line_ref *)a)->off, s + ((const struct line_ref *)b)->off);
}

/* Sorted, the same lines are neighbours: each is printed once with the
 * sum of their weights. */
static void print_merged(const struct text *t, const struct line_ref *refs, size_t n, FILE *out)
{
	size_t i = 0, j;
	uint64_t count;

	while (i < n) {
		count = refs[i].count;
		for (j = i + 1; j < n && !strcmp(t->s + refs[i].off, t->s + refs[j].off); j++)
			count += refs[j].count;
		fputs_unlocked(t->s + refs[i].off, out);
		fprintf(out, " %" PRIu64 "\n", count);
		i = j;
	}
}

/* The profile's lines into *t, one ref each in *refs (p->nsamples of
 * them), in the samples' order. Returns 0 or -ENOMEM. */
static int build_lines(const struct profile *p, struct text *t, struct line_ref **refs)
{
	struct line_ref *r = calloc(p->nsamples ? p->nsamples : 1, sizeof(*r));
	struct group_root memo = { 0 };
	size_t i;

	*refs = r;
	for (i = 0; r && i < p->nsamples; i++) {
		const struct psample *ps = &p->samples[i];

		r[i].off = t->len;
		r[i].count = ps->count;
		/* several events: which one is the root frame */
		put_line(t, ps, group_by__root(p, ps, &memo),
			 p->nevents > 1 && ps->event < (uint32_t)p->nevents ?
			 p->events[ps->event].name : NULL);
		put_bytes(t, "", 1);	/* the line's NUL */
	}
	return !r || t->failed ? -ENOMEM : 0;
}

/* The same, sorted: the same lines are neighbours. */
static int sorted_lines(const struct profile *p, struct text *t, struct line_ref **refs)
{
	int err = build_lines(p, t, refs);

	if (!err && p->nsamples)
		qsort_r(*refs, p->nsamples, sizeof(**refs), cmp_line, t->s);
	return err;
}

int folded__write(const struct profile *p, FILE *out)
{
	struct line_ref *refs;
	struct text t = { 0 };
	int err = sorted_lines(p, &t, &refs);

	if (!err)
		print_merged(&t, refs, p->nsamples, out);
	free(refs);
	free(t.s);
	if (!err && (fflush(out) || ferror(out)))
		err = errno ? -errno : -EIO;
	return err;
}

size_t folded__distinct(const struct profile *p)
{
	struct line_ref *refs;
	struct text t = { 0 };
	size_t *slots = NULL, cap = 1, n = 0;

	/* a set of the lines by their text: the summary counts them before
	 * anything is written, and a sort for it was a tenth of an end of run */
	while (cap < 2 * p->nsamples)
		cap *= 2;
	if (!build_lines(p, &t, &refs))
		slots = calloc(cap, sizeof(*slots));	/* an offset + 1; 0: free */
	for (size_t i = 0; slots && i < p->nsamples; i++) {
		const char *line = t.s + refs[i].off;
		size_t j = (size_t)hash_bytes(line, strlen(line)) & (cap - 1);

		while (slots[j] && strcmp(t.s + slots[j] - 1, line))
			j = addr_slot_next(j, cap - 1);
		if (!slots[j]) {
			slots[j] = refs[i].off + 1;
			n++;
		}
	}
	free(slots);
	free(refs);
	free(t.s);
	return n;
}
