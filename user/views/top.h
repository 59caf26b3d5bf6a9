/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* bpfprof top's screen: the hottest functions of one interval's profile,
 * self and total, with the run's accounting above them. Renders only: the
 * profile comes from the drain (collect), keys and terminal from the caller. */
#ifndef BPFPROF_TOP_H
#define BPFPROF_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "render/vprof.h"

/* What the keys change. */
struct top_view {
	bool hide_kernel;	/* k */
	bool hide_user;		/* u */
	bool paused;		/* p: the screen stays as it is; counting goes on */
};

/* The accounting shown above the table. */
struct top_status {
	const char *what;		/* "cpu-clock at 99 Hz, system-wide" */
	double refresh;			/* seconds between screens */
	uint64_t intervals;		/* drained so far */
	uint64_t samples, lost;		/* in the interval shown */
	uint64_t all_samples, all_lost;	/* since the start */
	uint64_t bpf_total;		/* the BPF side's never-reset total, read after the drain */
};

enum top_key {
	TOP_KEY_NONE = 0,	/* not a key of ours */
	TOP_KEY_QUIT,		/* q */
	TOP_KEY_REDRAW,		/* k, u, p: the view changed */
};

/* Applies key c (q, k, u, p; Q, K, U, P too). */
enum top_key top__key(struct top_view *view, int c);

/* One whole screen of rows x cols into out: cursor home, each line cut to
 * cols and cleared to its end, the rest of the screen cleared. v may be
 * NULL (no interval yet). Returns 0 or -ENOMEM. */
int top__render(const struct vprof *v, const struct top_view *view,
		const struct top_status *st, int rows, int cols, FILE *out);

#endif
