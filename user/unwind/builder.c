// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The table builder's thread: a queue in, a list out, one lock. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "unwind/builder.h"
#include "elf/elf_syms.h"

struct job {
	struct job *next;
	int fd;
	struct built r;
};

struct builder {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct job *queue, **queue_tail;	/* FIFO */
	struct job **urgent_tail;		/* where the next urgent job goes:
						 * after the urgent ones queued */
	struct job *done;			/* any order */
	size_t running;				/* 0 or 1: a job out of the queue, not done */
	bool stop;
	atomic_bool cancel;			/* the build under way stops */
	int done_fd;				/* eventfd: readable while done is not empty */
};

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void build(struct builder *b, struct job *j)
{
	const struct unwind_limits lim = { .cancel = &b->cancel };
	double t0 = seconds();

	j->r.es = elf_syms__open_layout_fd(j->fd);
	j->r.err = j->r.es ? unwind_table__build_limited(j->fd, &j->r.table, &lim) : -ENOEXEC;
	j->r.seconds = seconds() - t0;
	close(j->fd);
	j->fd = -1;
}

static void *run(void *arg)
{
	struct builder *b = arg;
	struct job *j;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		while (!b->stop && !b->queue)
			pthread_cond_wait(&b->wake, &b->lock);
		if (b->stop)
			break;
		j = b->queue;
		b->queue = j->next;
		if (b->urgent_tail == &j->next)
			b->urgent_tail = &b->queue;
		if (!b->queue)
			b->queue_tail = &b->queue;
		b->running = 1;
		pthread_mutex_unlock(&b->lock);
		build(b, j);
		pthread_mutex_lock(&b->lock);
		b->running = 0;
		j->next = b->done;
		b->done = j;
		/* the loop takes the table in now, not at its next timeout;
		 * fails only at a count of 2^64-2: readable already */
		(void)eventfd_write(b->done_fd, 1);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

int builder__new(struct builder **out)
{
	struct builder *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return -ENOMEM;
	b->queue_tail = &b->queue;
	b->urgent_tail = &b->queue;
	atomic_init(&b->cancel, false);
	b->done_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (b->done_fd < 0) {
		free(b);
		return -errno;
	}
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->wake, NULL);
	err = pthread_create(&b->thread, NULL, run, b);
	if (err) {
		pthread_cond_destroy(&b->wake);
		pthread_mutex_destroy(&b->lock);
		close(b->done_fd);
		free(b);
		return -err;
	}
	*out = b;
	return 0;
}

/* j (not queued) into the queue after the urgent jobs. */
static void queue_urgent(struct builder *b, struct job *j)
{
	j->next = *b->urgent_tail;
	*b->urgent_tail = j;
	if (b->queue_tail == b->urgent_tail)
		b->queue_tail = &j->next;
	b->urgent_tail = &j->next;
}

int builder__submit(struct builder *b, int fd, void *tag, bool urgent)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j) {
		close(fd);
		return -ENOMEM;
	}
	j->fd = fd;
	j->r.tag = tag;
	pthread_mutex_lock(&b->lock);
	if (urgent) {
		queue_urgent(b, j);
	} else {
		*b->queue_tail = j;
		b->queue_tail = &j->next;
	}
	pthread_cond_signal(&b->wake);
	pthread_mutex_unlock(&b->lock);
	return 0;
}

void builder__hurry(struct builder *b, const void *tag)
{
	struct job **at;

	pthread_mutex_lock(&b->lock);
	for (at = b->urgent_tail; *at && (*at)->r.tag != tag; at = &(*at)->next)
		;
	if (*at) {
		struct job *j = *at;

		*at = j->next;
		if (b->queue_tail == &j->next)
			b->queue_tail = at;
		queue_urgent(b, j);
	}
	pthread_mutex_unlock(&b->lock);
}

size_t builder__collect(struct builder *b, void (*done)(struct built *r, void *arg), void *arg)
{
	struct job *list, *next;
	eventfd_t ignored;
	size_t n = 0;

	pthread_mutex_lock(&b->lock);
	list = b->done;
	b->done = NULL;
	/* under the lock: a job done after this read writes it again;
	 * EAGAIN: none was done */
	(void)eventfd_read(b->done_fd, &ignored);
	pthread_mutex_unlock(&b->lock);
	for (; list; list = next, n++) {
		next = list->next;
		done(&list->r, arg);
		free(list);
	}
	return n;
}

int builder__fd(const struct builder *b)
{
	return b->done_fd;
}

bool builder__busy(struct builder *b)
{
	bool busy;

	pthread_mutex_lock(&b->lock);
	busy = b->queue || b->running;
	pthread_mutex_unlock(&b->lock);
	return busy;
}

static void free_jobs(struct job *list)
{
	struct job *next;

	for (; list; list = next) {
		next = list->next;
		if (list->fd >= 0)
			close(list->fd);
		unwind_table__free(&list->r.table);
		elf_syms__free(list->r.es);
		free(list);
	}
}

void builder__free(struct builder *b)
{
	if (!b)
		return;
	atomic_store(&b->cancel, true);
	pthread_mutex_lock(&b->lock);
	b->stop = true;
	pthread_cond_signal(&b->wake);
	pthread_mutex_unlock(&b->lock);
	pthread_join(b->thread, NULL);
	free_jobs(b->queue);
	free_jobs(b->done);
	pthread_cond_destroy(&b->wake);
	pthread_mutex_destroy(&b->lock);
	close(b->done_fd);
	free(b);
}
