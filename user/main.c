// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bpfprof: sample stacks with eBPF, write folded stacks.
 *
 * sample (bpf/profile.bpf.c) -> maps -> drain -> symbolize -> aggregate -> emit.
 * This file only wires the rooms together and owns the run's state.
 */
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/signalfd.h>

#include <bpf/libbpf.h>

#include "aggregate.h"
#include "cli.h"
#include "collect.h"
#include "control.h"
#include "debuginfod.h"
#include "errors.h"
#include "events.h"
#include "files.h"
#include "output.h"
#include "procs.h"
#include "progress.h"
#include "session.h"
#include "target.h"
#include "term.h"
#include "top_live.h"
#include "tracker.h"
#include "unwind.h"
#include "python.h"
#include "views.h"

#define POLL_MS		200	/* how often tracking records are read at least */

/* Everything one run owns. */
struct run {
	const struct config *cfg;
	struct output *out;
	sigset_t old_mask;
	int sig_fd;
	struct command cmd;
	bool have_cmd;
	struct session *session;
	struct procs *procs;
	struct files *files;		/* the registry of mapped files */
	struct tracker *tracker;
	struct collector *collector;
	struct unwinder *unwinder;	/* --call-graph auto, dwarf */
	struct pyprof *py;		/* Python frames (auto, dwarf, unless --no-python) */
	uint64_t *pid_starts;		/* -p pids' start times (id_start_ticks()) */
	uint64_t *tid_starts;		/* -t tids' */
	pid_t *roots;			/* whose tables to load: -p pids, the command */
	int nroots;
	uint64_t start_ns;		/* CLOCK_MONOTONIC, sampling began */
	uint64_t interval_ns;		/* the current interval began */
	uint64_t interval_wall_ns;	/* the same, CLOCK_REALTIME */
	uint64_t tracking_lost;		/* reported so far */
	const char *stop_reason;
	struct progress progress;
	struct control *control;	/* --control */
	struct profile *so_far;		/* drained before the end, after a snapshot */
	uint64_t cleared;		/* samples dropped by clear */
	unsigned long commands;		/* carried out (--control, SIGUSR1) */
	struct top_live *top;		/* bpfprof top */
};

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

static bool same_request(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - abort_armed_at.tv_sec) * 1000000000LL +
	       (now.tv_nsec - abort_armed_at.tv_nsec) < SAME_REQUEST_NS;
}

static void abort_run(int sig)
{
	static const char msg[] = "\nbpfprof: aborted by a second signal: no profile written\n";
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	if (same_request() || --signals_to_abort > 0)
		return;
	if (command_pid > 0)
		kill(command_pid, SIGKILL);
	term__restore();	/* bpfprof top's terminal */
	if (abort_tmp_name)
		unlinkat(abort_tmp_dirfd, abort_tmp_name, 0);
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	/* die of the signal itself, as the shell expects of ^C */
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig);
}

/* From now on SIGINT and SIGTERM are handled as they come (the loop that
 * read them through the signalfd is over): `more` of them abort. */
static void arm_abort(const struct output *out, int more)
{
	struct sigaction sa = { .sa_handler = abort_run, .sa_flags = SA_NODEFER };
	sigset_t mask;

	signals_to_abort = more;
	clock_gettime(CLOCK_MONOTONIC, &abort_armed_at);
	output__temporary(out, &abort_tmp_dirfd, &abort_tmp_name);
	sigemptyset(&sa.sa_mask);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigprocmask(SIG_UNBLOCK, &mask, NULL))
		p_warn("cannot arm the abort signal: %s",
			strerror(errno));
}

/* SIGINT/SIGTERM/SIGHUP (and SIGCHLD for a command) arrive through a signalfd, so
 * the main loop sees them between polls and no handler touches state. */
