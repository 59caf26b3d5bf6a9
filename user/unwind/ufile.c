// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwinder's file side (unwind_priv.h): a file's table is built once,
 * on the builder's thread, and its rows loaded once (rowstore.c) for every
 * process that maps it. It hangs in the file's entry of the registry of
 * mapped files (files.h), shared with the symbolizer; the process entries
 * hold references on it, and it goes after the last one lets go (having
 * lingered a while) or when the registry releases the file. In auto mode a
 * file that keeps frame pointers everywhere (or has no usable CFI) loads
 * no rows at all: its frames take frame-pointer steps.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "unwind/builder.h"
#include "elf/elf_syms.h"
#include "files/files.h"
#include "base/open_regular.h"
#include "procs/procs.h"
#include "unwind/row_index.h"
#include "unwind/rowstore.h"
#include "unwind/unwind_priv.h"
#include "unwind/unwind_table.h"
#include "unwind/vdso.h"

static void release_file(struct unwinder *u, struct ufile *f);

/* The idle table (no process uses it) whose last user went first, or NULL. */
static struct ufile *oldest_idle(struct unwinder *u)
{
	struct ufile *f, *oldest = NULL;

	for (f = u->tables; f; f = f->next)
		if (!f->refs && f->ready && UNWIND_FILE_HAS_ROWS(f->slot) &&
		    (!oldest || f->idle_since < oldest->idle_since))
			oldest = f;
	return oldest;
}

/* The rows, after their page index, into the store; when they do not
 * fit, the idle tables go, oldest first, until they do: a table in use is
 * never dropped for one being loaded. *nindex: the index's rows. */
static int load_rows(struct unwinder *u, const struct unwind_table *t, struct row_place *at,
		     __u32 *nindex)
{
	struct unwind_row *index;
	struct ufile *idle;
	size_t n;
	int err = row_index__build(t->rows, t->nrows, &index, &n);

	if (err)
		return err;
	err = rowstore__load_after(u->rows, index, n, t->rows, t->nrows, at);
	while (err == -ENOSPC && (idle = oldest_idle(u))) {
		release_file(u, idle);
		u->st.files_evicted++;
		err = rowstore__load_after(u->rows, index, n, t->rows, t->nrows, at);
	}
	free(index);
	*nindex = (__u32)n;
	return err;
}

/* How the file's frames are walked, from its table. Its rows count
 * against the share of the process it was built for. */
static void place_table(struct unwinder *u, struct ufile *f, const struct unwind_table *t)
{
	struct uproc *p = f->owner ? uproc__find(u, f->owner) : NULL;
	struct row_place at;

	if (u->mode == UNWIND_AUTO && unwind_table__keeps_fp(t)) {
		f->slot = UNWIND_FILE_FP;
		u->st.files_fp++;
		return;
	}
	if (p && !share__rows_fit(&p->share, t->nrows, u->budget_rows)) {
		f->slot = UNWIND_FILE_NOT_LOADED;	/* frame pointers, counted */
		ufile__refused(u, p, SHARE_ROWS);
		return;
	}
	if (load_rows(u, t, &at, &f->nindex)) {
		/* over the budget (or the kernel refused): frame pointers,
		 * counted here and per stack */
		f->slot = UNWIND_FILE_NOT_LOADED;
		u->st.files_refused++;
		return;
	}
	f->slot = at.slot;
	f->first = at.first;
	f->nrows = (__u32)t->nrows;
	if (p)
		p->share.rows += f->nrows;
	u->st.files_loaded++;
	if (rowstore__rows(u->rows) > u->st.rows_peak)
		u->st.rows_peak = rowstore__rows(u->rows);
}

static void free_file(void *node)
{
	struct ufile *f = node;

	elf_syms__free(f->es);
	free(f);
}

/* Frees the file's rows and forgets its table. */
static void release_file(struct unwinder *u, struct ufile *f)
{
	struct uproc *p = f->owner ? uproc__find(u, f->owner) : NULL;

	if (UNWIND_FILE_HAS_ROWS(f->slot) && p)
		p->share.rows -= p->share.rows < f->nrows ? p->share.rows : f->nrows;
	if (f->ready && UNWIND_FILE_HAS_ROWS(f->slot)) {
		rowstore__drop(u->rows,
			       &(struct row_place){ .slot = f->slot, .first = f->first - f->nindex },
			       f->nindex + f->nrows);
		u->st.files_dropped++;
	}
	if (f->entry)
		f->entry->unwind = NULL;
	if (f->prev)
		f->prev->next = f->next;
	else
		u->tables = f->next;
	if (f->next)
		f->next->prev = f->prev;
	free_file(f);
}

/* The registry lets the file go (no process maps it any more): its table
 * stays for the linger (ufile__sweep()), found again by the file's stamp
 * when a process maps it meanwhile: under make, each cc1 of a build maps
 * the cc1 the last one did. */
void ufile__released(void *arg, void *table)
{
	struct ufile *f = table;

	(void)arg;
	f->entry = NULL;
}

/* A table the registry let go, of the file with this stamp, built (one
 * still on the builder's thread is left to finish and linger). */
