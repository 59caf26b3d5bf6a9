// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bpfprof top: counts each drained interval, keeps the last one as the
 * views see a profile, and redraws the screen from it. */
#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/aggregate.h"
#include "base/errors.h"
#include "views/term.h"
#include "views/top.h"
#include "run/top_live.h"
#include "render/vprof.h"

struct top_live {
	const struct config *cfg;
	struct top_view view;
	struct top_status st;		/* as last drawn while paused */
	struct top_status now;		/* the counts as they are */
	struct vprof *shown;		/* the interval on screen */
	struct vprof *latest;		/* the last interval drained */
	char what[256];
	bool begun;
};

/* "cpu-clock at 99 Hz, pid 1234", "cpu-clock,page-faults every 100 events" */
static void describe(const struct config *cfg, char *buf, size_t size)
{
	size_t n = 0;
	int i;

	for (i = 0; i < cfg->nevents && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "", cfg->events[i].name);
	if (n < size && cfg->period)
		n += (size_t)snprintf(buf + n, size - n, " every %llu events", cfg->period);
	else if (n < size)
		n += (size_t)snprintf(buf + n, size - n, " at %u Hz", cfg->freq);
	if (n >= size)
		return;
	if (cfg->npids == 1)
		snprintf(buf + n, size - n, ", pid %d", (int)cfg->pids[0]);
	else if (cfg->npids)
		snprintf(buf + n, size - n, ", %d processes", cfg->npids);
	else if (cfg->comm)
		snprintf(buf + n, size - n, ", command %s", cfg->comm);
	else
		snprintf(buf + n, size - n, ", system-wide");
}

int top_live__new(const struct config *cfg, struct top_live **out)
{
	struct top_live *t;

	if (!term__is_tty()) {
		p_err("top: standard input and output must be a terminal");
		return -ENOTTY;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->cfg = cfg;
	describe(cfg, t->what, sizeof(t->what));
	t->now.what = t->what;
	t->now.refresh = cfg->refresh;
	t->st = t->now;
	*out = t;
	return 0;
}

int top_live__fd(const struct top_live *t)
{
	(void)t;
	return STDIN_FILENO;
}

void top_live__redraw(struct top_live *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rows, cols, err;

	if (!t->begun)
		return;
	term__size(&rows, &cols);
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	err = top__render(t->shown, &t->view, &t->st, rows, cols, f);
	if (fclose(f) == 0 && !err)
		term__write(buf, len);	/* one write: no half-drawn screen */
	free(buf);
}

void top_live__suspend(struct top_live *t)
{
	term__restore();
	raise(SIGSTOP);	/* SIGTSTP's own action, which the signalfd took */
	if (t->begun && term__start())
		t->begun = false;	/* said; the run goes on without a screen */
	top_live__redraw(t);
}

int top_live__begin(struct top_live *t)
{
	int err = term__start();

	t->begun = !err;
	top_live__redraw(t);
	return err;
}

bool top_live__keys(struct top_live *t)
{
	bool redraw = false;
	int c;

	while ((c = term__key()) >= 0) {
		switch (top__key(&t->view, c)) {
		case TOP_KEY_QUIT:
			return true;
		case TOP_KEY_REDRAW:
			redraw = true;
			break;
		case TOP_KEY_NONE:
			break;
		}
	}
	if (redraw && !t->view.paused && t->shown != t->latest) {	/* resumed: the latest */
		vprof__free(t->shown);
		t->shown = t->latest;
		t->st = t->now;
	}
	if (redraw)
		top_live__redraw(t);
	return false;
}

int top_live__interval(struct top_live *t, const struct profile *p, uint64_t bpf_total)
{
	struct vprof *v;
	int err = vprof__from_profile(p, &v);

	if (err) {
		p_err("top: %s", strerror(-err));
		return err;
	}
	t->now.intervals++;
	t->now.samples = profile__total(p);
	t->now.lost = profile__lost(p);
	t->now.all_samples += t->now.samples;
	t->now.all_lost += t->now.lost;
	t->now.bpf_total = bpf_total;
	if (t->latest != t->shown)
		vprof__free(t->latest);
	t->latest = v;
	if (t->view.paused)
		return 0;
	if (t->shown != v)
		vprof__free(t->shown);
	t->shown = v;
	t->st = t->now;
	top_live__redraw(t);
	return 0;
}

void top_live__end(struct top_live *t, uint64_t bpf_total, const char *why)
{
	term__restore();
	p_info("top: %" PRIu64 " intervals, %" PRIu64 " samples counted, %" PRIu64 " lost; "
	       "BPF-side total %" PRIu64 " samples (%s)", t->now.intervals, t->now.all_samples,
	       t->now.all_lost, bpf_total, why);
}

void top_live__free(struct top_live *t)
{
	if (!t)
		return;
	term__restore();
	if (t->latest != t->shown)
		vprof__free(t->latest);
	vprof__free(t->shown);
	free(t);
}
