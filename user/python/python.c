// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* CPython processes into the BPF side's py_procs; sampled code objects out
 * of py_codes, read and kept; Python frames named from them. */
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
#include "python/py_code.h"
#include "python/py_find.h"
#include "python/py_lines.h"
#include "python/py_versions.h"
#include "python/python.h"

#define POLL_MAX_CODES	4096		/* code objects taken from the map per poll */
#define MAX_CODES	(1 << 20)	/* code objects kept; past it new ones stay unnamed */

/* A file seen mapped, by identity: a CPython of a supported version or not. */
struct pyfile {
	struct file_id id;	/* first: the tree's key */
	int ok;			/* 1: a CPython with both symbols; 0: not one */
	struct py_elf elf;
};

/* A process with a CPython: its version's table entry. */
struct pyproc {
	pid_t tgid;		/* first: the tree's key */
	const struct py_version *v;
	uint64_t code_type;	/* PyCode_Type's address, once checked */
};

/* A code object read (or found unreadable), kept after its process exits. */
struct pycode {
	pid_t tgid;
	uint64_t start_time, addr;
	uint64_t fp;		/* its fingerprint (co_linetable) when sampled */
	bool ok;
	uint8_t lines_format;
	uint32_t doomed;	/* the trim that saw its process exited; 0: alive */
	struct py_code_info info;
	const char *base;	/* basename of info.filename */
};

struct pyprof {
	int procs_fd, codes_fd;
	const volatile uint64_t *noted;	/* code objects the BPF side put in */
	volatile uint32_t *procs_stored;	/* the BPF side's gate: an entry went in */
	uint64_t walked;		/* ... as of the last walk that took them all */
	void *files, *procs, *codes;	/* tsearch trees */
	size_t ncodes;
	uint32_t trims;		/* pyprof__trim() calls */
	bool armed;		/* a CPython's entry went in: codes can be noted */
	struct py_stats st;
};

static int cmp_tgid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int cmp_code(const void *pa, const void *pb)
{
	const struct pycode *a = pa, *b = pb;

	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->start_time != b->start_time)
		return a->start_time < b->start_time ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->fp > b->fp) - (a->fp < b->fp);
}

struct pyprof *pyprof__new(int procs_fd, int codes_fd, const volatile uint64_t *noted,
			   volatile uint32_t *procs_stored)
{
	struct pyprof *py = calloc(1, sizeof(*py));

	if (!py)
		return NULL;
	py->procs_fd = procs_fd;
	py->codes_fd = codes_fd;
	py->noted = noted;
	py->procs_stored = procs_stored;
	return py;
}

static void free_code(void *node)
{
	struct pycode *c = node;

	py_code__free(&c->info);
	free(c);
}

void pyprof__free(struct pyprof *py)
{
	if (!py)
		return;
	tdestroy(py->files, free);
	tdestroy(py->procs, free);
	tdestroy(py->codes, free_code);
	free(py);
}

/* The file behind v, read once per identity. */
static struct pyfile *get_file(struct pyprof *py, pid_t tgid, bool alive, const struct vma *v)
{
	struct pyfile key = { .id = file_id__of(v) }, *f;
	void *node = tfind(&key, &py->files, file_id__cmp);
	int fd;

	if (node)
		return *(struct pyfile **)node;
	f = malloc(sizeof(*f));
	if (!f)
		return NULL;
	*f = key;
	if (!tsearch(f, &py->files, file_id__cmp)) {
		free(f);
		return NULL;
	}
	fd = mapped_file__open(tgid, alive, v, NULL);
	if (fd >= 0) {
		f->ok = py_find__elf(fd, &f->elf) == 0;
		close(fd);
	}
	return f;
}

struct scan {
	struct pyprof *py;
	pid_t tgid;
	const struct py_version *v;
	struct py_proc entry;
	bool found, unsupported;
};

