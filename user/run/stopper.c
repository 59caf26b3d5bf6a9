// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The main loop hears a signal and sees the run's end between turns; an
 * interval's write is one turn, and a loaded machine stretches it: at load
 * 28 a whole-system write took 1.7 s, and SIGTERM sent during it was
 * heard 1,763 ms later; a -d 3 run sampled 4.6 s. This thread stops
 * sampling at the signal or the end whatever the main thread is doing:
 * the profile ends there (the collect takes the stop's time as its end),
 * and the main loop writes it once its turn is over.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "base/errors.h"
#include "run/signals.h"
#include "run/stopper.h"
#include "sampling/session.h"

#define PENDING_PAUSE_MS	50	/* another signal pending (the main loop's) */

struct stopper {
	struct session *session;
	int sig_fd, quit_fd;
	uint64_t end_ns;
	pthread_t thread;
};

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* poll()'s timeout until end_ns: -1 without one, 0 once it passed */
static int ms_until(uint64_t end_ns)
{
	uint64_t now = mono_now();

	if (end_ns == UINT64_MAX)
		return -1;
	if (now >= end_ns)
		return 0;
	return (end_ns - now) / 1000000 > 3600000 ? 3600000 : (int)((end_ns - now) / 1000000) + 1;
}

static void *watch(void *arg)
{
	struct stopper *st = arg;
	struct pollfd fds[] = {
		{ .fd = st->quit_fd, .events = POLLIN },
		{ .fd = st->sig_fd, .events = POLLIN },
	};

	for (;;) {
		int n = poll(fds, 2, ms_until(st->end_ns));

		if (n < 0 && errno != EINTR)
			return NULL;
		if (fds[0].revents)
			return NULL;
		if (mono_now() >= st->end_ns || signals__stop_pending()) {
			session__stop(st->session);
			return NULL;
		}
		/* a signal the main loop reads (SIGCHLD, SIGUSR1) stays
		 * readable until it does: not a busy loop meanwhile */
		if (fds[1].revents)
			poll(fds, 1, PENDING_PAUSE_MS);
	}
}

int stopper__start(struct session *s, int sig_fd, uint64_t end_ns, struct stopper **out)
{
	struct stopper *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return -ENOMEM;
	*st = (struct stopper){ .session = s, .sig_fd = sig_fd, .end_ns = end_ns };
	st->quit_fd = eventfd(0, EFD_CLOEXEC);
	if (st->quit_fd < 0) {
		err = -errno;
		free(st);
		return err;
	}
	err = pthread_create(&st->thread, NULL, watch, st);
	if (err) {
		p_err("cannot start the stop watcher: %s", strerror(err));
		close(st->quit_fd);
		free(st);
		return -err;
	}
	*out = st;
	return 0;
}

void stopper__free(struct stopper *st)
{
	uint64_t one = 1;

	if (!st)
		return;
	if (write(st->quit_fd, &one, sizeof(one)) != sizeof(one))
		p_warn("stop watcher: %s", strerror(errno));	/* it ends at the stop anyway */
	pthread_join(st->thread, NULL);
	close(st->quit_fd);
	free(st);
}
