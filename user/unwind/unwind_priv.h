/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Inside the unwinder (unwind.h): its state, shared by the process side
 * (unwind.c: one entry per process, synced as its mappings change) and
 * the file side (ufile.c: one table per file, built once, referenced by
 * the entries of every process that maps it). Nothing outside
 * user/unwind/ includes this. */
#ifndef BPFPROF_UNWIND_PRIV_H
#define BPFPROF_UNWIND_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "procs/mapped_file.h"
#include "sampling/session.h"
#include "unwind/share.h"
#include "unwind/unwind.h"

struct built;
struct elf_syms;
struct file_entry;
struct vma;

/* A file's table: how its frames are walked, and who uses it. */
struct ufile {
	struct file_entry *entry;	/* its registry entry (entry->unwind is this);
					 * NULL once the registry released it */
	struct ufile *prev, *next;	/* every table, for the sweep */
	struct elf_syms *es;		/* for file offset -> virtual address */
	__u32 slot;			/* unwind_map.file: a chunk's slot or UNWIND_FILE_* */
	__u32 first, nrows;		/* its rows in that chunk */
	__u32 nindex;			/* its page index's rows, just before them */
	bool ready;			/* its table was built (or could not be) */
	bool unasked;			/* not built, not queued: lazy, until a sample's
					 * walk needs it (unwinder__want()); else until
					 * its process's share admits it */
	bool wanted;			/* a sample's walk needs it: built at its next get */
	bool usable;			/* its mappings go into process entries */
	size_t refs;			/* process entries using it, + 1 when preloaded */
	pid_t owner;			/* the process its build was started for (share.h) */
	uint64_t idle_since;		/* CLOCK_MONOTONIC ns its last user went; 0: in use */
	uint64_t build_ns;		/* what its build took (how long it lingers) */
	struct file_stamp stamp;	/* the file's, to find the table again when
					 * the registry let the file go meanwhile */
};

/* A process with an entry: the files it holds references on. */
struct uproc {
	pid_t tgid;			/* first: the tree's key */
	struct ufile **files;
	size_t nfiles;
	__u64 exec_time;		/* its entry's stamp (unwind.c: exec_stamp) */
	bool waiting;			/* for a table being built: synced again when done */
	bool deferred;			/* refused a table by its share: synced again later */
	bool hurried;			/* its samples wait: its builds were made urgent */
	bool exited;			/* gone, its entry kept while holds() says so */
	bool unasked;			/* its entry has a mapping whose file is unasked */
	struct share share;		/* its share of the table work */
	uint64_t share_exec;		/* the exec stamp its share is kept for */
};

struct unwinder {
	int procs_fd;
	int exec_fd;			/* the BPF side's exec_times; -1: none */
	volatile __u64 *procs_changes;	/* unwinder_maps' */
	enum unwind_mode mode;
	struct rowstore *rows;
	struct builder *builder;
	struct files *files;		/* the registry the tables hang in */
	struct ufile *tables;		/* every table, a list */
	void *procs;			/* tsearch tree of struct uproc */
	struct ufile vdso;		/* every process's [vdso]: built with the
					 * unwinder, kept for the whole run */
	struct ufile over_share;	/* what a file whose table its process's share
					 * refused is: walked by frame pointers */
	size_t budget_rows;		/* --unwind-rows */
	uint64_t last_deferred;		/* CLOCK_MONOTONIC ns deferred processes were synced */
	uint64_t last_hurry;		/* ... the builds samples wait for were hurried */
	size_t vdso_size;		/* its mapping's size */
	struct unwind_stats st;
	uint64_t last_sweep;		/* CLOCK_MONOTONIC ns */
	void (*on_sync)(void *arg, struct procs *procs, pid_t tgid);
	void *on_sync_arg;
	void (*on_built)(void *arg, pid_t tgid);	/* see unwinder__on_built() */
	void *on_built_arg;
	bool (*holds)(void *arg, pid_t tgid);	/* see unwinder__hold_exited() */
	void (*settle)(void *arg, pid_t tgid);
	void *holds_arg;
	bool any_exited;		/* a process's entry is kept past its exit */
	bool lazy;
	struct unwind_asks asks;	/* lazy: the BPF side's asks for tables */
	uint64_t asked_seen;		/* its counts at the last pop */
	uint64_t lost_seen;
};

/* ---- unwind.c: the process side ---------------------------------------- */

/* The process tgid's record, or NULL. */
struct uproc *uproc__find(struct unwinder *u, pid_t tgid);

/* tgid's entry written again from its mappings now (procs), its tables
 * asked for; a process gone is dropped. */
void uproc__sync(struct unwinder *u, struct procs *procs, pid_t tgid);

/* ---- resync.c: which processes are synced again, and when -------------- */

/* Those whose builds are done, once the builds are in place. */
void resync__built(struct unwinder *u, struct procs *procs);

/* Those a share refused a table or a sync, four times a second. */
void resync__deferred(struct unwinder *u, struct procs *procs);

/* Those whose samples wait as copies: their queued builds moved ahead. */
void resync__hurry(struct unwinder *u);

/* Those kept past their exit that nothing holds any more: dropped. */
void resync__exited(struct unwinder *u, struct procs *procs);

/* ---- ufile.c: the file side --------------------------------------------- */

/* The file behind v (mapped by tgid), with one more reference; NULL
 * without memory. A new file's table is built on the builder's thread
 * (urgent: ahead of the others queued) when p's share admits it (p NULL:
 * no process's, preloaded), else it is &u->over_share: until it is
 * ready, the processes that map it wait. Lazy, a file is built only once
 * a sample's walk wants it (unwinder__want()); till then it is unasked,
 * neither opened nor built, and nobody waits for it. */
struct ufile *ufile__get(struct unwinder *u, pid_t tgid, struct uproc *p, bool alive,
			 const struct vma *v, bool urgent);

/* p's share refused it a table, by lim: counted, and p named when it is
 * the process refused most. */
void ufile__refused(struct unwinder *u, struct uproc *p, enum share_limit lim);

/* One reference less; after the last the file lingers (ufile__sweep()). */
void ufile__put(struct unwinder *u, struct ufile *f);

/* The builder's callback: a table it finished goes in (arg: the unwinder). */
void ufile__built(struct built *r, void *arg);

/* The registry's callback: it let the file go (arg: the unwinder). */
void ufile__released(void *arg, void *table);

/* Files nobody has used for a while: their rows freed, forgotten. */
void ufile__sweep(struct unwinder *u);

/* The vDSO's table (from our own image), built once for the whole run. */
void ufile__load_vdso(struct unwinder *u);

/* Every table forgotten (the unwinder's end; its rows go with the store). */
void ufile__free_all(struct unwinder *u);

#endif