static int block_signals(struct run *r)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);	/* a snapshot */
	sigaddset(&mask, SIGWINCH);	/* top: draw at the new size */
	if (r->top)
		sigaddset(&mask, SIGTSTP);	/* top: the terminal back, then stop */
	if (sigprocmask(SIG_BLOCK, &mask, &r->old_mask))
		return -errno;
	r->sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r->sig_fd < 0) {
		p_err("signalfd: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* -p and -t ids are processes and threads that exist now: each is known
 * by its start time too, so a later one reusing its id is not profiled. */
static int start_times(const pid_t *ids, int n, const char *what, uint64_t **starts)
{
	int i;

	*starts = calloc(n ? (size_t)n : 1, sizeof(**starts));
	if (!*starts)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (id_start_ticks(ids[i], &(*starts)[i])) {
			p_err("no such %s: %d", what, ids[i]);
			return -ESRCH;
		}
	}
	return 0;
}

static int check_pids(struct run *r)
{
	int err = start_times(r->cfg->pids, r->cfg->npids, "process", &r->pid_starts);

	return err ? err : start_times(r->cfg->tids, r->cfg->ntids, "thread", &r->tid_starts);
}

static int load(struct run *r)
{
	const struct config *cfg = r->cfg;
	struct session_opts opts = {
		.events = cfg->events, .nevents = cfg->nevents,
		.freq = cfg->freq, .period = cfg->period, .sides = cfg->sides,
		.btf_path = cfg->btf_path, .max_stacks = cfg->max_stacks,
		.filter_tgids = cfg->npids > 0 || cfg->cmd, .follow_forks = cfg->cmd != NULL,
		.npids = cfg->npids, .tids = cfg->tids, .tid_starts = r->tid_starts,
		.ntids = cfg->ntids, .comm = cfg->comm, .cgroup = cfg->cgroup,
		.min_block_us = cfg->min_block_us, .unwind_mode = cfg->call_graph,
		.python = cfg->names.python,
	};
	uint64_t cmd_start;
	int i, err;

	err = session__load(&opts, &r->session);
	if (!err && cfg->start_disabled)
		err = session__set_enabled(r->session, false);
	for (i = 0; !err && i < cfg->npids; i++)
		err = session__add_tgid(r->session, cfg->pids[i], r->pid_starts[i]);
	if (!err && r->have_cmd) {
		err = id_start_ticks(r->cmd.pid, &cmd_start);
		if (!err)
			err = session__add_tgid(r->session, r->cmd.pid, cmd_start);
	}
	/* -p's processes, or the command: its children join as they fork */
	r->roots = r->have_cmd ? &r->cmd.pid : cfg->pids;
	r->nroots = r->have_cmd ? 1 : cfg->npids;
	return err;
}

/* libc and the dynamic loader are in nearly every process: their tables
 * (the biggest) are built before the first new process needs them. Ours
 * are the system's. */
static int preload_common(struct dl_phdr_info *info, size_t size, void *u)
{
	(void)size;
	if (strstr(info->dlpi_name, "/libc.so") || strstr(info->dlpi_name, "/ld-linux"))
		unwinder__preload(u, info->dlpi_name);
	return 0;
}

static void sync_python(void *py, struct procs *procs, pid_t tgid)
{
	pyprof__sync_proc(py, procs, tgid);
}

/* CPython processes are found as the unwinder syncs their mappings. */
static int start_python(struct run *r)
{
	if (!r->cfg->names.python)
		return 0;
	r->py = pyprof__new(session__py_procs_fd(r->session), session__py_codes_fd(r->session));
	if (!r->py)
		return -ENOMEM;
	unwinder__on_sync(r->unwinder, sync_python, r->py);
	return 0;
}

/* The processes already running are read from /proc now: one that exits
 * before the end is then still known. Later ones come from the tracker. */
static int start_tracking(struct run *r)
{
	int i, err;

	r->procs = procs__new();
	r->files = files__new(&(struct files_opts){ .inlines = r->cfg->names.inlines });
	if (!r->procs || !r->files)
		return -ENOMEM;
	files__attach(r->files, r->procs);
	if (r->cfg->call_graph != UNWIND_FP) {
		procs__track_changes(r->procs);
		err = unwinder__new(session__unwind_files_fd(r->session),
				    session__unwind_procs_fd(r->session), r->cfg->call_graph,
				    r->cfg->unwind_rows, r->files, &r->unwinder);
		if (err)
			return err;
		err = start_python(r);
		if (err)
			return err;
	}
	err = tracker__start(r->procs, r->unwinder != NULL, &r->tracker);
	if (err)
		return err;
	if (r->unwinder)
		dl_iterate_phdr(preload_common, r->unwinder);
	if (r->cfg->cmd)
		return 0;
	if (!r->cfg->npids) {
		if (procs__synthesize_all(r->procs) < 0)
			return -errno;
		if (r->unwinder)
			unwinder__sync(r->unwinder, r->procs, NULL, 0);
		return 0;
	}
	for (i = 0; i < r->cfg->npids; i++)
		procs__synthesize(r->procs, r->cfg->pids[i]);
	if (r->unwinder)
		unwinder__sync(r->unwinder, r->procs, r->roots, r->nroots);
	return 0;
}

/* New processes and mappings: their unwind tables go in promptly. */
static int consume_tracking(struct run *r)
{
	int err = tracker__consume(r->tracker);

	if (!err && r->unwinder)
		unwinder__sync(r->unwinder, r->procs, r->roots, r->nroots);
	/* code objects are read while their processes live */
	if (!err && r->py)
		pyprof__poll(r->py);
	return err;
}

static uint64_t wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* What each event's counts mean. On-CPU samples profiled with off-CPU
 * time become time too (samples x period), under "oncpu"/"offcpu" roots,
 * so one flame graph weighs both alike. */
static void describe_events(const struct config *cfg, struct pevent *pe)
{
	bool combined = cfg->offcpu && cfg->nevents == 2 && cfg->events[0].clock;
	uint64_t period_us = cfg->period ? cfg->period / 1000 : 1000000 / cfg->freq;
	int i;

	for (i = 0; i < cfg->nevents; i++) {
		const struct event *ev = &cfg->events[i];

		memset(&pe[i], 0, sizeof(pe[i]));
		snprintf(pe[i].name, sizeof(pe[i].name), "%s", ev->name);
		pe[i].unit = ev->kind == EVENT_OFFCPU ? "microseconds" : "count";
		if (combined && ev->kind != EVENT_OFFCPU) {
			snprintf(pe[i].name, sizeof(pe[i].name), "oncpu");
			pe[i].unit = "microseconds";
			pe[i].scale = period_us ? period_us : 1;
		}
	}
}

/* The command's own executable, as execvp() will find it: its table is
 * built before it starts, so its first samples unwind too. */
static void preload_command(struct run *r)
{
	const char *name = r->cfg->cmd[0], *path = getenv("PATH");
	char buf[4096];

	if (strchr(name, '/')) {
		unwinder__preload(r->unwinder, name);
		return;
	}
	while (path && *path) {
		size_t len = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, name);
		if (access(buf, X_OK) == 0) {
			unwinder__preload(r->unwinder, buf);
			return;
		}
		path += len + (path[len] == ':');
	}
}

