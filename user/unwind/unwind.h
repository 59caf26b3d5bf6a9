/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --call-graph dwarf, user space: builds each mapped file's unwind table
 * once (cached by file identity, shared by every process that maps it),
 * loads the rows into the BPF side's row array, and keeps one entry per
 * process saying which of its mappings use which rows.
 */
#ifndef BPFPROF_UNWIND_H
#define BPFPROF_UNWIND_H

#include <stddef.h>
#include <sys/types.h>

struct procs;
struct unwinder;

struct unwind_stats {
	size_t files;			/* files with a table loaded */
	size_t files_without;		/* files without usable CFI, or unreadable */
	size_t rows;			/* rows loaded, of max_rows */
	size_t rows_refused;		/* tables that did not fit */
	size_t procs;			/* process entries written */
	double build_seconds;		/* spent building tables */
};

int unwinder__new(int rows_fd, int procs_fd, unsigned int max_rows, struct unwinder **out);

/* Builds and loads the table of one file ahead of need. */
int unwinder__preload(struct unwinder *u, const char *path);

/* Loads tables for every process whose mappings changed since the last
 * call (procs__track_changes() must be on); with nroots > 0, only for the
 * roots and their descendants (what -p or -- COMMAND profiles). */
void unwinder__sync(struct unwinder *u, struct procs *procs, const pid_t *roots, int nroots);

/* fn(arg, procs, tgid) runs for every process synced, after its tables:
 * others that follow a process's mappings (Python) ride on the same changes. */
void unwinder__on_sync(struct unwinder *u, void (*fn)(void *arg, struct procs *procs, pid_t tgid),
		       void *arg);

void unwinder__stats(const struct unwinder *u, struct unwind_stats *st);
void unwinder__free(struct unwinder *u);

#endif
