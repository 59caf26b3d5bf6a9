// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The run's commands (--control's FIFO, SIGUSR1): enable, disable,
 * snapshot, clear. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "aggregate.h"
#include "errors.h"
#include "output.h"
#include "run_state.h"
#include "session.h"

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
	if (!err && !r->cfg->quiet)
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

/* Said on stderr with the BPF side's never-reset total, which the run's
 * accounting is checked against. A failed snapshot is said and the run
 * goes on. */
int run__control(struct run *r, enum control_cmd cmd)
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

/* Each acked when done. */
int run__control_input(struct run *r)
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
		err = run__control(r, cmd);
		if (err)
			return err;
		control__ack(r->control);
	}
	return 0;
}
