// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Turning stack ids' addresses into named frames, root first. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/aggregate.h"
#include "sampling/drain.h"
#include "elf/dwarf_lines.h"
#include "symbols/frame_memo.h"
#include "symbols/ksyms.h"
#include "procs/procs.h"
#include "runtimes/runtimes.h"
#include "symbols/resolve.h"
#include "symbols/symbolizer.h"

#define NAME_MAX_LEN	160
#define KERNEL_MAPPING	"[kernel.kallsyms]"	/* perf's name for the kernel image */
/* kernel + user frames, and room for inline frames (dropped past it) */
#define MAX_FRAMES	(4 * MAX_STACK_DEPTH)
#define MAX_INLINED	32	/* inline frames of one address kept (DWARF's nesting) */

struct scratch {
	struct pframe frames[MAX_FRAMES];
	char names[MAX_FRAMES][NAME_MAX_LEN];	/* for names built here */
	uint32_t n;
};

/* One resolve: the stack being built, the frames of the addresses seen so
 * far (the user ones of the process at hand), where names come from. */
struct resolver {
	struct scratch sc;
	struct frame_memo *user, *kernel;
	struct profile *p;
	struct symbolizer *sz;
	const struct ksyms *ks;
	const struct runtimes *rts;
};

/* Every frame but the innermost is a return address, which points after
 * the call: look up the byte before it, or a call that ends a function
 * (noreturn) is blamed on the next one. */
static uint64_t lookup_addr(const struct raw_stack *s, uint32_t i)
{
	return i ? s->ips[i] - 1 : s->ips[i];
}

static struct pframe user_frame(const char *name, const struct user_sym *us, uint64_t addr,
				const struct src_frame *src, bool inlined)
{
	return (struct pframe){
		.name = name, .mapping = us->path, .build_id = us->build_id, .addr = addr,
		.map_start = us->map_start, .map_limit = us->map_end, .map_off = us->map_pgoff,
		.file = src ? src->file : NULL, .line = src ? src->line : 0, .inlined = inlined,
		.jit = us->jit,
	};
}

/* The frame's strings, the profile's copies: they outlive the symbol
 * tables the symbolizer may drop between stacks. */
static int intern_frame(struct profile *p, struct pframe *f)
{
	f->name = profile__intern(p, f->name);
	f->mapping = profile__intern(p, f->mapping);
	f->build_id = profile__intern(p, f->build_id);
	f->file = profile__intern(p, f->file);
	return f->name && f->mapping && f->build_id && f->file ? 0 : -ENOMEM;
}

static int remember(struct resolver *rv, struct frame_memo *m, uint64_t addr, struct pframe *f,
		    uint32_t n, uint8_t why, struct memo_hit *hit)
{
	for (uint32_t i = 0; i < n; i++)
		if (intern_frame(rv->p, &f[i]))
			return -ENOMEM;
	return frame_memo__add(m, addr, f, n, why, hit);
}

/* The frames of a user address of the process at hand, resolved on first
 * sight: the function that holds the code, then the functions inlined
 * there, outermost first; one left unnamed is [JIT] (a JIT's code its map
 * does not name: one frame, not one per address), FILE+0xOFFSET (the
 * start of the function the CFI knows) or [unknown]. */
static int user_frames(struct resolver *rv, const struct user_ctx *ctx, uint64_t addr,
		       struct memo_hit *hit)
{
	struct pframe f[1 + MAX_INLINED];
	char name[NAME_MAX_LEN];
	struct user_sym us;
	enum frame_kind kind = FK_USER;
	uint32_t n = 0;

