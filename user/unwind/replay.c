// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The BPF side's user-stack walk, again in user space over a copied stack. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>

#include "base/addr_ranges.h"
#include "unwind/replay.h"

#define ROW_RUNS	8	/* files' rows mapped during one walk */
/* Runs kept mapped between walks: their pages count in bpfprof's RSS, so
 * a few MiB (libc's run is 0.43). A run larger than that (cc1's 480k rows:
 * 7.3 MiB, libLLVM's 2M: 32) is searched by map lookups, a system call a
 * step (about 20 a frame): cheaper than mapping all its pages for a walk,
 * and no RSS. */
#define RUNS_KEPT	16
#define RUNS_KEPT_BYTES	(4u << 20)

/* ---- the walk, over a view --------------------------------------------- */

struct walk {
	const struct replay_view *v;
	const struct early_stack *e;
	__u64 ip, sp, bp;
	bool guessed;		/* the last step was by frame pointer */
};

/* The 8-byte word of the copied stack at addr; false when the copy does
 * not hold it (the BPF side would have read the live stack: a walk that
 * goes past the copy ends as a read fault). */
static bool stack_word(const struct walk *w, __u64 addr, __u64 *out)
{
	__u64 off = addr - w->e->base;	/* below the copy: wraps, a miss */

	if (off > w->e->len || w->e->len - off < sizeof(*out))
		return false;
	memcpy(out, w->e->stack + off, sizeof(*out));
	return true;
}

static const struct unwind_map *find_map(const struct walk *w, __u64 pc)
{
	/* sorted by start, none overlapping (bpf/profile.h) */
	const struct addr_view v = ADDR_VIEW_ENDS(w->v->entry->maps, w->v->entry->nmaps, start, end);
	size_t i = addr_view__find(&v, pc);

	return i == ADDR_NONE ? NULL : &w->v->entry->maps[i];
}

static bool in_exec_ranges(const struct walk *w, __u64 pc)
{
	for (int i = 0; w->v->ranges && i < EXEC_RANGES; i++)
		if (pc >= w->v->ranges->start[i] && pc < w->v->ranges->end[i])
			return true;
	return false;
}

static __u32 row_step(struct walk *w, const struct unwind_row *row)
{
	__u64 cfa, ra;

	switch (row->cfa_reg) {
	case CFA_END:
		return STAT_UNWIND_END;
	case CFA_RSP:
		cfa = w->sp + (__u64)(__s64)row->cfa_offset;
		break;
	case CFA_RBP:
		cfa = w->bp + (__u64)(__s64)row->cfa_offset;
		break;
	case CFA_PLT:	/* the stub's second half has pushed one more word */
		cfa = w->sp + 8 + ((w->ip & 15) >= 11 ? 8 : 0);
		break;
	default:
		return STAT_UNWIND_NO_RULE;
	}
	if (!stack_word(w, cfa - 8, &ra) ||
	    (row->rbp_offset != RBP_SAME &&
	     !stack_word(w, cfa + (__u64)(__s64)row->rbp_offset, &w->bp)))
		return STAT_UNWIND_READ_FAULT;
	if (!ra)
		return STAT_UNWIND_END;
	w->sp = cfa;
	w->ip = ra;
	return 0;
}

/* fp_step() of bpf/stack.bpf.h: the caller's rbp at rbp, the return
 * address above it; a frame below the stack pointer or misaligned is none. */
static __u32 fp_step(struct walk *w)
{
	__u64 caller_bp, ra;

	w->guessed = true;
	if (!w->bp)
		return STAT_UNWIND_END;
	if (w->bp < w->sp || (w->bp & 7))
		return STAT_UNWIND_IMPLAUSIBLE;
	if (!stack_word(w, w->bp, &caller_bp) || !stack_word(w, w->bp + 8, &ra))
		return STAT_UNWIND_READ_FAULT;
	if (!ra)
		return STAT_UNWIND_END;
	w->sp = w->bp + 16;
	w->bp = caller_bp;
	w->ip = ra;
	return 0;
}

/* The step out of the frame at pc in mapping m (NULL: JIT code), by the
 * BPF side's rules (step_frame()). */