static struct ufile *find_released(struct unwinder *u, const struct file_stamp *st)
{
	struct ufile *f;

	if (!st->known)
		return NULL;
	for (f = u->tables; f; f = f->next)
		if (!f->entry && f->ready && f->stamp.known && f->stamp.dev == st->dev &&
		    f->stamp.ino == st->ino && f->stamp.size == st->size &&
		    f->stamp.mtime_ns == st->mtime_ns)
			return f;
	return NULL;
}

/* A table the builder finished. A file without usable CFI is walked by
 * frame pointers in auto mode (what else could walk it), and not at all in
 * dwarf mode; one over the build's budget is counted apart. */
void ufile__built(struct built *r, void *arg)
{
	struct unwinder *u = arg;
	struct ufile *f = r->tag;
	struct uproc *p = f->owner ? uproc__find(u, f->owner) : NULL;

	if (p)
		share__charge(&p->share, r->seconds);
	f->es = r->es;	/* its segments only: its names are the registry's */
	f->slot = UNWIND_FILE_FP;
	if (r->err || !r->table.nrows) {
		u->st.files_without++;
		if (r->err == -E2BIG || r->err == -ETIME)
			u->st.files_over_budget++;
		f->usable = f->es && u->mode == UNWIND_AUTO;
	} else {
		place_table(u, f, &r->table);
		f->usable = true;
	}
	unwind_table__free(&r->table);
	u->st.build_seconds += r->seconds;
	f->build_ns = r->seconds > 0 ? (uint64_t)(r->seconds * 1e9) : 0;
	f->ready = true;
	if (!f->refs)	/* every process that wanted it went meanwhile */
		f->idle_since = procs__now();
}

/* A comm as /proc/PID/comm has it (what the process set: hostile, shown
 * escaped), or "?". */
static void read_comm(pid_t tgid, char comm[16])
{
	char path[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, comm, 15) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = 0;
	comm[n] = 0;
	comm[strcspn(comm, "\n")] = 0;
	if (!comm[0])
		strcpy(comm, "?");
}

void ufile__refused(struct unwinder *u, struct uproc *p, enum share_limit lim)
{
	size_t *count[SHARE_LIMITS] = {
		[SHARE_TABLES] = &u->st.over_share_tables,
		[SHARE_BUILD_TIME] = &u->st.over_share_build,
		[SHARE_ROWS] = &u->st.over_share_rows,
	};

	if (lim <= SHARE_OK || lim >= SHARE_LIMITS)
		return;
	(*count[lim])++;
	p->share.refused++;
	if (p->share.refused < u->st.share_refused)
		return;
	if (u->st.share_pid != p->tgid)
		read_comm(p->tgid, u->st.share_comm);
	u->st.share_pid = p->tgid;
	u->st.share_refused = p->share.refused;
	u->st.share_limit = share__limit_name(lim);
}

/* A new table for p, if its share admits one: else p is synced again
 * later (its share refilled) and the mapping walked by frame pointers. */
static bool admitted(struct unwinder *u, struct uproc *p)
{
	enum share_limit lim = p ? share__admit(&p->share, procs__now()) : SHARE_OK;

	if (lim == SHARE_OK)
		return true;
	ufile__refused(u, p, lim);
	p->deferred = true;
	return false;
}

/* f takes over the table r of the same file, which the registry had let
 * go (lingering): its rows stay loaded, nothing is built. */
static void adopt(struct unwinder *u, struct ufile *f, struct ufile *r)
{
	f->es = r->es;
	f->slot = r->slot;
	f->first = r->first;
	f->nrows = r->nrows;
	f->ready = r->ready;
	f->usable = r->usable;
	f->owner = r->owner;
	f->stamp = r->stamp;
	f->unasked = false;
	r->es = NULL;
	r->slot = UNWIND_FILE_FP;	/* its rows are f's now */
	release_file(u, r);
	u->st.files_reused++;
}

/* f's table built (queued on the builder's thread), or found again when
 * the registry let the same file go meanwhile. Returns f; or, when p's
 * share refuses a new table, &u->over_share in f's place (f is put). */
static struct ufile *start_build(struct unwinder *u, struct ufile *f, pid_t tgid, struct uproc *p,
				 bool alive, const struct vma *v, bool urgent)
{
	/* the registry's own: a file of another mount namespace kept open */
	int fd = files__open(u->files, f->entry, tgid, alive, v);
	struct file_stamp stamp = fd >= 0 ? file_stamp__of(fd) : (struct file_stamp){ .known = false };
	struct ufile *r = find_released(u, &stamp);

	if (r || (fd >= 0 && !admitted(u, p))) {
		if (fd >= 0)
			close(fd);
		if (r) {
			adopt(u, f, r);
			return f;
		}
		ufile__put(u, f);
		u->over_share.refs++;
		return &u->over_share;
	}
	f->unasked = false;
	f->owner = p ? tgid : 0;
	f->stamp = stamp;
	if (fd < 0 || !u->builder || builder__submit(u->builder, fd, f, urgent || f->wanted)) {
		u->st.files_without++;
		f->slot = UNWIND_FILE_FP;
		f->ready = true;
	}
	return f;
}

