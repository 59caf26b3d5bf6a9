// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bpfprof: sample stacks with eBPF, write folded stacks.
 *
 * sample (bpf/profile.bpf.c) -> maps -> drain -> symbolize -> aggregate -> emit.
 * This file only wires the rooms together and owns the run's state.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>

#include <bpf/libbpf.h>

#include "aggregate.h"
#include "cli.h"
#include "drain.h"
#include "folded.h"
#include "ksyms.h"
#include "procs.h"
#include "resolve.h"
#include "session.h"
#include "symbolizer.h"
#include "target.h"
#include "tracker.h"

#define POLL_MS		200	/* how often tracking records are read at least */

/* Everything one run owns. */
struct run {
	const struct config *cfg;
	FILE *out;
	sigset_t old_mask;
	int sig_fd;
	struct command cmd;
	bool have_cmd;
	struct session *session;
	struct procs *procs;
	struct tracker *tracker;
	uint64_t start_ns, stop_ns;
	const char *stop_reason;
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level; (void)fmt; (void)ap;
	return 0;
}

/* Opened before profiling so that a bad path fails now, not after the run.
 * O_NOFOLLOW: as root, never write through a planted symlink. */
static int open_output(struct run *r)
{
	int fd;

	if (!r->cfg->output) {
		r->out = stdout;
		return 0;
	}
	fd = open(r->cfg->output, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0)
		r->out = fdopen(fd, "w");
	if (!r->out) {
		fprintf(stderr, "bpfprof: cannot write %s: %s\n", r->cfg->output, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	return 0;
}

/* SIGINT/SIGTERM (and SIGCHLD for a command) arrive through a signalfd, so
 * the main loop sees them between polls and no handler touches state. */
static int block_signals(struct run *r)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &mask, &r->old_mask))
		return -errno;
	r->sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r->sig_fd < 0) {
		fprintf(stderr, "bpfprof: signalfd: %s\n", strerror(errno));
		return -errno;
	}
	return 0;
}

static int check_pids(const struct config *cfg)
{
	int i;

	for (i = 0; i < cfg->npids; i++) {
		if (pid_exists(cfg->pids[i])) {
			fprintf(stderr, "bpfprof: no such process: %d\n", cfg->pids[i]);
			return -ESRCH;
		}
	}
	return 0;
}

static int load(struct run *r)
{
	const struct config *cfg = r->cfg;
	struct session_opts opts = {
		.freq = cfg->freq, .sides = cfg->sides, .btf_path = cfg->btf_path,
		.max_stacks = cfg->max_stacks,
		.filter_tgids = cfg->npids > 0 || cfg->cmd,
	};
	int i, err;

	err = session__load(&opts, &r->session);
	for (i = 0; !err && i < cfg->npids; i++)
		err = session__add_tgid(r->session, cfg->pids[i]);
	if (!err && r->have_cmd)
		err = session__add_tgid(r->session, r->cmd.pid);
	return err;
}

/* The processes already running are read from /proc now: one that exits
 * before the end is then still known. Later ones come from the tracker. */
static int start_tracking(struct run *r)
{
	int i, err;

	r->procs = procs__new();
	if (!r->procs)
		return -ENOMEM;
	err = tracker__start(r->procs, &r->tracker);
	if (err)
		return err;
	if (r->cfg->cmd)
		return 0;
	if (!r->cfg->npids)
		return procs__synthesize_all(r->procs) < 0 ? -errno : 0;
	for (i = 0; i < r->cfg->npids; i++)
		procs__synthesize(r->procs, r->cfg->pids[i]);
	return 0;
}

static int start(struct run *r)
{
	int err;

	err = session__start(r->session);
	if (!err && r->have_cmd) {
		err = command__release(&r->cmd);
		if (err)
			fprintf(stderr, "bpfprof: cannot execute '%s': %s\n", r->cfg->cmd[0],
				strerror(-err));
	}
	if (!err)
		r->start_ns = procs__now();
	return err;
}

static bool pids_gone(const struct config *cfg)
{
	int i;

	for (i = 0; i < cfg->npids; i++)
		if (pid_exists(cfg->pids[i]) == 0)
			return false;
	return cfg->npids > 0;
}

/* Why to stop now, or NULL to go on. */
static const char *check_signals(struct run *r)
{
	struct signalfd_siginfo si;
	const char *why = NULL;

	while (read(r->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM)
			why = si.ssi_signo == SIGINT ? "interrupted" : "terminated";
	}
	if (!why && r->have_cmd && command__exited(&r->cmd))
		why = "command exited";
	return why;
}

static int wait_loop(struct run *r)
{
	uint64_t deadline = r->cfg->duration > 0 ?
		r->start_ns + (uint64_t)(r->cfg->duration * 1e9) : UINT64_MAX;
	struct pollfd fds[2] = {
		{ .fd = r->sig_fd, .events = POLLIN },
		{ .fd = tracker__fd(r->tracker), .events = POLLIN },
	};
	int err;

	for (;;) {
		uint64_t now = procs__now();
		int timeout = POLL_MS;

		if (now >= deadline) {
			r->stop_reason = "duration reached";
			return 0;
		}
		if (deadline - now < (uint64_t)POLL_MS * 1000000)
			timeout = (int)((deadline - now) / 1000000) + 1;
		if (poll(fds, 2, timeout) < 0 && errno != EINTR)
			return -errno;
		err = tracker__consume(r->tracker);
		if (err)
			return err;
		r->stop_reason = check_signals(r);
		if (!r->stop_reason && pids_gone(r->cfg))
			r->stop_reason = "target exited";
		if (r->stop_reason)
			return 0;
	}
}

