// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* CPython as a runtime (base/runtime.h): its row's operations, on
 * python.h's reader and the session's Python maps. */
#include <inttypes.h>
#include <stdio.h>

#include "profile/counters.h"
#include "profile/stats.h"
#include "python/python.h"
#include "python/python_runtime.h"
#include "sampling/session.h"

/* Its own counts (profile_stats.runtime_counts[RUNTIME_PYTHON]). */
enum { PY_COUNT_PROCS, PY_COUNT_UNSUPPORTED, PY_COUNT_CODES_GONE, PY_COUNT_CODES_BAD };

static void *py_start(struct session *s)
{
	return pyprof__new(session__map_fd(s, "py_procs"), session__map_fd(s, "py_codes"),
			   session__bss_var(s, "py_codes_noted"),
			   session__bss_var(s, "py_procs_stored"));
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
	uint64_t *c = ps->runtime_counts[RUNTIME_PYTHON];

	pyprof__poll((struct pyprof *)rt);
	pyprof__stats(rt, &st);
	c[PY_COUNT_PROCS] = st.procs;
	c[PY_COUNT_UNSUPPORTED] = st.unsupported;
	c[PY_COUNT_CODES_GONE] = st.codes_gone;
	c[PY_COUNT_CODES_BAD] = st.codes_bad;
}

#define AT(field)	COUNTER_AT(field)
#define OWN(k)		COUNTER_OWN(RUNTIME_PYTHON, k)

/* The CPython reader and the BPF side's Python walk. */
static const struct counter py_counters[] = {
	{ "processes", "processes", OWN(PY_COUNT_PROCS), COUNTER_U64, MERGE_NEWER },
	{ "unsupported", "of an unsupported version", OWN(PY_COUNT_UNSUPPORTED), COUNTER_U64,
	  MERGE_NEWER },
	{ "frames_read", "frames read in samples", AT(bpf[STAT_PY_FRAMES]), COUNTER_U64,
	  MERGE_ELSEWHERE },
	{ "frames_named", "named in the stacks", AT(runtime_named[RUNTIME_PYTHON]), COUNTER_U64,
	  MERGE_SUM },
	{ "frames_unnamed", "unnamed in the stacks", AT(runtime_unnamed[RUNTIME_PYTHON]),
	  COUNTER_U64, MERGE_SUM },
	{ "no_thread_state", "not read: no thread state", AT(bpf[STAT_PY_NO_THREAD]),
	  COUNTER_U64, MERGE_ELSEWHERE },
	{ "read_faults", "not read: read faults", AT(bpf[STAT_PY_READ_FAULT]), COUNTER_U64,
	  MERGE_ELSEWHERE },
	{ "past_max_depth", "not read: past max depth", AT(bpf[STAT_PY_TRUNCATED]),
	  COUNTER_U64, MERGE_ELSEWHERE },
	{ "codes_process_gone", "code objects not read: process gone", OWN(PY_COUNT_CODES_GONE),
	  COUNTER_U64, MERGE_NEWER },
	{ "codes_unreadable", "code objects freed or unreadable", OWN(PY_COUNT_CODES_BAD),
	  COUNTER_U64, MERGE_NEWER },
};

static const struct counter_group py_group = {
	"python", "python", py_counters, sizeof(py_counters) / sizeof(py_counters[0]), 0,
};

static const struct runtime_map py_maps[] = {
	{ "py_procs", MAX_PY_PROCS }, { "py_codes", MAX_PY_CODES },
	{ "py_threads", MAX_PY_THREADS }, { NULL, 0 },
};

const struct runtime_ops python_runtime = {
	.name = "python", .kind = FK_PYTHON,
	.off_option = "no-python",
	.off_usage = "no Python frames in CPython processes: native ones only",
	.needs_tables = true, .maps = py_maps,
	.unnamed_text = "Python code object not read", .unnamed_key = "python_code_not_read",
	.counters = &py_group,
	.start = py_start, .free = py_free, .sync_proc = py_sync_proc, .poll = py_poll,
	.name_frame = py_name, .unnamed = py_unnamed, .trim = py_trim, .stats = py_stats,
};