	if (frame_memo__find(rv->user, addr, hit))
		return 0;
	symbolizer__user(rv->sz, ctx, addr, &us);
	/* code no JIT map names: a runtime's that names its own (HotSpot) */
	if (!us.name && us.jit)
		kind = runtimes__code(rv->rts, ctx->tgid, ctx->start_time, addr, name, sizeof(name),
				      &rv->p->stats);
	if (us.name) {
		const struct src_chain *c = us.src;

		f[n++] = user_frame(us.name, &us, addr, c ? &c->outer : NULL, false);
		for (uint32_t i = 0; c && i < c->ninlined && n < 1 + MAX_INLINED; i++) {
			const char *iname = symbolizer__demangle(rv->sz, c->inlined[i].name);

			f[n++] = user_frame(iname ? iname : "[inlined]", &us, addr, &c->inlined[i], true);
		}
	} else if (kind != FK_USER) {
		f[n] = user_frame(name, &us, addr, NULL, false);
		f[n].mapping = frame_kind__row(kind)->mapping;
		f[n++].runtime = kind;
	} else if (us.jit) {
		f[n++] = user_frame(JIT_UNNAMED, &us, addr, NULL, false);
	} else if (us.dso && symbolizer__addresses_only(rv->sz)) {
		f[n++] = user_frame("", &us, addr, NULL, false);	/* named later */
	} else if (us.dso) {
		snprintf(name, sizeof(name), "%s+0x%" PRIx64, us.dso,
			 us.in_function ? us.func_off : us.file_off);
		f[n++] = user_frame(name, &us, addr, NULL, false);
	} else {
		f[n++] = (struct pframe){ .name = "[unknown]", .addr = addr, .map_limit = UINT64_MAX };
	}
	return remember(rv, rv->user, addr, f, n, us.name || kind != FK_USER ? UNNAMED_NONE : us.why,
			hit);
}

static void count_frame(struct profile_stats *st, uint8_t why)
{
	st->frames++;
	if (why != UNNAMED_NONE) {
		st->unresolved++;
		st->unnamed[why]++;
	}
}

/* An address's frames into the stack: the function's always, the inlined
 * ones while room is left (the kernel's frames still need theirs). */
static void put_hit(struct scratch *sc, const struct memo_hit *hit)
{
	sc->frames[sc->n++] = hit->frames[0];
	for (uint32_t i = 1; i < hit->n && sc->n < MAX_FRAMES - MAX_STACK_DEPTH; i++)
		sc->frames[sc->n++] = hit->frames[i];
}

/* A runtime's frame (bpf/runtimes.h), named by its runtime; or, for one
 * that carries its code address, by the JIT map that names that address. */
static int put_runtime(struct resolver *rv, const struct raw_stack *s, uint32_t i,
		       const struct user_ctx *ctx, struct profile_stats *st)
{
	struct scratch *sc = &rv->sc;
	uint64_t word = i + 1 < s->nr ? s->ips[i + 1] : 0;
	struct memo_hit hit;

	if (runtimes__pc_first(word)) {
		if (user_frames(rv, ctx, RUNTIME_PC(s->ips[i]), &hit))
			return -ENOMEM;
		if (hit.why == UNNAMED_NONE && hit.frames[0].jit) {
			count_frame(st, hit.why);
			put_hit(sc, &hit);
			return 0;
		}
	}

	runtimes__frame(rv->rts, ctx->tgid, ctx->start_time, s->ips[i], word, sc->names[sc->n],
			NAME_MAX_LEN, &sc->frames[sc->n], st);
	sc->n++;
	return 0;
}

static int add_user(struct resolver *rv, const struct raw_stack *s, const struct user_ctx *ctx)
{
	struct profile_stats *st = &rv->p->stats;
	struct memo_hit hit;
	uint32_t i;

	for (i = s->nr; i-- > 0;) {
		/* a runtime's frame is two slots, the tagged one then its
		 * word: walked root first, the word comes first */
		if (i > 0 && RUNTIME_IS_FRAME(s->ips[i - 1]))
			continue;
		if (RUNTIME_IS_FRAME(s->ips[i])) {
			if (put_runtime(rv, s, i, ctx, st))
				return -ENOMEM;
			continue;
		}
		if (user_frames(rv, ctx, lookup_addr(s, i), &hit))
			return -ENOMEM;
		count_frame(st, hit.why);
		put_hit(&rv->sc, &hit);
	}
	return 0;
}

/* The innermost kernel frames of a tracepoint's or sched_switch's sample
 * are the BPF machinery that took it (bpf_trace_run*, the program itself):
 * not the workload's, so they are left out. */
static uint32_t bpf_frames(const struct raw_stack *s, const struct ksyms *ks)
{
	const struct ksym *sym;
	uint32_t i;

	for (i = 0; ks && i < s->nr; i++) {
		sym = ksyms__find(ks, lookup_addr(s, i));
		if (!sym || !((ksyms__module(ks, sym) && !strcmp(ksyms__module(ks, sym), "bpf")) ||
			      !strncmp(ksyms__name(ks, sym), "bpf_trace_run", 13)))
			break;
	}
	return i;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const void *const *)a, y = (uintptr_t)*(const void *const *)b;

	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The distinct kernel stacks of d[0..nd): records share them. */
