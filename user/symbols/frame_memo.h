/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The frames an address resolved to, kept for the next time it is seen.
 * A profile's stacks share most of their frames: 440,000 frames of a
 * 37,000-stack profile were 965 names. Resolving and interning each once
 * per process, not once per frame, was half of an end of run. */
#ifndef BPFPROF_FRAME_MEMO_H
#define BPFPROF_FRAME_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/aggregate.h"

struct frame_memo;

/* What an address resolved to: its frames (the function, then what is
 * inlined there, outermost first) and, for one left unnamed, why. */
struct memo_hit {
	const struct pframe *frames;
	uint32_t n;
	uint8_t why;		/* enum unnamed; UNNAMED_NONE: named */
};

struct frame_memo *frame_memo__new(void);
void frame_memo__free(struct frame_memo *m);

/* Forgets every address at once (another process: the same address is
 * another frame there). */
void frame_memo__forget(struct frame_memo *m);

/* Whether addr is known since the last forget; its frames in *hit, valid
 * until the next add or forget. */
bool frame_memo__find(const struct frame_memo *m, uint64_t addr, struct memo_hit *hit);

/* Keeps n frames (copied; the strings they point to must outlive the memo)
 * for addr, and gives them back in *hit as find() would. Returns 0 or
 * -ENOMEM. */
int frame_memo__add(struct frame_memo *m, uint64_t addr, const struct pframe *frames, uint32_t n,
		    uint8_t why, struct memo_hit *hit);

#endif
