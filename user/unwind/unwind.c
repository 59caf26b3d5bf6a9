// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unwind tables into the BPF maps, per file and per process.
 *
 * A file's table is built once and its rows loaded once (rowstore.c) for
 * every process that maps it: it hangs in the file's entry of the registry
 * of mapped files (files.h), shared with the symbolizer. Each process
 * entry holds a reference on its files' tables, and the rows are dropped
 * after the last one, when the process exits or maps something else, or
 * when the registry releases the file. In auto mode a file that keeps frame
 * pointers everywhere (or has no usable CFI) loads no rows at all: its
 * frames take frame-pointer steps.
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <bpf/bpf.h>

#include "builder.h"
#include "elf_syms.h"
#include "files.h"
#include "map_keys.h"
#include "mapped_file.h"
#include "proc_entry.h"
#include "procs.h"
#include "rowstore.h"
#include "unwind.h"
#include "unwind_table.h"
#include "vdso.h"

/* A file's table: how its frames are walked, and who uses it. */
struct ufile {
	struct file_entry *entry;	/* its registry entry (entry->unwind is this);
					 * NULL once the registry released it */
	struct ufile *prev, *next;	/* every table, for the sweep */
	struct elf_syms *es;		/* for file offset -> virtual address */
	__u32 slot;			/* unwind_map.file: a rowstore handle or UNWIND_FILE_* */
	__u32 nrows;
	bool ready;			/* its table was built (or could not be) */
	bool usable;			/* its mappings go into process entries */
	size_t refs;			/* process entries using it, + 1 when preloaded */
	uint64_t idle_since;		/* CLOCK_MONOTONIC ns its last user went; 0: in use */
};

/* A process with an entry: the files it holds references on. */
struct uproc {
	pid_t tgid;			/* first: the tree's key */
	struct ufile **files;
	size_t nfiles;
	bool waiting;			/* for a table being built: synced again when done */
};

struct unwinder {
	int procs_fd;
	enum unwind_mode mode;
	struct rowstore *rows;
	struct builder *builder;
	struct files *files;		/* the registry the tables hang in */
	struct ufile *tables;		/* every table, a list */
	void *procs;			/* tsearch tree of struct uproc */
	struct ufile vdso;		/* every process's [vdso]: built at the first one
					 * seen, kept for the whole run */
	size_t vdso_size;		/* its mapping's size */
	struct unwind_stats st;
	uint64_t last_sweep;		/* CLOCK_MONOTONIC ns */
	void (*on_sync)(void *arg, struct procs *procs, pid_t tgid);
	void *on_sync_arg;
	int wanted_fd;			/* lazy: the BPF side's unwind_wanted; else -1 */
	const volatile uint64_t *asked;	/* ... and its count of asks */
	uint64_t asked_seen;		/* the count at the last walk of the map */
};

static void entry_released(void *u, void *table);

int unwinder__new(int files_fd, int procs_fd, enum unwind_mode mode, unsigned int max_rows,
		  struct files *files, struct unwinder **out)
{
	struct unwinder *u = calloc(1, sizeof(*u));
	int err;

	if (!u)
		return -ENOMEM;
	u->wanted_fd = -1;
	err = rowstore__new(files_fd, MAX_UNWIND_FILES, max_rows, &u->rows);
	if (!err)
		err = builder__new(&u->builder);
	if (err) {
		rowstore__free(u->rows);
		free(u);
		return err;
	}
	u->procs_fd = procs_fd;
	u->mode = mode;
	u->files = files;
	files__on_release(files, entry_released, u);
	*out = u;
	return 0;
}

/* ---- files: built once, referenced by process entries --------------------
 * (the part a shared file registry replaces) */