static __u32 step_frame(struct walk *w, const struct unwind_map *m, __u64 pc)
{
	struct unwind_row row;
	bool found;

	if (!m || !UNWIND_FILE_HAS_ROWS(m->file))
		return fp_step(w);
	found = w->v->find_row(w->v->arg, m, pc - m->bias, &row);
	if (found && (row.cfa_reg != CFA_NONE || w->v->mode != UNWIND_AUTO)) {
		w->guessed = false;
		return row_step(w, &row);
	}
	if (w->v->mode != UNWIND_AUTO)
		return STAT_UNWIND_NO_RULE;
	return fp_step(w);
}

/* Without an entry: the kernel's frame-pointer walk of a user stack. */
static __u32 fp_walk(const struct replay_view *v, const struct early_stack *e, __u64 *ips,
		     __u32 *nr)
{
	struct walk w = { .v = v, .e = e, .ip = e->ip, .sp = e->sp, .bp = e->bp };

	*nr = 0;
	while (*nr < MAX_STACK_DEPTH && w.ip && !(w.ip & RUNTIME_FRAME_TAG)) {
		ips[(*nr)++] = w.ip;
		if (fp_step(&w))
			break;
	}
	return STAT_UNWIND_FP_FALLBACK;
}

__u32 replay__walk_view(const struct replay_view *v, const struct early_stack *e, __u64 *ips,
			__u32 *nr)
{
	struct walk w = { .v = v, .e = e, .ip = e->ip, .sp = e->sp, .bp = e->bp };
	__u32 stop = STAT_UNWIND_DEPTH;

	if (!v->entry)
		return fp_walk(v, e, ips, nr);
	*nr = 0;
	while (*nr < MAX_STACK_DEPTH) {
		/* a return address points after its call: the call is the byte before */
		__u64 pc = *nr ? w.ip - 1 : w.ip;
		const struct unwind_map *map;
		bool anon;

		if (w.ip & RUNTIME_FRAME_TAG) {	/* read from a corrupt frame */
			stop = STAT_UNWIND_BAD_ADDRESS;
			break;
		}
		map = find_map(&w, pc);
		anon = !map && v->mode == UNWIND_AUTO && in_exec_ranges(&w, pc);
		if (!map && !anon && w.guessed) {
			stop = STAT_UNWIND_IMPLAUSIBLE;
			break;
		}
		ips[(*nr)++] = w.ip;
		stop = map || anon ? step_frame(&w, map, pc) : STAT_UNWIND_NO_MAPPING;
		if (stop)
			break;
		stop = STAT_UNWIND_DEPTH;
	}
	/* the first frame in no mapping: an entry written before the image's
	 * libraries were mapped, frame pointers as in the BPF side */
	return stop == STAT_UNWIND_NO_MAPPING && *nr == 1 ? fp_walk(v, e, ips, nr) : stop;
}

/* ---- the view from the BPF maps ------------------------------------------ */

/* One file's rows, its run of a chunk mapped read-only: a binary search
 * by map lookups cost a system call a step, a quarter of bpfprof's CPU in
 * a whole-system run (make bench, part 2). */
struct row_run {
	__u32 slot, id, first, nrows;	/* id: the chunk's map id when mapped */
	const struct unwind_row *rows;	/* NULL: not mapped */
	void *mem;
	size_t len;
	int fd;				/* the chunk, searched by lookups; -1: none */
	bool kept;			/* the runs' cache owns it, not the walk */
	uint64_t used;			/* kept: the walk that used it last */
};

/* Runs kept mapped from walk to walk: mapping one fills a page-table
 * entry for each of its pages, and unmapping clears them (mmap and
 * munmap were a fifth of bpfprof's CPU beside a churn of short
 * processes, each of their copies walked through libc's 28k rows anew). */
struct replay_rows {
	struct row_run run[RUNS_KEPT];
	int n;
	size_t bytes, cap;		/* mapped, at most */
	uint64_t walks;			/* walks that used the cache */
	uint64_t tidied;		/* ... when it was last tidied */
};

struct bpf_rows {
	int files_fd;
	struct replay_rows *kept;	/* NULL: every run unmapped after the walk */
	struct row_run open[ROW_RUNS];
	int nopen;
};

/* tgid's last exec as the BPF side saw it (0: none since the run began);
 * false when the map cannot be read. */