static void print_summary(const struct run *r, const struct profile *p)
{
	const uint64_t *b = p->stats.bpf;

	fprintf(stderr,
		"bpfprof: %" PRIu64 " samples, %zu stacks, %" PRIu64 " lost "
		"(kstack-collision %" PRIu64 ", ustack-collision %" PRIu64 ", stackmap-full %" PRIu64
		", stack-error %" PRIu64 ", counts-full %" PRIu64 "), %" PRIu64 "/%" PRIu64
		" frames unresolved, %" PRIu64 " tracking records lost, %.2f s (%s)\n",
		b[STAT_SAMPLES], p->nsamples, profile__lost(p),
		b[STAT_LOST_KSTACK_COLLISION], b[STAT_LOST_USTACK_COLLISION],
		b[STAT_LOST_STACKMAP_FULL], b[STAT_LOST_STACK_ERROR], b[STAT_LOST_COUNTS_FULL],
		p->stats.unresolved, p->stats.frames, p->stats.tracking_lost, p->stats.duration,
		r->stop_reason ? r->stop_reason : "error");
	if (!b[STAT_SAMPLES])
		fprintf(stderr, "bpfprof: warning: no samples: the target did not run on a CPU "
			"while profiled\n");
}

/* Stop sampling, read the maps, symbolize, write. Runs after errors too:
 * whatever was sampled is written out. */
static int finish(struct run *r)
{
	struct symbolizer *sz = NULL;
	struct ksyms *ks = NULL;
	struct profile *p = NULL;
	struct drained d = { 0 };
	int err, gen;

	session__stop(r->session);
	r->stop_ns = procs__now();
	if (r->tracker)
		tracker__consume(r->tracker);	/* the last mmaps and exits */
	p = profile__new();
	sz = symbolizer__new(r->procs);
	if (!p || !sz) {
		err = -ENOMEM;
		goto out;
	}
	gen = session__flip(r->session);
	err = gen < 0 ? gen : session__take_stats(r->session, gen, p->stats.bpf);
	if (!err)
		err = drain__collect(session__counts_fd(r->session, gen),
				     session__stacks_fd(r->session, gen), &d);
	if (err) {
		fprintf(stderr, "bpfprof: cannot read the BPF maps: %s\n", strerror(-err));
		goto out;
	}
	ks = ksyms__load("/proc/kallsyms");
	if (!ks && r->cfg->sides != SIDES_USER_ONLY)
		fprintf(stderr, "bpfprof: warning: no kernel symbols (/proc/kallsyms: %s)\n",
			strerror(errno));
	err = resolve__drained(&d, ks, sz, p);
	p->stats.duration = r->start_ns ? (r->stop_ns - r->start_ns) / 1e9 : 0;
	p->stats.tracking_lost = r->tracker ? tracker__lost(r->tracker) : 0;
	if (!err)
		err = folded__write(p, r->out);
	if (err)
		fprintf(stderr, "bpfprof: writing %s: %s\n",
			r->cfg->output ? r->cfg->output : "standard output", strerror(-err));
	print_summary(r, p);
out:
	drain__free(&d);
	ksyms__free(ks);
	symbolizer__free(sz);
	profile__free(p);
	return err;
}

static void cleanup(struct run *r)
{
	if (r->have_cmd)
		command__kill(&r->cmd);
	tracker__free(r->tracker);
	session__destroy(r->session);
	procs__free(r->procs);
	if (r->out && r->out != stdout && fclose(r->out))
		fprintf(stderr, "bpfprof: writing %s: %s\n", r->cfg->output, strerror(errno));
	if (r->sig_fd > 0)
		close(r->sig_fd);
}

static int run_profile(const struct config *cfg)
{
	struct run r = { .cfg = cfg, .sig_fd = -1 };
	int err, ferr;

	err = check_pids(cfg);
	if (!err)
		err = open_output(&r);
	if (!err)
		err = block_signals(&r);
	if (!err && cfg->cmd) {
		err = command__spawn(cfg->cmd, &r.old_mask, &r.cmd);
		r.have_cmd = !err;
		if (err)
			fprintf(stderr, "bpfprof: cannot start '%s': %s\n", cfg->cmd[0], strerror(-err));
	}
	if (!err)
		err = load(&r);
	if (!err)
		err = start_tracking(&r);
	if (!err)
		err = start(&r);
	if (!err)
		err = wait_loop(&r);
	if (r.start_ns) {
		ferr = finish(&r);
		err = err ? err : ferr;
	}
	cleanup(&r);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct config cfg;
	int ret;

	switch (cli_parse(argc, argv, &cfg)) {
	case CLI_EXIT_OK:
		cli_free(&cfg);
		return 0;
	case CLI_EXIT_USAGE:
		cli_free(&cfg);
		return 2;
	case CLI_RUN:
		break;
	}
	libbpf_set_print(cfg.verbose ? libbpf_print : libbpf_quiet);
	ret = run_profile(&cfg);
	cli_free(&cfg);
	return ret;
}
