// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The tracking side-band: perf records -> procs, in timestamp order.
 *
 * The kernel's per-CPU buffers are shared by every process's records: when
 * they overflow, anyone's fork, exec or mmap is lost. So they are read by a
 * thread of their own, whatever the main loop is busy with (a drain, table
 * loads, a write), into a queue the main loop applies; each process's mmap
 * and exec records held to a budget a second (track_budget.h), so one
 * process mapping files in a loop costs a header's read a record, not a
 * mapping entered, and cannot fill the queue. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/errors.h"
#include "base/grow.h"
#include "sampling/events.h"
#include "procs/proc_maps.h"
#include "procs/procs.h"
#include "procs/track_budget.h"
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
	int wake_fd;		/* eventfd: records queued for the main loop */
	int stop_fd;		/* eventfd: the reader thread is to end */
	int wait_fd;		/* the reader's epoll: the buffers' and stop_fd */
	pthread_t reader;
	bool reading;		/* the reader thread runs */
	/* lock: the buffers' reading, and all below up to the budget */
	pthread_mutex_t lock;
	struct track_event *evs;
	size_t nevs, cap;
	_Atomic uint64_t lost;	/* by the kernel, or past the queue's bound */
	uint64_t lost_seen;	/* lost records already made up for */
	bool reread_all;	/* too many processes held to their budget */
	uint64_t last_reread;	/* CLOCK_MONOTONIC ns of the last /proc pass */
	int err;		/* first error inside the callback */
	struct track_budget budget;	/* per process and second */
	struct track_flood flood;	/* the busiest sender, named */
};

/* At most one pass over /proc a second, however many records are lost. */
#define REREAD_EVERY_NS	1000000000ull
/* Records queued while the main loop is busy: past it they are lost,
 * counted (the budget keeps one process's flood from filling it). */
#define QUEUE_MAX	(1u << 17)

static int push(struct tracker *t, const struct track_event *ev)
{
	if (t->nevs >= QUEUE_MAX) {
		t->lost++;
		return 1;	/* not queued */
	}
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
	int err;

	if (h->size <= sizeof(*r) + sizeof(struct sample_id))
		return 0;
	if (!track_budget__take(&t->budget, (pid_t)r->pid, time))
		return 0;	/* past its budget: read again after this second */
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
	err = ev.vma.path ? push(t, &ev) : -ENOMEM;
	if (err)
		free(ev.vma.path);
	return err < 0 ? err : 0;
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
		if (!track_budget__take(&t->budget, (pid_t)ev.pid, sid->time))
			return 0;
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
		if (h->type == PERF_RECORD_FORK)	/* the parent's doing */
			track_budget__count(&t->budget, (pid_t)r->ppid, sid->time);
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
	return push(t, &ev) < 0 ? -ENOMEM : 0;
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
	uint64_t now, lost = tracker__lost(t);

	if (lost == t->lost_seen && !t->reread_all)
		return;
	now = procs__now();
	if (t->last_reread && now < t->last_reread + REREAD_EVERY_NS)
		return;
	t->lost_seen = lost;
	t->reread_all = false;
	t->last_reread = now;
	procs__synthesize_all(t->procs);	/* a process gone meanwhile is no error */
}

/* The busiest sender, named once it changed (its comm now: the process
 * may be gone, then "?"). */
static void name_flooder(struct tracker *t)
{
	struct track_sender busiest, *top = &busiest;
	char path[40];
	FILE *f;

	pthread_mutex_lock(&t->lock);
	busiest = t->budget.busiest;
	pthread_mutex_unlock(&t->lock);
	if (top->pid == t->flood.pid && top->n == t->flood.per_sec)
		return;
	if (top->pid != t->flood.pid) {
		snprintf(t->flood.comm, sizeof(t->flood.comm), "?");
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)top->pid);
		f = fopen(path, "re");
		if (f) {
			if (fgets(t->flood.comm, sizeof(t->flood.comm), f))
				t->flood.comm[strcspn(t->flood.comm, "\n")] = '\0';
			fclose(f);
		}
	}
	t->flood.pid = top->pid;
	t->flood.per_sec = top->n;
}

/* The processes held to their budget in a second that is over are read
 * again from /proc: what their skipped records would have said. */
static void reread_held_back(struct tracker *t, const pid_t *due, int n)
{
	if (n < 0)	/* too many to list: as after a loss */
		t->reread_all = true;
	for (int i = 0; i < n; i++)
		procs__synthesize(t->procs, due[i]);	/* gone meanwhile: no error */
	if (t->flood.skipped || tracker__lost(t))
		name_flooder(t);
}

/* What the buffers hold now, queued (t->lock held). */
static int read_buffers(struct tracker *t)
{
	int err = perf_buffer__consume(t->pb);

	return err < 0 ? err : 0;
}

/* An eventfd signalled, or its signals taken: what failed (EAGAIN: the
 * counter full, or nothing signalled) needs nothing more. */
