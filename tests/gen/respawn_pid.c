// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * respawn_pid PID COMMAND [ARGS...]: runs COMMAND as a new process with
 * exactly the pid PID (clone3's set_tid, root in the initial pid
 * namespace), to reuse the pid of a process that just exited; waits for it
 * and exits with its status. Exit 3 when the pid cannot be had (in use).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t want, child;
	struct clone_args args = { .exit_signal = SIGCHLD, .set_tid_size = 1 };
	int status;

	if (argc < 3) {
		fprintf(stderr, "usage: respawn_pid PID COMMAND [ARGS...]\n");
		return 2;
	}
	want = (pid_t)atoi(argv[1]);
	args.set_tid = (uint64_t)(uintptr_t)&want;
	child = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
	if (child < 0) {
		fprintf(stderr, "respawn_pid: clone3 pid %d: %s\n", want, strerror(errno));
		return 3;
	}
	if (child == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (waitpid(child, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
