// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unwind rows in a few BPF chunk maps: runs of rows, a budget, grace periods. */
#include <errno.h>
#include <linux/membarrier.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "base/grow.h"
#include "procs/procs.h"
#include "sampling/kmem.h"
#include "unwind/rowstore.h"

/* A chunk's rows: the first is 1 MiB (a command and its libraries: libc's
 * 28k rows, the program's), each next one twice the last up to 16 MiB; a
 * file larger than that gets a chunk its size. */
#define CHUNK_MIN_ROWS		(1u << 16)
#define CHUNK_MAX_GROWTH	4
/* A chunk empty this long goes (its deletion waits for a grace period). */
#define CHUNK_IDLE_NS		5000000000ull

/* A run of rows in a chunk. */
struct run {
	__u32 first, n;
};

struct chunk {
	bool live;
	__u32 id;			/* the map's id (its fd is closed: the outer map holds it) */
	__u32 cap, used;		/* rows */
	uint64_t bytes;			/* its kernel memory */
	uint64_t empty_since;		/* CLOCK_MONOTONIC ns it last held no rows */
	struct run *free;		/* sorted by first, none touching */
	size_t nfree, cap_free;
};

/* A run dropped, free once a grace period has passed. */
struct retired {
	__u32 slot;
	struct run r;
};

struct rowstore {
	int files_fd;
	size_t budget, rows, files;
	size_t capacity;		/* rows of all live chunks */
	uint64_t bytes;			/* their kernel memory */
	bool closing;			/* the outer map goes soon, and its rows with it */
	struct chunk *chunks;		/* one per slot of the outer map */
	unsigned int nslots, live;
	struct retired *retired;
	size_t nretired, cap_retired, retired_rows;
	struct rowstore_costs costs;
};

int rowstore__new(int files_fd, unsigned int nslots, size_t budget_rows, struct rowstore **out)
{
	struct rowstore *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return -ENOMEM;
	rs->chunks = calloc(nslots, sizeof(*rs->chunks));
	if (!rs->chunks) {
		free(rs);
		return -ENOMEM;
	}
	rs->files_fd = files_fd;
	rs->nslots = nslots;
	rs->budget = budget_rows;
	*out = rs;
	return 0;
}

void rowstore__free(struct rowstore *rs)
{
	if (!rs)
		return;
	for (unsigned int s = 0; s < rs->nslots; s++) {
		if (rs->chunks[s].live && !rs->closing)
			bpf_map_delete_elem(rs->files_fd, &s);
		free(rs->chunks[s].free);
	}
	free(rs->chunks);
	free(rs->retired);
	free(rs);
}

/* ---- runs of free rows in a chunk ---------------------------------------- */

/* n rows from the first free run that holds them: their first row, or -1. */
static long take_run(struct chunk *c, __u32 n)
{
	for (size_t i = 0; i < c->nfree; i++) {
		struct run *r = &c->free[i];
		__u32 first = r->first;

		if (r->n < n)
			continue;
		r->first += n;
		r->n -= n;
		if (!r->n) {
			memmove(r, r + 1, (c->nfree - i - 1) * sizeof(*r));
			c->nfree--;
		}
		return first;
	}
	return -1;
}

/* The rows of r free again in c, merged with the runs they touch. */
static int give_run(struct chunk *c, struct run r)
{
	size_t i = 0;

	while (i < c->nfree && c->free[i].first < r.first)
		i++;
	if (i && c->free[i - 1].first + c->free[i - 1].n == r.first) {
		c->free[i - 1].n += r.n;
		if (i < c->nfree && r.first + r.n == c->free[i].first) {
			c->free[i - 1].n += c->free[i].n;
			memmove(&c->free[i], &c->free[i + 1], (c->nfree - i - 1) * sizeof(r));
			c->nfree--;
		}
		return 0;
	}
	if (i < c->nfree && r.first + r.n == c->free[i].first) {
		c->free[i].first = r.first;
		c->free[i].n += r.n;
		return 0;
	}
	if (GROW(c->free, c->cap_free, c->nfree + 1))
		return -ENOMEM;
	memmove(&c->free[i + 1], &c->free[i], (c->nfree - i) * sizeof(r));
	c->free[i] = r;
	c->nfree++;
	return 0;
}

/* ---- grace periods ------------------------------------------------------- */

/* Every BPF program that ran before this call has ended: one that copied
 * a process's entry before it was rewritten reads no rows given to
 * another file since. MEMBARRIER_CMD_GLOBAL is synchronize_rcu(); where it
 * is refused (nohz_full), an update of the outer map waits the same. */
