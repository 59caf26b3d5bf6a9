// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The runtimes' table and its loops (runtimes.h). */
#include <errno.h>
#include <stdlib.h>

#include "base/runtime.h"
#include "profile/aggregate.h"
#include "hotspot/hotspot.h"
#include "python/python_runtime.h"
#include "runtimes/runtimes.h"
#include "v8/v8_runtime.h"

/* One row per runtime, at its id (bpf/runtimes.h). */
const struct runtime_ops *const runtime_rows[RUNTIME_MAX] = {
	[RUNTIME_PYTHON] = &python_runtime,
	[RUNTIME_V8] = &v8_runtime,
	[RUNTIME_HOTSPOT] = &hotspot_runtime,
};

struct runtimes {
	void *state[RUNTIME_MAX];	/* NULL: off */
};

struct runtimes *runtimes__new(struct session *s, unsigned int on, int *err)
{
	struct runtimes *rts;

	*err = 0;
	if (!(on & ((1u << RUNTIME_MAX) - 1)))
		return NULL;
	rts = calloc(1, sizeof(*rts));
	if (!rts) {
		*err = -ENOMEM;
		return NULL;
	}
	for (int i = 0; i < RUNTIME_MAX; i++) {
		if (!(on & 1u << i))
			continue;
		rts->state[i] = runtime_rows[i]->start(s);
		if (!rts->state[i]) {
			runtimes__free(rts);
			*err = -ENOMEM;
			return NULL;
		}
	}
	return rts;
}

void runtimes__free(struct runtimes *rts)
{
	if (!rts)
		return;
	for (int i = 0; i < RUNTIME_MAX; i++)
		if (rts->state[i])
			runtime_rows[i]->free(rts->state[i]);
	free(rts);
}

void runtimes__sync_proc(struct runtimes *rts, struct procs *procs, pid_t tgid)
{
	for (int i = 0; rts && i < RUNTIME_MAX; i++)
		if (rts->state[i])
			runtime_rows[i]->sync_proc(rts->state[i], procs, tgid);
}

void runtimes__poll(struct runtimes *rts)
{
	for (int i = 0; rts && i < RUNTIME_MAX; i++)
		if (rts->state[i])
			runtime_rows[i]->poll(rts->state[i]);
}

void runtimes__trim(struct runtimes *rts, struct procs *procs)
{
	for (int i = 0; rts && i < RUNTIME_MAX; i++)
		if (rts->state[i])
			runtime_rows[i]->trim(rts->state[i], procs);
}

void runtimes__stats(const struct runtimes *rts, struct profile_stats *ps)
{
	for (int i = 0; rts && i < RUNTIME_MAX; i++)
		if (rts->state[i])
			runtime_rows[i]->stats(rts->state[i], ps);
}

bool runtimes__pc_first(uint64_t word)
{
	uint32_t id = RUNTIME_OF(word);

	return id < RUNTIME_MAX && runtime_rows[id]->pc_first;
}

void runtimes__frame(const struct runtimes *rts, pid_t tgid, uint64_t start_time, uint64_t slot,
		     uint64_t word, char *buf, size_t size, struct pframe *f,
		     struct profile_stats *st)
{
	uint32_t id = RUNTIME_OF(word);
	const struct runtime_ops *rt = id < RUNTIME_MAX ? runtime_rows[id] : NULL;
	const void *state = rt && rts ? rts->state[id] : NULL;
	struct runtime_where where = { 0 };

	st->frames++;
	/* only the walkers write tagged slots, each its own id (RUNTIME_WORD
	 * keeps a payload out of the top byte): not reached */
	if (!rt) {
		st->unresolved++;
		st->unnamed[UNNAMED_NO_MAPPING]++;
		*f = (struct pframe){ .name = "[unknown]", .addr = slot };
		return;
	}
	if (rt->name_frame(state, tgid, start_time, slot, RUNTIME_PAYLOAD(word), buf, size,
			   &where)) {
		st->runtime_named[id]++;
	} else {
		st->unresolved++;
		st->runtime_unnamed[id]++;
		st->unnamed[UNNAMED_RUNTIME + id]++;
		rt->unnamed(slot, RUNTIME_PAYLOAD(word), buf, size);
	}
	*f = (struct pframe){
		.name = buf, .mapping = frame_kind__row(rt->kind)->mapping, .file = where.file,
		.line = where.line, .start_line = where.first_line, .runtime = rt->kind,
	};
}

enum frame_kind runtimes__code(const struct runtimes *rts, pid_t tgid, uint64_t start_time,
			       uint64_t pc, char *buf, size_t size, struct profile_stats *st)
{
	for (int i = 0; rts && i < RUNTIME_MAX; i++) {
		enum runtime_code c;

		if (!rts->state[i] || !runtime_rows[i]->name_code)
			continue;
		c = runtime_rows[i]->name_code(rts->state[i], tgid, start_time, pc, buf, size);
		if (c == RUNTIME_CODE_NAMED) {
			st->runtime_named[i]++;
			return runtime_rows[i]->kind;
		}
		if (c == RUNTIME_CODE_UNNAMED) {
			st->runtime_unnamed[i]++;
			return FK_USER;
		}
	}
	return FK_USER;
}
