// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Turning stack ids' addresses into named frames, root first. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "drain.h"
#include "dwarf_lines.h"
#include "ksyms.h"
#include "procs.h"
#include "python.h"
#include "resolve.h"
#include "symbolizer.h"

#define NAME_MAX_LEN	160
#define KERNEL_MAPPING	"[kernel.kallsyms]"	/* perf's name for the kernel image */
#define PYTHON_MAPPING	"[python]"		/* Python frames' mapping in pprof */
/* kernel + user frames, and room for inline frames (dropped past it) */
#define MAX_FRAMES	(4 * MAX_STACK_DEPTH)

struct scratch {
	struct pframe frames[MAX_FRAMES];
	char names[MAX_FRAMES][NAME_MAX_LEN];	/* for names built here */
	uint32_t n;
};

/* Every frame but the innermost is a return address, which points after
 * the call: look up the byte before it, or a call that ends a function
 * (noreturn) is blamed on the next one. */
static uint64_t lookup_addr(const struct raw_stack *s, uint32_t i)
{
	return i ? s->ips[i] - 1 : s->ips[i];
}

static void put(struct scratch *sc, const char *name, bool kernel)
{
	sc->frames[sc->n] = (struct pframe){ .name = name, .kernel = kernel };
	sc->n++;
}

static void put_user(struct scratch *sc, const char *name, const struct user_sym *us,
		     uint64_t addr, const struct src_frame *src, bool inlined)
{
	sc->frames[sc->n] = (struct pframe){
		.name = name, .mapping = us->path, .build_id = us->build_id, .addr = addr,
		.map_start = us->map_start, .map_limit = us->map_end, .map_off = us->map_pgoff,
		.file = src ? src->file : NULL, .line = src ? src->line : 0, .inlined = inlined,
	};
	sc->n++;
}

/* The functions inlined at this address, outermost first, each a frame of
 * its own after the function that holds the code (room allowing: the
 * kernel's frames still need theirs). */
static void put_inlined(struct scratch *sc, const struct user_sym *us, uint64_t addr,
			struct symbolizer *sz)
{
	const struct src_chain *c = us->src;

	for (uint32_t i = 0; c && i < c->ninlined && sc->n < MAX_FRAMES - MAX_STACK_DEPTH; i++) {
		const char *name = symbolizer__demangle(sz, c->inlined[i].name);

		put_user(sc, name ? name : "[inlined]", us, addr, &c->inlined[i], true);
	}
}

/* A Python frame (bpf/python.bpf.h): its code object, read while the
 * process lived, names it. */
static void put_python(struct scratch *sc, uint64_t ip, uint64_t fp, const struct user_ctx *ctx,
		       const struct pyprof *py, struct profile_stats *st)
{
	const char *file = NULL;
	uint32_t line = 0;

	st->frames++;
	if (pyprof__name(py, ctx->tgid, ctx->start_time, ip, fp, sc->names[sc->n], NAME_MAX_LEN,
			 &file, &line)) {
		st->py_frames++;
	} else {
		st->unresolved++;
		st->py_unnamed++;
		st->unnamed[UNNAMED_PY_CODE]++;
		snprintf(sc->names[sc->n], NAME_MAX_LEN, "[python code 0x%" PRIx64 "]", (uint64_t)PY_CODE(ip));
	}
	sc->frames[sc->n] = (struct pframe){
		.name = sc->names[sc->n], .mapping = PYTHON_MAPPING, .file = file, .line = line,
		.python = true,
	};
	sc->n++;
}

static void add_user(struct scratch *sc, const struct raw_stack *s, const struct user_ctx *ctx,
		     struct symbolizer *sz, const struct pyprof *py, struct profile_stats *st)
{
	struct user_sym us;
	uint32_t i;

