// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One run: set up (setup.c), then the loop that waits for the next
 * deadline, a signal, tracking records, a command; then what is left is
 * written (collect.c) and everything let go.
 */
#include <errno.h>
#include <malloc.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>

#include "profile/aggregate.h"
#include "run/collect.h"
#include "elf/debuginfod.h"
#include "base/errors.h"
#include "files/files.h"
#include "output/fleet_summary.h"
#include "output/output.h"
#include "procs/procs.h"
#include "runtimes/runtimes.h"
#include "run/run.h"
#include "run/run_state.h"
#include "run/early_walks.h"
#include "sampling/session.h"
#include "run/signals.h"
#include "run/stopper.h"
#include "run/top_live.h"
#include "procs/tracker.h"
#include "unwind/unwind.h"

#define POLL_MS		200	/* how often tracking records are read at least */
#define EARLY_WAIT_MS	1000	/* at the end, for the tables copied stacks wait for */
#define PIDS_CHECK_NS	1000000000ull	/* -p pids read from /proc at least */

/* New processes and mappings: their unwind tables go in promptly. The
 * stacks copied early are read first (a process synced walks its own, see
 * proc_synced()); the others held are tried only when stacks came or
 * entries were written: a process becomes ready only then, and a stack
 * whose process never gets an entry waits for the interval's end (600
 * lookups a second under the bench's churn when every wake-up tried). */
static int consume_tracking(struct run *r)
{
	int err = tracker__consume(r->tracker);
	bool retry = false;

	if (!err && r->early)
		retry = early_walks__read(r->early) > 0;
	if (!err && r->unwinder)
		retry |= unwinder__sync(r->unwinder, r->procs, r->roots, r->nroots) > 0;
	/* code objects are read while their processes live */
	if (!err)
		runtimes__poll(r->rts);
	if (!err && r->early && retry)
		early_walks__walk_ready(r->early, false);
	if (r->early)
		early_walks__tidy(r->early);
	return err;
}

/* Every -p process exited (its pid may be someone else's now). /proc is
 * read when the tracker saw one of them exit, else once a second (its
 * exit record lost): each wake-up read every pid's stat (5 a second and
 * more, per pid). */
static bool pids_gone(struct run *r)
{
	uint64_t start, now;
	bool exit_seen = false;
	int i;

	if (!r->cfg->npids)
		return false;
	for (i = 0; i < r->cfg->npids && !exit_seen; i++)
		exit_seen = !procs__alive(r->procs, r->cfg->pids[i], 0);
	now = procs__now();
	if (!exit_seen && now < r->pids_checked_ns + PIDS_CHECK_NS)
		return false;
	r->pids_checked_ns = now;
	for (i = 0; i < r->cfg->npids; i++)
		if (!id_start_ticks(r->cfg->pids[i], &start) && start == r->pid_starts[i])
			return false;
	return true;
}

/* Why to stop now, or NULL to go on. SIGUSR1 snapshots. */
static const char *check_signals(struct run *r)
{
	struct signalfd_siginfo si;
	const char *why = NULL;

	while (read(r->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGINT)
			why = "interrupted";
		else if (si.ssi_signo == SIGTERM)
			why = "terminated";
		else if (si.ssi_signo == SIGHUP && r->cfg->interval)
			output__reopen(r->out);	/* log rotation's convention */
		else if (si.ssi_signo == SIGHUP)
			why = "hangup";
		else if (si.ssi_signo == SIGUSR1 && !r->top)	/* top writes no file */
			control__request(r->control, CONTROL_SNAPSHOT);
		else if (si.ssi_signo == SIGWINCH && r->top)
			top_live__redraw(r->top);
		else if (si.ssi_signo == SIGTSTP && r->top)
			top_live__suspend(r->top);
	}
	if (!why && r->have_cmd && command__exited(&r->cmd))
		why = "command exited";
	if (!why && pids_gone(r))
		why = "target exited";
	return why;
}

