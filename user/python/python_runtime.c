// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* CPython as a runtime (base/runtime.h): its row's operations, on
 * python.h's reader and the session's Python maps. */
#include <inttypes.h>
#include <stdio.h>

#include "profile/stats.h"
#include "python/python.h"
#include "python/python_runtime.h"
#include "sampling/session.h"

static void *py_start(struct session *s)
{
	return pyprof__new(session__py_procs_fd(s), session__py_codes_fd(s),
			   session__py_codes_noted(s), session__py_procs_stored(s));
}

static void py_free(void *rt)
{
	pyprof__free(rt);
}

static void py_sync_proc(void *rt, struct procs *procs, pid_t tgid)
{
	pyprof__sync_proc(rt, procs, tgid);
}

static void py_poll(void *rt)
{
	pyprof__poll(rt);
}

static bool py_name(const void *rt, pid_t tgid, uint64_t start_time, uint64_t slot,
		    uint64_t word, char *name, size_t size, struct runtime_where *where)
{
	struct py_where w = { 0 };

	if (!pyprof__name(rt, tgid, start_time, slot, word, name, size, &w))
		return false;
	*where = (struct runtime_where){ w.file, w.line, w.first_line };
	return true;
}

static void py_unnamed(uint64_t slot, uint64_t word, char *name, size_t size)
{
	(void)word;
	snprintf(name, size, "[python code 0x%" PRIx64 "]", (uint64_t)PY_CODE(slot));
}

static void py_trim(void *rt, struct procs *procs)
{
	pyprof__trim(rt, procs);
}

/* The code objects sampled last are read before their names are needed. */
static void py_stats(const void *rt, struct profile_stats *ps)
{
	struct py_stats st;

	pyprof__poll((struct pyprof *)rt);
	pyprof__stats(rt, &st);
	ps->py_procs = st.procs;
	ps->py_unsupported = st.unsupported;
	ps->py_codes_gone = st.codes_gone;
	ps->py_codes_bad = st.codes_bad;
}

const struct runtime_ops python_runtime = {
	.name = "python", .kind = FK_PYTHON, .unnamed_reason = UNNAMED_PY_CODE,
	.start = py_start, .free = py_free, .sync_proc = py_sync_proc, .poll = py_poll,
	.name_frame = py_name, .unnamed = py_unnamed, .trim = py_trim, .stats = py_stats,
};