	for (i = s->nr; i-- > 0;) {
		uint64_t addr;

		/* a Python frame is two slots, PY_FRAME then its fingerprint:
		 * walked root first, the fingerprint comes first */
		if (i > 0 && PY_IS_FRAME(s->ips[i - 1]))
			continue;
		if (PY_IS_FRAME(s->ips[i])) {
			put_python(sc, s->ips[i], i + 1 < s->nr ? s->ips[i + 1] : 0, ctx, py, st);
			continue;
		}
		addr = lookup_addr(s, i);
		symbolizer__user(sz, ctx, addr, &us);
		st->frames++;
		if (us.name) {
			put_user(sc, us.name, &us, addr, us.src ? &us.src->outer : NULL, false);
			put_inlined(sc, &us, addr, sz);
			continue;
		}
		st->unresolved++;
		st->unnamed[us.why]++;
		if (us.dso) {
			/* one frame per function the CFI knows, at its start;
			 * the exact address stays in the frame (pprof) */
			snprintf(sc->names[sc->n], NAME_MAX_LEN, "%s+0x%" PRIx64, us.dso,
				 us.in_function ? us.func_off : us.file_off);
			put_user(sc, sc->names[sc->n], &us, addr, NULL, false);
		} else {
			put(sc, "[unknown]", false);
			sc->frames[sc->n - 1].addr = addr;
			sc->frames[sc->n - 1].map_limit = UINT64_MAX;
		}
	}
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

static void add_kernel(struct scratch *sc, const struct raw_stack *s, const struct ksyms *ks,
		       struct profile_stats *st)
{
	uint32_t i, skip = bpf_frames(s, ks);
	const struct ksym *sym;

	for (i = s->nr; i-- > skip;) {
		uint64_t addr = lookup_addr(s, i);

		sym = ks ? ksyms__find(ks, addr) : NULL;
		st->frames++;
		if (!sym) {
			st->unresolved++;
			st->unnamed[ks ? UNNAMED_NO_KSYM : UNNAMED_NO_KSYMS]++;
		}
		put(sc, sym ? ksyms__name(ks, sym) : "[unknown]", true);
		sc->frames[sc->n - 1].mapping = KERNEL_MAPPING;
		sc->frames[sc->n - 1].addr = addr;
		kernel_mapping(&sc->frames[sc->n - 1], ks);
	}
}

static int by_process(const void *a, const void *b)
{
	const struct raw_count *x = *(const struct raw_count *const *)a;
	const struct raw_count *y = *(const struct raw_count *const *)b;

	if (x->key.tgid != y->key.tgid)
		return x->key.tgid < y->key.tgid ? -1 : 1;
	return (x->key.start_time > y->key.start_time) - (x->key.start_time < y->key.start_time);
}

/* The records of one process one after the other: the files they need
 * are read (or their libdwfl sessions opened) once, not once per turn of
 * the symbol cache's budget. */
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

int resolve__drained(const struct drained *d, const struct ksyms *ks, struct symbolizer *sz,
		     const struct pyprof *py, bool exec_known, struct profile *p)
{
	struct scratch *sc = malloc(sizeof(*sc));
	const struct raw_count **order = by_process_order(d);
	const struct raw_count *r;
	size_t i;
	int err = 0;

	if (!sc || !order) {
		free(sc);
		free(order);
		return -ENOMEM;
	}
	for (i = 0; !err && i < d->n; i++) {
		r = order[i];
		sc->n = 0;
		if (r->ustack) {
			struct user_ctx ctx = {
				.tgid = (pid_t)r->key.tgid, .start_time = r->key.start_time,
				.exec_time = exec_known ? r->key.exec_time : EXEC_LATEST,
			};

			add_user(sc, r->ustack, &ctx, sz, py, &p->stats);
		}
		if (r->kstack)
			add_kernel(sc, r->kstack, ks, &p->stats);
		err = profile__add(p, r->key.event, r->key.comm, (pid_t)r->key.tgid, (pid_t)r->key.pid,
				   r->count, sc->frames, sc->n);
		symbolizer__between_stacks(sz);	/* the profile has copied the names */
	}
	p->stats.stacks_missing += d->stacks_missing;
	free(order);
	free(sc);
	return err;
}
