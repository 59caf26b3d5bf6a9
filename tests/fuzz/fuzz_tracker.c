// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: the perf tracking-record decoder of user/procs/tracker.c (take(),
 * reached through the perf_buffer callback on_record()) and what it feeds:
 * tracker__consume()'s sort and replay into user/procs/procs.c (procs__mmap,
 * __exec, __fork, __exit: only what tracker.c itself calls, so that this
 * target follows procs.h as tracker.c does).
 *
 * tracker.c is included, not linked, so its static decoder is reachable
 * without changing its API. perf_buffer__consume() and perf_buffer__free()
 * are defined here and take precedence over libbpf's: the fake "ring"
 * hands the input's records to on_record() exactly as libbpf would (each
 * one contiguous, h->size bytes long).
 *
 * Input: perf records back to back, as the kernel writes them: a
 * perf_event_header, then h->size - 8 bytes. The kernel's own guarantees
 * hold (8 <= h->size, h->size a multiple of 8); decoding stops at the first
 * record that breaks them or does not fit. A record of type ROUND_BREAK
 * ends one tracker__consume() round and starts the next.
 */
#include "../../user/procs/tracker.c"
#include "fuzz_check.h"

#include <stdio.h>

#define ROUND_BREAK	0xffffffffu

static struct {
	const uint8_t *p, *end;
	struct tracker *t;
} ring;

/* Next record, or NULL at the end of the input or of the round. */
static const struct perf_event_header *next_record(size_t *size, bool *round_break)
{
	struct perf_event_header h;

	*round_break = false;
	if ((size_t)(ring.end - ring.p) < sizeof(h))
		return NULL;
	memcpy(&h, ring.p, sizeof(h));
	if (h.size < sizeof(h) || h.size % 8 || h.size > (size_t)(ring.end - ring.p))
		return NULL;
	*size = h.size;
	if (h.type == ROUND_BREAK) {
		ring.p += h.size;
		*round_break = true;
		return NULL;
	}
	return (const void *)ring.p;
}

int perf_buffer__consume(struct perf_buffer *pb)
{
	const struct perf_event_header *rec;
	bool round_break;
	size_t size;

	(void)pb;
	while ((rec = next_record(&size, &round_break))) {
		/* An exactly sized, 8-aligned copy: ASan sees overreads. */
		struct perf_event_header *copy = malloc(size);

		if (!copy)
			abort();
		memcpy(copy, rec, size);
		CHECK(on_record(ring.t, 0, copy) == LIBBPF_PERF_EVENT_CONT);
		free(copy);
		ring.p += size;
	}
	if (!round_break)
		ring.p = ring.end;
	return 0;
}

void perf_buffer__free(struct perf_buffer *pb)
{
	(void)pb;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procs *procs = procs__new();
	struct tracker *t = calloc(1, sizeof(*t));
	int rounds = 0;

	if (!procs || !t)
		abort();
	t->procs = procs;
	t->map_fd = -1;
	ring.p = data;
	ring.end = data + size;
	ring.t = t;
	do {
		int err = tracker__consume(t);

		CHECK(err == 0 || err == -ENOMEM);
		CHECK(t->nevs == 0);
	} while (ring.p < ring.end && ++rounds < 64);
	tracker__lost(t);
	tracker__free(t);
	procs__free(procs);
	return 0;
}