/* bpfprof top: one interval drained as fleet mode drains it, shown. */
static int top_interval(struct run *r)
{
	struct profile *p;
	uint64_t total = 0;
	int err = run__collect(r, &p);

	if (err)
		return err;
	err = session__total(r->session, TOTAL_SAMPLES, &total);
	if (!err)
		err = top_live__interval(r->top, p, total);
	profile__free(p);
	return err;
}

/* The next deadline: the interval's end, or the run's. Intervals end on
 * a grid from the start (start + k * step), not a step after the last
 * flip: the time from a deadline to its flip (tracking records read
 * first) would add up, 29 intervals of -d 30 on a loaded machine. One
 * that ran past its grid points ends at the next one still ahead. */
static uint64_t next_deadline(struct run *r, uint64_t step, uint64_t end, uint64_t now)
{
	if (!step)
		return end;
	if (!r->due_ns)
		r->due_ns = r->start_ns + step;
	if (r->due_ns <= now && r->interval_ns >= r->due_ns)	/* written: the next */
		r->due_ns += ((r->interval_ns - r->due_ns) / step + 1) * step;
	return r->due_ns < end ? r->due_ns : end;
}

/* When -d ends the run (CLOCK_MONOTONIC), UINT64_MAX without it. */
static uint64_t run_end(const struct run *r)
{
	return r->cfg->duration > 0 ? r->start_ns + (uint64_t)(r->cfg->duration * 1e9) : UINT64_MAX;
}

/* Sleeps in poll() until the next deadline, a signal or tracking records;
 * writes a profile at each interval's end (fleet mode). Every turn reads
 * the signals, a turn that wrote too: an interval whose write outlasts
 * the next deadline (60,000 cgroups walked each drain made 1 s intervals
 * of 5 s) once went from write to write and never heard SIGTERM. */
static int wait_loop(struct run *r)
{
	uint64_t end = run_end(r);
	uint64_t step = (uint64_t)((r->top ? r->cfg->refresh : r->cfg->interval) * 1e9);
	struct pollfd fds[] = {
		{ .fd = r->sig_fd, .events = POLLIN },
		{ .fd = tracker__fd(r->tracker), .events = POLLIN },
		{ .fd = -1, .events = POLLIN },	/* the control FIFO, when not resting */
		{ .fd = r->top ? top_live__fd(r->top) : -1, .events = POLLIN },
		/* a table built: its process's entry goes in at once (at the
		 * next timeout, up to 200 ms later, 21 samples at 99 Hz were
		 * walked by frame pointers when the build ended just after a
		 * sync) */
		{ .fd = r->unwinder ? unwinder__fd(r->unwinder) : -1, .events = POLLIN },
		/* stacks copied early: their processes may be ready */
		{ .fd = r->early ? early_walks__fd(r->early) : -1, .events = POLLIN },
	};
	int err;

	for (;;) {
		uint64_t now = procs__now(), next = next_deadline(r, step, end, now), wake;
		int timeout;

		if (now >= end) {
			r->stop_reason = "duration reached";
			return 0;
		}
		if (now >= next) {
			err = r->top ? top_interval(r) : run__write_profile(r, "interval");
			if (err)
				return err;
			now = procs__now();
			next = next_deadline(r, step, end, now);
		}
		/* a command waiting (a snapshot's second is up) wakes it too */
		wake = control__wake(r->control, now);
		wake = wake < next ? wake : next;
		timeout = wake <= now ? 0 : wake - now < (uint64_t)POLL_MS * 1000000 ?
			(int)((wake - now) / 1000000) + 1 : POLL_MS;
		fds[2].fd = control__poll_fd(r->control, now);
		if (poll(fds, sizeof(fds) / sizeof(fds[0]), timeout) < 0 && errno != EINTR)
			return -errno;
		if (r->top && top_live__keys(r->top)) {
			r->stop_reason = "quit";
			return 0;
		}
		err = consume_tracking(r);
		if (err)
			return err;
		/* before the commands: whatever waits in the FIFO, a signal
		 * ends the run at this turn */
		r->stop_reason = check_signals(r);
		if (r->stop_reason)
			return 0;
		err = run__control_input(r);
		if (err)
			return err;
		progress__tick(&r->progress, r->session, procs__now());
	}
}

