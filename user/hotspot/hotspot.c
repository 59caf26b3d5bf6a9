// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* HotSpot's row of the runtimes' table (hotspot.h). */
#include <errno.h>
#include <inttypes.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "base/grow.h"
#include "hotspot/hotspot.h"
#include "hotspot/hs_code.h"
#include "hotspot/hs_facts.h"
#include "hotspot/hs_find.h"
#include "hotspot/hs_methods.h"
#include "procs/procs.h"
#include "profile/counters.h"
#include "profile/stats.h"
#include "procs/proc_mem.h"
#include "sampling/session.h"

enum hs_state {
	HS_FOUND,	/* its libjvm's symbols read; its tables not yet */
	HS_READY,	/* its tables read: its code is named (its walker's facts
			 * written once the VM made its code heaps) */
	HS_REFUSED,	/* its tables refused: its code stays [JIT] */
};

/* A blob of the last walk of its code heaps. */
struct named {
	uint64_t begin, end;
	char *name;
};

struct hs_proc {
	pid_t tgid;			/* first: the tree's key */
	uint64_t start_time;		/* of the samples named (0: none yet) */
	enum hs_state state;
	struct hs_syms syms;
	struct hs_layout l;
	struct named *named;		/* by address: the last walk's blobs */
	size_t nnamed;
	uint64_t walked_ns, walk_every_ns;	/* when walked last; how often */
	uint64_t refused_ns;		/* when its tables were first refused (0: never) */
	uint64_t facts_refused_ns;	/* when its walker's facts were (0: never) */
	bool stored;			/* its facts are in hs_procs: its frames stepped */
};

struct hotspot {
	void *procs;			/* tsearch tree of struct hs_proc */
	int facts_fd;			/* hs_procs: the BPF walker's facts by tgid */
	volatile uint32_t *stored;	/* the BPF side's gate: an entry went in */
	struct hs_methods *methods;	/* interpreted methods sampled, named */
	uint64_t found, refused, gone_unnamed;
};

static int cmp_tgid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static void free_named(struct named *n, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(n[i].name);
	free(n);
}

static void free_proc(void *p)
{
	struct hs_proc *hp = p;

	free_named(hp->named, hp->nnamed);
	free(hp);
}

static void *hs_start(struct session *s)
{
	struct hotspot *hs = calloc(1, sizeof(*hs));
	volatile uint64_t *noted;
	int methods_fd;

	if (!hs)
		return NULL;
	hs->facts_fd = session__map_fd(s, "hs_procs");
	hs->stored = session__bss_var(s, "hs_procs_stored");
	noted = session__bss_var(s, "hs_methods_noted");
	methods_fd = session__map_fd(s, "hs_methods");
	if (hs->facts_fd < 0 || !hs->stored || !noted || methods_fd < 0 ||
	    !(hs->methods = hs_methods__new(methods_fd, noted))) {
		free(hs);	/* a BPF object without HotSpot's walker: not reached */
		return NULL;
	}
	return hs;
}

static void hs_free(void *rt)
{
	struct hotspot *hs = rt;

	tdestroy(hs->procs, free_proc);
	hs_methods__free(hs->methods);
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
	if (p->stored)
		bpf_map_delete_elem(hs->facts_fd, &tgid);
	hs_methods__forget(hs->methods, tgid);
	tdelete(&tgid, &hs->procs, cmp_tgid);
	free_proc(p);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Its tables, read once the VM has filled them. A refusal stands when a
 * second read, HS_REFUSE_AFTER_NS later, refuses them too: a real libjvm
 * read while its initialisers run was seen refused (1 of 4 one-shot runs
 * under load), and read again a moment later it is not. */
static void read_tables(struct hotspot *hs, struct hs_proc *p)
{
	enum hs_refusal why;
	uint64_t now = now_ns();
	int err;

	if (p->refused_ns && now - p->refused_ns < HS_REFUSE_AFTER_NS)
		return;
	err = hs_find__tables(proc_mem__read, &p->tgid, &p->syms, &p->l, &why);
	if (!err) {
		p->state = HS_READY;
	} else if (err == -EPROTO && !p->refused_ns) {
		p->refused_ns = now;
	} else if (err == -EPROTO) {
		p->state = HS_REFUSED;
		hs->refused++;
	}
}

/* Its walker's facts into hs_procs, once the VM made its code heaps: its
 * compiled frames are stepped by their sizes from then on. Facts out of
 * the walker's bounds refuse the process, counted. */
static void store_facts(struct hotspot *hs, struct hs_proc *p)
{
	struct hs_facts f;
	int err = hs_facts__read(&p->l, proc_mem__read, &p->tgid, &f);
	uint64_t now = now_ns();

	/* as its tables: a VM still starting (its interpreter not made yet)
	 * was refused for good in 1 of 3 idle `-- java` runs; refused only
	 * when still so HS_FACTS_SETTLE_NS after the first look */
	if (err == -EPROTO && !p->facts_refused_ns)
		p->facts_refused_ns = now;
	if (err == -EPROTO && now - p->facts_refused_ns >= HS_FACTS_SETTLE_NS) {
		p->state = HS_REFUSED;
		hs->refused++;
	}
	if (err == -EPROTO)
		return;
	if (err || bpf_map_update_elem(hs->facts_fd, &p->tgid, &f, BPF_ANY))
		return;	/* not made yet, or gone: again at the next poll */
	p->stored = true;
	__atomic_store_n(hs->stored, 1, __ATOMIC_SEQ_CST);
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
	if (p->state == HS_READY)
		store_facts(hs, p);
}

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	return (x->begin > y->begin) - (x->begin < y->begin);
}

