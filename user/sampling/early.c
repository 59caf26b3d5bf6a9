// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Early stacks: the ring read into a bounded queue. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "sampling/early.h"

struct early {
	struct ring_buffer *ring;
	struct early_stack *held[EARLY_HELD];	/* a FIFO: first at head */
	size_t head, n;
	size_t fresh;		/* the last ones, not tried by a take yet */
	early_fn *overflow;
	void *arg;
};

/* A record is as long as the stack it holds (bpf/early.bpf.h): kept so. */
static int on_record(void *ctx, void *data, size_t size)
{
	const size_t head = offsetof(struct early_stack, stack);
	const struct early_stack *rec = data;
	struct early *q = ctx;
	struct early_stack *e;

	if (size < head || size > sizeof(*e) || rec->len > size - head)
		return 0;	/* not ours: the ring holds one kind */
	if (q->n == EARLY_HELD) {	/* the oldest goes to be walked now */
		e = q->held[q->head];
		q->head = (q->head + 1) % EARLY_HELD;
		q->n--;
		q->overflow(e, q->arg);
		free(e);
		if (q->fresh > q->n)
			q->fresh = q->n;
	}
	e = malloc(head + rec->len);
	if (!e)
		return -ENOMEM;
	memcpy(e, data, head + rec->len);
	q->held[(q->head + q->n++) % EARLY_HELD] = e;
	q->fresh++;
	return 0;
}

int early__new(int ring_fd, early_fn *overflow, void *arg, struct early **out)
{
	struct early *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->overflow = overflow;
	q->arg = arg;
	q->ring = ring_buffer__new(ring_fd, on_record, q, NULL);
	if (!q->ring) {
		int err = -errno;

		free(q);
		return err;
	}
	*out = q;
	return 0;
}

int early__fd(const struct early *q)
{
	return q->ring ? ring_buffer__epoll_fd(q->ring) : -1;
}

int early__read(struct early *q)
{
	return q->ring ? ring_buffer__consume(q->ring) : 0;
}

void early__close_ring(struct early *q)
{
	ring_buffer__free(q->ring);
	q->ring = NULL;
}

size_t early__held(const struct early *q)
{
	return q->n;
}

bool early__holds(const struct early *q, pid_t tgid)
{
	for (size_t i = 0; i < q->n; i++)
		if (q->held[(q->head + i) % EARLY_HELD]->key.tgid == (__u32)tgid)
			return true;
	return false;
}

/* Tries the held stacks from index `from` on (of tgid; 0: all), compacted
 * in place, order kept; the fresh ones it tried are fresh no more. */
static void take_from(struct early *q, size_t from, pid_t tgid,
		      bool (*take)(const struct early_stack *e, void *arg), void *arg)
{
	size_t kept = from, fresh_from = q->n - q->fresh, fresh_kept = 0, i;

	for (i = from; i < q->n; i++) {
		struct early_stack *e = q->held[(q->head + i) % EARLY_HELD];
		bool tried = !tgid || e->key.tgid == (__u32)tgid;

		if (tried && take(e, arg)) {
			free(e);
			continue;
		}
		fresh_kept += i >= fresh_from && !tried;
		q->held[(q->head + kept++) % EARLY_HELD] = e;
	}
	q->n = kept;
	q->fresh = fresh_kept;
}

void early__take(struct early *q, pid_t tgid, bool (*take)(const struct early_stack *e, void *arg),
		 void *arg)
{
	take_from(q, 0, tgid, take, arg);
}

void early__take_fresh(struct early *q, bool (*take)(const struct early_stack *e, void *arg),
		       void *arg)
{
	take_from(q, q->n - q->fresh, 0, take, arg);
}

void early__free(struct early *q)
{
	if (!q)
		return;
	while (q->n) {
		free(q->held[q->head]);
		q->head = (q->head + 1) % EARLY_HELD;
		q->n--;
	}
	ring_buffer__free(q->ring);
	free(q);
}
