// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Address -> resolved frames (see frame_memo.h): open addressing with
 * linear probing; a forget is a new generation, not a sweep, as a
 * whole-system profile forgets once per process. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hash_bytes.h"
#include "symbols/frame_memo.h"

struct memo_entry {
	uint64_t addr;
	uint32_t gen;		/* current when == memo's gen; 0: never used */
	uint32_t first;		/* its frames: pool[first .. first + n) */
	uint16_t n;
	uint8_t why;
};

struct frame_memo {
	struct memo_entry *slots;
	size_t cap, n;		/* cap: a power of two, at most half full */
	uint32_t gen;
	struct pframe *pool;
	size_t npool, cap_pool;
};

struct frame_memo *frame_memo__new(void)
{
	struct frame_memo *m = calloc(1, sizeof(*m));

	if (m)
		m->gen = 1;
	return m;
}

void frame_memo__free(struct frame_memo *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m->pool);
	free(m);
}

void frame_memo__forget(struct frame_memo *m)
{
	m->n = 0;
	m->npool = 0;
	if (++m->gen == 0) {	/* wrapped: the old generations must not come back */
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
		m->gen = 1;
	}
}

/* The slot that holds addr, or the free one where it would go. */
static struct memo_entry *slot_of(struct memo_entry *slots, size_t cap, uint32_t gen, uint64_t addr)
{
	size_t mask = cap - 1, i = addr_slot(addr, mask);

	while (slots[i].gen == gen && slots[i].addr != addr)
		i = addr_slot_next(i, mask);
	return &slots[i];
}

static void hit_of(const struct frame_memo *m, const struct memo_entry *e, struct memo_hit *hit)
{
	*hit = (struct memo_hit){ .frames = m->pool + e->first, .n = e->n, .why = e->why };
}

bool frame_memo__find(const struct frame_memo *m, uint64_t addr, struct memo_hit *hit)
{
	const struct memo_entry *e;

	if (!m->cap)
		return false;
	e = slot_of(m->slots, m->cap, m->gen, addr);
	if (e->gen != m->gen)
		return false;
	hit_of(m, e, hit);
	return true;
}

static int grow_slots(struct frame_memo *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024, i;
	struct memo_entry *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].gen == m->gen)
			*slot_of(slots, cap, m->gen, m->slots[i].addr) = m->slots[i];
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int frame_memo__add(struct frame_memo *m, uint64_t addr, const struct pframe *frames, uint32_t n,
		    uint8_t why, struct memo_hit *hit)
{
	struct memo_entry *e;

	if (n > UINT16_MAX || m->npool + n > UINT32_MAX)
		return -ENOMEM;
	if ((2 * (m->n + 1) > m->cap && grow_slots(m)) || GROW(m->pool, m->cap_pool, m->npool + n))
		return -ENOMEM;
	e = slot_of(m->slots, m->cap, m->gen, addr);
	if (e->gen != m->gen) {	/* else known already: the first answer stays */
		memcpy(m->pool + m->npool, frames, n * sizeof(*frames));
		*e = (struct memo_entry){ .addr = addr, .gen = m->gen, .first = (uint32_t)m->npool,
					  .n = (uint16_t)n, .why = why };
		m->npool += n;
		m->n++;
	}
	hit_of(m, e, hit);
	return 0;
}
