// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The run's commands (--control's FIFO, SIGUSR1): enable, disable,
 * snapshot, clear; one turn's worth at a time (control.h merges them). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "profile/aggregate.h"
#include "base/errors.h"
#include "output/output.h"
#include "procs/procs.h"
#include "run/run_state.h"
#include "sampling/session.h"

/* snapshot: the profile so far to -o now (fleet mode: the interval ends
 * now); sampling goes on. */
static int snapshot(struct run *r)
{
	struct profile *p;
	int err;

	if (r->cfg->interval)
		return run__write_profile(r, "snapshot");
	err = run__collect(r, &p);
	if (!err && r->so_far) {
		err = profile__merge(r->so_far, p);
		profile__free(p);
	} else if (!err) {
		r->so_far = p;
	}
	if (!err)
		err = output__snapshot(r->out, r->so_far);
	if (!err && !r->cfg->quiet && control__may_say(r->control, procs__now()))
		p_info("control: snapshot: %" PRIu64 " samples (%" PRIu64 " lost) to %s",
		       r->so_far->stats.bpf[STAT_SAMPLES], profile__lost(r->so_far), r->cfg->output);
	return err;
}

/* clear: what was counted so far is dropped (and counted as such). */
static int clear(struct run *r)
{
	struct profile *p;
	int err = run__collect(r, &p);

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

/* One command carried out for LINES lines, said with the BPF side's
 * never-reset total, which the run's accounting is checked against. A
 * failed snapshot is said and the run goes on; any other failure ends it. */
static int carried_out(struct run *r, enum control_cmd cmd, unsigned long lines, int err)
{
	uint64_t total = 0;

	if (err == -ENOMEM || (err && cmd != CONTROL_SNAPSHOT)) {
		p_err("control: %s: %s", control__name(cmd), strerror(-err));
		return err;
	}
	r->commands += lines;
	if (err || r->cfg->quiet || !control__may_say(r->control, procs__now()) ||
	    session__total(r->session, TOTAL_SAMPLES, &total))
		return 0;
	if (lines > 1 && cmd == CONTROL_SNAPSHOT)
		p_info("control: snapshot done; BPF-side total %" PRIu64 " samples (%lu snapshot "
		       "requests skipped since the last one, at most one a second: this one "
		       "answers them)", total, lines - 1);
	else if (lines > 1)
		p_info("control: %s done; BPF-side total %" PRIu64 " samples (%lu lines "
		       "merged into one)", control__name(cmd), total, lines);
	else
		p_info("control: %s done; BPF-side total %" PRIu64 " samples",
		       control__name(cmd), total);
	return 0;
}

static int carry_out(struct run *r, const struct control_todo *t)
{
	int err = 0;

	if (t->state_lines)
		err = carried_out(r, t->state, t->state_lines, !t->state_changes ? 0 :
				  session__set_enabled(r->session, t->state == CONTROL_ENABLE));
	if (!err && t->clear_lines)
		err = carried_out(r, CONTROL_CLEAR, t->clear_lines, clear(r));
	if (!err && t->snapshot)
		err = carried_out(r, CONTROL_SNAPSHOT, t->snapshot_lines, snapshot(r));
	if (!err && t->clear_after_lines)
		err = carried_out(r, CONTROL_CLEAR, t->clear_after_lines, clear(r));
	return err;
}

/* One turn: what waits in the FIFO read up to a budget, carried out merged;
 * the rest waits for the next turn (the loop checks the deadline and the
 * signals in between). */
int run__control_input(struct run *r)
{
	uint64_t start = procs__now();
	struct control_todo t;
	int err;

	control__read(r->control, start);
	if (!control__take(r->control, start, &t))
		return 0;
	err = carry_out(r, &t);
	control__done(r->control, &t, start, procs__now());
	return err;
}