static bool exec_stamp(const struct replay_maps *m, __u32 tgid, __u64 *out)
{
	*out = 0;
	return !bpf_map_lookup_elem(m->exec_fd, &tgid, out) || errno == ENOENT;
}

static bool entry_of(const struct replay_maps *m, __u32 tgid, __u64 exec_time,
		     struct unwind_proc *out)
{
	return bpf_map_lookup_elem(m->procs_fd, &tgid, out) == 0 &&
	       out->exec_time == exec_time && out->nmaps <= MAX_UNWIND_MAPS;
}

/* The entry of the image e was taken in, and whose it is (*owner: its
 * exec ranges go with it). */
static bool read_entry(const struct replay_maps *m, const struct early_stack *e,
		       struct unwind_proc *out, __u32 *owner)
{
	__u32 tgid = e->key.tgid, parent;
	__u64 now, parent_now;

	if (!exec_stamp(m, tgid, &now))
		return false;
	/* none: the process never exec'd, or it exited and its stamp went
	 * with it; its entry, kept for these walks, has the last exec user
	 * space saw (a copy from before that exec still goes to the parent's
	 * entry). An exec and an exit both between two syncs leave the entry
	 * the old stamp: the copies are walked by the new image's mappings. */
	if (!now) {
		if (bpf_map_lookup_elem(m->procs_fd, &tgid, out))
			return false;
		now = out->exec_time;
	}
	*owner = tgid;
	if (now == e->key.exec_time)
		return entry_of(m, tgid, now, out);
	/* an exec since the sample: the entry is the new image's. Before
	 * the first exec seen, a child forked during the run ran its
	 * parent's image, still the parent's now if it has not exec'd since */
	parent = e->key.exec_time || !m->forked_by ? 0 :
		 (__u32)m->forked_by(m->forked_by_arg, (pid_t)tgid, e->key.start_time);
	if (!parent || !exec_stamp(m, parent, &parent_now) || parent_now >= e->key.start_time)
		return false;
	*owner = parent;
	return entry_of(m, parent, parent_now, out);
}

bool replay__no_entry(const struct replay_maps *m, const struct early_stack *e)
{
	__u32 tgid = e->key.tgid;
	__u64 now;
	struct unwind_proc entry;

	if (!exec_stamp(m, tgid, &now))
		return false;
	if (now && now != e->key.exec_time)
		return false;	/* an exec since: it stays for the interval's end */
	return bpf_map_lookup_elem(m->procs_fd, &tgid, &entry) && errno == ENOENT;
}

/* A file of the entry's is being built (an unasked one is not: nothing
 * waits for it unless replay__unasked() names it). */
static bool has_pending(const struct unwind_proc *entry)
{
	for (__u32 i = 0; i < entry->nmaps; i++)
		if (entry->maps[i].file == UNWIND_FILE_PENDING &&
		    !(entry->maps[i].flags & UNWIND_MAP_UNASKED))
			return true;
	return false;
}

bool replay__ready(const struct replay_maps *m, const struct early_stack *e)
{
	struct unwind_proc entry;
	__u32 owner;

	return read_entry(m, e, &entry, &owner) && !has_pending(&entry);
}

bool replay__parent_pending(const struct replay_maps *m, const struct early_stack *e)
{
	struct unwind_proc entry;
	__u32 owner;

	return read_entry(m, e, &entry, &owner) && owner != e->key.tgid && has_pending(&entry);
}

/* ---- what a walk needs built ---------------------------------------------- */

/* The entry's mapping holding pc, if its file is unasked: its start into
 * starts (once), *n grown. */
static void note_unasked(const struct unwind_proc *entry, __u64 pc, __u64 *starts, size_t *n,
			 size_t max)
{
	const struct addr_view v = ADDR_VIEW_ENDS(entry->maps, entry->nmaps, start, end);
	size_t i = addr_view__find(&v, pc);

	if (i == ADDR_NONE || !(entry->maps[i].flags & UNWIND_MAP_UNASKED))
		return;
	for (size_t k = 0; k < *n; k++)
		if (starts[k] == entry->maps[i].start)
			return;
	if (*n < max)
		starts[(*n)++] = entry->maps[i].start;
}

