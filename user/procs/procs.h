/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Process lifetimes and their executable mappings, kept while profiling so
 * that a process that exits before its samples are symbolized still is.
 * Fed by the tracker (fork/exec/mmap/exit records) and by /proc/PID/maps
 * for the processes that were already running.
 *
 * A pid can be reused: each process that had it is an incarnation, and a
 * sample names its own by the process start time the BPF side records.
 */
#ifndef BPFPROF_PROCS_H
#define BPFPROF_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct file_entry;

struct vma {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	uint64_t time;		/* CLOCK_MONOTONIC ns when it was seen mapped */
	uint64_t gone;		/* ... when /proc no longer had it (0: not seen gone;
				 * procs/unmapped.c) */
	char *path;		/* "" for anonymous memory, "[vdso]"... */
	struct file_entry *file;	/* its file's registry entry (files.h);
					 * NULL: none, or no registry */
};

struct procs;

/* Whose a process is: its real and effective uid, and when it started
 * (/proc/TGID/stat field 22, clock ticks since boot): learnt while it runs,
 * so that the files it names after its exit (its JIT map) are checked
 * against its user, not against whoever has its pid by then. */
struct proc_owner {
	uid_t ruid, euid;
	uint64_t start_ticks;
	bool known;
};

/* Reads the owner of the process that has pid tgid now, and its pid in its
 * own pid namespace into *nspid (tgid when unknown) when nspid is not NULL.
 * That process must have started by born_by (CLOCK_MONOTONIC ns, e.g. a
 * record or a sample of the process meant): one started later has the pid
 * of one that exited. The pid is someone else's only if it was reused
 * within a clock tick (plus any time the machine slept since born_by).
 * Returns 0, or -ESRCH (gone, unreadable, or another process). */
int proc_owner__read(pid_t tgid, uint64_t born_by, struct proc_owner *o, pid_t *nspid);

/* The registry the files of recorded mappings are entered in: a reference
 * is taken for each mapping recorded (procs__mmap, procs__fork,
 * procs__synthesize) and dropped when the process is forgotten
 * (procs__reap, procs__free), after the drain that covered its samples,
 * or the mapping is (procs__reap: mapped over, or an exec's past). */
struct procs_files {
	struct file_entry *(*get)(void *ctx, pid_t tgid, bool alive, const struct vma *v);
	void (*put)(void *ctx, struct file_entry *f);
	void *ctx;
};

struct procs *procs__new(void);
void procs__free(struct procs *p);

/* Enters the files of mappings recorded from now on in a registry. */
void procs__set_files(struct procs *p, const struct procs_files *files);

/* Records from the tracker; times are CLOCK_MONOTONIC ns. Each returns 0
 * or -ENOMEM. */
int procs__mmap(struct procs *p, pid_t tgid, const struct vma *v);
int procs__exec(struct procs *p, pid_t tgid, uint64_t time);
int procs__fork(struct procs *p, pid_t parent, pid_t child, uint64_t time);
int procs__exit(struct procs *p, pid_t tgid, uint64_t time);

/* Reads the executable mappings of a running process from /proc/TGID/maps.
 * Returns 0, -ENOENT when it is gone, or -errno. */
int procs__synthesize(struct procs *p, pid_t tgid);

/* procs__synthesize() for every process in /proc. Returns how many were read. */
int procs__synthesize_all(struct procs *p);

/* exec_time for the image a process runs now, whatever exec it is in. */
#define EXEC_LATEST	UINT64_MAX

/* The newest mapping covering addr of the process tgid that started at
 * start_time (CLOCK_MONOTONIC ns; 0 when unknown: the latest one), in the
 * image its exec at exec_time loaded (0: the one before any exec seen;
 * EXEC_LATEST: the current one), or NULL. A running process never seen
 * starting nor read is read from /proc first. */
const struct vma *procs__find(struct procs *p, pid_t tgid, uint64_t start_time,
			      uint64_t exec_time, uint64_t addr);

/* The owner of process tgid that started at start_time as learnt while it
 * ran: when an image of it first ran code not from a file (a JIT's), or was
 * read from /proc. known is false when it never was. */
struct proc_owner procs__owner(struct procs *p, pid_t tgid, uint64_t start_time);

/* False once that process's exit was seen: its /proc entry, if any, is
 * someone else's now. */
bool procs__alive(struct procs *p, pid_t tgid, uint64_t start_time);

/* True when every sample of that process was taken before `before`: its
 * exit was seen before it (procs__reap(before) forgets it), or procs knows
 * no process of that pid (never seen, or forgotten by an earlier reap). */
bool procs__drained(struct procs *p, pid_t tgid, uint64_t start_time, uint64_t before);

/* Who forked the process tgid that started at start_time, when its fork
 * record was read (0: it was not, as for one running before the run). */
pid_t procs__forked_by(struct procs *p, pid_t tgid, uint64_t start_time);

/* Forgets the processes that exited before `before`: their samples have
 * all been drained. Returns how many were dropped. The running ones' lose
 * the mappings no sample before `before` nor a fork's copy can still need
 * (mapped over whole, or of an image an exec ended), and past
 * PROCS_MAX_VMAS their oldest (prune.c). */
size_t procs__reap(struct procs *p, uint64_t before);

/* From now on, remember which processes change (see below). */
void procs__track_changes(struct procs *p);

/* The tgids whose current image changed (born, exec'd, mapped something,
 * exited) since the last call: a new array in *tgids (free() it). */
size_t procs__take_changed(struct procs *p, pid_t **tgids);

/* Calls fn for each mapping of tgid's current process and image, in the
 * order they were seen (a later one over the same range wins). */
int procs__for_each_vma(struct procs *p, pid_t tgid,
			int (*fn)(const struct vma *v, bool alive, void *ctx), void *ctx);

/* True when tgid is one of roots or was forked, as far as seen, by one of
 * them or their descendants. */
/* The same, newest first; fn returning > 0 ends the walk there (0 is
 * returned): a reader that wants only what is mapped now stops once
 * newer mappings covered what it needs, however many a process made. */
int procs__for_each_vma_newest(struct procs *p, pid_t tgid,
			       int (*fn)(const struct vma *v, bool alive, void *ctx), void *ctx);

bool procs__descends(const struct procs *p, pid_t tgid, const pid_t *roots, int nroots);

/* Mappings let go past PROCS_MAX_VMAS (base/config.h) since the start, and the process
 * that lost most at once (its comm raw: escape it to show it). */
struct procs_forgotten {
	size_t n;
	size_t most;
	pid_t pid;		/* 0: none */
	char comm[16];
};

/* Mappings dropped since the start: unreachable ones, and over the cap. */
size_t procs__pruned(const struct procs *p);
struct procs_forgotten procs__forgotten(const struct procs *p);

/* Mappings held, of every incarnation. */
size_t procs__vmas(const struct procs *p);

/* Incarnations held, exited ones included. */
size_t procs__count(const struct procs *p);

/* CLOCK_MONOTONIC now, in ns: the tracker's clock. */
uint64_t procs__now(void);

#endif
