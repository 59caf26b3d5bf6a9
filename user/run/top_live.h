/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* bpfprof top's loop side: each interval's profile (from collect, as fleet
 * mode drains it) counted and handed to the screen (views/top.c); keys,
 * resizes, and the terminal put back at the end. */
#ifndef BPFPROF_TOP_LIVE_H
#define BPFPROF_TOP_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/config.h"

struct profile;
struct top_live;

/* Checks that standard input and output are a terminal (one line and
 * -ENOTTY if not); nothing is drawn yet. 0 or -errno. */
int top_live__new(const struct config *cfg, struct top_live **out);

/* Sampling has begun: the terminal is taken and the first screen drawn. */
int top_live__begin(struct top_live *t);

/* The descriptor keys arrive on. */
int top_live__fd(const struct top_live *t);

/* Reads the keys typed; true when one of them quits. */
bool top_live__keys(struct top_live *t);

/* ^Z: the terminal put back, the process stopped; when continued, the
 * screen is taken and drawn again. */
void top_live__suspend(struct top_live *t);

/* Draws again (after a resize: at the new size). */
void top_live__redraw(struct top_live *t);

/* One drained interval: counted, and shown unless paused. bpf_total: the
 * BPF side's never-reset total, read after the drain. 0 or -errno. */
int top_live__interval(struct top_live *t, const struct profile *p, uint64_t bpf_total);

/* Puts the terminal back and prints the run's accounting line: every
 * sample counted or lost, against the BPF side's total. */
void top_live__end(struct top_live *t, uint64_t bpf_total, const char *why);

void top_live__free(struct top_live *t);

#endif
