/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The run's signals: read through a signalfd while sampling (no handler
 * touches state); once profiling has stopped, a further SIGINT/SIGTERM
 * aborts the write. */
#ifndef BPFPROF_SIGNALS_H
#define BPFPROF_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* Blocks SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1 (a snapshot), SIGWINCH
 * (and SIGTSTP for bpfprof top) and returns a signalfd that reads them, or
 * -errno (said). The mask before is left in old_mask. */
int signals__block(bool top, sigset_t *old_mask);

/* The command an abort kills at once (0: none). */
void signals__abort_kills(pid_t command);

/* From now on SIGINT and SIGTERM are handled as they come: `more` of them
 * (not counting those in the first moment: one request delivered twice)
 * abort: the command killed, the terminal put back, tmp_name (in
 * tmp_dirfd; NULL: none) removed, and bpfprof dies of the signal. */
void signals__arm_abort(int more, int tmp_dirfd, const char *tmp_name);

/* Whether SIGINT or SIGTERM waits (blocked, not read yet from the
 * signalfd): long work asks it to yield, the loop then reads it. */
bool signals__stop_pending(void);

#endif
