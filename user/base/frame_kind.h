/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What a frame is, and how every output says so: one row per kind, read by
 * the folded writer and reader, pprof's reader, the report's marks, the
 * flame graph's colours (SVG and page) and OTLP's profile.frame.type. A
 * runtime whose walker names frames (base/runtime.h) has a row of its own. */
#ifndef BPFPROF_BASE_FRAME_KIND_H
#define BPFPROF_BASE_FRAME_KIND_H

#include <stdbool.h>
#include <stddef.h>

/* The numbers are the page's (the flame graph's "kinds"): append only. */
enum frame_kind {
	FK_USER = 0,	/* native code of a file */
	FK_KERNEL,	/* folded "_[k]", pprof mapping [kernel.kallsyms] */
	FK_INLINE,	/* folded "_[i]", pprof: every Line of a Location but the last */
	FK_PYTHON,	/* folded "_[py]": CPython's frames (python/) */
	FK_JIT,		/* folded "_[j]": code without a file */
	FK_ROOT,	/* the command name, or an event name above it */
	FK_V8JS,	/* folded "_[j]": V8's JavaScript frames (v8/); read back as FK_JIT */
	FK_JAVA,	/* folded "_[j]" (read back as FK_JIT): HotSpot's code (hotspot/) */
	FK_MAX,
};

struct frame_kind_row {
	const char *name;	/* the page's legend and tooltip */
	bool legend;		/* in the page's legend */
	const char *suffix;	/* folded's mark after the name; "" none */
	const char *mark;	/* the report's column: perf's "[k]", "[.]" */
	const char *otel_type;	/* OTLP's profile.frame.type; NULL: the frame's code decides */
	const char *mapping;	/* a runtime's frames' pprof mapping ("[python]"); NULL: a file's */
	bool name_has_line;	/* the name ends " (file:LINE)": the function is before it */
	/* the colour, hsl(hue + spread*r, sat%, light + light_spread*r%),
	 * r a hash of the name in [0, 1) */
	int hue, spread, sat, light, light_spread;
};

extern const struct frame_kind_row frame_kinds[FK_MAX];

/* kind's row (FK_USER's for a kind out of range). */
const struct frame_kind_row *frame_kind__row(enum frame_kind kind);

/* The kind whose folded suffix name (len bytes) ends with, FK_USER when
 * none; returns the name's length without it. The first row with a
 * suffix wins (kinds sharing one read back as the first). */
size_t frame_kind__from_suffix(const char *name, size_t len, enum frame_kind *kind);

/* The runtime kind whose pprof mapping is mapping; FK_USER when none. */
enum frame_kind frame_kind__from_mapping(const char *mapping);

#endif