static bool any_unasked(const struct unwind_proc *entry)
{
	for (__u32 i = 0; i < entry->nmaps; i++)
		if (entry->maps[i].flags & UNWIND_MAP_UNASKED)
			return true;
	return false;
}

size_t replay__unasked(const struct replay_maps *m, const struct early_stack *e, __u32 *owner,
		       __u64 *starts, size_t max)
{
	struct unwind_proc entry;
	size_t n = 0;
	/* from the stack pointer up: below it are dead frames' words */
	__u64 word, off = e->sp > e->base ? (e->sp - e->base) & ~7ull : 0;

	if (!read_entry(m, e, &entry, owner) || !any_unasked(&entry))
		return 0;
	note_unasked(&entry, e->ip, starts, &n, max);
	/* every aligned word of the copy that points into such a mapping: a
	 * superset of the return addresses the walk can reach (it reads no
	 * further than the copy), so one round of builds serves it */
	for (; off + sizeof(word) <= e->len && n < max; off += sizeof(word)) {
		memcpy(&word, e->stack + off, sizeof(word));
		note_unasked(&entry, word - 1, starts, &n, max);
	}
	return n;
}

/* Maps the pages holding rows [first, first + nrows) of the chunk of
 * map id run->id into *run. */
static void map_run(struct row_run *run)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t start = (size_t)run->first * sizeof(struct unwind_row), off;
	int fd;

	if (page <= 0 || !run->nrows)
		return;
	fd = bpf_map_get_fd_by_id(run->id);
	if (fd < 0)
		return;
	off = start & ~((size_t)page - 1);
	run->len = start + (size_t)run->nrows * sizeof(struct unwind_row) - off;
	run->mem = mmap(NULL, run->len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	close(fd);
	if (run->mem == MAP_FAILED) {
		run->mem = NULL;
		return;
	}
	run->rows = (const struct unwind_row *)((const char *)run->mem + (start - off));
}

static void unmap_run(struct row_run *run)
{
	if (run->mem)
		munmap(run->mem, run->len);
	run->mem = NULL;
	run->rows = NULL;
}

/* The kept run of the same rows of the same chunk (a chunk deleted and
 * made again in its slot has another id), or NULL. */
static struct row_run *kept_run(struct replay_rows *k, const struct row_run *want)
{
	for (int i = 0; i < k->n; i++) {
		struct row_run *run = &k->run[i];

		if (run->slot == want->slot && run->id == want->id && run->first == want->first &&
		    run->nrows == want->nrows)
			return run;
	}
	return NULL;
}

static void drop_kept(struct replay_rows *k, int i)
{
	k->bytes -= k->run[i].len;
	unmap_run(&k->run[i]);
	k->run[i] = k->run[--k->n];
}

/* Room for a run of len bytes in the cache, the runs used longest ago
 * unmapped for it (none used by this walk); false: the walk maps its own. */
static bool make_room(struct replay_rows *k, size_t len)
{
	if (len > k->cap)
		return false;
	while (k->n == RUNS_KEPT || k->bytes + len > k->cap) {
		int oldest = -1;

		for (int i = 0; i < k->n; i++)
			if (k->run[i].used != k->walks &&
			    (oldest < 0 || k->run[i].used < k->run[oldest].used))
				oldest = i;
		if (oldest < 0)
			return false;
		drop_kept(k, oldest);
	}
	return true;
}

/* The walk's run of rows: kept from an earlier walk, or mapped now (kept
 * if there is room); too large to keep, searched in the chunk by lookups. */
static void open_run(struct bpf_rows *r, struct row_run *run)
{
	struct replay_rows *k = r->kept;
	struct row_run *found;

	if (bpf_map_lookup_elem(r->files_fd, &run->slot, &run->id))
		return;
	if ((size_t)run->nrows * sizeof(struct unwind_row) > (k ? k->cap : RUNS_KEPT_BYTES)) {
		run->fd = bpf_map_get_fd_by_id(run->id);
		return;
	}
	found = k ? kept_run(k, run) : NULL;
	if (!found) {
		map_run(run);
		if (!run->mem || !k || !make_room(k, run->len))
			return;
		found = &k->run[k->n++];
		*found = *run;
		found->kept = true;
		k->bytes += run->len;
	}
	found->used = k->walks;
	*run = *found;
}

