// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What a person sees while bpfprof runs: one start line, then, on a
 * terminal and for runs over 2 s, one progress line rewritten in place. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/formats.h"
#include "run/progress.h"
#include "output/push_auth.h"

#define PROGRESS_AFTER_NS	2000000000ull	/* shorter runs need no progress */
#define PROGRESS_EVERY_NS	1000000000ull

/* arg as a shell reads it back: quoted when it has more than safe characters */
static size_t put_shell_word(char *buf, size_t size, const char *arg)
{
	size_t n = 0;

	if (*arg && strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			   "0123456789_./:=,+-@%") == strlen(arg))
		return snprintf(buf, size, "%s", arg);
	n = snprintf(buf, size, "'");
	for (; *arg && n < size; arg++)
		n += *arg == '\'' ? snprintf(buf + n, size - n, "'\\''") :
				    snprintf(buf + n, size - n, "%c", *arg);
	if (n < size)
		n += snprintf(buf + n, size - n, "'");
	return n;
}

/* "the whole system (2 CPUs)", "process 12,34", "make -j2 (pid 99)"... */
static void describe_target(const struct config *cfg, pid_t cmd_pid, char *buf, size_t size)
{
	size_t n = 0;
	int i;

	if (cfg->cmd) {
		for (i = 0; cfg->cmd[i] && n < size; i++) {
			if (i)
				n += snprintf(buf + n, size - n, " ");
			if (n < size)
				n += put_shell_word(buf + n, size - n, cfg->cmd[i]);
		}
		if (n < size)
			snprintf(buf + n, size - n, " (pid %d)", (int)cmd_pid);
	} else if (cfg->npids) {
		n = snprintf(buf, size, "process%s", cfg->npids > 1 ? "es" : "");
		for (i = 0; i < cfg->npids && n < size; i++)
			n += snprintf(buf + n, size - n, "%s%d", i ? "," : " ", (int)cfg->pids[i]);
	} else {
		snprintf(buf, size, "the whole system (%ld CPUs)", sysconf(_SC_NPROCESSORS_ONLN));
	}
}

/* "cpu-clock at 99 Hz", "page-faults every 1 event, offcpu" */
static void describe_events(const struct config *cfg, char *buf, size_t size)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < cfg->nevents && n < size; i++) {
		const struct event *ev = &cfg->events[i];

		n += snprintf(buf + n, size - n, "%s%s", i ? ", " : "", ev->name);
		if (n >= size)
			break;
		if (ev->kind == EVENT_TRACEPOINT || ev->kind == EVENT_UPROBE)
			n += snprintf(buf + n, size - n, " (every hit)");
		if (ev->kind != EVENT_SOFTWARE && ev->kind != EVENT_HARDWARE)
			continue;
		if (cfg->period)
			n += snprintf(buf + n, size - n, " every %llu events", cfg->period);
		else
			n += snprintf(buf + n, size - n, " at %u Hz", cfg->freq);
	}
}

/* "to out.pb.gz (pprof)", "every 60 s into /var/lib/bpfprof (pprof) and to URL" */
static void describe_destination(const struct config *cfg, char *buf, size_t size)
{
	char url[512];
	size_t n;

	if (!cfg->interval) {
		snprintf(buf, size, "%s to %s", formats__words(cfg->format),
			 cfg->output ? cfg->output : "standard output");
		return;
	}
	n = snprintf(buf, size, "every %g s", cfg->interval);
	if (cfg->output_dir && n < size)
		n += snprintf(buf + n, size - n, " into %s (%s)", cfg->output_dir,
			      formats__words(cfg->format));
	if (cfg->push_url && n < size) {
		push_url__redact(cfg->push_url, url, sizeof(url));
		snprintf(buf + n, size - n, "%s to %s", cfg->output_dir ? " and" : "", url);
	}
}

/* "stops after 10 s, when it exits or on Ctrl-C" */
static void describe_stop(const struct config *cfg, char *buf, size_t size)
{
	char after[64] = "";
	const char *exits = !cfg->cmd && !cfg->npids ? "" :
			    cfg->npids > 1 ? " when they exit" : " when it exits";

	if (cfg->interval) {
		snprintf(buf, size, "stop with SIGTERM or Ctrl-C");
		return;
	}
	if (cfg->duration > 0)
		snprintf(after, sizeof(after), " after %g s%s", cfg->duration, *exits ? "," : "");
	snprintf(buf, size, "stops%s%s%s on Ctrl-C", after, exits, *after || *exits ? " or" : "");
}

void progress__start_line(const struct config *cfg, pid_t cmd_pid)
{
	char target[512], events[512], dest[1024], stop[128];

	if (cfg->quiet)
		return;
	describe_target(cfg, cmd_pid, target, sizeof(target));
	describe_events(cfg, events, sizeof(events));
	describe_destination(cfg, dest, sizeof(dest));
	describe_stop(cfg, stop, sizeof(stop));
	p_info("profiling %s: %s; %s; %s", target, events, dest, stop);
}

void progress__init(struct progress *p, const struct config *cfg, uint64_t start_ns)
{
	memset(p, 0, sizeof(*p));
	/* fleet mode prints a line per interval instead */
	p->enabled = !cfg->quiet && !cfg->no_progress && !cfg->interval && isatty(STDERR_FILENO);
	p->start_ns = start_ns;
	p->next_ns = start_ns + PROGRESS_AFTER_NS;
}

void progress__tick(struct progress *p, const struct session *s, uint64_t now)
{
	uint64_t samples = 0, lost = 0;

	if (!p->enabled || now < p->next_ns)
		return;
	p->next_ns = now + PROGRESS_EVERY_NS;
	if (session__total(s, TOTAL_SAMPLES, &samples) || session__peek_lost(s, &lost))
		return;
	p_progress("%.0f s, %" PRIu64 " samples, %" PRIu64 " lost", (now - p->start_ns) / 1e9,
		   samples, lost);
	p->shown = true;
}

void progress__clear(struct progress *p)
{
	if (!p->shown)
		return;
	p_progress_clear();
	p->shown = false;
}