/* How the file's frames are walked, from its table. */
static void place_table(struct unwinder *u, struct ufile *f, const struct unwind_table *t)
{
	int handle;

	if (u->mode == UNWIND_AUTO && unwind_table__keeps_fp(t)) {
		f->slot = UNWIND_FILE_FP;
		u->st.files_fp++;
		return;
	}
	handle = rowstore__load(u->rows, t->rows, t->nrows);
	if (handle < 0) {
		/* over the budget (or the kernel refused): frame pointers,
		 * counted here and per stack */
		f->slot = UNWIND_FILE_NOT_LOADED;
		u->st.files_refused++;
		return;
	}
	f->slot = (__u32)handle;
	f->nrows = (__u32)t->nrows;
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
	if (f->slot != UNWIND_FILE_FP && f->slot != UNWIND_FILE_NOT_LOADED) {
		rowstore__drop(u->rows, (int)f->slot);
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
 * goes now if nobody holds it, else when the last holder does (a table
 * being built waits for the builder). */
static void entry_released(void *arg, void *table)
{
	struct unwinder *u = arg;
	struct ufile *f = table;

	f->entry = NULL;
	if (!f->refs && f->ready)
		release_file(u, f);
}

/* A table the builder finished. A file without usable CFI is walked by
 * frame pointers in auto mode (what else could walk it), and not at all in
 * dwarf mode; one over the build's budget is counted apart. */
static void built(struct built *r, void *arg)
{
	struct unwinder *u = arg;
	struct ufile *f = r->tag;

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
	f->ready = true;
	if (!f->refs)	/* every process that wanted it went meanwhile */
		f->idle_since = procs__now();
}

/* The file behind v, with one more reference; NULL without memory. A new
 * file's table is built on the builder's thread: until it is ready, the
 * processes that map it wait. */
static struct ufile *file_get(struct unwinder *u, pid_t tgid, bool alive, const struct vma *v)
{
	struct file_entry *e = v->file;
	struct ufile *f = e->unwind;
	int fd;

	if (f) {
		f->refs++;
		f->idle_since = 0;
		return f;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->entry = e;
	f->refs = 1;
	e->unwind = f;
	f->next = u->tables;
	if (u->tables)
		u->tables->prev = f;
	u->tables = f;
	/* the registry's own: a file of another mount namespace kept open */
	fd = files__open(u->files, e, tgid, alive, v);
	if (fd < 0 || !u->builder || builder__submit(u->builder, fd, f)) {
		u->st.files_without++;
		f->slot = UNWIND_FILE_FP;
		f->ready = true;
	}
	return f;
}

/* One reference less; after the last the file lingers (see sweep_idle()). */
static void file_put(struct unwinder *u, struct ufile *f)
{
	(void)u;
	if (!--f->refs)
		f->idle_since = procs__now();
}

/* Files nobody has used for IDLE_LINGER_NS: their rows freed, forgotten.
 * The wait spares a rebuild when the same program runs again at once (a
 * script run in a loop, a compiler under make). */
#define IDLE_LINGER_NS	2000000000ull
#define SWEEP_EVERY_NS	500000000ull

static void sweep_idle(struct unwinder *u)
{
	uint64_t now = procs__now();
	struct ufile *f, *next;

	if (now < u->last_sweep + SWEEP_EVERY_NS)
		return;
	u->last_sweep = now;
	for (f = u->tables; f; f = next) {
		next = f->next;
		/* released by the registry: nothing could find it again */
		if (!f->refs && f->ready && (!f->entry || f->idle_since + IDLE_LINGER_NS <= now))
			release_file(u, f);
	}
}

/* ---- processes ----------------------------------------------------------- */

struct proc_ctx {
	struct unwinder *u;
	pid_t tgid;
	struct proc_entry maps;
	struct ufile **files;			/* one reference per mapping */
	size_t nfiles, cap;
	bool pending;				/* a file's table is being built */
};

static int hold(struct proc_ctx *c, struct ufile *f)
{
	struct ufile **grown;

	if (c->nfiles == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		grown = reallocarray(c->files, c->cap, sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		c->files = grown;
	}
	c->files[c->nfiles++] = f;
	return 0;
}

/* The vDSO's table, from our own image (vdso.h): a few FDEs, built here. */
static void load_vdso(struct unwinder *u)
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

/* v goes into the process's entry, walked as its file f says. */
static void add_map(struct proc_ctx *c, const struct ufile *f, const struct vma *v)
{
	uint64_t vaddr;

	if (!f->ready || !f->usable || elf_syms__vaddr(f->es, v->pgoff, &vaddr))
		return;
	proc_entry__add(&c->maps, &(struct unwind_map){
		.start = v->start, .end = v->end, .bias = v->start - vaddr,
		.file = f->slot, .nrows = f->nrows,
	});
}

/* A mapping without a file: the [vdso] is walked by the vDSO's table
 * (without it, a leaf there would send the whole stack to frame pointers);
 * anonymous memory by nothing. */
static void add_special(struct proc_ctx *c, const struct vma *v)
{
	struct unwinder *u = c->u;

	if (strcmp(v->path, "[vdso]"))
		return;
	if (!u->vdso.ready)
		load_vdso(u);
	if (vdso_table__matches(v, u->vdso_size))
		add_map(c, &u->vdso, v);
}

static int add_mapping(const struct vma *v, bool alive, void *arg)
{
	struct proc_ctx *c = arg;
	struct ufile *f;

	if (!v->file) {	/* no file (anonymous, special), or not in the registry */
		add_special(c, v);
		return 0;
	}
	f = file_get(c->u, c->tgid, alive, v);
	if (!f)
		return -ENOMEM;
	if (hold(c, f)) {
		file_put(c->u, f);
		return -ENOMEM;
	}
	c->pending |= !f->ready;
	add_map(c, f, v);
	return 0;
}

static int cmp_tgid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

static void put_all(struct unwinder *u, struct ufile **files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		file_put(u, files[i]);
	free(files);
}

static struct uproc *new_proc(struct unwinder *u, pid_t tgid)
{
	struct uproc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->tgid = tgid;
	if (!tsearch(p, &u->procs, cmp_tgid)) {
		free(p);
		return NULL;
	}
	return p;
}

/* The process's files are now these (NULL: none, it exited); the old
 * ones are let go after the new ones are held, so a file both use stays.
 * Returns the process, or NULL when it has no files now. */
static struct uproc *replace_files(struct unwinder *u, pid_t tgid, struct ufile **files, size_t n)
{
	struct uproc key = { .tgid = tgid }, *p;
	void *node = tfind(&key, &u->procs, cmp_tgid);

	p = node ? *(struct uproc **)node : NULL;
	if (p)
		put_all(u, p->files, p->nfiles);
	if (!files && p) {
		tdelete(p, &u->procs, cmp_tgid);
		free(p);
		return NULL;
	}
	if (!p && files)
		p = new_proc(u, tgid);
	if (!p) {
		put_all(u, files, n);	/* nowhere to keep them */
		return NULL;
	}
	p->files = files;
	p->nfiles = n;
	return p;
}

static void write_entry(struct unwinder *u, struct proc_ctx *c)
{
	struct unwind_proc entry = { 0 };	/* walk_flags 0, unused slots too */
	__u32 key = (__u32)c->tgid;

	proc_entry__layout(&c->maps, &entry);
	if (bpf_map_update_elem(u->procs_fd, &key, &entry, BPF_ANY) == 0)
		u->st.procs++;
}

/* The process's entry from its mappings now: written when every file's
 * table is ready (until then the old entry, if any, stays, and a new
 * process is walked by frame pointers, counted), deleted when it exited. */
static void sync_proc(struct unwinder *u, struct procs *procs, pid_t tgid)
{
	struct proc_ctx *c;
	struct uproc *p;
	__u32 key = (__u32)tgid;

	if (!procs__alive(procs, tgid, 0)) {
		bpf_map_delete_elem(u->procs_fd, &key);
		replace_files(u, tgid, NULL, 0);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return;
	c->u = u;
	c->tgid = tgid;
	if (procs__for_each_vma(procs, tgid, add_mapping, c) == 0 && c->pending)
		; /* synced again when the builds are done */
	else if (c->maps.n)
		write_entry(u, c);
	else
		bpf_map_delete_elem(u->procs_fd, &key);	/* frame pointers, counted */
	p = replace_files(u, tgid, c->files, c->nfiles);
	if (p)
		p->waiting = c->pending;
	free(c);
}

int unwinder__preload(struct unwinder *u, const char *path)
{
	struct file_entry *e;
	struct stat st;
	struct vma v;
	int fd = file_open_regular(path);

	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	close(fd);
	v = (struct vma){ .dev_major = major(st.st_dev), .dev_minor = minor(st.st_dev),
			  .ino = st.st_ino, .path = (char *)path };
	/* as if a running process (ours) mapped it: opened by path, checked;
	 * neither reference is ever put, so it stays for the whole run */
	e = files__get(u->files, getpid(), false, &v);
	if (!e)
		return -ENOMEM;
	v.file = e;
	return file_get(u, getpid(), false, &v) ? 0 : -ENOMEM;
}

struct waiting_ctx {
	pid_t *tgids;
	size_t n, cap;
};

static void note_waiting(const void *node, VISIT which, void *arg)
{
	struct uproc *p = *(struct uproc *const *)node;
	struct waiting_ctx *w = arg;
	pid_t *grown;

	if ((which != postorder && which != leaf) || !p->waiting)
		return;
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		grown = reallocarray(w->tgids, w->cap, sizeof(*grown));
		if (!grown)
			return;	/* synced with the next build */
		w->tgids = grown;
	}
	p->waiting = false;
	w->tgids[w->n++] = p->tgid;
}

/* The builds done since the last call in place, and the processes that
 * waited for them synced again. */
static void take_built(struct unwinder *u, struct procs *procs)
{
	struct waiting_ctx w = { 0 };
	size_t i;

	if (!u->builder || !builder__collect(u->builder, built, u))
		return;
	twalk_r(u->procs, note_waiting, &w);
	for (i = 0; i < w.n; i++)
		sync_proc(u, procs, w.tgids[i]);
	free(w.tgids);
}

void unwinder__stop(struct unwinder *u)
{
	builder__free(u->builder);	/* cancels the build under way */
	u->builder = NULL;
	rowstore__closing(u->rows);
}

int unwinder__fd(const struct unwinder *u)
{
	return u->builder ? builder__fd(u->builder) : -1;
}

bool unwinder__busy(const struct unwinder *u)
{
	return u->builder && builder__busy(u->builder);
}

static bool has_entry(struct unwinder *u, pid_t tgid)
{
	struct uproc key = { .tgid = tgid };

	return tfind(&key, &u->procs, cmp_tgid) != NULL;
}

static void sync_one(struct unwinder *u, struct procs *procs, pid_t tgid)
{
	sync_proc(u, procs, tgid);
	if (u->on_sync)
		u->on_sync(u->on_sync_arg, procs, tgid);
}

void unwinder__set_lazy(struct unwinder *u, int wanted_fd, const volatile uint64_t *asked)
{
	u->wanted_fd = wanted_fd;
	u->asked = asked;
}

/* Lazy: the processes sampled for the first time since the last walk get
 * their entries (a build each file not loaded yet). One whose mappings
 * are not known yet (its first mmap records not read) is forgotten in the
 * map, so its next sample asks again. */
static void take_asked(struct unwinder *u, struct procs *procs)
{
	uint64_t asked;
	__u32 *keys, state, served = 1;
	size_t n, i;
	int err;

	if (u->wanted_fd < 0)
		return;
	asked = __atomic_load_n(u->asked, __ATOMIC_ACQUIRE);
	if (asked == u->asked_seen)
		return;
	u->asked_seen = asked;
	/* out of memory: the rest at the next ask */
	n = map_u32_keys(u->wanted_fd, &keys, &err);
	for (i = 0; i < n; i++) {
		/* served already, or gone with its process since the walk */
		if (bpf_map_lookup_elem(u->wanted_fd, &keys[i], &state) || state)
			continue;
		if (!procs__alive(procs, (pid_t)keys[i], 0)) {
			bpf_map_delete_elem(u->wanted_fd, &keys[i]);
			continue;
		}
		bpf_map_update_elem(u->wanted_fd, &keys[i], &served, BPF_EXIST);
		u->st.asked++;
		if (!has_entry(u, (pid_t)keys[i]))
			sync_one(u, procs, (pid_t)keys[i]);
	}
	free(keys);
}

void unwinder__sync(struct unwinder *u, struct procs *procs, const pid_t *roots, int nroots)
{
	bool lazy = u->wanted_fd >= 0;
	pid_t *tgids;
	size_t n, i;

	take_built(u, procs);
	n = procs__take_changed(procs, &tgids);

	/* a process with an entry is always synced: one forgotten by then
	 * (exited, its samples all drained at an interval's end) no longer
	 * says whose child it was, and its tables stayed held for good (the
	 * soak's fleet: 1 member of 200, in one run of two). Lazy, no other
	 * is: it gets its entry when it is sampled (take_asked). */
	for (i = 0; i < n; i++)
		if (has_entry(u, tgids[i]) ||
		    (!lazy && (!nroots || procs__descends(procs, tgids[i], roots, nroots))))
			sync_one(u, procs, tgids[i]);
	free(tgids);
	take_asked(u, procs);
	sweep_idle(u);
}

void unwinder__on_sync(struct unwinder *u, void (*fn)(void *arg, struct procs *procs, pid_t tgid),
		       void *arg)
{
	u->on_sync = fn;
	u->on_sync_arg = arg;
}

void unwinder__stats(const struct unwinder *u, struct unwind_stats *st)
{
	*st = u->st;
	st->rows = rowstore__rows(u->rows);
	st->files = rowstore__files(u->rows);
	st->row_bytes = rowstore__bytes(u->rows);
}

static void free_proc(void *node)
{
	struct uproc *p = node;

	free(p->files);	/* the files go with the tree below */
	free(p);
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	unwinder__stop(u);	/* first: the builder may still point at files */
	tdestroy(u->procs, free_proc);
	while (u->tables) {
		struct ufile *next = u->tables->next;

		if (u->tables->entry)
			u->tables->entry->unwind = NULL;
		free_file(u->tables);
		u->tables = next;
	}
	elf_syms__free(u->vdso.es);
	rowstore__free(u->rows);
	free(u);
}
