// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Process table: tgid -> incarnations -> executable mappings over time. */
#include <dirent.h>
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/config.h"
#include "base/grow.h"
#include "procs/proc_maps.h"
#include "procs/procs.h"
#include "procs/procs_priv.h"

/* Notes that tgid's current image changed (for procs__take_changed()). */
static void mark_changed(struct procs *p, struct proc *pr)
{
	if (pr->changed || !p->track_changes)
		return;
	if (GROW(p->changed, p->cap_changed, p->nchanged + 1))
		return;	/* a consumer then misses it until its next change */
	p->changed[p->nchanged++] = pr->tgid;
	pr->changed = true;
}

uint64_t procs__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc *pa = a, *pb = b;

	return (pa->tgid > pb->tgid) - (pa->tgid < pb->tgid);
}

struct procs *procs__new(void)
{
	return calloc(1, sizeof(struct procs));
}

void procs__set_files(struct procs *p, const struct procs_files *files)
{
	p->files = *files;
}

static void free_vmas(struct procs *p, struct proc *pr)
{
	for (size_t i = 0; i < pr->nvmas; i++) {
		if (pr->vmas[i].file)
			p->files.put(p->files.ctx, pr->vmas[i].file);
		free(pr->vmas[i].path);
	}
	free(pr->vmas);
	pr->vmas = NULL;
	pr->nvmas = pr->cap = 0;
}

/* Frees pr and every older incarnation; returns how many. Children that
 * still wait for their copy of one's mappings make it first (p NULL: at
 * the end, everything goes). */
static size_t free_chain(struct procs *p, struct proc *pr)
{
	size_t n = 0;

	while (pr) {
		struct proc *older = pr->older;

		while (p && pr->heirs)
			(void)procs__inherit(p, pr->heirs);	/* out of memory: it has none */
		if (p)
			proc__heir_unlink(pr);
		free_vmas(p, pr);
		free(pr->execs);
		free(pr);
		pr = older;
		n++;
	}
	return n;
}

/* Every incarnation's mappings let go of their files (tdestroy() passes
 * no context: done in a walk before). */
static void drop_files(const void *nodep, VISIT which, void *p)
{
	struct proc *pr = *(struct proc *const *)nodep;

	if (which != postorder && which != leaf)
		return;
	for (; pr; pr = pr->older)
		free_vmas(p, pr);
}

static void free_node(void *node)
{
	free_chain(NULL, node);
}

void procs__free(struct procs *p)
{
	if (!p)
		return;
	twalk_r(p->root, drop_files, p);
	tdestroy(p->root, free_node);
	free(p->changed);
	free(p);
}

static struct proc **slot(const struct procs *p, pid_t tgid)
{
	struct proc key = { .tgid = tgid };

	return tfind(&key, &p->root, cmp_proc);
}

static struct proc *newest(const struct procs *p, pid_t tgid)
{
	struct proc **s = slot(p, tgid);

	return s ? *s : NULL;
}

/* A new process with this pid: it becomes the newest incarnation. */
static struct proc *born(struct procs *p, pid_t tgid, uint64_t time)
{
	struct proc *pr = calloc(1, sizeof(*pr)), **s;

	if (!pr)
		return NULL;
	pr->tgid = tgid;
	s = slot(p, tgid);
	if (s) {
		pr->older = *s;
		if (!pr->older->exited) {	/* its exit record was lost */
			pr->older->exited = true;
			pr->older->exit_time = time;
		}
		*s = pr;	/* same key: the tree order holds */
	} else if (!tsearch(pr, &p->root, cmp_proc)) {
		free(pr);
		return NULL;
	}
	p->count++;
	p->last.pr = NULL;
	return pr;
}

/* The running incarnation of tgid, made when none is known. */
static struct proc *current(struct procs *p, pid_t tgid, uint64_t time)
{
	struct proc *pr = newest(p, tgid);

	return pr && !pr->exited ? pr : born(p, tgid, time);
}

/* The incarnation that started at start_time: the newest one that began
 * after the exit of the one before it (a pid is free only after exit). */
static struct proc *incarnation(struct procs *p, pid_t tgid, uint64_t start_time)
{
	struct proc *pr;

