/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* bpfprof report: perf report's table of self and total shares. */
#ifndef BPFPROF_REPORT_H
#define BPFPROF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "render/table.h"

struct report_opts {
	enum vfield fields[VF_MAX];	/* --sort, in column order */
	int nfields;
	bool children;			/* --children: sorted by total */
	double percent_limit;		/* --percent-limit: rows under it not shown */
	struct vfilter filter;		/* --comm, --pid */
	const char *source;		/* named in the heading */
};

/* The default: perf's --sort comm,dso,symbol, by self. */
void report__defaults(struct report_opts *o);

/* Writes the table. Returns 0 or -errno. */
int report__write(const struct vprof *v, const struct report_opts *o, FILE *out);

#endif
