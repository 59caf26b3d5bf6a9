// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The tracking side-band: perf records -> procs, in timestamp order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/grow.h"
#include "sampling/events.h"
#include "procs/proc_maps.h"
#include "procs/procs.h"
#include "procs/tracker.h"

#define TRACK_PAGES	64	/* per CPU: 256 KiB, ~2500 mmap records */

/* The tail every record carries with sample_id_all and TID|TIME. */
struct sample_id {
	__u32 pid, tid;
	__u64 time;
};

struct rec_mmap2 {
	struct perf_event_header h;
	__u32 pid, tid;
	__u64 addr, len, pgoff;
	__u32 maj, min;
	__u64 ino, ino_generation;
	__u32 prot, flags;
	char filename[];
};

struct rec_comm {
	struct perf_event_header h;
	__u32 pid, tid;
	char comm[];
};

struct rec_task {	/* PERF_RECORD_FORK, PERF_RECORD_EXIT */
	struct perf_event_header h;
	__u32 pid, ppid, tid, ptid;
	__u64 time;
};

struct rec_lost {
	struct perf_event_header h;
	__u64 id, lost;
};

/* A record, copied out of the ring until the round is sorted. */
struct track_event {
	__u32 type;
	__u32 pid, ppid;
	struct vma vma;		/* MMAP2; vma.time is the record's time */
};

struct tracker {
	struct procs *procs;
	struct perf_buffer *pb;
	int map_fd;
	struct track_event *evs;
	size_t nevs, cap;
	uint64_t lost;
	uint64_t lost_seen;	/* lost records already made up for */
	uint64_t last_reread;	/* CLOCK_MONOTONIC ns of the last /proc pass */
	int err;		/* first error inside the callback */
};

/* At most one pass over /proc a second, however many records are lost. */
#define REREAD_EVERY_NS	1000000000ull

static int push(struct tracker *t, const struct track_event *ev)
{
	if (GROW(t->evs, t->cap, t->nevs + 1))
		return -ENOMEM;
	t->evs[t->nevs++] = *ev;
	return 0;
}

static int take_mmap2(struct tracker *t, const struct perf_event_header *h, uint64_t time)
{
	const struct rec_mmap2 *r = (const void *)h;
	struct track_event ev = { .type = h->type, .pid = r->pid };
	size_t room, len;

	if (h->size <= sizeof(*r) + sizeof(struct sample_id))
		return 0;
	room = h->size - sizeof(*r) - sizeof(struct sample_id);
	len = strnlen(r->filename, room);
	if (len == room)	/* not terminated inside the record */
		return 0;
	ev.vma = (struct vma){
		.start = r->addr, .end = r->addr + r->len, .pgoff = r->pgoff,
		.dev_major = r->maj, .dev_minor = r->min, .ino = r->ino, .time = time,
		.path = strdup(r->filename),
	};
	if (ev.vma.path)	/* raw, but " (deleted)" may be the kernel's */
		vma_name__decode(ev.vma.path, false, (pid_t)r->pid, r->maj, r->min, r->ino);
	if (!ev.vma.path || push(t, &ev)) {
		free(ev.vma.path);
		return -ENOMEM;
	}
	return 0;
}

static int take(struct tracker *t, const struct perf_event_header *h)
{
	const struct sample_id *sid;
	struct track_event ev = { .type = h->type };

	if (h->size < sizeof(*h) + sizeof(*sid))
		return 0;
	sid = (const void *)((const char *)h + h->size - sizeof(*sid));
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		return take_mmap2(t, h, sid->time);
	case PERF_RECORD_COMM:
		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC))
			return 0;	/* a rename (prctl), not an exec */
		ev.pid = ((const struct rec_comm *)h)->pid;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		const struct rec_task *r = (const void *)h;

		if (h->size < sizeof(*r) + sizeof(*sid))
			return 0;
		if (r->pid == r->ppid && h->type == PERF_RECORD_FORK)
			return 0;	/* a new thread, same process */
		if (r->pid != r->tid && h->type == PERF_RECORD_EXIT)
			return 0;	/* a thread exits, the process goes on */
		ev.pid = r->pid;
		ev.ppid = r->ppid;
		break;
	}
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(struct rec_lost))
			t->lost += ((const struct rec_lost *)h)->lost;
		return 0;
	default:
		return 0;
	}
	ev.vma.time = sid->time;
	return push(t, &ev);
}

