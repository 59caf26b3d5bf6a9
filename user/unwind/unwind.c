// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unwind tables into the BPF maps: the process side. Each process entry
 * says how each of its mappings is walked (proc_entry.h), and holds a
 * reference on the table of every file it maps (ufile.c, the file side);
 * it is written again when the process maps something else, deleted when
 * it exits. Lazy (fleet mode over the machine), a process gets its entry
 * when a sample of it asks.
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "base/grow.h"
#include "unwind/builder.h"
#include "elf/elf_syms.h"
#include "files/files.h"
#include "base/map_keys.h"
#include "unwind/proc_entry.h"
#include "procs/procs.h"
#include "unwind/rowstore.h"
#include "unwind/unwind_priv.h"
#include "unwind/vdso.h"

int unwinder__new(const struct unwinder_maps *maps, enum unwind_mode mode, unsigned int max_rows,
		  struct files *files, struct unwinder **out)
{
	struct unwinder *u = calloc(1, sizeof(*u));
	int err;

	if (!u)
		return -ENOMEM;
	err = rowstore__new(maps->files_fd, MAX_UNWIND_CHUNKS, max_rows, &u->rows);
	if (!err)
		err = builder__new(&u->builder);
	if (err) {
		rowstore__free(u->rows);
		free(u);
		return err;
	}
	u->procs_fd = maps->procs_fd;
	u->exec_fd = maps->exec_fd;
	u->procs_changes = maps->procs_changes;
	u->mode = mode;
	u->files = files;
	u->budget_rows = max_rows;
	/* never released: not in the tables' list */
	u->over_share = (struct ufile){ .ready = true, .refs = 1, .slot = UNWIND_FILE_FP };
	files__on_release(files, ufile__released, u);
	/* now, not at the first process that maps it: loading a table waits
	 * for an RCU grace period (the outer map's update), 15-19 ms here,
	 * which a command's first samples spent walked by frame pointers */
	ufile__load_vdso(u);
	*out = u;
	return 0;
}

/* ---- processes ----------------------------------------------------------- */

struct proc_ctx {
	struct unwinder *u;
	struct uproc *p;			/* its record: its share of the work */
	bool urgent;				/* its first sync: its builds go first */
	pid_t tgid;
	__u64 exec_time;			/* the exec the mappings are read after */
	struct proc_entry maps;
	struct ufile **files;			/* one reference per mapping */
	size_t nfiles, cap;
	bool pending;				/* a file's table is being built */
	bool unasked;				/* a file's is unasked (lazy) */
};

static int hold(struct proc_ctx *c, struct ufile *f)
{
	if (GROW(c->files, c->cap, c->nfiles + 1))
		return -ENOMEM;
	c->files[c->nfiles++] = f;
	return 0;
}

/* Auto mode: v is walked by checked frame-pointer steps; being in the
 * entry also makes its addresses plausible return addresses. In dwarf
 * mode nothing walks it. */
static void add_by_fp(struct proc_ctx *c, const struct vma *v)
{
	if (c->u->mode == UNWIND_AUTO)
		proc_entry__add(&c->maps, &(struct unwind_map){
			.start = v->start, .end = v->end, .file = UNWIND_FILE_FP,
		});
}

/* v goes into the process's entry, walked as its file f says; while f's
 * table is being built, by frame pointers (counted apart). A file that
 * is no ELF file or cannot be read (JIT code in a file: a memfd's double
 * mapping, examples/jit_map) is walked in auto mode as code without a
 * file is: the BPF side takes only anonymous memory for JIT code. */
static void add_map(struct proc_ctx *c, const struct ufile *f, const struct vma *v)
{
	uint64_t vaddr;

	if (!f->ready) {
		proc_entry__add(&c->maps, &(struct unwind_map){
			.start = v->start, .end = v->end, .file = UNWIND_FILE_PENDING,
			.flags = f->unasked ? UNWIND_MAP_UNASKED : 0,
		});
		return;
	}
	if (!f->usable || elf_syms__map_vaddr(f->es, v->pgoff, &vaddr)) {
		add_by_fp(c, v);
		return;
	}
	proc_entry__add(&c->maps, &(struct unwind_map){
		.start = v->start, .end = v->end, .bias = v->start - vaddr,
		.file = f->slot, .first = f->first, .nrows = f->nrows,
	});
}