static const struct named *named_at(const struct hs_proc *p, uint64_t pc)
{
	size_t lo = 0, hi = p->nnamed;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pc < p->named[mid].begin)
			hi = mid;
		else if (pc >= p->named[mid].end)
			lo = mid + 1;
		else
			return &p->named[mid];
	}
	return NULL;
}

struct walk {
	struct named *named;
	size_t n;
};

static void take_blob(const struct hs_blob *b, void *arg)
{
	struct walk *w = arg;
	char *name = strdup(b->name);

	if (name)
		w->named[w->n++] = (struct named){ b->begin, b->end, name };
}

/* Whether a walk found other blobs than the last one: the JIT still
 * compiling (both sorted by address). */
static bool blobs_changed(const struct named *a, size_t na, const struct named *b, size_t nb)
{
	if (na != nb)
		return true;
	for (size_t i = 0; i < na; i++)
		if (a[i].begin != b[i].begin || a[i].end != b[i].end)
			return true;
	return false;
}

/* Its code heaps walked, their blobs named, replacing the last walk's: so
 * that its samples are named after it exits. Again after a second while
 * its code stays as it was, after a tenth of one while the JIT is still
 * compiling (code made in the last second of a short `-- java` run was
 * left unnamed: 30% of its samples), or after HS_WALK_SHARE times what
 * the walk took, whichever is later. */
static void walk_heaps(struct hs_proc *p)
{
	uint64_t t0 = now_ns(), floor;
	struct walk w = { 0 };
	int err;

	if (t0 - p->walked_ns < p->walk_every_ns)
		return;
	w.named = malloc(HS_BLOBS_MAX * sizeof(*w.named));
	if (!w.named)
		return;
	err = hs_code__each_blob(&p->l, proc_mem__read, &p->tgid, HS_BLOBS_MAX, take_blob, &w);
	p->walked_ns = now_ns();
	p->walk_every_ns = (p->walked_ns - t0) * HS_WALK_SHARE;
	if (err < 0) {
		if (p->walk_every_ns < HS_WALK_EVERY_NS)
			p->walk_every_ns = HS_WALK_EVERY_NS;
		goto out;	/* gone, or a heap out of shape: the last walk's stay */
	}
	qsort(w.named, w.n, sizeof(*w.named), cmp_named);
	floor = blobs_changed(w.named, w.n, p->named, p->nnamed) ? HS_WALK_CHANGING_NS
								  : HS_WALK_EVERY_NS;
	if (p->walk_every_ns < floor)
		p->walk_every_ns = floor;
	free_named(p->named, p->nnamed);
	p->named = w.named;
	p->nnamed = w.n;
	return;
out:
	free_named(w.named, w.n);
}

static void poll_visit(const void *node, VISIT which, void *arg)
{
	struct hs_proc *p = *(struct hs_proc *const *)node;

	if (which != postorder && which != leaf)
		return;
	if (p->state == HS_FOUND)
		read_tables(arg, p);
	if (p->state == HS_READY && !p->stored)
		store_facts(arg, p);
	if (p->state == HS_READY)
		walk_heaps(p);
}

/* The JVM tgid's tables, when read. */
static const struct hs_proc *ready_proc(const struct hotspot *hs, pid_t tgid)
{
	struct hs_proc *const *node = tfind(&tgid, &hs->procs, cmp_tgid);

	return node && (*node)->state == HS_READY ? *node : NULL;
}

static int name_method(void *ctx, pid_t tgid, uint64_t method, char *name, size_t size)
{
	const struct hs_proc *p = ready_proc(ctx, tgid);

	if (!p)
		return -ENOENT;
	return hs_code__method_name(&p->l, proc_mem__read, &tgid, method, name, size);
}