/* --control's lines: commands, samples cleared, acks dropped, the total;
 * then what was refused or merged, if anything. */
static void print_control(const struct run *r)
{
	struct control_stats st;
	uint64_t total;

	control__stats(r->control, &st);
	if (!session__total(r->session, TOTAL_SAMPLES, &total))
		p_info("control: %lu commands, %" PRIu64 " samples cleared, %lu acks the ACK "
		       "FIFO had no room for; BPF-side total %" PRIu64 " samples",
			r->commands, r->cleared, st.acks_dropped, total);
	if (st.bad_lines || st.skipped || st.left_at_end)
		p_info("control: %lu bad control lines ignored (%lu longer than %d bytes), %lu "
		       "snapshot requests skipped (at most one snapshot a second), %lu answered "
		       "by the final profile", st.bad_lines, st.long_lines, CONTROL_LINE_MAX,
		       st.skipped, st.left_at_end);
}

/* The run's accounting lines on stderr, after the last profile. */
static void print_accounting(const struct run *r)
{
	uint64_t total, offcpu_us;
	bool have_offcpu;

	if (r->cfg->control_ctl)
		print_control(r);
	if (!r->cfg->interval || session__total(r->session, TOTAL_SAMPLES, &total))
		return;
	have_offcpu = r->cfg->offcpu && !session__total(r->session, TOTAL_OFFCPU_US, &offcpu_us);
	fleet_summary__print(r->out, total, have_offcpu ? &offcpu_us : NULL, r->files);
}

/* A further signal aborts the write: the second Ctrl-C when a signal
 * stopped the run, the second one otherwise. */
static void arm_abort(const struct run *r)
{
	bool by_signal = r->stop_reason && (!strcmp(r->stop_reason, "interrupted") ||
					    !strcmp(r->stop_reason, "terminated"));
	const char *tmp_name;
	int tmp_dirfd;

	output__temporary(r->out, &tmp_dirfd, &tmp_name);
	signals__arm_abort(by_signal ? 1 : 2, tmp_dirfd, tmp_name);
}

/* At the end, stacks copied before their tables may wait for a build
 * under way (a loaded machine takes seconds for a big compiler's): up to
 * EARLY_WAIT_MS for it (a signal ends the wait), so they are walked by it
 * rather than by frame pointers. Only when a command or -p's processes
 * ended by themselves: over the whole machine some process always starts
 * and the wait would always be paid, and a signal asks for the end now. */
static void wait_early_tables(struct run *r)
{
	struct pollfd pfd = { .fd = r->sig_fd, .events = POLLIN };
	bool ended = r->stop_reason && (!strcmp(r->stop_reason, "command exited") ||
					!strcmp(r->stop_reason, "target exited"));

	if (!r->early || !r->unwinder || !ended)
		return;
	early_walks__read(r->early);
	early_walks__walk_ready(r->early, true);
	for (int ms = 0; ms < EARLY_WAIT_MS && early_walks__waiting(r->early) &&
	     unwinder__busy(r->unwinder); ms += 20)
		if (poll(&pfd, 1, 20) > 0)
			break;
	early_walks__read(r->early);
	unwinder__sync(r->unwinder, r->procs, r->roots, r->nroots);
	early_walks__walk_ready(r->early, true);
}

/* Stops sampling and writes what is left: runs after errors too, so
 * whatever was sampled is written out. */
static int finish(struct run *r)
{
	uint64_t total;
	int err;

	stopper__free(r->stopper);	/* before the abort handler takes the signals */
	r->stopper = NULL;
	r->finishing = true;
	arm_abort(r);
	progress__clear(&r->progress);
	session__stop(r->session);
	wait_early_tables(r);
	if (r->unwinder)
		unwinder__stop(r->unwinder);	/* a build would compete with the write */
	if (r->have_cmd)
		command__terminate(&r->cmd);	/* it cleans up while we write */
	if (r->top) {	/* the rest is counted too: counted + lost = total */
		err = top_interval(r);
		if (!session__total(r->session, TOTAL_SAMPLES, &total))
			top_live__end(r->top, total, r->stop_reason ? r->stop_reason : "error");
		return err;
	}
	err = run__write_profile(r, r->stop_reason ? r->stop_reason : "error");
	control__end(r->control);	/* the final profile answers what waits */
	print_accounting(r);
	return err;
}

