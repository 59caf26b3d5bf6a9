/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A thread that stops sampling at a stop signal or the run's end while the
 * main loop is busy (an interval's write). */
#ifndef BPFPROF_STOPPER_H
#define BPFPROF_STOPPER_H

#include <stdint.h>

struct session;
struct stopper;

/* Watches sig_fd (the run's signalfd, not read here) for SIGINT or SIGTERM
 * and the clock for end_ns (CLOCK_MONOTONIC; UINT64_MAX: none); at either
 * it stops the session. The signal stays pending for the main loop. */
int stopper__start(struct session *s, int sig_fd, uint64_t end_ns, struct stopper **out);

/* Ends the thread (before the session's own stop and destroy). */
void stopper__free(struct stopper *st);

#endif