static void hs_poll(void *rt)
{
	struct hotspot *hs = rt;

	twalk_r(hs->procs, poll_visit, hs);
	hs_methods__poll(hs->methods, name_method, hs);
}

static enum runtime_code hs_name_code(void *rt, pid_t tgid, uint64_t start_time, uint64_t pc,
				      char *name, size_t size)
{
	struct hotspot *hs = rt;
	struct hs_proc **node = tfind(&tgid, &hs->procs, cmp_tgid), *p;
	const struct named *n;
	struct hs_blob b;
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
	n = named_at(p, pc);
	if (n) {
		snprintf(name, size, "%s", n->name);
		return RUNTIME_CODE_NAMED;
	}
	/* code compiled since the last walk */
	err = hs_code__blob(&p->l, proc_mem__read, &p->tgid, pc, &b);
	if (!err) {
		snprintf(name, size, "%s", b.name);
		return RUNTIME_CODE_NAMED;
	}
	if (err == -ESRCH)
		hs->gone_unnamed++;
	return err == -ENOENT ? RUNTIME_CODE_NOT_MINE : RUNTIME_CODE_UNNAMED;
}

/* An interpreted frame (bpf/hotspot.h): its method, named while the
 * process lived (hs_poll), else now if it still does. */
static bool hs_name(const void *rt, pid_t tgid, uint64_t start_time, uint64_t slot, uint64_t word,
		    char *name, size_t size, struct runtime_where *where)
{
	const struct hotspot *hs = rt;
	uint64_t method = RUNTIME_PAYLOAD(word);
	const char *known = hs_methods__find(hs->methods, tgid, start_time, method);

	(void)slot, (void)where;
	if (known) {
		snprintf(name, size, "%s", known);
		return true;
	}
	return !name_method((void *)hs, tgid, method, name, size);
}

/* An interpreted frame whose method could not be read: the interpreter's. */
static void hs_unnamed(uint64_t slot, uint64_t word, char *name, size_t size)
{
	(void)slot, (void)word;
	snprintf(name, size, "Interpreter");
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

	twalk_r(hs->procs, trim_visit, &t);
	for (size_t i = 0; i < t.ngone; i++)
		forget(hs, t.gone[i]);
	free(t.gone);
}

/* Its own counts (profile_stats.runtime_counts[RUNTIME_HOTSPOT]). */
enum { HS_COUNT_PROCS, HS_COUNT_REFUSED, HS_COUNT_GONE };

static void hs_stats(const void *rt, struct profile_stats *ps)
{
	const struct hotspot *hs = rt;
	uint64_t *c = ps->runtime_counts[RUNTIME_HOTSPOT];

	c[HS_COUNT_PROCS] = hs->found;
	c[HS_COUNT_REFUSED] = hs->refused;
	c[HS_COUNT_GONE] = hs->gone_unnamed;
}

#define AT(field)	COUNTER_AT(field)
#define OWN(k)		COUNTER_OWN(RUNTIME_HOTSPOT, k)

/* Its code cache named from the VM's structures, per distinct address. */
static const struct counter hs_counters[] = {
	{ "processes", "processes", OWN(HS_COUNT_PROCS), COUNTER_U64, MERGE_NEWER },
	{ "refused", "refused (their vmStructs out of bounds)", OWN(HS_COUNT_REFUSED), COUNTER_U64,
	  MERGE_NEWER },
	{ "code_named", "code addresses named", AT(runtime_named[RUNTIME_HOTSPOT]), COUNTER_U64,
	  MERGE_SUM },
	{ "code_unnamed", "code addresses not read", AT(runtime_unnamed[RUNTIME_HOTSPOT]),
	  COUNTER_U64, MERGE_SUM },
	{ "code_process_gone", "not named: the process had exited", OWN(HS_COUNT_GONE),
	  COUNTER_U64, MERGE_NEWER },
};

static const struct counter_group hs_group = {
	"hotspot", "hotspot", hs_counters, sizeof(hs_counters) / sizeof(hs_counters[0]), 0,
};

const struct runtime_ops hotspot_runtime = {
	.name = "hotspot", .kind = FK_JAVA, .exe = "java",
	.unnamed_text = "Java code not read", .unnamed_key = "java_code_not_read",
	.counters = &hs_group,
	.start = hs_start, .free = hs_free, .sync_proc = hs_sync_proc, .poll = hs_poll,
	.name_frame = hs_name, .name_code = hs_name_code, .unnamed = hs_unnamed, .trim = hs_trim,
	.stats = hs_stats,
};
