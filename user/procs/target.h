/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The processes a run profiles: a command bpfprof starts, or -p pids. */
#ifndef BPFPROF_TARGET_H
#define BPFPROF_TARGET_H

#include <stdbool.h>
#include <signal.h>
#include <sys/types.h>

struct command {
	pid_t pid;
	int go_fd;	/* write end: closing it lets the child exec */
	int err_fd;	/* read end: the child's exec errno, or EOF on success */
	int status;	/* wait status once reaped */
	bool reaped;
};

/* Forks a child that waits, with the signal mask `mask`, until
 * command__release() before it execs argv. Returns 0 or -errno. */
int command__spawn(char *const argv[], const sigset_t *mask, struct command *c);

/* Lets the child exec. Returns 0, or -errno when the exec failed (the child
 * has then exited and is reaped). */
int command__release(struct command *c);

/* Reaps the child if it has exited; true once it has. */
bool command__exited(struct command *c);

/* Kills (SIGKILL) and reaps a child that has not exec'd or is unwanted. */
void command__kill(struct command *c);

/* Whether a process with this pid exists (ours to signal or not). */
bool pid_exists(pid_t pid);

#endif