/* The runs the walk mapped or opened for itself alone. */
static void unmap_runs(struct bpf_rows *r)
{
	for (int i = 0; i < r->nopen; i++) {
		if (r->open[i].fd >= 0)
			close(r->open[i].fd);
		if (!r->open[i].kept)
			unmap_run(&r->open[i]);
	}
	r->nopen = 0;
}

/* The file's rows (m's run), mapped or opened once per walk (more files
 * than ROW_RUNS: the ones before go; no row found is kept by pointer);
 * NULL if they cannot be read. */
static const struct row_run *rows_of(struct bpf_rows *r, const struct unwind_map *m)
{
	struct row_run *run;

	for (int i = 0; i < r->nopen; i++) {
		run = &r->open[i];
		if (run->slot == m->file && run->first == m->first && run->nrows == m->nrows)
			return run->rows || run->fd >= 0 ? run : NULL;
	}
	if (r->nopen == ROW_RUNS)
		unmap_runs(r);
	run = &r->open[r->nopen++];
	*run = (struct row_run){ .slot = m->file, .first = m->first, .nrows = m->nrows, .fd = -1 };
	open_run(r, run);
	return run->rows || run->fd >= 0 ? run : NULL;
}

int replay_rows__new(size_t cap, struct replay_rows **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->cap = cap ? cap : RUNS_KEPT_BYTES;
	return 0;
}

void replay_rows__tidy(struct replay_rows *k)
{
	if (!k)
		return;
	for (int i = k->n - 1; i >= 0; i--)
		if (k->run[i].used <= k->tidied)
			drop_kept(k, i);
	k->tidied = k->walks;
}

void replay_rows__free(struct replay_rows *k)
{
	if (!k)
		return;
	while (k->n)
		drop_kept(k, k->n - 1);
	free(k);
}

/* Row i of a run read through its chunk. */
static int read_row(const struct row_run *run, size_t i, struct unwind_row *row)
{
	__u32 key = run->first + (__u32)i;

	return bpf_map_lookup_elem(run->fd, &key, row) ? -errno : 0;
}

static int row_start(void *arg, size_t i, uint64_t *start)
{
	struct unwind_row row = { 0 };
	int err = read_row(arg, i, &row);

	*start = row.pc;
	return err;
}

/* The same search as bpf_find_row()'s, a lookup a step. */
static bool lookup_row(const struct row_run *run, __u64 vaddr, struct unwind_row *out)
{
	size_t i;

	return !addr_ranges__find_by(run->nrows, row_start, (void *)run, vaddr, &i) &&
	       !read_row(run, i, out);
}

/* find_row() of bpf/find_row.bpf.h: the same binary search, in memory (or
 * by lookups, above). */
static bool bpf_find_row(void *arg, const struct unwind_map *m, __u64 vaddr,
			 struct unwind_row *out)
{
	const struct row_run *run = rows_of(arg, m);
	struct addr_view v;
	size_t i;

	if (!run)
		return false;
	if (!run->rows)
		return lookup_row(run, vaddr, out);
	v = ADDR_VIEW(run->rows, run->nrows, pc);
	i = addr_view__find(&v, vaddr);	/* no two rows share a pc: BPF's last row */
	if (i == ADDR_NONE)
		return false;
	*out = run->rows[i];
	return true;
}

__u32 replay__walk(const struct replay_maps *m, const struct early_stack *e, __u64 *ips,
		   __u32 *nr)
{
	struct bpf_rows rows = { .files_fd = m->files_fd, .kept = m->rows };
	struct exec_ranges ranges = { 0 };
	struct unwind_proc entry;
	struct replay_view v = { .ranges = &ranges, .mode = m->mode, .find_row = bpf_find_row,
				 .arg = &rows };
	__u32 tgid = e->key.tgid, stop;

	if (m->rows)
		m->rows->walks++;
	if (read_entry(m, e, &entry, &tgid))
		v.entry = &entry;
	if (bpf_map_lookup_elem(m->ranges_fd, &tgid, &ranges))
		memset(&ranges, 0, sizeof(ranges));
	stop = replay__walk_view(&v, e, ips, nr);
	unmap_runs(&rows);
	return stop;
}