static int scan_vma(const struct vma *v, bool alive, void *arg)
{
	struct scan *s = arg;
	struct pyfile *f;
	uint64_t bias;
	int major, minor = py_find__version(v->path, &major);

	if (s->found || minor < 0)
		return 0;
	f = get_file(s->py, s->tgid, alive, v);
	if (!f || !f->ok || py_find__bias(&f->elf, v->start, v->pgoff, &bias))
		return 0;
	s->v = major == 3 ? py_version__find(minor) : NULL;
	if (!s->v) {
		s->unsupported = true;
		return 0;
	}
	py_version__to_bpf(s->v, &s->entry);
	s->entry.eval_start = f->elf.eval + bias;
	s->entry.eval_end = f->elf.eval + f->elf.eval_size + bias;
	s->entry.interp_head = f->elf.runtime + bias + s->v->runtime_interp_head;
	s->found = true;
	return 0;
}

/* tgid runs v (NULL: an unsupported version): remembered, its code
 * objects are read by v's offsets; counted once. */
static void add_proc(struct pyprof *py, pid_t tgid, const struct py_version *v)
{
	struct pyproc *p = calloc(1, sizeof(*p)), **node;

	if (!p)
		return;
	p->tgid = tgid;
	node = tsearch(p, &py->procs, cmp_tgid);
	if (!node) {
		free(p);
		return;
	}
	if (*node != p) {	/* an exec or a reused pid: the new image's */
		free(p);
		if ((*node)->v != v)
			(*node)->code_type = 0;
	} else if (v) {
		py->st.procs++;
	} else {
		py->st.unsupported++;
	}
	(*node)->v = v;
}

void pyprof__sync_proc(struct pyprof *py, struct procs *procs, pid_t tgid)
{
	struct scan s = { .py = py, .tgid = tgid };
	__u32 key = (__u32)tgid;

	/* An exited process's entry goes, or a new process given its pid
	 * would be walked as CPython by another image's offsets; so does the
	 * entry of an image with no CPython (an exec; the BPF side drops it
	 * at the exec itself). */
	if (!procs__alive(procs, tgid, 0) || procs__for_each_vma(procs, tgid, scan_vma, &s) ||
	    !s.found || bpf_map_update_elem(py->procs_fd, &key, &s.entry, BPF_ANY)) {
		bpf_map_delete_elem(py->procs_fd, &key);	/* ENOENT: none there */
		if (s.unsupported)
			add_proc(py, tgid, NULL);
		return;
	}
	py->armed = true;
	__atomic_store_n(py->procs_stored, 1, __ATOMIC_SEQ_CST);
	add_proc(py, tgid, s.v);
}

static void base_name(struct pycode *c)
{
	const char *slash = c->info.filename ? strrchr(c->info.filename, '/') : NULL;

	c->base = slash ? slash + 1 : c->info.filename ? c->info.filename : "";
}

/* Reads one sampled code object into the cache, once. A code object at
 * an address is the one sampled only if its fingerprint is the same: a
 * freed one's address may hold another by now. */
static void read_code(struct pyprof *py, const struct py_code_key *k)
{
	struct pycode key = { .tgid = (pid_t)k->tgid, .start_time = k->start_time, .addr = k->code,
			      .fp = k->fp };
	struct pyproc **p;
	struct pycode *c, **node;
	int err;

	if (tfind(&key, &py->codes, cmp_code) || py->ncodes >= MAX_CODES)
		return;
	p = tfind(&key.tgid, &py->procs, cmp_tgid);
	if (!p || !(*p)->v)
		return;
	c = malloc(sizeof(*c));
	if (!c)
		return;
	*c = key;
	err = py_code__read((*p)->v, proc_mem__read, &key.tgid, k->code, &(*p)->code_type, &c->info);
	c->ok = !err;
	if (c->ok && c->info.lines_addr != k->fp) {
		c->ok = false;
		err = -EINVAL;
	}
	c->lines_format = (*p)->v->lines;
	base_name(c);
	node = tsearch(c, &py->codes, cmp_code);
	if (!node) {
		free_code(c);
		return;
	}
	py->ncodes++;
	if (!err)
		py->st.codes++;
	else if (err == -ESRCH)
		py->st.codes_gone++;
	else
		py->st.codes_bad++;
}