static void wait_grace(struct rowstore *rs)
{
	rs->costs.graces++;
	if (!syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return;
	for (__u32 s = 0; s < rs->nslots; s++) {
		int fd;

		if (!rs->chunks[s].live)
			continue;
		fd = bpf_map_get_fd_by_id(rs->chunks[s].id);
		if (fd >= 0) {
			(void)bpf_map_update_elem(rs->files_fd, &s, &fd, BPF_ANY);
			close(fd);
		}
		return;
	}
}

/* The runs dropped before the last grace period, free. Out of memory for
 * a run's place: it stays retired, tried again at the next grace. */
static void free_retired(struct rowstore *rs)
{
	size_t kept = 0;

	for (size_t i = 0; i < rs->nretired; i++) {
		struct retired *t = &rs->retired[i];

		if (give_run(&rs->chunks[t->slot], t->r) == 0)
			rs->retired_rows -= t->r.n;
		else
			rs->retired[kept++] = *t;
	}
	rs->nretired = kept;
}

/* ---- chunks -------------------------------------------------------------- */

/* The rows of a new chunk for n rows: twice the last, at least n, at most
 * what the budget has left; 0 when n does not fit it. */
static __u32 chunk_rows(const struct rowstore *rs, size_t n)
{
	unsigned int growth = rs->live < CHUNK_MAX_GROWTH ? rs->live : CHUNK_MAX_GROWTH;
	size_t want = (size_t)CHUNK_MIN_ROWS << growth, left = rs->budget - rs->capacity;

	if (want < n)
		want = (n + CHUNK_MIN_ROWS - 1) / CHUNK_MIN_ROWS * CHUNK_MIN_ROWS;
	if (want > left)
		want = left;
	return want >= n && want <= UINT32_MAX ? (__u32)want : 0;
}

static int free_slot(const struct rowstore *rs, __u32 *slot)
{
	for (__u32 s = 0; s < rs->nslots; s++) {
		if (!rs->chunks[s].live) {
			*slot = s;
			return 0;
		}
	}
	return -ENOSPC;
}

/* A chunk that holds n rows, in a free slot: its slot, or -errno. */
static long new_chunk(struct rowstore *rs, size_t n)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info), slot, rows = chunk_rows(rs, n);
	struct chunk *c;
	uint64_t bytes = 0;
	int fd, err;

	if (!rows || free_slot(rs, &slot))
		return -ENOSPC;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bpfprof_rows", sizeof(__u32),
			    sizeof(struct unwind_row), rows, &opts);
	if (fd < 0)
		return -errno;
	err = bpf_obj_get_info_by_fd(fd, &info, &len) ? -errno : 0;
	/* unreadable: counted as 0, the rows are loaded all the same */
	if (!err && kmem__map_bytes(fd, &bytes))
		bytes = 0;
	if (!err && bpf_map_update_elem(rs->files_fd, &slot, &fd, BPF_ANY))
		err = -errno;
	close(fd);	/* the outer map holds it now */
	c = &rs->chunks[slot];
	if (!err)
		err = give_run(c, (struct run){ .first = 0, .n = rows });
	if (err)
		return err;
	c->live = true;
	c->id = info.id;
	c->cap = rows;
	c->used = 0;
	c->bytes = bytes;
	rs->live++;
	rs->capacity += rows;
	rs->bytes += bytes;
	rs->costs.chunks_made++;
	return slot;
}

/* Deletes the chunk from the outer map (which waits for a grace period:
 * every run retired before is free after it). */
static void delete_chunk(struct rowstore *rs, __u32 slot)
{
	struct chunk *c = &rs->chunks[slot];
	size_t kept = 0;

	bpf_map_delete_elem(rs->files_fd, &slot);
	for (size_t i = 0; i < rs->nretired; i++) {
		if (rs->retired[i].slot == slot)
			rs->retired_rows -= rs->retired[i].r.n;
		else
			rs->retired[kept++] = rs->retired[i];
	}
	rs->nretired = kept;
	rs->live--;
	rs->capacity -= c->cap;
	rs->bytes -= c->bytes;
	rs->costs.chunks_freed++;
	free(c->free);
	memset(c, 0, sizeof(*c));
	free_retired(rs);
}

void rowstore__tidy(struct rowstore *rs)
{
	uint64_t now = procs__now();

	if (rs->closing)
		return;
	for (__u32 s = 0; s < rs->nslots; s++) {
		struct chunk *c = &rs->chunks[s];

		if (c->live && !c->used && c->empty_since + CHUNK_IDLE_NS <= now)
			delete_chunk(rs, s);
	}
}

/* ---- loading ------------------------------------------------------------- */

/* n free rows in a live chunk, taken. */
static bool take_rows(struct rowstore *rs, size_t n, struct row_place *at)
{
	for (__u32 s = 0; s < rs->nslots; s++) {
		long first = rs->chunks[s].live ? take_run(&rs->chunks[s], (__u32)n) : -1;

		if (first >= 0) {
			*at = (struct row_place){ .slot = s, .first = (__u32)first };
			return true;
		}
	}
	return false;
}