static const struct raw_stack **kernel_stacks(const struct drained *const *d, size_t nd,
					      size_t *n)
{
	const struct raw_stack **ks;
	size_t all = 0, k = 0;

	for (size_t i = 0; i < nd; i++)
		all += d[i] ? d[i]->n : 0;
	ks = malloc((all ? all : 1) * sizeof(*ks));
	if (!ks)
		return NULL;
	for (size_t i = 0; i < nd; i++)
		for (size_t r = 0; d[i] && r < d[i]->n; r++)
			if (d[i]->recs[r].kstack)
				ks[k++] = d[i]->recs[r].kstack;
	if (k)
		qsort(ks, k, sizeof(*ks), cmp_ptr);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!i || ks[i] != ks[i - 1])
			ks[(*n)++] = ks[i];
	return ks;
}

int resolve__kernel_addrs(const struct drained *const *d, size_t nd, uint64_t **addrs, size_t *n)
{
	size_t nstacks, frames = 0, k = 0;
	const struct raw_stack **st = kernel_stacks(d, nd, &nstacks);
	uint64_t *a;

	*addrs = NULL;
	*n = 0;
	if (!st)
		return -ENOMEM;
	for (size_t i = 0; i < nstacks; i++)
		frames += st[i]->nr;
	a = frames ? malloc(frames * sizeof(*a)) : NULL;
	if (frames && !a) {
		free(st);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nstacks; i++)
		for (uint32_t f = 0; f < st[i]->nr; f++)
			a[k++] = lookup_addr(st[i], f);
	free(st);
	if (k)
		qsort(a, k, sizeof(*a), cmp_u64);
	for (size_t i = 0; i < k; i++)
		if (!i || a[i] != a[i - 1])
			a[(*n)++] = a[i];
	*addrs = a;
	return 0;
}

/* The kernel's mapping: what kallsyms names (the image and its modules;
 * as perf's [kernel.kallsyms], an offset of 0), else the whole space. */
static void kernel_mapping(struct pframe *f, const struct ksyms *ks)
{
	f->map_start = 0;
	f->map_limit = UINT64_MAX;
	if (ks && !ksyms__span(ks, &f->map_start, &f->map_limit) &&
	    (f->addr < f->map_start || f->addr >= f->map_limit)) {
		f->map_start = 0;
		f->map_limit = UINT64_MAX;
	}
}

/* A kernel address's frame, named on first sight. */
static int kernel_frame(struct resolver *rv, uint64_t addr, struct memo_hit *hit)
{
	const struct ksym *sym;
	struct pframe f;

	if (frame_memo__find(rv->kernel, addr, hit))
		return 0;
	sym = rv->ks ? ksyms__find(rv->ks, addr) : NULL;
	f = (struct pframe){ .name = sym ? ksyms__name(rv->ks, sym) : "[unknown]",
			     .mapping = KERNEL_MAPPING, .build_id = ksyms__build_id(rv->ks),
			     .addr = addr, .kernel = true };
	kernel_mapping(&f, rv->ks);
	return remember(rv, rv->kernel, addr, &f, 1,
			sym ? UNNAMED_NONE : rv->ks ? UNNAMED_NO_KSYM : UNNAMED_NO_KSYMS, hit);
}

static int add_kernel(struct resolver *rv, const struct raw_stack *s)
{
	uint32_t i, skip = bpf_frames(s, rv->ks);
	struct memo_hit hit;

	for (i = s->nr; i-- > skip;) {
		if (kernel_frame(rv, lookup_addr(s, i), &hit))
			return -ENOMEM;
		count_frame(&rv->p->stats, hit.why);
		put_hit(&rv->sc, &hit);
	}
	return 0;
}

static int by_process(const void *a, const void *b)
{
	const struct raw_count *x = *(const struct raw_count *const *)a;
	const struct raw_count *y = *(const struct raw_count *const *)b;

	if (x->key.tgid != y->key.tgid)
		return x->key.tgid < y->key.tgid ? -1 : 1;
	if (x->key.start_time != y->key.start_time)
		return x->key.start_time < y->key.start_time ? -1 : 1;
	return (x->key.exec_time > y->key.exec_time) - (x->key.exec_time < y->key.exec_time);
}

/* The records of one process (one image of it) one after the other: the
 * files they need are read (or their libdwfl sessions opened) once, not
 * once per turn of the symbol cache's budget, and the addresses it
 * resolved are remembered until the next one. */
