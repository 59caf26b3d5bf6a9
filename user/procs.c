// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Process table: tgid -> executable mappings, in the order they appeared. */
#include <dirent.h>
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proc_maps.h"
#include "procs.h"

struct proc {
	pid_t tgid;
	bool exited;
	bool complete;		/* its whole address space is known */
	bool unreadable;	/* /proc/TGID/maps could not be read: don't retry */
	uint64_t exec_time;	/* mappings older than this are gone */
	struct vma *vmas;
	size_t nvmas, cap;
};

struct procs {
	void *root;		/* tsearch tree of struct proc, by tgid */
};

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

static void drop_vmas(struct proc *pr, uint64_t before)
{
	size_t i, kept = 0;

	for (i = 0; i < pr->nvmas; i++) {
		if (pr->vmas[i].time < before)
			free(pr->vmas[i].path);
		else
			pr->vmas[kept++] = pr->vmas[i];
	}
	pr->nvmas = kept;
}

static void free_proc(void *node)
{
	struct proc *pr = node;

	drop_vmas(pr, UINT64_MAX);
	free(pr->vmas);
	free(pr);
}

void procs__free(struct procs *p)
{
	if (!p)
		return;
	tdestroy(p->root, free_proc);
	free(p);
}

static struct proc *lookup(const struct procs *p, pid_t tgid)
{
	struct proc key = { .tgid = tgid };
	void *node = tfind(&key, &p->root, cmp_proc);

	return node ? *(struct proc **)node : NULL;
}

/* The entry for tgid, made empty when fresh is set (a new process that
 * reuses the pid of an exited one starts from nothing). */
static struct proc *get(struct procs *p, pid_t tgid, bool fresh)
{
	struct proc *pr = lookup(p, tgid);
	void *node;

	if (pr) {
		if (fresh) {
			drop_vmas(pr, UINT64_MAX);
			pr->exited = false;
			pr->complete = false;
			pr->unreadable = false;
			pr->exec_time = 0;
		}
		return pr;
	}
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return NULL;
	pr->tgid = tgid;
	node = tsearch(pr, &p->root, cmp_proc);
	if (!node) {
		free(pr);
		return NULL;
	}
	return pr;
}

static int add_vma(struct proc *pr, const struct vma *v)
{
	struct vma *copy;

	if (v->time < pr->exec_time)	/* from before an exec already applied */
		return 0;
	if (pr->nvmas == pr->cap) {
		size_t cap = pr->cap ? pr->cap * 2 : 16;
		struct vma *grown = realloc(pr->vmas, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		pr->vmas = grown;
		pr->cap = cap;
	}
	copy = &pr->vmas[pr->nvmas];
	*copy = *v;
	copy->path = strdup(v->path ? v->path : "");
	if (!copy->path)
		return -ENOMEM;
	pr->nvmas++;
	return 0;
}

int procs__mmap(struct procs *p, pid_t tgid, const struct vma *v)
{
	struct proc *pr = get(p, tgid, false);

	return pr ? add_vma(pr, v) : -ENOMEM;
}

int procs__exec(struct procs *p, pid_t tgid, uint64_t time)
{
	struct proc *pr = get(p, tgid, false);

	if (!pr)
		return -ENOMEM;
	if (time > pr->exec_time)
		pr->exec_time = time;
	drop_vmas(pr, pr->exec_time);
	pr->exited = false;
	pr->unreadable = false;
	pr->complete = true;	/* everything after exec is reported to us */
	return 0;
}

int procs__fork(struct procs *p, pid_t parent, pid_t child, uint64_t time)
{
	struct proc *pp = lookup(p, parent), *pc = get(p, child, true);
	size_t i;
	int err;

	if (!pc)
		return -ENOMEM;
	/* A forked child shares nothing with us later, but it starts with a copy of
	 * its parent's address space as it was at the fork. */
	pc->complete = pp && pp->complete;
	for (i = 0; pp && i < pp->nvmas; i++) {
		if (pp->vmas[i].time > time)
			continue;
		err = add_vma(pc, &pp->vmas[i]);
		if (err)
			return err;
	}
	return 0;
}

int procs__exit(struct procs *p, pid_t tgid, uint64_t time)
{
	struct proc *pr = lookup(p, tgid);

	(void)time;
	if (pr)
		pr->exited = true;
	return 0;
}

struct synth_ctx {
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

	return add_vma(ctx->pr, &v);
}

int procs__synthesize(struct procs *p, pid_t tgid)
{
	struct synth_ctx ctx = { .pr = get(p, tgid, false), .now = procs__now() };
	int err;

	if (!ctx.pr)
		return -ENOMEM;
	err = maps_for_each_exec(tgid, synth_line, &ctx);
	if (!err)
		ctx.pr->complete = true;
	else
		ctx.pr->unreadable = true;
	return err;
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

const struct vma *procs__find(struct procs *p, pid_t tgid, uint64_t addr)
{
	struct proc *pr = lookup(p, tgid);
	size_t i;

	if (!pr || (!pr->complete && !pr->exited && !pr->unreadable)) {
		procs__synthesize(p, tgid);	/* failure: the process is gone */
		pr = lookup(p, tgid);
	}
	if (!pr)
		return NULL;
	/* newest first: a later mmap over the same range replaces an older one */
	for (i = pr->nvmas; i-- > 0;) {
		if (addr >= pr->vmas[i].start && addr < pr->vmas[i].end)
			return &pr->vmas[i];
	}
	return NULL;
}

bool procs__alive(const struct procs *p, pid_t tgid)
{
	const struct proc *pr = lookup(p, tgid);

	return !pr || !pr->exited;
}
