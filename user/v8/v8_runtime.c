// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * V8 (node) as a runtime (base/runtime.h): processes whose mapped file
 * has V8's postmortem metadata (v8_find.h) go into the BPF side's
 * v8_procs; the functions its walker saw (v8_sfis) are read from the
 * process's memory at each poll, while it lives, and kept per (process,
 * function, fingerprint): the collector moves objects, so a function is
 * known by its address only together with its fingerprint (bpf/v8.h), and
 * one whose fingerprint no longer matches is counted moved, never named
 * from what took its place.
 */
#include <errno.h>
#include <inttypes.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "base/grow.h"
#include "procs/mapped_file.h"
#include "procs/proc_mem.h"
#include "procs/procs.h"
#include "profile/counters.h"
#include "profile/stats.h"
#include "profile/unnamed.h"
#include "sampling/session.h"
#include "v8/v8_find.h"
#include "v8/v8_name.h"
#include "v8/v8_runtime.h"

#define POLL_MAX	4096		/* functions taken from the map per poll */
#define MAX_FNS		(1 << 18)	/* functions kept; past it new ones stay unnamed */

/* A file seen mapped, by identity: a V8 whose layout was read, or not. */
struct v8file {
	struct file_id id;	/* first: the tree's key */
	int err;		/* v8_find__elf()'s */
	struct v8_layout l;
};

/* A process with a V8: its layout, for reading its functions; or one
 * whose V8 metadata was refused (counted once). */
struct v8proc {
	pid_t tgid;		/* first: the tree's key */
	bool refused;
	struct v8_layout l;
};

/* What --stats' v8 group says of the reader (stats.h's v8_*). */
struct v8_counts {
	uint64_t procs, unsupported, gone, moved, bad;
};

/* A function read (or found unreadable), kept after its process exits. */
struct v8fn {
	struct v8_sfi_key k;
	int err;
	uint32_t doomed;	/* the trim that saw its process exited; 0: alive */
	struct v8_fn_name n;
	const char *base;	/* the script's name after its last '/' */
};

struct v8rt {
	int procs_fd, sfis_fd;
	const volatile uint64_t *noted;	/* functions the BPF side put in */
	volatile uint32_t *stored;	/* the BPF side's gate: an entry went in */
	uint64_t walked;		/* noted as of the last walk that took them all */
	void *files, *procs, *fns;	/* tsearch trees */
	size_t nfns;
	uint32_t trims;
	struct v8_counts st;
};

static int cmp_tgid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int cmp_fn(const void *pa, const void *pb)
{
	const struct v8_sfi_key *a = pa, *b = pb;

	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->start_time != b->start_time)
		return a->start_time < b->start_time ? -1 : 1;
	if (a->sfi != b->sfi)
		return a->sfi < b->sfi ? -1 : 1;
	return (a->finger > b->finger) - (a->finger < b->finger);
}

static void *v8_start(struct session *s)
{
	struct v8rt *rt = calloc(1, sizeof(*rt));

	if (!rt)
		return NULL;
	rt->procs_fd = session__map_fd(s, "v8_procs");
	rt->sfis_fd = session__map_fd(s, "v8_sfis");
	rt->noted = session__bss_var(s, "v8_sfis_noted");
	rt->stored = session__bss_var(s, "v8_procs_stored");
	if (rt->procs_fd < 0 || rt->sfis_fd < 0 || !rt->noted || !rt->stored) {
		free(rt);	/* a BPF object without V8's walker: not reached */
		return NULL;
	}
	return rt;
}

static void v8_free(void *p)
{
	struct v8rt *rt = p;

	if (!rt)
		return;
	tdestroy(rt->files, free);
	tdestroy(rt->procs, free);
	tdestroy(rt->fns, free);
	free(rt);
}

/* The file behind v, read once per identity. */
static struct v8file *get_file(struct v8rt *rt, pid_t tgid, bool alive, const struct vma *v)
{
	struct v8file key = { .id = file_id__of(v), .err = -ENOENT }, *f;
	void *node = tfind(&key, &rt->files, file_id__cmp);
	int fd;

