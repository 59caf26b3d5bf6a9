/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* bpfprof flamegraph: one self-contained interactive HTML page (canvas,
 * no network), or a static SVG; with a BEFORE profile, a differential one. */
#ifndef BPFPROF_FLAMEGRAPH_H
#define BPFPROF_FLAMEGRAPH_H

#include <stdbool.h>
#include <stdio.h>

#include "render/table.h"
#include "render/vprof.h"

struct profile;

struct fg_opts {
	const char *title;
	struct vfilter filter;	/* --comm, --pid */
	bool svg;		/* a static SVG instead of the page */
};

/* Writes v's flame graph; before (or NULL): colour by the change of each
 * frame's share from before to v. Returns 0 or -errno. */
int flamegraph__write(struct vprof *v, const struct vprof *before, const struct fg_opts *o,
		      FILE *out);

/* The profiling run's own page or SVG (--format html|svg). */
int flamegraph__write_profile(const struct profile *p, bool svg, FILE *out);

#endif
