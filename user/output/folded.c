// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Folded stacks: merge samples by their line, print them sorted. */
#include <errno.h>
#include <inttypes.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "folded.h"

struct line_count {
	char *line;
	uint64_t count;
};

/* Appends name with the characters that would break the format replaced:
 * ';' separates frames, the last space separates the count (kept: names
 * like "operator new" are fine), line breaks end the record. */
static void put_name(FILE *f, const char *name)
{
	for (; *name; name++) {
		char c = *name;

		if (c == ';')
			c = ':';
		else if (c == '\n' || c == '\r')
			c = ' ';
		putc(c, f);
	}
}

char *folded__line(const struct psample *s, const char *root)
{
	char *buf = NULL, comm[TASK_COMM_LEN];
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	memcpy(comm, s->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	if (root) {
		put_name(f, root);
		putc(';', f);
	}
	put_name(f, comm[0] ? comm : "[unknown]");
	for (i = 0; i < s->nframes; i++) {
		putc(';', f);
		put_name(f, s->frames[i].name);
		if (s->frames[i].kernel)
			fputs("_[k]", f);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line_count *)a)->line, ((const struct line_count *)b)->line);
}

static void free_line(void *node)
{
	struct line_count *lc = node;

	free(lc->line);
	free(lc);
}

static int merge(void **root, char *line, uint64_t count)
{
	struct line_count key = { .line = line }, *lc;
	void *node = tfind(&key, root, cmp_line);

	if (node) {
		(*(struct line_count **)node)->count += count;
		free(line);
		return 0;
	}
	lc = malloc(sizeof(*lc));
	if (lc) {
		lc->line = line;
		lc->count = count;
	}
	if (!lc || !tsearch(lc, root, cmp_line)) {
		free(lc);
		free(line);
		return -ENOMEM;
	}
	return 0;
}

static void print_node(const void *nodep, VISIT which, void *out)
{
	const struct line_count *lc = *(struct line_count *const *)nodep;

	if (which == postorder || which == leaf)
		fprintf(out, "%s %" PRIu64 "\n", lc->line, lc->count);
}

int folded__write(const struct profile *p, FILE *out)
{
	void *root = NULL;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < p->nsamples; i++) {
		const struct psample *ps = &p->samples[i];
		/* several events: which one is the root frame */
		char *line = folded__line(ps, p->nevents > 1 && ps->event < (uint32_t)p->nevents ?
					  p->events[ps->event].name : NULL);

		err = line ? merge(&root, line, ps->count) : -ENOMEM;
	}
	/* tsearch's tree is ordered by the line: an in-order walk prints sorted */
	if (!err)
		twalk_r(root, print_node, out);
	tdestroy(root, free_line);
	if (!err && (fflush(out) || ferror(out)))
		err = errno ? -errno : -EIO;
	return err;
}
