/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Python frames, user space: finds each process's CPython (an executable
 * or libpython with _PyRuntime and _PyEval_EvalFrameDefault), tells the BPF
 * side where to look (py_procs), reads the code objects samples named
 * (py_codes) from the process's memory while it lives, and names Python
 * frames "function (file.py:line)" from them, after the process exits too.
 */
#ifndef BPFPROF_PYTHON_H
#define BPFPROF_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct procs;
struct pyprof;

struct py_stats {
	uint64_t procs;		/* processes with a supported CPython found */
	uint64_t unsupported;	/* processes with a CPython of a version not in the table */
	uint64_t codes;		/* code objects read */
	uint64_t codes_gone;	/* the process exited before its code object was read */
	uint64_t codes_bad;	/* not the code object sampled any more (a module's body is
				 * freed once run, often before the next poll), or unreadable */
};

/* procs_fd, codes_fd: the BPF maps py_procs and py_codes. */
/* noted: the BPF side's count of code objects put in codes_fd's map;
 * procs_stored: its word that says procs_fd has had an entry. */
struct pyprof *pyprof__new(int procs_fd, int codes_fd, const volatile uint64_t *noted,
			   volatile uint32_t *procs_stored);
void pyprof__free(struct pyprof *py);

/* tgid's mappings changed: looks for a CPython in them. */
void pyprof__sync_proc(struct pyprof *py, struct procs *procs, pid_t tgid);

/* Reads the code objects sampled since the last call, while their
 * processes live. */
void pyprof__poll(struct pyprof *py);

/* Where a Python frame's code is: its source file, the line running (0: not
 * known), the code object's first line (co_firstlineno). */
struct py_where {
	const char *file;
	uint32_t line, first_line;
};

/* Names the Python frame ip (PY_IS_FRAME), fingerprint fp (the slot after
 * it), of the process (tgid, start_time): "function (file.py:line)" into
 * name, where it is into *where. False when its code object was never read. */
bool pyprof__name(const struct pyprof *py, pid_t tgid, uint64_t start_time, uint64_t ip,
		  uint64_t fp, char *name, size_t size, struct py_where *where);

/* After a turn's frames are named, before procs__reap(): the code objects
 * of a process seen exited at the last call are dropped (its samples are
 * all named by now), those of one that exited since are marked, so a long
 * run's memory stays bounded. */
void pyprof__trim(struct pyprof *py, struct procs *procs);

void pyprof__stats(const struct pyprof *py, struct py_stats *st);

#endif