/* A mapping without a file: the [vdso] is walked by the vDSO's table
 * (without it, a leaf there would send the whole stack to frame pointers).
 * Other code without a file (JIT code: V8, the JVM, LuaJIT) by frame
 * pointers, as JIT compilers keep them. */
static void add_special(struct proc_ctx *c, const struct vma *v)
{
	struct unwinder *u = c->u;

	if (!strcmp(v->path, "[vdso]")) {
		if (vdso_table__matches(v, u->vdso_size))
			add_map(c, &u->vdso, v);
		return;
	}
	if (v->path[0] != '[')
		add_by_fp(c, v);
}

static int add_mapping(struct proc_ctx *c, const struct vma *v, bool alive)
{
	struct ufile *f;

	if (!v->file) {	/* no file (anonymous, special), or not in the registry */
		add_special(c, v);
		return 0;
	}
	f = ufile__get(c->u, c->tgid, c->p, alive, v, c->urgent);
	if (!f)
		return -ENOMEM;
	if (hold(c, f)) {
		ufile__put(c->u, f);
		return -ENOMEM;
	}
	c->pending |= !f->ready && !f->unasked;	/* waits only for a build under way */
	c->unasked |= f->unasked;
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
		ufile__put(u, files[i]);
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

/* The process tgid's record, or NULL. */
struct uproc *uproc__find(struct unwinder *u, pid_t tgid)
{
	struct uproc key = { .tgid = tgid };
	void *node = tfind(&key, &u->procs, cmp_tgid);

	return node ? *(struct uproc **)node : NULL;
}

/* The process's files are now these (NULL: none, it exited); the old
 * ones are let go after the new ones are held, so a file both use stays.
 * Returns the process, or NULL when it has no files now. */
static struct uproc *replace_files(struct unwinder *u, pid_t tgid, struct ufile **files, size_t n)
{
	struct uproc *p = uproc__find(u, tgid);

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

/* After each change to unwind_procs: the BPF side copies an entry again
 * when the count moved (stack.bpf.h, copy_proc). */
static void procs_changed(struct unwinder *u)
{
	if (u->procs_changes)
		__atomic_fetch_add(u->procs_changes, 1, __ATOMIC_SEQ_CST);
}

static void delete_entry(struct unwinder *u, __u32 key)
{
	if (bpf_map_delete_elem(u->procs_fd, &key) == 0)
		procs_changed(u);
}

static void write_entry(struct unwinder *u, struct proc_ctx *c)
{
	struct unwind_proc entry = { 0 };	/* walk_flags 0, unused slots too */
	__u32 key = (__u32)c->tgid;

	proc_entry__layout(&c->maps, &entry);
	entry.exec_time = c->exec_time;
	if (bpf_map_update_elem(u->procs_fd, &key, &entry, BPF_ANY) == 0) {
		u->st.procs++;
		procs_changed(u);
	}
}

/* The exec the process's mappings are about to be read after, read
 * before them: an exec between the two makes an entry of the new image
 * that claims the old one, unused until the next sync, never the old
 * image's that claims the new one. None in the map: no exec since the run
 * began, or the process exited (its stamp went with it; its entry, kept
 * for walks of its copied stacks, keeps the last one). */
static __u64 exec_stamp(struct unwinder *u, pid_t tgid)
{
	struct uproc *p;
	__u32 k = (__u32)tgid;
	__u64 t = 0;

	if (u->exec_fd < 0 || !bpf_map_lookup_elem(u->exec_fd, &k, &t))
		return t;
	p = uproc__find(u, tgid);
	return p ? p->exec_time : 0;
}

/* The mappings a process's entry can hold: the newest MAX_UNWIND_MAPS
 * that no newer one overlaps (a later mmap over a range replaces it). */
struct vma_list {
	const struct vma *v[MAX_UNWIND_MAPS];	/* newest first */
	size_t n;
	bool alive;
};

static int keep_current(const struct vma *v, bool alive, void *arg)
{
	struct vma_list *l = arg;

	l->alive = alive;
	for (size_t i = 0; i < l->n; i++)
		if (v->start < l->v[i]->end && l->v[i]->start < v->end)
			return 0;
	l->v[l->n++] = v;
	return l->n == MAX_UNWIND_MAPS;	/* full: the older ones cannot go in */
}

/* Its mappings into the entry, oldest first. procs keeps the mappings a
 * process made until no drained sample can name them (procs/prune.c, up
 * to PROCS_MAX_VMAS; mapped over within an interval, they are there): only the
 * ones the entry can hold get tables, read newest first up to the entry's
 * size, so a process that mapped 10,000 files in turn costs the tables of
 * the ones it maps now (each sync held them all: 1.28M rows of a
 * churner's 1,635 files after 10 s), and a sync a walk of 48 of them, not
 * of all (the agent's CPU grew with the churner's age). */
static int add_current(struct proc_ctx *c, struct procs *procs)
{
	struct vma_list l = { .n = 0 };
	int err = procs__for_each_vma_newest(procs, c->tgid, keep_current, &l);

	for (size_t i = l.n; !err && i-- > 0;)
		err = add_mapping(c, l.v[i], l.alive);
	return err;
}

/* The process's record, made on its first sync with a full share. */
static struct uproc *proc_record(struct unwinder *u, pid_t tgid, bool *first)
{
	struct uproc *p = uproc__find(u, tgid);

	*first = !p;
	if (p)
		return p;
	p = new_proc(u, tgid);
	if (p)
		share__init(&p->share, procs__now());
	return p;
}

/* The process's entry from its mappings now, deleted when it exited.
 * Files whose tables are being built are walked by frame pointers until
 * they are in (the process is synced again then): an entry left as it
 * was would describe the program before an exec. */
void uproc__sync(struct unwinder *u, struct procs *procs, pid_t tgid)
{
	bool alive = procs__alive(procs, tgid, 0);
	struct proc_ctx *c;
	struct uproc *p;
	__u32 key = (__u32)tgid;

	if (!alive && !(u->holds && u->holds(u->holds_arg, tgid))) {
		delete_entry(u, key);
		replace_files(u, tgid, NULL, 0);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return;
	c->u = u;
	c->tgid = tgid;
	c->exec_time = exec_stamp(u, tgid);
	c->p = proc_record(u, tgid, &c->urgent);
	if (!c->p) {
		free(c);
		return;
	}
	c->p->deferred = false;
	share__sync_exec(&c->p->share, &c->p->share_exec, c->exec_time, procs__now());
	if (add_current(c, procs) == 0 && c->maps.n)
		write_entry(u, c);	/* pending: synced again when the builds are done */
	else
		delete_entry(u, key);	/* frame pointers, counted */
	p = replace_files(u, tgid, c->files, c->nfiles);
	if (p) {
		p->exec_time = c->exec_time;
		p->waiting = c->pending;
		p->unasked = c->unasked;
		p->exited = !alive;
		u->any_exited |= !alive;
	}
	free(c);
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

void unwinder__hold_exited(struct unwinder *u, bool (*holds)(void *arg, pid_t tgid),
			   void (*settle)(void *arg, pid_t tgid), void *arg)
{
	u->holds = holds;
	u->settle = settle;
	u->holds_arg = arg;
}

static bool has_entry(struct unwinder *u, pid_t tgid)
{
	return uproc__find(u, tgid) != NULL;
}

static void sync_one(struct unwinder *u, struct procs *procs, pid_t tgid)
{
	uproc__sync(u, procs, tgid);
	if (u->on_sync)
		u->on_sync(u->on_sync_arg, procs, tgid);
}

/* A process with an entry that changed: synced now when it exec'd or its
 * share has a sync left, else with the deferred ones (resync__deferred()). */
static bool sync_now(struct unwinder *u, pid_t tgid)
{
	struct uproc *p = uproc__find(u, tgid);
	__u32 k = (__u32)tgid;
	__u64 t = 0;

	if (u->exec_fd >= 0 && !bpf_map_lookup_elem(u->exec_fd, &k, &t) && t != p->exec_time)
		return true;
	if (p->exited || share__admit_sync(&p->share, procs__now()))
		return true;
	p->deferred = true;
	return false;
}

void unwinder__set_lazy(struct unwinder *u, const struct unwind_asks *asks)
{
	u->lazy = true;
	u->asks = *asks;
}

/* A process that asked gets its entry (a build for each file not loaded
 * yet), once. One gone meanwhile is forgotten in the map (a new process
 * with its pid asks again), unless stacks of it wait for its tables. */
static void serve(struct unwinder *u, struct procs *procs, __u32 tgid)
{
	__u32 state, served = 1;

	if (bpf_map_lookup_elem(u->asks.wanted_fd, &tgid, &state) || state)
		return;	/* served already, or gone with its process */
	if (!procs__alive(procs, (pid_t)tgid, 0) &&
	    !(u->holds && u->holds(u->holds_arg, (pid_t)tgid))) {
		bpf_map_delete_elem(u->asks.wanted_fd, &tgid);
		return;
	}
	bpf_map_update_elem(u->asks.wanted_fd, &tgid, &served, BPF_EXIST);
	u->st.asked++;
	if (!has_entry(u, (pid_t)tgid))
		sync_one(u, procs, (pid_t)tgid);
}

/* Every process in the map that is not served yet: after asks were not
 * queued (the queue full, or none: a hardware event samples in an NMI).
 * Out of memory: the rest at the next loss. */
static void serve_all(struct unwinder *u, struct procs *procs)
{
	__u32 *keys, tgid;
	size_t n, i;
	int err;

	while (!bpf_map_lookup_and_delete_elem(u->asks.queue_fd, NULL, &tgid))
		;	/* each is in the map too */
	n = map_u32_keys(u->asks.wanted_fd, &keys, &err);
	for (i = 0; i < n; i++)
		serve(u, procs, keys[i]);
	free(keys);
}

/* Lazy: the processes sampled for the first time since the last call get
 * their entries, popped from the queue: a handful, however many processes
 * were served before (reading the whole map was two syscalls for each of
 * them at every ask). */
static void take_asked(struct unwinder *u, struct procs *procs)
{
	uint64_t asked, lost;
	__u32 tgid;

	if (!u->lazy)
		return;
	asked = __atomic_load_n(u->asks.asked, __ATOMIC_ACQUIRE);
	if (asked == u->asked_seen)
		return;
	u->asked_seen = asked;
	lost = __atomic_load_n(u->asks.lost, __ATOMIC_ACQUIRE);
	if (lost != u->lost_seen) {
		u->lost_seen = lost;
		serve_all(u, procs);
		return;
	}
	while (!bpf_map_lookup_and_delete_elem(u->asks.queue_fd, NULL, &tgid))
		serve(u, procs, tgid);
}

size_t unwinder__sync(struct unwinder *u, struct procs *procs, const pid_t *roots, int nroots)
{
	size_t written = u->st.procs;
	bool lazy = u->lazy;
	pid_t *tgids;
	size_t n, i;

	resync__built(u, procs);
	n = procs__take_changed(procs, &tgids);

	/* a process with an entry is always synced: one forgotten by then
	 * (exited, its samples all drained at an interval's end) no longer
	 * says whose child it was, and its tables stayed held for good (the
	 * soak's fleet: 1 member of 200, in one run of two). Lazy, no other
	 * is: it gets its entry when it is sampled (take_asked). */
	for (i = 0; i < n; i++)
		if (has_entry(u, tgids[i]) ? sync_now(u, tgids[i]) :
		    (!lazy && (!nroots || procs__descends(procs, tgids[i], roots, nroots))))
			sync_one(u, procs, tgids[i]);
	free(tgids);
	take_asked(u, procs);
	resync__deferred(u, procs);
	resync__hurry(u);
	resync__exited(u, procs);
	ufile__sweep(u);
	return u->st.procs - written;
}

void unwinder__on_sync(struct unwinder *u, void (*fn)(void *arg, struct procs *procs, pid_t tgid),
		       void *arg)
{
	u->on_sync = fn;
	u->on_sync_arg = arg;
}

void unwinder__on_built(struct unwinder *u, void (*fn)(void *arg, pid_t tgid), void *arg)
{
	u->on_built = fn;
	u->on_built_arg = arg;
}

void unwinder__stats(const struct unwinder *u, struct unwind_stats *st)
{
	struct rowstore_costs costs;

	*st = u->st;
	st->rows = rowstore__rows(u->rows);
	st->files = rowstore__files(u->rows);
	st->row_bytes = rowstore__bytes(u->rows);
	rowstore__costs(u->rows, &costs);
	st->chunks = costs.chunks;
	st->chunks_made = costs.chunks_made;
	st->graces = costs.graces;
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
	ufile__free_all(u);
	rowstore__free(u->rows);
	free(u);
}
