// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The run's signals: a signalfd while sampling, an abort after. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>

#include "base/errors.h"
#include "run/signals.h"
#include "views/term.h"

/* Once profiling has stopped, a signal aborts the write: the second
 * Ctrl-C when a signal stopped it, the second one otherwise... */
static volatile sig_atomic_t signals_to_abort;
static struct timespec abort_armed_at;		/* ... not one in the first moment: */
#define SAME_REQUEST_NS		200000000	/* timeout(1) signals the process and
						 * its group, a shell's kill the job:
						 * one request, two deliveries */
static volatile sig_atomic_t command_pid;	/* ... and kills the command at once */
static int abort_tmp_dirfd = -1;		/* ... and removes -o's temporary */
static const char *abort_tmp_name;

static bool same_request(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - abort_armed_at.tv_sec) * 1000000000LL +
	       (now.tv_nsec - abort_armed_at.tv_nsec) < SAME_REQUEST_NS;
}

static void abort_run(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	if (same_request() || --signals_to_abort > 0)
		return;
	if (command_pid > 0)
		kill(command_pid, SIGKILL);
	term__restore();	/* bpfprof top's terminal */
	if (abort_tmp_name)
		unlinkat(abort_tmp_dirfd, abort_tmp_name, 0);
	if (p_err_signal_safe("aborted by a second signal: no profile written"))
		_exit(1);
	/* die of the signal itself, as the shell expects of ^C */
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig);
}

void signals__abort_kills(pid_t command)
{
	command_pid = command;
}

/* The loop that read SIGINT and SIGTERM through the signalfd is over. */
void signals__arm_abort(int more, int tmp_dirfd, const char *tmp_name)
{
	struct sigaction sa = { .sa_handler = abort_run, .sa_flags = SA_NODEFER };
	sigset_t mask;

	signals_to_abort = more;
	clock_gettime(CLOCK_MONOTONIC, &abort_armed_at);
	abort_tmp_dirfd = tmp_dirfd;
	abort_tmp_name = tmp_name;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigprocmask(SIG_UNBLOCK, &mask, NULL))
		p_warn("cannot arm the abort signal: %s",
			strerror(errno));
}

bool signals__stop_pending(void)
{
	sigset_t pending;

	return !sigpending(&pending) &&
	       (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1);
}

/* SIGCHLD for a command; the main loop sees them all between polls. */
int signals__block(bool top, sigset_t *old_mask)
{
	sigset_t mask;
	int fd;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);	/* a snapshot */
	sigaddset(&mask, SIGWINCH);	/* top: draw at the new size */
	if (top)
		sigaddset(&mask, SIGTSTP);	/* top: the terminal back, then stop */
	if (sigprocmask(SIG_BLOCK, &mask, old_mask))
		return -errno;
	fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0) {
		p_err("signalfd: %s", strerror(errno));
		return -errno;
	}
	return fd;
}