/* What write_rows() maps of a chunk at once: the kernel maps a chunk's
 * pages whole at mmap(), and they count in our RSS while mapped (cc1's
 * 629k rows, mapped at once, were 10 MiB of a one-shot run's peak). */
#define WRITE_WINDOW	(256u << 10)

/* bytes from off (page-aligned) of the chunk fd through a mapping of
 * them. */
static int write_window(int fd, size_t off, const char *from, size_t skip, size_t bytes,
			size_t page)
{
	size_t len = (skip + bytes + page - 1) & ~(page - 1);
	char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);

	if (mem == MAP_FAILED)
		return -errno;
	memcpy(mem + skip, from, bytes);
	return munmap(mem, len) ? -errno : 0;
}

/* The rows into their place, through the chunk's own pages (a batch
 * update copied a row at a time: 0.44 s for clang's 2.5 million rows):
 * only the pages they are on are mapped, a window at a time, and only
 * while written. */
static int write_rows(const struct rowstore *rs, const struct row_place *at,
		      const struct unwind_row *rows, size_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t start = (size_t)at->first * sizeof(*rows), left = n * sizeof(*rows), off, skip, bytes;
	const char *from = (const char *)rows;
	int fd = bpf_map_get_fd_by_id(rs->chunks[at->slot].id), err = 0;

	if (fd < 0)
		return -errno;
	for (; !err && page > 0 && left; left -= bytes, from += bytes, start += bytes) {
		off = start & ~((size_t)page - 1);
		skip = start - off;
		bytes = left < WRITE_WINDOW - skip ? left : WRITE_WINDOW - skip;
		err = write_window(fd, off, from, skip, bytes, (size_t)page);
	}
	close(fd);
	return page <= 0 ? -EINVAL : err;
}

/* A place for n rows: free rows of a chunk; else, when enough were
 * dropped since the last grace period, those after one; else a new
 * chunk. */
static int place_rows(struct rowstore *rs, size_t n, struct row_place *at)
{
	long slot;

	if (take_rows(rs, n, at))
		return 0;
	if (rs->retired_rows >= n) {
		wait_grace(rs);
		free_retired(rs);
		if (take_rows(rs, n, at))
			return 0;
	}
	slot = new_chunk(rs, n);
	if (slot < 0)
		return (int)slot;
	return take_rows(rs, n, at) ? 0 : -ENOSPC;
}

int rowstore__load_after(struct rowstore *rs, const struct unwind_row *head, size_t nhead,
			 const struct unwind_row *rows, size_t n, struct row_place *at)
{
	struct row_place run, after;
	size_t total = nhead + n;
	struct chunk *c;
	int err;

	if (!n || total < n || total > UINT32_MAX)
		return -EINVAL;
	if (total > rs->budget - rs->rows)
		return -ENOSPC;
	err = place_rows(rs, total, &run);
	if (err)
		return err;
	c = &rs->chunks[run.slot];
	after = (struct row_place){ .slot = run.slot, .first = run.first + (__u32)nhead };
	err = nhead ? write_rows(rs, &run, head, nhead) : 0;
	if (!err)
		err = write_rows(rs, &after, rows, n);
	if (err) {
		(void)give_run(c, (struct run){ .first = run.first, .n = (__u32)total });
		return err;
	}
	c->used += (__u32)total;
	rs->rows += total;
	rs->files++;
	*at = after;
	return 0;
}

int rowstore__load(struct rowstore *rs, const struct unwind_row *rows, size_t n,
		   struct row_place *at)
{
	return rowstore__load_after(rs, NULL, 0, rows, n, at);
}

void rowstore__drop(struct rowstore *rs, const struct row_place *at, size_t n)
{
	struct chunk *c;
	struct retired t = { .slot = at->slot, .r = { .first = at->first, .n = (__u32)n } };

	if (at->slot >= rs->nslots || !rs->chunks[at->slot].live || !n)
		return;
	c = &rs->chunks[at->slot];
	c->used -= (__u32)n;
	if (!c->used)
		c->empty_since = procs__now();
	rs->rows -= n;
	rs->files--;
	if (rs->closing)
		return;
	/* out of memory: the run is lost to this chunk until it goes */
	if (GROW(rs->retired, rs->cap_retired, rs->nretired + 1))
		return;
	rs->retired[rs->nretired++] = t;
	rs->retired_rows += n;
}

void rowstore__closing(struct rowstore *rs)
{
	rs->closing = true;
}

uint64_t rowstore__bytes(const struct rowstore *rs)
{
	return rs->bytes;
}

size_t rowstore__rows(const struct rowstore *rs)
{
	return rs->rows;
}

size_t rowstore__files(const struct rowstore *rs)
{
	return rs->files;
}

void rowstore__costs(const struct rowstore *rs, struct rowstore_costs *c)
{
	*c = rs->costs;
	c->chunks = rs->live;
}
