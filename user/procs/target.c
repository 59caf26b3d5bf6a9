// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Starting the profiled command: fork, hold it until the profiler is
 * attached, then exec, with exec failures reported back over a pipe. */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "procs/target.h"

static void child(char *const argv[], const sigset_t *mask, int go_rd, int err_wr)
{
	char c;
	int e;

	sigprocmask(SIG_SETMASK, mask, NULL);
	/* EOF on the go pipe: the parent is ready, or gone (then do not run) */
	while (read(go_rd, &c, 1) < 0 && errno == EINTR)
		;
	if (getppid() == 1)
		_exit(127);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) != sizeof(e))
		_exit(126);
	_exit(127);
}

int command__spawn(char *const argv[], const sigset_t *mask, struct command *c)
{
	int go[2], err[2];

	memset(c, 0, sizeof(*c));
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		return e;
	}
	c->pid = fork();
	if (c->pid < 0) {
		int e = -errno;

		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		return e;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(err[0]);
		child(argv, mask, go[0], err[1]);
	}
	close(go[0]);
	close(err[1]);
	c->go_fd = go[1];
	c->err_fd = err[0];
	return 0;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void reap(struct command *c)
{
	while (!c->reaped && waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
		;
	c->reaped = true;
}

int command__release(struct command *c)
{
	ssize_t n;
	int e = 0;

	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == sizeof(e)) {
		reap(c);
		return -(e ? e : ENOEXEC);
	}
	return 0;
}

bool command__exited(struct command *c)
{
	pid_t r;

	if (c->reaped)
		return true;
	r = waitpid(c->pid, &c->status, WNOHANG);
	if (r == c->pid)
		c->reaped = true;
	return c->reaped;
}

void command__terminate(struct command *c)
{
	if (c->go_fd >= 0 || c->reaped || c->pid <= 0 || c->terminated_ns)
		return;	/* never started (command__end kills it), gone, or asked */
	kill(c->pid, SIGTERM);
	c->terminated_ns = monotonic_ns();
}

void command__end(struct command *c, double grace)
{
	uint64_t deadline;

	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (c->reaped || c->pid <= 0)
		return;
	command__terminate(c);
	deadline = c->terminated_ns ? c->terminated_ns + (uint64_t)(grace * 1e9) : 0;
	while (!command__exited(c) && monotonic_ns() < deadline)
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000000 }, NULL);
	if (!c->reaped) {
		kill(c->pid, SIGKILL);
		c->killed = true;
		reap(c);
	}
}

int command__exit_status(const struct command *c)
{
	if (!c->reaped)
		return -1;
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return WIFEXITED(c->status) ? WEXITSTATUS(c->status) : -1;
}

int id_start_ticks(pid_t id, uint64_t *ticks)
{
	char path[32], buf[1024], *p;
	unsigned long long v;
	int fd, field;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	/* the name (field 2) may hold anything but ends at the last ')' */
	p = strrchr(buf, ')');
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &v) != 1)
		return -ESRCH;
	*ticks = v;
	return 0;
}