/* The tables preloaded for a command are built before it starts (at most
 * PRELOAD_WAIT_MS; a signal ends the wait, and the loop then reads it), so
 * its first samples unwind. -p's processes run already: not waited for. */
#define PRELOAD_WAIT_MS	2000

static void wait_tables(struct run *r)
{
	struct pollfd pfd = { .fd = r->sig_fd, .events = POLLIN };

	for (int ms = 0; ms < PRELOAD_WAIT_MS && unwinder__busy(r->unwinder); ms += 20)
		if (poll(&pfd, 1, 20) > 0)
			break;
	unwinder__sync(r->unwinder, r->procs, r->roots, r->nroots);
}

static int start(struct run *r)
{
	struct pevent events[MAX_EVENTS];
	int err;

	describe_events(r->cfg, events);
	r->collector = collector__new(r->session, r->procs, r->files, r->cfg->sides != SIDES_USER_ONLY,
				      events, r->cfg->nevents, &r->cfg->names);
	if (!r->collector)
		return -ENOMEM;
	collector__set_python(r->collector, r->py);
	if (r->unwinder && r->have_cmd)
		preload_command(r);
	if (r->unwinder && r->have_cmd)
		wait_tables(r);
	err = session__start(r->session);
	if (!err && r->have_cmd) {
		err = command__release(&r->cmd);
		if (err)
			p_err("cannot execute '%s': %s", r->cfg->cmd[0],
				strerror(-err));
	}
	if (!err) {
		r->start_ns = r->interval_ns = procs__now();
		r->interval_wall_ns = wall_now();
		command_pid = r->have_cmd ? r->cmd.pid : 0;
		progress__start_line(r->cfg, r->have_cmd ? r->cmd.pid : 0);
		progress__init(&r->progress, r->cfg, r->start_ns);
	}
	return err;
}

/* Every -p process exited (its pid may be someone else's now). */
static bool pids_gone(const struct run *r)
{
	uint64_t start;
	int i;

	for (i = 0; i < r->cfg->npids; i++)
		if (!id_start_ticks(r->cfg->pids[i], &start) && start == r->pid_starts[i])
			return false;
	return r->cfg->npids > 0;
}

