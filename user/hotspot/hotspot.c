// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* HotSpot's row of the runtimes' table (hotspot.h). */
#include <errno.h>
#include <inttypes.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "hotspot/hotspot.h"
#include "hotspot/hs_code.h"
#include "hotspot/hs_find.h"
#include "procs/procs.h"
#include "profile/stats.h"

enum hs_state {
	HS_FOUND,	/* its libjvm's symbols read; its tables not yet */
	HS_READY,	/* its tables read: its code is named */
	HS_REFUSED,	/* its tables refused: its code stays [JIT] */
};

/* A blob named, and the turn it was last read in. */
struct kept_blob {
	struct hs_blob b;
	uint64_t turn;
};

struct hs_proc {
	pid_t tgid;			/* first: the tree's key */
	uint64_t start_time;		/* of the samples named (0: none yet) */
	enum hs_state state;
	struct hs_syms syms;
	struct hs_layout l;
	struct kept_blob *named;	/* blobs named while it ran */
	size_t nnamed, cap;
	size_t next;			/* the slot the next blob takes past HS_NAMED_MAX */
};

struct hotspot {
	void *procs;			/* tsearch tree of struct hs_proc */
	uint64_t found, refused, gone_unnamed;
	uint64_t turn;			/* trims so far: one per naming pass */
};

static int cmp_tgid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static void free_proc(void *p)
{
	struct hs_proc *hp = p;

	free(hp->named);
	free(hp);
}

static void *hs_start(struct session *s)
{
	(void)s;
	return calloc(1, sizeof(struct hotspot));
}

static void hs_free(void *rt)
{
	struct hotspot *hs = rt;

	tdestroy(hs->procs, free_proc);
	free(hs);
}

struct jvm_scan {
	pid_t tgid;
	struct hs_syms syms;
	bool found;
};

static int scan_vma(const struct vma *v, bool alive, void *arg)
{
	struct jvm_scan *s = arg;

	if (s->found || !alive || !hs_find__is_jvm(v->path))
		return 0;
	s->found = !hs_find__mapped(s->tgid, v->start, v->end, v->pgoff, &s->syms);
	return 0;
}

static void forget(struct hotspot *hs, pid_t tgid)
{
	struct hs_proc **node = tfind(&tgid, &hs->procs, cmp_tgid), *p;

	if (!node)
		return;
	p = *node;
	tdelete(&tgid, &hs->procs, cmp_tgid);
	free_proc(p);
}

/* Its tables, read once the VM has filled them. */
static void read_tables(struct hotspot *hs, struct hs_proc *p)
{
	enum hs_refusal why;
	int err = hs_find__tables(hs_find__read_proc, &p->tgid, &p->syms, &p->l, &why);

	if (!err) {
		p->state = HS_READY;
	} else if (err == -EPROTO) {
		p->state = HS_REFUSED;
		hs->refused++;
	}
}

static void hs_poll(void *rt)
{
	(void)rt;
}

/* tgid maps a libjvm.so: a new process, or the same one's new image. */
static void hs_sync_proc(void *rt, struct procs *procs, pid_t tgid)
{
	struct hotspot *hs = rt;
	struct jvm_scan s = { .tgid = tgid };
	struct hs_proc *p, **node = tfind(&tgid, &hs->procs, cmp_tgid);

	if (procs__for_each_vma(procs, tgid, scan_vma, &s) || !s.found) {
		if (node && procs__alive(procs, tgid, 0))
			forget(hs, tgid);	/* an exec into another image */
		return;
	}
	if (node && !memcmp(&(*node)->syms, &s.syms, sizeof(s.syms)))
		return;		/* its mappings changed: its JVM did not */
	if (node)
		forget(hs, tgid);
	p = calloc(1, sizeof(*p));
	if (!p)
		return;
	p->tgid = tgid;
	p->syms = s.syms;
	if (!tsearch(p, &hs->procs, cmp_tgid)) {
		free(p);
		return;
	}
	hs->found++;
	read_tables(hs, p);	/* not filled yet: again when its code is named */
}

static const struct kept_blob *named_at(const struct hs_proc *p, uint64_t pc)
{
	for (size_t i = 0; i < p->nnamed; i++)
		if (pc >= p->named[i].b.begin && pc < p->named[i].b.end)
			return &p->named[i];
	return NULL;
}