	if (node)
		return *(struct v8file **)node;
	f = malloc(sizeof(*f));
	if (!f)
		return NULL;
	*f = key;
	if (!tsearch(f, &rt->files, file_id__cmp)) {
		free(f);
		return NULL;
	}
	fd = mapped_file__open(tgid, alive, v, NULL);
	if (fd >= 0) {
		f->err = v8_find__elf(fd, &f->l);
		close(fd);
	}
	return f;
}

struct scan {
	struct v8rt *rt;
	pid_t tgid;
	const struct v8file *file;
	struct v8_proc entry;
	bool refused;
};

/* A mapping of a V8's file: its layout, and where its builtins run when
 * this mapping holds them. */
static int scan_vma(const struct vma *v, bool alive, void *arg)
{
	struct scan *s = arg;
	const struct v8_layout *l;
	struct v8file *f;

	if (v->path[0] != '/' || (s->file && s->entry.code_end) || !v8_find__named(v->path))
		return 0;
	f = get_file(s->rt, s->tgid, alive, v);
	if (!f || f->err) {
		s->refused |= f && f->err == -EPROTO;
		return 0;
	}
	l = &f->l;
	s->file = f;
	s->entry = (struct v8_proc){
		.fp_function = l->fp_function, .fp_context = l->fp_context, .obj_map = (__u16)l->obj_map,
		.map_type = (__u16)l->map_type, .fn_shared = (__u16)l->fn_shared,
		.sfi_name = (__u16)l->sfi_name, .sfi_script = (__u16)l->sfi_script,
		.type_function = l->type_function, .heap_mask = (__u8)l->heap_mask,
		.heap_tag = (__u8)l->heap_tag,
	};
	if (l->builtins_end && l->builtins_start >= v->pgoff &&
	    l->builtins_end - v->pgoff <= v->end - v->start) {
		s->entry.code_start = v->start + (l->builtins_start - v->pgoff);
		s->entry.code_end = v->start + (l->builtins_end - v->pgoff);
		s->entry.text_start = v->start;
		s->entry.text_end = v->end;
	}
	return 0;
}

/* tgid runs the V8 of file (NULL: one whose metadata was refused):
 * remembered (its layout reads its heap), counted once. */
static void add_proc(struct v8rt *rt, pid_t tgid, const struct v8file *file)
{
	struct v8proc *p = calloc(1, sizeof(*p)), **node;

	if (!p)
		return;
	p->tgid = tgid;
	node = tsearch(p, &rt->procs, cmp_tgid);
	if (!node) {
		free(p);
		return;
	}
	if (*node != p)
		free(p);	/* an exec or a reused pid: the new image's */
	else if (file)
		rt->st.procs++;
	else
		rt->st.unsupported++;
	(*node)->refused = !file;
	if (file)
		(*node)->l = file->l;
}

static void v8_sync_proc(void *p, struct procs *procs, pid_t tgid)
{
	struct v8rt *rt = p;
	struct scan s = { .rt = rt, .tgid = tgid };
	__u32 key = (__u32)tgid;

	/* an exited process's entry goes, as does one whose image has no V8
	 * (an exec): a new image is never walked by an old one's layout */
	if (!procs__alive(procs, tgid, 0) || procs__for_each_vma(procs, tgid, scan_vma, &s) ||
	    !s.file || bpf_map_update_elem(rt->procs_fd, &key, &s.entry, BPF_ANY)) {
		bpf_map_delete_elem(rt->procs_fd, &key);	/* ENOENT: none there */
		if (s.refused && !s.file)
			add_proc(rt, tgid, NULL);
		return;
	}
	__atomic_store_n(rt->stored, 1, __ATOMIC_SEQ_CST);
	add_proc(rt, tgid, s.file);
}