static int run_command(struct run *r, enum control_cmd cmd);

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
		else if (si.ssi_signo == SIGUSR1 && run_command(r, CONTROL_SNAPSHOT) == -ENOMEM)
			why = "out of memory";
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

/* Everything since the last one, drained and symbolized: a new interval
 * begins. */
static int collect(struct run *r, struct profile **out)
{
	struct profile *p;
	uint64_t now = procs__now(), lost;
	int err;

	tracker__consume(r->tracker);	/* the latest mmaps and exits first */
	err = collector__collect(r->collector, &p);
	if (err)
		return err;
	lost = tracker__lost(r->tracker);
	p->stats.duration = (now - r->interval_ns) / 1e9;
	p->stats.start_wall_ns = r->interval_wall_ns;
	p->stats.freq = r->cfg->freq;
	p->stats.tracking_lost = lost - r->tracking_lost;
	r->tracking_lost = lost;
	r->interval_ns = now;
	r->interval_wall_ns = wall_now();
	*out = p;
	return 0;
}

/* Everything since the last one (and what a snapshot drained before):
 * drained, symbolized, written. */
static int write_profile(struct run *r, const char *why)
{
	struct profile *p;
	int err = collect(r, &p);

	if (!err && r->so_far) {
		err = profile__merge(r->so_far, p);
		profile__free(p);
		p = r->so_far;
		r->so_far = NULL;
	}
	if (err) {
		profile__free(p);
		return err;
	}
	err = output__profile(r->out, p, why);
	if (!p->stats.bpf[STAT_SAMPLES] && !p->stats.bpf[STAT_OFFCPU_BLOCKS] && !r->cfg->interval)
		p_warn("no samples: the target did not run on a CPU "
			"while profiled");
	profile__free(p);
	return err;
}

/* snapshot: the profile so far to -o now (fleet mode: the interval ends
 * now); sampling goes on. */
static int snapshot(struct run *r)
{
	struct profile *p;
	int err;

	if (r->cfg->interval)
		return write_profile(r, "snapshot");
	err = collect(r, &p);
	if (!err && r->so_far) {
		err = profile__merge(r->so_far, p);
		profile__free(p);
	} else if (!err) {
		r->so_far = p;
	}
	if (!err)
		err = output__snapshot(r->out, r->so_far);
	if (!err && !r->cfg->quiet)
		p_info("control: snapshot: %" PRIu64 " samples (%" PRIu64 " lost) to %s", r->so_far->stats.bpf[STAT_SAMPLES], profile__lost(r->so_far),
			r->cfg->output);
	return err;
}

/* clear: what was counted so far is dropped (and counted as such). */
static int clear(struct run *r)
{
	struct profile *p;
	int err = collect(r, &p);

	if (err)
		return err;
	r->cleared += p->stats.bpf[STAT_SAMPLES];
	if (r->so_far)
		r->cleared += r->so_far->stats.bpf[STAT_SAMPLES];
	profile__free(p);
	profile__free(r->so_far);
	r->so_far = NULL;
	return 0;
}

/* One command (--control, SIGUSR1); said on stderr with the BPF side's
 * never-reset total, which the run's accounting is checked against. A
 * failed snapshot is said and the run goes on. */
static int run_command(struct run *r, enum control_cmd cmd)
{
	uint64_t total = 0;
	int err = 0;

	if (cmd == CONTROL_ENABLE || cmd == CONTROL_DISABLE)
		err = session__set_enabled(r->session, cmd == CONTROL_ENABLE);
	else if (cmd == CONTROL_SNAPSHOT)
		err = snapshot(r);	/* a file that cannot be written: said, the run goes on */
	else if (cmd == CONTROL_CLEAR)
		err = clear(r);
	if (err == -ENOMEM || (err && cmd != CONTROL_SNAPSHOT)) {
		p_err("control: %s: %s", control__name(cmd), strerror(-err));
		return err;
	}
	r->commands++;
	if (!err && !r->cfg->quiet && !session__total(r->session, TOTAL_SAMPLES, &total))
		p_info("control: %s done; BPF-side total %" PRIu64 " samples",
			control__name(cmd), total);
	return 0;
}