/* b, read now, replaces what was named where it is (code freed since). */
static void keep(struct hs_proc *p, const struct hs_blob *b, uint64_t turn)
{
	const struct kept_blob k = { *b, turn };
	size_t i = 0;

	while (i < p->nnamed) {
		if (p->named[i].b.begin < b->end && b->begin < p->named[i].b.end)
			p->named[i] = p->named[--p->nnamed];
		else
			i++;
	}
	if (p->nnamed < HS_NAMED_MAX && !GROW(p->named, p->cap, p->nnamed + 1)) {
		p->named[p->nnamed++] = k;
	} else if (p->nnamed) {
		p->named[p->next++ % p->nnamed] = k;	/* full: one goes, in turn */
	}
}

static enum runtime_code hs_name_code(void *rt, pid_t tgid, uint64_t start_time, uint64_t pc,
				      char *name, size_t size)
{
	struct hotspot *hs = rt;
	struct hs_proc **node = tfind(&tgid, &hs->procs, cmp_tgid), *p;
	const struct kept_blob *kept;
	struct hs_blob b;
	bool fresh;
	int err;

	if (!node)
		return RUNTIME_CODE_NOT_MINE;
	p = *node;
	if (p->start_time && p->start_time != start_time)
		return RUNTIME_CODE_NOT_MINE;	/* another process by that pid */
	p->start_time = start_time;
	if (p->state == HS_FOUND)
		read_tables(hs, p);
	if (p->state != HS_READY)
		return RUNTIME_CODE_NOT_MINE;
	/* a blob read in this naming pass is taken as it is (its addresses
	 * one after another: a read each would be 15 system calls) */
	kept = named_at(p, pc);
	fresh = kept && kept->turn == hs->turn;
	err = fresh ? 0 : hs_code__blob(&p->l, hs_find__read_proc, &p->tgid, pc, &b);
	if (!err && !fresh) {
		keep(p, &b, hs->turn);
		kept = named_at(p, pc);
	}
	if (kept && (!err || err == -ESRCH)) {	/* gone: as it was last read */
		snprintf(name, size, "%s", kept->b.name);
		return RUNTIME_CODE_NAMED;
	}
	if (err == -ESRCH)
		hs->gone_unnamed++;
	return err == -ENOENT ? RUNTIME_CODE_NOT_MINE : RUNTIME_CODE_UNNAMED;
}

/* Its walker records no frames of its own yet: none to name. */
static bool hs_name(const void *rt, pid_t tgid, uint64_t start_time, uint64_t slot, uint64_t word,
		    char *name, size_t size, struct runtime_where *where)
{
	(void)rt, (void)tgid, (void)start_time, (void)slot, (void)word, (void)name, (void)size;
	(void)where;
	return false;
}

static void hs_unnamed(uint64_t slot, uint64_t word, char *name, size_t size)
{
	(void)word;
	snprintf(name, size, "[java 0x%" PRIx64 "]", slot);
}

struct trim_ctx {
	struct procs *procs;
	pid_t *gone;
	size_t ngone, cap;
};

static void trim_visit(const void *node, VISIT which, void *arg)
{
	struct trim_ctx *t = arg;
	const struct hs_proc *p = *(struct hs_proc *const *)node;

	if ((which == postorder || which == leaf) && !procs__alive(t->procs, p->tgid, 0) &&
	    !GROW(t->gone, t->cap, t->ngone + 1))
		t->gone[t->ngone++] = p->tgid;
}

/* A process gone: its samples are all named by now. */
static void hs_trim(void *rt, struct procs *procs)
{
	struct hotspot *hs = rt;
	struct trim_ctx t = { .procs = procs };

	hs->turn++;
	twalk_r(hs->procs, trim_visit, &t);
	for (size_t i = 0; i < t.ngone; i++)
		forget(hs, t.gone[i]);
	free(t.gone);
}

static void hs_stats(const void *rt, struct profile_stats *ps)
{
	const struct hotspot *hs = rt;

	ps->hs_procs = hs->found;
	ps->hs_refused = hs->refused;
	ps->hs_gone_unnamed = hs->gone_unnamed;
}

const struct runtime_ops hotspot_runtime = {
	.name = "hotspot", .kind = FK_JAVA, .unnamed_reason = UNNAMED_NO_JIT_MAP,
	.start = hs_start, .free = hs_free, .sync_proc = hs_sync_proc, .poll = hs_poll,
	.name_frame = hs_name, .name_code = hs_name_code, .unnamed = hs_unnamed, .trim = hs_trim,
	.stats = hs_stats,
};