static void count_read(struct v8rt *rt, int err)
{
	if (err == -ESRCH)
		rt->st.gone++;
	else if (err == -ESTALE)
		rt->st.moved++;
	else if (err)
		rt->st.bad++;
}

/* One sampled function into the cache, once. */
static void read_fn(struct v8rt *rt, const struct v8_sfi_key *k)
{
	struct v8proc **p;
	struct v8fn *f;
	pid_t tgid = (pid_t)k->tgid;
	const char *slash;

	if (tfind(k, &rt->fns, cmp_fn) || rt->nfns >= MAX_FNS)
		return;
	p = tfind(&tgid, &rt->procs, cmp_tgid);
	if (!p || (*p)->refused)
		return;
	f = calloc(1, sizeof(*f));
	if (!f)
		return;
	f->k = *k;
	f->err = v8_name__sfi(&(*p)->l, proc_mem__read, &tgid, k->sfi, k->finger, &f->n);
	slash = strrchr(f->n.script, '/');
	f->base = slash ? slash + 1 : f->n.script;
	if (!tsearch(f, &rt->fns, cmp_fn)) {
		free(f);
		return;
	}
	rt->nfns++;
	count_read(rt, f->err);
}

static void v8_poll(void *p)
{
	struct v8rt *rt = p;
	struct v8_sfi_key *keys;
	uint64_t noted = *rt->noted;
	size_t n = 0;

	if (noted == rt->walked)	/* nothing new: no scan of the map */
		return;
	keys = malloc(POLL_MAX * sizeof(*keys));
	if (!keys)
		return;
	/* collected first: deleting while walking would restart the walk */
	while (n < POLL_MAX && !bpf_map_get_next_key(rt->sfis_fd, n ? &keys[n - 1] : NULL, &keys[n]))
		n++;
	for (size_t i = 0; i < n; i++) {
		read_fn(rt, &keys[i]);
		bpf_map_delete_elem(rt->sfis_fd, &keys[i]);
	}
	if (n < POLL_MAX)
		rt->walked = noted;
	free(keys);
}

static bool v8_name(const void *p, pid_t tgid, uint64_t start_time, uint64_t slot, uint64_t word,
		    char *name, size_t size, struct runtime_where *where)
{
	const struct v8rt *rt = p;
	struct v8_sfi_key k = { .tgid = (__u32)tgid, .finger = (__u32)V8_FINGER_OF(slot),
				.start_time = start_time, .sfi = word };
	struct v8fn **node = rt ? tfind(&k, &rt->fns, cmp_fn) : NULL;
	const struct v8fn *f;
	const char *fn;

	if (!node || (*node)->err)
		return false;
	f = *node;
	fn = f->n.func[0] ? f->n.func : "(anonymous)";
	if (f->n.line)
		snprintf(name, size, "%s (%s:%" PRIu32 ")", fn, f->base, f->n.line);
	else
		snprintf(name, size, "%s (%s)", fn, f->base);
	where->file = f->n.script[0] ? f->n.script : NULL;
	where->line = where->first_line = f->n.line;
	return true;
}

static void v8_unnamed(uint64_t slot, uint64_t word, char *name, size_t size)
{
	(void)slot;
	snprintf(name, size, "[v8 function 0x%" PRIx64 "]", word);
}

struct trim_ctx {
	struct v8rt *rt;
	struct procs *procs;
	struct v8fn **drop;
	size_t ndrop, cap;
};

/* A function of a process seen exited at one trim goes at the next: the
 * samples drained in between may still name it. */
static void trim_visit(const void *node, VISIT which, void *arg)
{
	struct trim_ctx *t = arg;
	struct v8fn *f = *(struct v8fn *const *)node;

	if (which != postorder && which != leaf)
		return;
	if (!f->doomed) {
		if (!procs__alive(t->procs, (pid_t)f->k.tgid, f->k.start_time))
			f->doomed = t->rt->trims;
	} else if (f->doomed != t->rt->trims && !GROW(t->drop, t->cap, t->ndrop + 1)) {
		t->drop[t->ndrop++] = f;
	}
}