/* The commands waiting in the control FIFO, each acked when done. */
static int control_input(struct run *r)
{
	enum control_cmd cmd;
	char line[80];
	int err;

	while (r->control && (cmd = control__next(r->control, line, sizeof(line))) != CONTROL_NONE) {
		if (cmd == CONTROL_UNKNOWN) {
			p_warn("control: unknown command '%s' (enable, disable, snapshot, clear): "
			       "ignored", line);
			continue;
		}
		err = run_command(r, cmd);
		if (err)
			return err;
		control__ack(r->control);
	}
	return 0;
}

/* bpfprof top: one interval drained as fleet mode drains it, shown. */
static int top_interval(struct run *r)
{
	struct profile *p;
	uint64_t total = 0;
	int err = collect(r, &p);

	if (err)
		return err;
	err = session__total(r->session, TOTAL_SAMPLES, &total);
	if (!err)
		err = top_live__interval(r->top, p, total);
	profile__free(p);
	return err;
}

/* Sleeps in poll() until the next deadline, a signal or tracking records;
 * writes a profile at each interval's end (fleet mode). */
static int wait_loop(struct run *r)
{
	uint64_t end = r->cfg->duration > 0 ?
		r->start_ns + (uint64_t)(r->cfg->duration * 1e9) : UINT64_MAX;
	uint64_t step = (uint64_t)((r->top ? r->cfg->refresh : r->cfg->interval) * 1e9);
	/* dwarf: a new process's tables should be in before it runs long */
	int poll_ms = r->unwinder ? POLL_MS / 4 : POLL_MS;
	struct pollfd fds[4] = {
		{ .fd = r->sig_fd, .events = POLLIN },
		{ .fd = tracker__fd(r->tracker), .events = POLLIN },
		{ .fd = r->control ? control__fd(r->control) : -1, .events = POLLIN },
		{ .fd = r->top ? top_live__fd(r->top) : -1, .events = POLLIN },
	};
	int err;

	for (;;) {
		uint64_t now = procs__now(), next = end;
		int timeout;

		if (step && r->interval_ns + step < next)
			next = r->interval_ns + step;
		if (now >= end) {
			r->stop_reason = "duration reached";
			return 0;
		}
		if (now >= next) {
			err = r->top ? top_interval(r) : write_profile(r, "interval");
			if (err)
				return err;
			continue;
		}
		timeout = next - now < (uint64_t)poll_ms * 1000000 ?
			(int)((next - now) / 1000000) + 1 : poll_ms;
		if (poll(fds, 4, timeout) < 0 && errno != EINTR)
			return -errno;
		if (r->top && top_live__keys(r->top)) {
			r->stop_reason = "quit";
			return 0;
		}
		err = consume_tracking(r);
		if (!err)
			err = control_input(r);
		if (err)
			return err;
		r->stop_reason = check_signals(r);
		if (r->stop_reason)
			return 0;
		progress__tick(&r->progress, r->session, procs__now());
	}
}

/* What the unwinder loaded, walked by frame pointers, refused, freed. */
static void print_unwind_stats(const struct run *r)
{
	struct unwind_stats us;

	unwinder__stats(r->unwinder, &us);
	p_info("unwind tables: %zu files loaded (%zu rows of %u, peak %zu, "
		"%.1f MiB), %zu walked by frame pointers, %zu without usable CFI (%zu over the build's "
		"budget), %zu did not fit, "
		"%zu dropped after their processes exited, %zu process entries, %.2f s building",
		us.files, us.rows, r->cfg->unwind_rows, us.rows_peak,
		us.rows * sizeof(struct unwind_row) / 1048576.0, us.files_fp, us.files_without,
		us.files_over_budget, us.files_refused, us.files_dropped, us.procs, us.build_seconds);
}

/* Fleet mode's exit line: what the intervals hold against the BPF side's
 * own totals (samples; off-CPU microseconds with --off-cpu). */
static void print_fleet_totals(const struct run *r, uint64_t total)
{
	struct fleet_totals tot;
	uint64_t offcpu_us;
	char offcpu[64] = "";

	output__totals(r->out, &tot);
	if (r->cfg->offcpu && !session__total(r->session, TOTAL_OFFCPU_US, &offcpu_us))
		snprintf(offcpu, sizeof(offcpu), "; BPF-side off-CPU total %" PRIu64 " us", offcpu_us);
	p_info("fleet: %" PRIu64 " intervals, %" PRIu64 " samples in them; "
		"%" PRIu64 " intervals (%" PRIu64 " samples) not written; BPF-side total %" PRIu64
		" samples%s", tot.intervals, tot.samples, tot.lost_intervals, tot.lost_samples, total,
		offcpu);
}