/* Returns an error of closing the output (a full disk shows up there). */
static int cleanup(struct run *r)
{
	int err;

	stopper__free(r->stopper);	/* when the run ended before finish() */
	if (r->have_cmd)
		run__end_command(r);
	collector__free(r->collector);
	control__close(r->control);
	profile__free(r->so_far);
	top_live__free(r->top);
	runtimes__free(r->rts);
	tracker__free(r->tracker);
	/* procs lets go of the files, the registry releases their unwind
	 * tables: the unwinder and the BPF maps are still there */
	procs__free(r->procs);
	files__free(r->files);
	early_walks__free(r->early);
	unwinder__free(r->unwinder);
	session__destroy(r->session);
	free(r->pid_starts);
	free(r->tid_starts);
	err = output__close(r->out);
	if (r->sig_fd >= 0)
		close(r->sig_fd);
	return err;
}

/* The output (or top's screen), the control FIFOs, the signals, the
 * command, the BPF side, the tracking, sampling: each once the one before
 * it is there. */
static int begin(struct run *r)
{
	const struct config *cfg = r->cfg;
	int err;

	/* before any thread runs: it sets the environment libdebuginfod reads */
	debuginfod__configure(cfg->names.debuginfod_timeout);
	err = run__check_pids(r);
	if (!err && cfg->top)
		err = top_live__new(cfg, &r->top);
	else if (!err)
		err = output__open(cfg, &r->out);
	/* no --control: SIGUSR1's snapshots still go through it */
	if (!err)
		err = control__open(cfg->control_ctl, cfg->control_ack, !cfg->start_disabled,
				    &r->control);
	if (!err) {
		int fd = signals__block(r->top != NULL, &r->old_mask);

		if (fd < 0)
			err = fd;
		else
			r->sig_fd = fd;
	}
	if (!err && cfg->cmd)
		err = run__spawn_command(r);
	if (!err)
		err = run__load(r);
	if (!err)
		err = run__start_tracking(r);
	if (!err)
		err = run__start(r);
	if (!err && r->top)
		err = top_live__begin(r->top);
	/* last: it may stop the session from its first moment */
	if (!err)
		err = stopper__start(r->session, r->sig_fd, run_end(r), &r->stopper);
	return err;
}

/* The heap of a sampler that runs all day. glibc gives each thread that
 * allocates an arena of its own (64 MiB reserved): the table builder's and
 * the kernel symbol loader's held 7 MiB each that the main thread's trim
 * never returned; one arena (the threads seldom allocate at once) let a
 * fleet run on a busy machine hold 41 MiB instead of 82. Large blocks
 * (rows, symbol tables) are mapped apart and go back to the system when
 * freed: the default threshold grows with the blocks freed, so that they
 * end up in the heap, where the holes between live blocks stay resident. */
static void heap_settings(void)
{
	/* best effort: another allocator (a sanitizer's) refuses, and is
	 * used as it is */
	(void)mallopt(M_ARENA_MAX, 1);
	(void)mallopt(M_MMAP_THRESHOLD, 128 << 10);
	(void)mallopt(M_TRIM_THRESHOLD, 128 << 10);
}

int run__profile(const struct config *cfg)
{
	struct run r = { .cfg = cfg, .sig_fd = -1 };
	int err, ferr;

	heap_settings();
	err = begin(&r);
	if (!err)
		err = wait_loop(&r);
	if (r.start_ns) {
		ferr = finish(&r);
		err = err ? err : ferr;
	}
	ferr = cleanup(&r);
	if (err || ferr)
		return 1;
	/* as perf record: the command's status, for scripts around it */
	return r.have_cmd && command__exit_status(&r.cmd) >= 0 ? command__exit_status(&r.cmd) : 0;
}