static enum bpf_perf_event_ret on_record(void *ctx, int cpu, struct perf_event_header *h)
{
	struct tracker *t = ctx;
	int err;

	(void)cpu;
	err = take(t, h);
	if (err && !t->err)
		t->err = err;
	return LIBBPF_PERF_EVENT_CONT;
}

static int cmp_time(const void *a, const void *b)
{
	const struct track_event *ea = a, *eb = b;

	return (ea->vma.time > eb->vma.time) - (ea->vma.time < eb->vma.time);
}

static int apply(struct procs *procs, const struct track_event *ev)
{
	switch (ev->type) {
	case PERF_RECORD_MMAP2:
		return procs__mmap(procs, ev->pid, &ev->vma);
	case PERF_RECORD_COMM:
		return procs__exec(procs, ev->pid, ev->vma.time);
	case PERF_RECORD_FORK:
		return procs__fork(procs, ev->ppid, ev->pid, ev->vma.time);
	default:
		return procs__exit(procs, ev->pid, ev->vma.time);
	}
}

/* Records were lost (the buffers overflowed on a machine busy mapping
 * files): which process mapped what is no longer known from them, so
 * every running process's mappings are read again from /proc (each one
 * read is synced again by the unwinder). Without it, a process whose exec
 * or mmap records were lost had none of its frames named, for good. */
static void reread_after_loss(struct tracker *t)
{
	uint64_t now;

	if (t->lost == t->lost_seen)
		return;
	now = procs__now();
	if (t->last_reread && now < t->last_reread + REREAD_EVERY_NS)
		return;
	t->lost_seen = t->lost;
	t->last_reread = now;
	procs__synthesize_all(t->procs);	/* a process gone meanwhile is no error */
}

int tracker__consume(struct tracker *t)
{
	size_t i;
	int err;

	err = perf_buffer__consume(t->pb);
	if (err < 0)
		return err;
	/* One process's records can sit in several CPUs' buffers: sort the
	 * round by time so fork, exec and mmap apply in the order they happened. */
	if (t->nevs)
		qsort(t->evs, t->nevs, sizeof(*t->evs), cmp_time);
	for (i = 0; i < t->nevs; i++) {
		if (!err)
			err = apply(t->procs, &t->evs[i]);
		free(t->evs[i].vma.path);
	}
	t->nevs = 0;
	if (!err)
		err = t->err;
	t->err = 0;
	if (!err)
		reread_after_loss(t);
	return err;
}

int tracker__start(struct procs *procs, bool prompt, struct tracker **out)
{
	struct perf_event_attr attr;
	struct tracker *t;
	int ncpus = libbpf_num_possible_cpus(), err;

	if (ncpus <= 0)
		return ncpus ? ncpus : -ENODEV;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->procs = procs;
	t->map_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "bpfprof_track",
				   sizeof(int), sizeof(int), ncpus, NULL);
	if (t->map_fd < 0) {
		err = -errno;
		fprintf(stderr, "bpfprof: cannot create the tracking map: %s\n", strerror(-err));
		goto fail;
	}
	events_tracking_attr(&attr);
	/* wake up when a buffer is a quarter full; the main loop polls anyway */
	attr.wakeup_watermark = prompt ? 1 : TRACK_PAGES * getpagesize() / 4;
	t->pb = perf_buffer__new_raw(t->map_fd, TRACK_PAGES, &attr, on_record, t, NULL);
	if (!t->pb) {
		err = -errno;
		fprintf(stderr, "bpfprof: cannot open the process tracking events: %s\n",
			events__strerror(NULL, err));
		goto fail;
	}
	*out = t;
	return 0;
fail:
	tracker__free(t);
	return err;
}

int tracker__fd(const struct tracker *t)
{
	return perf_buffer__epoll_fd(t->pb);
}

uint64_t tracker__lost(const struct tracker *t)
{
	return t->lost;
}

void tracker__free(struct tracker *t)
{
	size_t i;

	if (!t)
		return;
	perf_buffer__free(t->pb);
	if (t->map_fd >= 0)
		close(t->map_fd);
	for (i = 0; i < t->nevs; i++)
		free(t->evs[i].vma.path);
	free(t->evs);
	free(t);
}