/* A table for the registry's entry e, not built yet, in the list. */
static struct ufile *new_table(struct unwinder *u, struct file_entry *e)
{
	struct ufile *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->entry = e;
	f->unasked = true;
	f->slot = UNWIND_FILE_PENDING;
	e->unwind = f;
	f->next = u->tables;
	if (u->tables)
		u->tables->prev = f;
	u->tables = f;
	return f;
}

struct ufile *ufile__get(struct unwinder *u, pid_t tgid, struct uproc *p, bool alive,
			 const struct vma *v, bool urgent)
{
	struct file_entry *e = v->file;
	struct ufile *f = e->unwind;

	/* idle since its last user went (lingering), and taken again */
	if (f && f->ready && !f->refs && f->idle_since)
		u->st.files_reused++;
	if (!f && !(f = new_table(u, e)))
		return NULL;
	f->refs++;
	f->idle_since = 0;
	if (f->unasked && (f->wanted || !u->lazy))
		return start_build(u, f, tgid, p, alive, v, urgent);
	return f;
}

/* After the last reference the file lingers (see ufile__sweep()). */
void ufile__put(struct unwinder *u, struct ufile *f)
{
	(void)u;
	if (!--f->refs)
		f->idle_since = procs__now();
}

/* Files nobody has used for IDLE_LINGER_NS: their rows freed, forgotten.
 * The wait spares a rebuild when the same program runs again at once (a
 * script run in a loop, a compiler under make). A table that was dear to
 * build lingers longer, LINGER_PER_BUILD times its build, up to
 * LINGER_MAX_NS: on a busy machine each clang started more than 2 s
 * after the last rebuilt libLLVM's table (0.95 s) and libclang-cpp's
 * (1.05 s), a fifth of the fleet agent's CPU. Lingering costs rows only,
 * and an idle table is the first to go when a new one needs room
 * (load_rows()). */
#define IDLE_LINGER_NS		2000000000ull
#define LINGER_PER_BUILD	100
#define LINGER_MAX_NS		300000000000ull
#define SWEEP_EVERY_NS		500000000ull

static uint64_t linger_ns(const struct ufile *f)
{
	uint64_t more = f->build_ns * LINGER_PER_BUILD;

	return IDLE_LINGER_NS + (more < LINGER_MAX_NS ? more : LINGER_MAX_NS);
}

void ufile__sweep(struct unwinder *u)
{
	uint64_t now = procs__now();
	struct ufile *f, *next;

	if (now < u->last_sweep + SWEEP_EVERY_NS)
		return;
	u->last_sweep = now;
	for (f = u->tables; f; f = next) {
		next = f->next;
		if (!f->refs && (f->ready || f->unasked) && f->idle_since + linger_ns(f) <= now)
			release_file(u, f);
	}
	rowstore__tidy(u->rows);
}

/* The vDSO's table, from our own image (vdso.h): a few FDEs, built here. */
void ufile__load_vdso(struct unwinder *u)
{
	struct unwind_table t = { 0 };
	struct ufile *f = &u->vdso;

	f->ready = true;
	f->refs = 1;	/* never put: it stays */
	f->slot = UNWIND_FILE_FP;
	if (vdso_table__build(&t, &f->es, &u->vdso_size) || !t.nrows) {
		u->st.files_without++;
		unwind_table__free(&t);
		return;
	}
	elf_syms__drop_symbols(f->es);
	place_table(u, f, &t);
	f->usable = true;
	unwind_table__free(&t);
}

int unwinder__preload(struct unwinder *u, const char *path)
{
	struct file_entry *e = NULL;
	struct stat st;
	struct vma v;
	/* the registry keeps files by absolute path (as /proc/PID/maps
	 * names them): a command given as build/app is one too */
	char *abs = realpath(path, NULL);
	int fd = abs ? file_open_regular(abs) : -errno, err = fd < 0 ? fd : 0;

	if (!err && fstat(fd, &st))
		err = -errno;
	if (fd >= 0)
		close(fd);
	if (!err) {
		v = (struct vma){ .dev_major = major(st.st_dev), .dev_minor = minor(st.st_dev),
				  .ino = st.st_ino, .path = abs };
		/* as if a running process (ours) mapped it: opened by path,
		 * checked; neither reference is ever put, so it stays for the
		 * whole run */
		e = files__get(u->files, getpid(), false, &v);
		err = e ? 0 : -ENOMEM;
	}
	free(abs);	/* the registry keeps its own copy */
	if (err)
		return err;
	v.file = e;
	v.path = e->path;
	if (!e->unwind && !new_table(u, e))
		return -ENOMEM;
	((struct ufile *)e->unwind)->wanted = true;	/* lazy or not, built now */
	return ufile__get(u, getpid(), NULL, false, &v, true) ? 0 : -ENOMEM;
}

void ufile__free_all(struct unwinder *u)
{
	while (u->tables) {
		struct ufile *next = u->tables->next;

		if (u->tables->entry)
			u->tables->entry->unwind = NULL;
		free_file(u->tables);
		u->tables = next;
	}
	elf_syms__free(u->vdso.es);
}
