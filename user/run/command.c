// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The `-- cmd` a run starts: held before its exec while the BPF side and
 * its unwind tables are made ready, released, ended with the run. */
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "procs/linked.h"
#include "procs/procs.h"
#include "run/run_state.h"
#include "unwind/unwind.h"

int run__spawn_command(struct run *r)
{
	int err = command__spawn(r->cfg->cmd, &r->old_mask, &r->cmd);

	r->have_cmd = !err;
	if (err)
		p_err("cannot start '%s': %s", r->cfg->cmd[0], strerror(-err));
	return err;
}

/* exe's table and those of the libraries it links: built before the
 * command starts. */
static void preload_linked(struct run *r, const char *exe)
{
	char **libs;
	int n = linked__libs(exe, &libs);

	unwinder__preload(r->unwinder, exe);
	for (int i = 0; i < n; i++) {
		unwinder__preload(r->unwinder, libs[i]);
		free(libs[i]);
	}
	if (n >= 0)
		free(libs);
}

/* The command's own executable, as execvp() will find it, and what it
 * links: their tables are built before it starts, so its first samples
 * unwind too. */
static void preload_executable(struct run *r)
{
	const char *name = r->cfg->cmd[0];
	char path[PATH_MAX];

	if (strchr(name, '/'))
		preload_linked(r, name);
	else if (linked__find(getenv("PATH"), NULL, name, X_OK, path))
		preload_linked(r, path);
}

/* The tables preloaded for a command are built before it starts (at most
 * PRELOAD_WAIT_MS; a signal ends the wait, and the loop then reads it), so
 * its first samples unwind. -p's processes run already: not waited for. */
#define PRELOAD_WAIT_MS	2000

static void wait_tables(struct run *r)
{
	struct pollfd pfd[2] = {
		{ .fd = r->sig_fd, .events = POLLIN },
		/* a table built wakes the wait: polling every 20 ms cost the
		 * command up to 20 ms of its start */
		{ .fd = unwinder__fd(r->unwinder), .events = POLLIN },
	};
	uint64_t deadline = procs__now() + PRELOAD_WAIT_MS * 1000000ull, now;

	while (unwinder__busy(r->unwinder) && (now = procs__now()) < deadline) {
		if (poll(pfd, 2, (int)((deadline - now) / 1000000 + 1)) <= 0 || pfd[0].revents)
			break;
		unwinder__sync(r->unwinder, r->procs, r->roots, r->nroots);
	}
	unwinder__sync(r->unwinder, r->procs, r->roots, r->nroots);
}

void run__preload_command(struct run *r)
{
	preload_executable(r);
	wait_tables(r);
}

int run__release_command(struct run *r)
{
	int err = command__release(&r->cmd);

	if (err)
		p_err("cannot execute '%s': %s", r->cfg->cmd[0],
			strerror(-err));
	return err;
}

void run__end_command(struct run *r)
{
	command__end(&r->cmd, r->cfg->kill_after);
	if (r->cmd.killed)
		p_err("'%s' (pid %d) still ran %g s after SIGTERM: "
			"killed (SIGKILL)", r->cfg->cmd[0], (int)r->cmd.pid,
			r->cfg->kill_after);
}
