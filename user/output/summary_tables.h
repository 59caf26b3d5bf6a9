/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The summary's named counts, shared by its text (summary.c) and its JSON
 * (summary_json.c): one name for people, one key for scripts. */
#ifndef BPFPROF_SUMMARY_TABLES_H
#define BPFPROF_SUMMARY_TABLES_H

#include "profile/unnamed.h"

struct summary_reason {
	const char *text, *key;
};

struct summary_stop {
	int stat;		/* STAT_UNWIND_*, STAT_LOST_* */
	const char *text, *key;
};

/* Why samples were lost on the BPF side: STAT_LOST_FIRST..STAT_LOST_LAST,
 * in that order. */
#define LOST_REASONS		5
extern const struct summary_stop lost_reasons[LOST_REASONS];

/* Why frames stayed unnamed, by enum unnamed: the table's up to
 * UNNAMED_RUNTIME, a runtime's row's after (base/runtime.h); NULL for
 * UNNAMED_NONE and a runtime that names every frame it walks. */
const struct summary_reason *summary__unnamed_reason(int why, struct summary_reason *buf);

/* How user stacks ended (auto, dwarf): the first UNWIND_STOPS are the
 * stops, one per stack walked; the rest count stacks that crossed a place. */
#define UNWIND_STOPS		8
#define UNWIND_STOPS_ALL	12
extern const struct summary_stop unwind_stops[UNWIND_STOPS_ALL];

#endif