	if (p->last.pr && p->last.tgid == tgid && p->last.start_time == start_time)
		return p->last.pr;
	pr = newest(p, tgid);
	while (pr && start_time && pr->older && start_time <= pr->older->exit_time)
		pr = pr->older;
	p->last.tgid = tgid;
	p->last.start_time = start_time;
	p->last.pr = pr;
	return pr;
}

int procs__add_vma(struct procs *p, struct proc *pr, const struct vma *v)
{
	struct vma *copy;

	/* a process mapping files in a loop, within one interval */
	if (pr->nvmas >= 2 * PROCS_MAX_VMAS)
		proc__prune(p, pr, p->drained_before);

	if (GROW(pr->vmas, pr->cap, pr->nvmas + 1))
		return -ENOMEM;
	copy = &pr->vmas[pr->nvmas];
	*copy = *v;
	copy->path = strdup(v->path ? v->path : "");
	if (!copy->path)
		return -ENOMEM;
	/* a process adds mappings while it runs; a fork's copy made after the
	 * child exited takes files its parent holds (first_sight() is past) */
	copy->file = p->files.get ? p->files.get(p->files.ctx, pr->tgid, true, copy) : NULL;
	pr->nvmas++;
	return 0;
}

/* Code no file backs: a JIT's (the kernel's own pages, in every process,
 * are not). */
static bool anonymous_code(const struct vma *v)
{
	const char *path = v->path ? v->path : "";

	if (!strcmp(path, "[vdso]") || !strcmp(path, "[vsyscall]") || !strcmp(path, "[uprobes]"))
		return false;
	return path[0] != '/' || !strncmp(path, "//anon", 6);
}

/* Whose pr is, read once an image of it runs code of its own making (what
 * its JIT map will name): it may have changed user before. born_by: a time
 * it surely ran. */
void proc__learn_owner(struct proc *pr, const struct vma *v, uint64_t born_by)
{
	if (!pr->owner_image && anonymous_code(v) &&
	    !proc_owner__read(pr->tgid, born_by, &pr->owner, NULL))
		pr->owner_image = true;
}

int procs__mmap(struct procs *p, pid_t tgid, const struct vma *v)
{
	struct proc *pr = current(p, tgid, v->time);

	if (!pr)
		return -ENOMEM;
	if (procs__inherit_current(p, pr))
		return -ENOMEM;
	mark_changed(p, pr);
	proc__learn_owner(pr, v, v->time);
	return procs__add_vma(p, pr, v);
}

/* The image a time falls in: [*from, *until) between two execs. */
void proc__image_bounds(const struct proc *pr, uint64_t time, uint64_t *from, uint64_t *until)
{
	size_t i;

	*from = 0;
	*until = UINT64_MAX;
	for (i = 0; i < pr->nexecs; i++) {
		if (pr->execs[i] > time) {
			*until = pr->execs[i];
			break;
		}
		*from = pr->execs[i];
	}
}

/* The old image's mappings stay: samples taken before the exec still
 * name them (they carry the exec time the BPF side saw, if any). */