/* Fleet mode's file registry: what the processes map now, what went with
 * them (the soak checks both come back down). */
static void print_files_stats(const struct run *r)
{
	struct files_stats st;

	files__stats(r->files, &st);
	p_info("fleet: file registry: %zu files now (peak %zu), %" PRIu64 " released, %zu with "
	       "symbols read (%.1f MiB), %" PRIu64 " symbol reads, %zu kept open", st.entries,
	       st.peak_entries, st.released, st.loaded, st.bytes / 1048576.0, st.reads,
	       st.kept_open);
}

/* Stops sampling and writes what is left: runs after errors too, so
 * whatever was sampled is written out. */
static int finish(struct run *r)
{
	uint64_t total;
	bool by_signal = r->stop_reason && (!strcmp(r->stop_reason, "interrupted") ||
					    !strcmp(r->stop_reason, "terminated"));
	int err;

	arm_abort(r->out, by_signal ? 1 : 2);
	progress__clear(&r->progress);
	session__stop(r->session);
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
	err = write_profile(r, r->stop_reason ? r->stop_reason : "error");
	if (r->cfg->control_ctl && !session__total(r->session, TOTAL_SAMPLES, &total))
		p_info("control: %lu commands, %" PRIu64 " samples cleared, %lu acks the ACK "
		       "FIFO had no room for; BPF-side total %" PRIu64 " samples",
			r->commands, r->cleared, control__acks_dropped(r->control), total);
	if (r->unwinder)
		print_unwind_stats(r);
	if (!r->cfg->interval || session__total(r->session, TOTAL_SAMPLES, &total))
		return err;
	print_fleet_totals(r, total);
	print_files_stats(r);
	return err;
}

/* Returns an error of closing the output (a full disk shows up there). */
static int cleanup(struct run *r)
{
	int err;

	if (r->have_cmd) {
		command__end(&r->cmd, r->cfg->kill_after);
		if (r->cmd.killed)
			p_err("'%s' (pid %d) still ran %g s after SIGTERM: "
				"killed (SIGKILL)", r->cfg->cmd[0], (int)r->cmd.pid,
				r->cfg->kill_after);
	}
	collector__free(r->collector);
	control__close(r->control);
	profile__free(r->so_far);
	top_live__free(r->top);
	pyprof__free(r->py);
	tracker__free(r->tracker);
	/* procs lets go of the files, the registry releases their unwind
	 * tables: the unwinder and the BPF maps are still there */
	procs__free(r->procs);
	files__free(r->files);
	unwinder__free(r->unwinder);
	session__destroy(r->session);
	free(r->pid_starts);
	free(r->tid_starts);
	err = output__close(r->out);
	if (r->sig_fd >= 0)
		close(r->sig_fd);
	return err;
}

static int run_profile(const struct config *cfg)
{
	struct run r = { .cfg = cfg, .sig_fd = -1 };
	int err, ferr;

	/* before any thread runs: it sets the environment libdebuginfod reads */
	debuginfod__configure(cfg->names.debuginfod_timeout);
	err = check_pids(&r);
	if (!err && cfg->top)
		err = top_live__new(cfg, &r.top);
	else if (!err)
		err = output__open(cfg, &r.out);
	if (!err && cfg->control_ctl)
		err = control__open(cfg->control_ctl, cfg->control_ack, &r.control);
	if (!err)
		err = block_signals(&r);
	if (!err && cfg->cmd) {
		err = command__spawn(cfg->cmd, &r.old_mask, &r.cmd);
		r.have_cmd = !err;
		if (err)
			p_err("cannot start '%s': %s", cfg->cmd[0], strerror(-err));
	}
	if (!err)
		err = load(&r);
	if (!err)
		err = start_tracking(&r);
	if (!err)
		err = start(&r);
	if (!err && r.top)
		err = top_live__begin(r.top);
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

int main(int argc, char **argv)
{
	struct config cfg;
	int ret;

	if (argc > 1 && views__is_command(argv[1]))
		return views__main(argc - 1, argv + 1);
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
	if (cfg.list) {
		events__list(stdout);
		cli_free(&cfg);
		return 0;
	}
	ret = run_profile(&cfg);
	cli_free(&cfg);
	return ret;
}