static const struct raw_count **by_process_order(const struct drained *d)
{
	const struct raw_count **order = malloc((d->n ? d->n : 1) * sizeof(*order));

	if (!order)
		return NULL;
	for (size_t i = 0; i < d->n; i++)
		order[i] = &d->recs[i];
	qsort(order, d->n, sizeof(*order), by_process);
	return order;
}

static void resolver__free(struct resolver *rv)
{
	if (!rv)
		return;
	frame_memo__free(rv->user);
	frame_memo__free(rv->kernel);
	free(rv);
}

static struct resolver *resolver__new(const struct ksyms *ks, struct symbolizer *sz,
				      const struct runtimes *rts, struct profile *p)
{
	struct resolver *rv = malloc(sizeof(*rv));

	if (!rv)
		return NULL;
	*rv = (struct resolver){ .user = frame_memo__new(), .kernel = frame_memo__new(), .p = p,
				 .sz = sz, .ks = ks, .rts = rts };
	if (!rv->user || !rv->kernel) {
		resolver__free(rv);
		return NULL;
	}
	return rv;
}

/* The functions a thread's or a process's stack begins in: a user stack
 * is complete when its outermost frame is one of them, and only then (a
 * walk a runtime frame, a frame pointer of 0 or a return address of 0
 * ended elsewhere stopped short of it). */
static const char *const entries[] = {
	"_start",				/* the process's (and ld.so's) */
	"clone3", "__clone3", "clone", "__clone",	/* glibc's new threads */
	"start_thread",				/* ... when clone's frame has no CFI */
	"runtime.goexit", "runtime.goexit.abi0",	/* Go's goroutines */
	"runtime.rt0_go", "runtime.rt0_go.abi0", "runtime.mstart", "runtime.mstart.abi0",
};

static bool is_entry(const struct pframe *f)
{
	for (size_t i = 0; f->name && i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(f->name, entries[i]))
			return true;
	return false;
}

/* The record's user stack (its frames first in sc) counted as one of
 * event's samples: reached an entry or not. Off-CPU counts are time,
 * not samples: not counted. */
static void count_user_stack(struct resolver *rv, const struct raw_count *r)
{
	struct profile_stats *st = &rv->p->stats;

	if (r->key.event < (uint32_t)rv->p->nevents &&
	    rv->p->events[r->key.event].kind == PEVENT_OFFCPU)
		return;
	st->user_stacks += r->count;
	if (rv->sc.n && is_entry(&rv->sc.frames[0]))
		st->user_stacks_complete += r->count;
}

static bool same_image(const struct user_ctx *a, const struct user_ctx *b)
{
	return a->tgid == b->tgid && a->start_time == b->start_time && a->exec_time == b->exec_time;
}

/* One record's stack into the profile. */
static int resolve_record(struct resolver *rv, const struct raw_count *r, bool exec_known,
			  struct user_ctx *image)
{
	struct user_ctx ctx = {
		.tgid = (pid_t)r->key.tgid, .start_time = r->key.start_time,
		.exec_time = exec_known ? r->key.exec_time : EXEC_LATEST,
	};
	int err = 0;

	rv->sc.n = 0;
	if (r->ustack) {
		if (!same_image(&ctx, image)) {
			frame_memo__forget(rv->user);
			*image = ctx;
		}
		err = add_user(rv, r->ustack, &ctx);
		count_user_stack(rv, r);
	}
	if (!err && r->kstack)
		err = add_kernel(rv, r->kstack);
	if (!err)
		err = profile__add(rv->p, r->key.event, r->key.comm, (pid_t)r->key.tgid,
				   (pid_t)r->key.pid, r->key.cgroup, r->count, rv->sc.frames,
				   rv->sc.n);
	symbolizer__between_stacks(rv->sz);	/* the profile has copied the names */
	return err;
}

int resolve__drained(const struct drained *d, const struct ksyms *ks, struct symbolizer *sz,
		     const struct runtimes *rts, bool exec_known, struct profile *p)
{
	struct resolver *rv = resolver__new(ks, sz, rts, p);
	const struct raw_count **order = by_process_order(d);
	struct user_ctx image = { .tgid = -1 };
	size_t i;
	int err = 0;

	if (!rv || !order) {
		resolver__free(rv);
		free(order);
		return -ENOMEM;
	}
	for (i = 0; !err && i < d->n; i++)
		err = resolve_record(rv, order[i], exec_known, &image);
	p->stats.stacks_missing += d->stacks_missing;
	free(order);
	resolver__free(rv);
	return err;
}