static void v8_trim(void *p, struct procs *procs)
{
	struct v8rt *rt = p;
	struct trim_ctx t = { .rt = rt, .procs = procs };

	rt->trims++;
	twalk_r(rt->fns, trim_visit, &t);
	for (size_t i = 0; i < t.ndrop; i++) {
		tdelete(t.drop[i], &rt->fns, cmp_fn);
		free(t.drop[i]);
		rt->nfns--;
	}
	free(t.drop);
}

/* Its own counts (profile_stats.runtime_counts[RUNTIME_V8]). */
enum { V8_COUNT_PROCS, V8_COUNT_UNSUPPORTED, V8_COUNT_FNS_GONE, V8_COUNT_FNS_MOVED, V8_COUNT_FNS_BAD };

/* The functions sampled last are read before their names are needed. */
static void v8_stats(const void *p, struct profile_stats *ps)
{
	const struct v8rt *rt = p;
	uint64_t *c = ps->runtime_counts[RUNTIME_V8];

	v8_poll((void *)p);
	c[V8_COUNT_PROCS] = rt->st.procs;
	c[V8_COUNT_UNSUPPORTED] = rt->st.unsupported;
	c[V8_COUNT_FNS_GONE] = rt->st.gone;
	c[V8_COUNT_FNS_MOVED] = rt->st.moved;
	c[V8_COUNT_FNS_BAD] = rt->st.bad;
}

#define AT(field)	COUNTER_AT(field)
#define OWN(k)		COUNTER_OWN(RUNTIME_V8, k)

/* The V8 reader and the BPF side's JavaScript frames. */
static const struct counter v8_counters[] = {
	{ "processes", "processes", OWN(V8_COUNT_PROCS), COUNTER_U64, MERGE_NEWER },
	{ "unsupported", "refused (unknown or faked metadata)", OWN(V8_COUNT_UNSUPPORTED), COUNTER_U64,
	  MERGE_NEWER },
	{ "frames_read", "frames read in samples", AT(bpf[STAT_V8_FRAMES]), COUNTER_U64,
	  MERGE_ELSEWHERE },
	{ "frames_named", "named in the stacks", AT(runtime_named[RUNTIME_V8]), COUNTER_U64,
	  MERGE_SUM },
	{ "frames_unnamed", "unnamed in the stacks", AT(runtime_unnamed[RUNTIME_V8]), COUNTER_U64,
	  MERGE_SUM },
	{ "read_faults", "not read: function unreadable", AT(bpf[STAT_V8_READ_FAULT]), COUNTER_U64,
	  MERGE_ELSEWHERE },
	{ "past_max_depth", "not read: past max depth", AT(bpf[STAT_V8_TRUNCATED]), COUNTER_U64,
	  MERGE_ELSEWHERE },
	{ "functions_process_gone", "functions not read: process gone", OWN(V8_COUNT_FNS_GONE),
	  COUNTER_U64, MERGE_NEWER },
	{ "functions_moved", "functions moved by the collector before read", OWN(V8_COUNT_FNS_MOVED),
	  COUNTER_U64, MERGE_NEWER },
	{ "functions_unreadable", "functions unreadable or past bounds", OWN(V8_COUNT_FNS_BAD),
	  COUNTER_U64, MERGE_NEWER },
};

static const struct counter_group v8_group = {
	"v8", "v8", v8_counters, sizeof(v8_counters) / sizeof(v8_counters[0]), 0,
};

const struct runtime_ops v8_runtime = {
	.name = "v8", .kind = FK_V8JS, .exe = "node", .pc_first = true,
	.unnamed_text = "JavaScript function not read", .unnamed_key = "v8_function_not_read",
	.counters = &v8_group,
	.start = v8_start, .free = v8_free, .sync_proc = v8_sync_proc, .poll = v8_poll,
	.name_frame = v8_name, .unnamed = v8_unnamed, .trim = v8_trim, .stats = v8_stats,
};
