/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --call-graph auto and dwarf, user space: builds each mapped file's unwind
 * table once (by file identity, shared by every process that maps it),
 * loads its rows into the BPF side (rowstore.h) unless auto mode walks the
 * file by frame pointers, and keeps one entry per process saying how each
 * of its mappings is walked. A file's rows are dropped with the last
 * process that maps it.
 */
#ifndef BPFPROF_UNWIND_H
#define BPFPROF_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "bpf/profile.h"

struct files;
struct procs;
struct unwind_asks;
struct unwinder;

struct unwind_stats {
	size_t files;			/* files with rows loaded now */
	size_t files_loaded;		/* files whose rows were loaded, ever */
	size_t files_fp;		/* auto: files that keep frame pointers (no rows) */
	size_t files_without;		/* files without usable CFI, or unreadable */
	size_t files_over_budget;	/* of those: tables over the build's caps or time */
	size_t files_refused;		/* tables that did not fit (walked by frame pointers) */
	size_t files_dropped;		/* rows freed when the last process using them went */
	size_t files_reused;		/* tables found again for a file whose last
					 * process had exited (a compiler under make) */
	size_t files_evicted;		/* idle tables dropped early to make room */
	size_t rows;			/* rows loaded now */
	uint64_t row_bytes;		/* their maps' kernel memory */
	size_t rows_peak;		/* the most loaded at once */
	size_t procs;			/* process entries written */
	size_t asked;			/* lazy: processes that asked by a sample */
	size_t files_wanted;		/* lazy: files a sample's walk asked a table for */
	double build_seconds;		/* spent building tables */
	/* each process's share of the work (share.h): tables refused by each
	 * limit, and the process refused most, its limit the last it hit */
	size_t over_share_tables;	/* new tables a second */
	size_t over_share_build;	/* build time a second */
	size_t over_share_rows;		/* rows held */
	pid_t share_pid;
	char share_comm[16];		/* as /proc/PID/comm had it: escape to show */
	const char *share_limit;	/* share__limit_name() */
	size_t share_refused;		/* tables refused it */
	/* what loading cost the main loop (rowstore.h) */
	size_t chunks, chunks_made, graces;
};

/* The BPF side's maps the unwinder writes and reads. */
struct unwinder_maps {
	int files_fd;	/* unwind_files, the array of row maps */
	int procs_fd;	/* unwind_procs */
	int exec_fd;	/* exec_times, each entry stamped with its exec; -1: none */
	/* the BPF side's count of changes to unwind_procs, moved after each
	 * (a CPU's copy of an entry is kept while it stands); NULL: none */
	volatile __u64 *procs_changes;
};

/* max_rows: the budget of rows loaded at once. files: the registry the
 * processes' files are entered in; each file's table hangs in its entry,
 * released with it. */
int unwinder__new(const struct unwinder_maps *maps, enum unwind_mode mode, unsigned int max_rows,
		  struct files *files, struct unwinder **out);

/* Builds and loads the table of one file ahead of need; it stays loaded. */
int unwinder__preload(struct unwinder *u, const char *path);

/* Brings the entries of every process whose mappings changed or that
 * exited since the last call up to date (procs__track_changes() must be
 * on); with nroots > 0, only for the roots and their descendants (what -p
 * or -- COMMAND profiles). Returns how many entries it wrote (a stack
 * copied early may be walked only after one). */
size_t unwinder__sync(struct unwinder *u, struct procs *procs, const pid_t *roots, int nroots);

/* Lazy tables (fleet mode over the machine): a process gets its entry,
 * and its files their tables, when a sample of it asks (the BPF side's
 * asks), not when it starts or is found running; one with an entry is
 * kept up to date as before. */
void unwinder__set_lazy(struct unwinder *u, const struct unwind_asks *asks);

/* Lazy: the files of tgid's mappings that hold addrs (n of them, at most
 * MAX_UNWIND_MAPS: a copied stack's pc and the words of it that point into
 * code, replay__unasked()) get their tables now, urgently, if no sample
 * asked for them yet; a file no sample's walk needs is never built. tgid's
 * entry is written again at once (those mappings then wait for their
 * builds, and its copies with them). Returns how many files were asked. */
size_t unwinder__want(struct unwinder *u, struct procs *procs, pid_t tgid, const __u64 *addrs,
		      size_t n);

/* Lazy: the same for the frames of a drained stack of tgid (ips,
 * innermost first, at most MAX_UNWIND_MAPS looked at), for the samples no copy was kept of (a
 * runtime's process: its frames are read at the sample or never; the
 * ring full): the files they crossed get their tables for the next
 * interval's. Cheap for a process with no unasked file; its entry is
 * written again only when a file was asked. */
size_t unwinder__sampled(struct unwinder *u, struct procs *procs, pid_t tgid,
			 const uint64_t *ips, size_t n);

/* fn(arg, procs, tgid) runs for every process synced, after its tables:
 * others that follow a process's mappings (Python) ride on the same changes. */
void unwinder__on_sync(struct unwinder *u, void (*fn)(void *arg, struct procs *procs, pid_t tgid),
		       void *arg);

/* fn(arg, tgid) runs for every process synced again because the builds
 * it waited for are done: the stacks copied before them can be walked now
 * (run/early_walks.c), not at the next retry of every held stack. */
void unwinder__on_built(struct unwinder *u, void (*fn)(void *arg, pid_t tgid), void *arg);

/* A process that exits keeps its entry, and its files their tables,
 * while holds(arg, tgid) says something still needs them: samples copied
 * before its tables were in, not walked yet (run/early_walks.c). Its
 * entry is brought up to date as the builds end; once none is pending it
 * is final, and settle(arg, tgid) is told to walk what it holds for it
 * (a copy from before an exec, walked by the parent's entry, may still
 * wait for that one). The entry goes at the first sync after holds()
 * lets it go. */
void unwinder__hold_exited(struct unwinder *u, bool (*holds)(void *arg, pid_t tgid),
			   void (*settle)(void *arg, pid_t tgid), void *arg);

/* Readable (poll) when built tables wait to go in: unwinder__sync()
 * takes them. -1 once stopped. */
int unwinder__fd(const struct unwinder *u);

/* True while tables are being built (the builder's thread is at work). */
bool unwinder__busy(const struct unwinder *u);

/* No more tables: the build under way is cancelled, the queue dropped
 * (the run is over; the CPU goes to writing the profile). The tables
 * dropped from now on stay in the BPF maps until the session ends: the
 * programs must be detached by then. */
void unwinder__stop(struct unwinder *u);

void unwinder__stats(const struct unwinder *u, struct unwind_stats *st);
void unwinder__free(struct unwinder *u);

#endif
