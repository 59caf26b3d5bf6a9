/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Self and total (inclusive) counts per function, or per (command, file,
 * function) as perf report's --sort: what report, diff and top show. */
#ifndef BPFPROF_TABLE_H
#define BPFPROF_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "render/vprof.h"

enum vfield { VF_COMM, VF_DSO, VF_SYMBOL, VF_MAX };

struct vkey {
	const char *comm, *dso, *name;	/* NULL when not a sort field */
	enum frame_kind kind;		/* with the symbol only */
};

struct vrow {
	struct vkey key;
	uint64_t self;		/* samples with this as the innermost frame */
	uint64_t total;		/* samples with this anywhere in the stack (once per stack) */
};

struct vfilter {
	const char *comm;	/* only stacks of this command (NULL: all) */
	pid_t pid;		/* only this process (0: all) */
	bool hide_kernel;	/* as if sampled with -U: the user frame is the leaf */
	bool hide_user;		/* as if sampled with -K */
};

struct vtable {
	struct vrow *rows;
	size_t nrows, cap;
	uint64_t total;		/* samples that passed the filter */
	uint64_t stacks;	/* stacks that passed the filter */
	uint32_t *slots;	/* row index + 1, 0 free */
	size_t nslots;
	uint64_t *stamp;	/* per row: the last stack counted into its total, + 1 */
};

/* Builds the table of fields[0..nfields) over the stacks that pass f.
 * Returns 0, -ENOMEM or -EOVERFLOW (a sum past 2^64-1). Free with
 * vtable__free(). */
int vtable__build(const struct vprof *v, const enum vfield *fields, int nfields,
		  const struct vfilter *f, struct vtable *t);

/* Largest first, by self or by total; ties by name. */
void vtable__sort(struct vtable *t, bool by_total);

void vtable__free(struct vtable *t);

/* "[k]" kernel, "[.]" user (perf's marks), "[i]" inline, "[p]" Python, "[j]" JIT. */
const char *vtable__mark(enum frame_kind kind);

/* Parses perf's --sort list ("comm,dso,symbol", "sym" too). Returns the
 * number of fields, or -1 with the bad name in *bad. */
int vtable__parse_sort(const char *list, enum vfield *fields, const char **bad);

#endif
