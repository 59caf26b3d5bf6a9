/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The processes a run profiles: a command bpfprof starts, or -p pids. */
#ifndef BPFPROF_TARGET_H
#define BPFPROF_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

struct command {
	pid_t pid;
	int go_fd;	/* write end: closing it lets the child exec */
	int err_fd;	/* read end: the child's exec errno, or EOF on success */
	int status;	/* wait status once reaped */
	bool reaped;
	bool killed;	/* SIGKILLed: the grace period after SIGTERM ran out */
	uint64_t terminated_ns;	/* CLOCK_MONOTONIC when SIGTERM was sent, 0: not sent */
};

/* Forks a child that waits, with the signal mask `mask`, until
 * command__release() before it execs argv. Returns 0 or -errno. */
int command__spawn(char *const argv[], const sigset_t *mask, struct command *c);

/* Lets the child exec. Returns 0, or -errno when the exec failed (the child
 * has then exited and is reaped). */
int command__release(struct command *c);

/* Reaps the child if it has exited; true once it has. */
bool command__exited(struct command *c);

/* Asks a running command to end: SIGTERM, once. */
void command__terminate(struct command *c);

/* Ends and reaps the command: SIGTERM if not yet sent, then SIGKILL if it
 * is still running `grace` seconds after the SIGTERM. A command that was
 * never released is killed at once. */
void command__end(struct command *c, double grace);

/* The command's status as a shell gives it: its exit code, or 128+N when
 * signal N killed it; -1 while it has not been reaped. */
int command__exit_status(const struct command *c);


/* When the process or thread id started, as /proc/ID/stat says (field 22:
 * clock ticks since boot): with the id, what tells it from a later one
 * reusing the id. Returns 0, or -ESRCH when there is none. */
int id_start_ticks(pid_t id, uint64_t *ticks);

#endif