int procs__exec(struct procs *p, pid_t tgid, uint64_t time)
{
	struct proc *pr = current(p, tgid, time);
	uint64_t *grown;
	size_t i;

	if (!pr)
		return -ENOMEM;
	grown = realloc(pr->execs, (pr->nexecs + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	pr->execs = grown;
	for (i = pr->nexecs; i > 0 && grown[i - 1] > time; i--)
		grown[i] = grown[i - 1];
	grown[i] = time;
	pr->nexecs++;
	mark_changed(p, pr);
	pr->owner_image = false;	/* an exec may change its user */
	pr->unreadable = false;
	pr->complete = true;	/* everything after exec is reported to us */
	return 0;
}

/* The child starts with a copy of its parent's address space as it was
 * at the fork: copied when first needed (procs__inherit()), from a parent whose
 * own copy is made (one level deep). A parent running code of its own
 * making is copied now: the child's owner is read while it runs. */
int procs__fork(struct procs *p, pid_t parent, pid_t child, uint64_t time)
{
	struct proc *pp = newest(p, parent), *pc = born(p, child, time);

	if (!pc)
		return -ENOMEM;
	pc->parent = parent;
	mark_changed(p, pc);
	pc->complete = pp && pp->complete;
	if (!pp)
		return 0;
	if (procs__inherit(p, pp))
		return -ENOMEM;
	proc__heir_link(pp, pc, time);
	return pp->owner_image ? procs__inherit(p, pc) : 0;
}

int procs__exit(struct procs *p, pid_t tgid, uint64_t time)
{
	struct proc *pr = newest(p, tgid);

	if (pr && !pr->exited) {
		pr->exited = true;
		pr->exit_time = time;
		p->last.pr = NULL;
		mark_changed(p, pr);	/* the unwinder lets its files go */
	}
	return 0;
}

struct synth_ctx {
	struct procs *p;
	struct proc *pr;
	uint64_t now;
};

static int synth_line(const struct maps_line *ml, void *arg)
{
	struct synth_ctx *ctx = arg;
	struct vma v = {
		.start = ml->start, .end = ml->end, .pgoff = ml->pgoff,
		.dev_major = ml->dev_major, .dev_minor = ml->dev_minor,
		.ino = ml->ino, .time = ctx->now, .path = (char *)ml->path,
	};

	proc__learn_owner(ctx->pr, &v, ctx->now);
	return procs__add_vma(ctx->p, ctx->pr, &v);
}

static int synthesize_into(struct procs *p, struct proc *pr)
{
	struct synth_ctx ctx = { .p = p, .pr = pr, .now = procs__now() };
	int err = procs__inherit(p, pr);

	if (!err)
		err = maps_for_each_exec(pr->tgid, synth_line, &ctx);

	if (!err)
		pr->complete = true;
	else
		pr->unreadable = true;
	return err;
}

int procs__synthesize(struct procs *p, pid_t tgid)
{
	struct proc *pr = current(p, tgid, procs__now());

	if (!pr)
		return -ENOMEM;
	mark_changed(p, pr);
	return synthesize_into(p, pr);
}

int procs__synthesize_all(struct procs *p)
{
	DIR *dir = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		if (procs__synthesize(p, (pid_t)pid) == 0)
			n++;	/* a process may exit meanwhile: not an error */
	}
	closedir(dir);
	return n;
}

const struct vma *procs__find(struct procs *p, pid_t tgid, uint64_t start_time,
			      uint64_t exec_time, uint64_t addr)
{
	struct proc *pr = incarnation(p, tgid, start_time);
	uint64_t from, until;
	size_t i;

	if (!pr) {
		procs__synthesize(p, tgid);	/* failure: the process is gone */
		pr = incarnation(p, tgid, start_time);
	} else if (!pr->complete && !pr->exited && !pr->unreadable) {
		synthesize_into(p, pr);
	}
	if (!pr || procs__inherit(p, pr))
		return NULL;
	proc__image_bounds(pr, exec_time, &from, &until);
	/* newest first: a later mmap over the same range replaces an older one */
	for (i = pr->nvmas; i-- > 0;) {
		const struct vma *v = &pr->vmas[i];

		if (addr >= v->start && addr < v->end && v->time >= from && v->time < until)
			return v;
	}
	return NULL;
}

struct proc_owner procs__owner(struct procs *p, pid_t tgid, uint64_t start_time)
{
	const struct proc *pr = incarnation(p, tgid, start_time);

	return pr ? pr->owner : (struct proc_owner){ .known = false };
}

bool procs__alive(struct procs *p, pid_t tgid, uint64_t start_time)
{
	const struct proc *pr = incarnation(p, tgid, start_time);

	return !pr || !pr->exited;
}

bool procs__drained(struct procs *p, pid_t tgid, uint64_t start_time, uint64_t before)
{
	const struct proc *pr = incarnation(p, tgid, start_time);

	return !pr || (pr->exited && pr->exit_time < before);
}

pid_t procs__forked_by(struct procs *p, pid_t tgid, uint64_t start_time)
{
	const struct proc *pr = incarnation(p, tgid, start_time);

	return pr ? pr->parent : 0;
}

struct reap_ctx {
	struct procs *p;
	uint64_t before;
	pid_t *gone;		/* tgids whose every incarnation went */
	size_t ngone, cap;
	size_t dropped;
	int err;
};

/* Cuts the chain after the first incarnation that is still needed. */
static void reap_chain(const void *nodep, VISIT which, void *arg)
{
	struct proc *pr = *(struct proc *const *)nodep, *keep;
	struct reap_ctx *ctx = arg;

	if (which != postorder && which != leaf)
		return;
	if (pr->exited && pr->exit_time < ctx->before) {	/* older ones went before it */
		if (GROW(ctx->gone, ctx->cap, ctx->ngone + 1)) {
			ctx->err = -ENOMEM;
			return;
		}
		ctx->gone[ctx->ngone++] = pr->tgid;
		return;
	}
	proc__prune(ctx->p, pr, ctx->before);
	for (keep = pr; keep->older; keep = keep->older) {
		if (keep->older->exited && keep->older->exit_time < ctx->before) {
			ctx->dropped += free_chain(ctx->p, keep->older);
			keep->older = NULL;
			break;
		}
	}
}

size_t procs__reap(struct procs *p, uint64_t before)
{
	struct reap_ctx ctx = { .p = p, .before = before };
	size_t i;

	p->last.pr = NULL;
	p->drained_before = before;
	twalk_r(p->root, reap_chain, &ctx);
	for (i = 0; i < ctx.ngone; i++) {
		struct proc *pr = newest(p, ctx.gone[i]);
		struct proc key = { .tgid = ctx.gone[i] };

		tdelete(&key, &p->root, cmp_proc);
		ctx.dropped += free_chain(p, pr);
	}
	free(ctx.gone);
	p->count -= ctx.dropped;
	return ctx.dropped;
}

void procs__track_changes(struct procs *p)
{
	p->track_changes = true;
}

size_t procs__take_changed(struct procs *p, pid_t **tgids)
{
	size_t n = p->nchanged, i;

	for (i = 0; i < n; i++) {
		struct proc *pr = newest(p, p->changed[i]);

		if (pr)
			pr->changed = false;
	}
	*tgids = p->changed;
	p->changed = NULL;
	p->nchanged = p->cap_changed = 0;
	return n;
}

static int each_vma(struct procs *p, pid_t tgid, bool newest_first,
		    int (*fn)(const struct vma *v, bool alive, void *ctx), void *ctx)
{
	struct proc *pr = newest(p, tgid);
	uint64_t from, until;
	size_t i, k;
	int err;

	if (!pr)
		return -ENOENT;
	if (procs__inherit_current(p, pr))
		return -ENOMEM;
	proc__image_bounds(pr, EXEC_LATEST, &from, &until);
	for (k = 0; k < pr->nvmas; k++) {
		i = newest_first ? pr->nvmas - 1 - k : k;
		if (pr->vmas[i].time < from)
			continue;
		err = fn(&pr->vmas[i], !pr->exited, ctx);
		if (err)
			return err;
	}
	return 0;
}

int procs__for_each_vma(struct procs *p, pid_t tgid,
			int (*fn)(const struct vma *v, bool alive, void *ctx), void *ctx)
{
	return each_vma(p, tgid, false, fn, ctx);
}

int procs__for_each_vma_newest(struct procs *p, pid_t tgid,
			       int (*fn)(const struct vma *v, bool alive, void *ctx), void *ctx)
{
	int err = each_vma(p, tgid, true, fn, ctx);

	return err > 0 ? 0 : err;
}

bool procs__descends(const struct procs *p, pid_t tgid, const pid_t *roots, int nroots)
{
	/* bounded: a pid reused along the chain could otherwise loop */
	for (int depth = 0; depth < 64 && tgid > 0; depth++) {
		const struct proc *pr = newest(p, tgid);

		for (int i = 0; i < nroots; i++)
			if (roots[i] == tgid)
				return true;
		tgid = pr ? pr->parent : 0;
	}
	return false;
}

size_t procs__pruned(const struct procs *p)
{
	return p->vmas_pruned + p->forgotten.n;
}

struct procs_forgotten procs__forgotten(const struct procs *p)
{
	return p->forgotten;
}

static void count_vmas(const void *nodep, VISIT which, void *arg)
{
	size_t *n = arg;

	if (which != postorder && which != leaf)
		return;
	for (const struct proc *pr = *(struct proc *const *)nodep; pr; pr = pr->older)
		*n += pr->nvmas;
}

size_t procs__vmas(const struct procs *p)
{
	size_t n = 0;

	twalk_r(p->root, count_vmas, &n);
	return n;
}

size_t procs__count(const struct procs *p)
{
	return p->count;
}