static void signal_fd(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

static void take_signals(int fd)
{
	uint64_t n;

	if (read(fd, &n, sizeof(n)) < 0)
		return;
}

static void *reader(void *arg)
{
	struct tracker *t = arg;
	struct epoll_event ev[2];
	size_t before;
	int n;

	for (;;) {
		/* no timeout: what stays under a buffer's watermark, the
		 * main loop reads at its next turn (tracker__consume) */
		n = epoll_wait(t->wait_fd, ev, 2, -1);
		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++)
			if (ev[i].data.fd == t->stop_fd)
				return NULL;
		pthread_mutex_lock(&t->lock);
		before = t->nevs;
		if (read_buffers(t) && !t->err)
			t->err = -EIO;
		/* prompt: a new process's tables go in at once; else when a
		 * quarter of a buffer filled, as the kernel woke us */
		if (t->nevs > before)
			signal_fd(t->wake_fd);
		pthread_mutex_unlock(&t->lock);
	}
	return NULL;
}

/* The queue taken out of the lock, with the latest records and what the
 * callbacks met; the budget's processes due for a read. */
static int take_queue(struct tracker *t, struct track_event **evs, size_t *n, pid_t *due,
		      int *ndue)
{
	int err;

	take_signals(t->wake_fd);
	pthread_mutex_lock(&t->lock);
	err = read_buffers(t);
	*evs = t->evs;
	*n = t->nevs;
	t->evs = NULL;
	t->nevs = t->cap = 0;
	if (!err)
		err = t->err;
	t->err = 0;
	*ndue = track_budget__due(&t->budget, procs__now(), due);
	t->flood.skipped = t->budget.skipped;
	pthread_mutex_unlock(&t->lock);
	return err;
}

int tracker__consume(struct tracker *t)
{
	pid_t due[2 * TRACK_OVER_MAX];
	struct track_event *evs;
	size_t i, n;
	int err, ndue;

	err = take_queue(t, &evs, &n, due, &ndue);
	/* One process's records can sit in several CPUs' buffers: sort the
	 * round by time so fork, exec and mmap apply in the order they happened. */
	if (n)
		qsort(evs, n, sizeof(*evs), cmp_time);
	for (i = 0; i < n; i++) {
		if (!err)
			err = apply(t->procs, &evs[i]);
		free(evs[i].vma.path);
	}
	free(evs);
	if (!err)
		reread_held_back(t, due, ndue);
	if (!err)
		reread_after_loss(t);
	return err;
}

static int watch(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* The reader thread, signals blocked (the main loop takes them), waiting
 * on the buffers and on stop_fd. */
static int start_reader(struct tracker *t)
{
	sigset_t all, old;
	int err;

	t->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	t->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	t->wait_fd = epoll_create1(EPOLL_CLOEXEC);
	if (t->wake_fd < 0 || t->stop_fd < 0 || t->wait_fd < 0)
		return -errno;
	err = watch(t->wait_fd, perf_buffer__epoll_fd(t->pb));
	if (!err)
		err = watch(t->wait_fd, t->stop_fd);
	if (err)
		return err;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&t->reader, NULL, reader, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	t->reading = !err;
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
	t->wake_fd = t->stop_fd = t->wait_fd = -1;
	pthread_mutex_init(&t->lock, NULL);
	track_budget__init(&t->budget, TRACK_BUDGET_PER_SEC);
	t->map_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "bpfprof_track",
				   sizeof(int), sizeof(int), ncpus, NULL);
	if (t->map_fd < 0) {
		err = -errno;
		p_err("cannot create the tracking map: %s", strerror(-err));
		goto fail;
	}
	events_tracking_attr(&attr);
	/* wake up when a buffer is a quarter full; the main loop polls anyway */
	attr.wakeup_watermark = prompt ? 1 : TRACK_PAGES * getpagesize() / 4;
	t->pb = perf_buffer__new_raw(t->map_fd, TRACK_PAGES, &attr, on_record, t, NULL);
	if (!t->pb) {
		err = -errno;
		p_err("cannot open the process tracking events: %s", events__strerror(NULL, err));
		goto fail;
	}
	err = start_reader(t);
	if (err) {
		p_err("cannot start reading process tracking events: %s", strerror(-err));
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
	return t->wake_fd;
}

uint64_t tracker__lost(const struct tracker *t)
{
	return t->lost;
}

void tracker__flood(const struct tracker *t, struct track_flood *out)
{
	*out = t->flood;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

void tracker__free(struct tracker *t)
{
	size_t i;

	if (!t)
		return;
	if (t->reading) {
		signal_fd(t->stop_fd);	/* a fresh eventfd's first write */
		pthread_join(t->reader, NULL);
	}
	close_fd(t->wake_fd);
	close_fd(t->stop_fd);
	close_fd(t->wait_fd);
	pthread_mutex_destroy(&t->lock);
	perf_buffer__free(t->pb);
	if (t->map_fd >= 0)
		close(t->map_fd);
	for (i = 0; i < t->nevs; i++)
		free(t->evs[i].vma.path);
	free(t->evs);
	free(t);
}