void pyprof__poll(struct pyprof *py)
{
	struct py_code_key *keys;
	uint64_t noted = *py->noted;
	size_t n = 0;

	/* the BPF side notes code objects only of processes with an entry,
	 * and counts them: with none new, the walk below (a scan of the
	 * map's 16k buckets, 5 to 20 times a second) would find nothing */
	if (!py->armed || noted == py->walked)
		return;
	keys = malloc(POLL_MAX_CODES * sizeof(*keys));
	if (!keys)
		return;
	/* collected first: deleting while walking would restart the walk */
	while (n < POLL_MAX_CODES &&
	       !bpf_map_get_next_key(py->codes_fd, n ? &keys[n - 1] : NULL, &keys[n]))
		n++;
	for (size_t i = 0; i < n; i++) {
		read_code(py, &keys[i]);
		bpf_map_delete_elem(py->codes_fd, &keys[i]);
	}
	if (n < POLL_MAX_CODES)	/* all taken; else the rest at the next poll */
		py->walked = noted;
	free(keys);
}

bool pyprof__name(const struct pyprof *py, pid_t tgid, uint64_t start_time, uint64_t ip,
		  uint64_t fp, char *name, size_t size, struct py_where *where)
{
	struct pycode key = { .tgid = tgid, .start_time = start_time, .addr = PY_CODE(ip), .fp = fp };
	struct pycode **node = py ? tfind(&key, &py->codes, cmp_code) : NULL;
	const struct pycode *c;
	uint64_t off = PY_OFFSET(ip);
	int l = -1;

	if (!node || !(*node)->ok)
		return false;
	c = *node;
	if (off < PY_OFFSET_MAX)
		l = c->lines_format == PY_LINES_310 ?
			py_lines__310(c->info.lines, c->info.nlines, c->info.firstlineno, (uint32_t)off) :
			py_lines__311(c->info.lines, c->info.nlines, c->info.firstlineno, (uint32_t)off);
	if (l > 0)
		snprintf(name, size, "%s (%s:%d)", c->info.qualname, c->base, l);
	else
		snprintf(name, size, "%s (%s)", c->info.qualname, c->base);
	where->file = c->info.filename;
	where->line = l > 0 ? (uint32_t)l : 0;
	where->first_line = c->info.firstlineno > 0 ? (uint32_t)c->info.firstlineno : 0;
	return true;
}

struct trim_ctx {
	struct pyprof *py;
	struct procs *procs;
	struct pycode **drop;
	size_t ndrop, cap;
};

static void trim_visit(const void *node, VISIT which, void *arg)
{
	struct trim_ctx *t = arg;
	struct pycode *c = *(struct pycode *const *)node;

	if (which != postorder && which != leaf)
		return;
	if (!c->doomed) {
		if (!procs__alive(t->procs, c->tgid, c->start_time))
			c->doomed = t->py->trims;
		return;
	}
	if (c->doomed == t->py->trims)
		return;
	if (GROW(t->drop, t->cap, t->ndrop + 1))
		return;	/* kept until the next trim */
	t->drop[t->ndrop++] = c;
}

void pyprof__trim(struct pyprof *py, struct procs *procs)
{
	struct trim_ctx t = { .py = py, .procs = procs };

	if (!py)
		return;
	py->trims++;
	twalk_r(py->codes, trim_visit, &t);
	for (size_t i = 0; i < t.ndrop; i++) {
		tdelete(t.drop[i], &py->codes, cmp_code);
		free_code(t.drop[i]);
		py->ncodes--;
	}
	free(t.drop);
}

void pyprof__stats(const struct pyprof *py, struct py_stats *st)
{
	*st = py->st;
}
