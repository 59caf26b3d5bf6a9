// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Per-file unwind rows in BPF inner maps: load, drop, a budget. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "sampling/kmem.h"
#include "unwind/rowstore.h"

struct rowstore {
	int files_fd;
	size_t budget, rows, files;
	size_t *slot_rows;		/* per slot: its rows, 0 when free */
	uint64_t *slot_bytes;		/* per slot: its map's kernel memory */
	uint64_t bytes;			/* of all loaded */
	bool closing;			/* the outer map goes soon, and its rows with it */
	/* Free slots, oldest freed first: a program that read a process
	 * entry just before its file was dropped finds an empty slot, not
	 * another file's rows, unless every other slot was reused since. */
	unsigned int *free_q, nslots, q_head, q_len;
};

int rowstore__new(int files_fd, unsigned int nslots, size_t budget_rows, struct rowstore **out)
{
	struct rowstore *rs = calloc(1, sizeof(*rs));
	unsigned int i;

	if (!rs)
		return -ENOMEM;
	rs->slot_rows = calloc(nslots, sizeof(*rs->slot_rows));
	rs->slot_bytes = calloc(nslots, sizeof(*rs->slot_bytes));
	rs->free_q = calloc(nslots, sizeof(*rs->free_q));
	if (!rs->slot_rows || !rs->slot_bytes || !rs->free_q) {
		rowstore__free(rs);
		return -ENOMEM;
	}
	rs->files_fd = files_fd;
	rs->nslots = rs->q_len = nslots;
	rs->budget = budget_rows;
	for (i = 0; i < nslots; i++)
		rs->free_q[i] = i;
	*out = rs;
	return 0;
}

void rowstore__free(struct rowstore *rs)
{
	unsigned int i;

	if (!rs)
		return;
	for (i = 0; rs->slot_rows && i < rs->nslots; i++)
		if (rs->slot_rows[i])
			rowstore__drop(rs, (int)i);
	free(rs->slot_rows);
	free(rs->slot_bytes);
	free(rs->free_q);
	free(rs);
}

/* Rows into the array at fd (of exactly n rows), through its own pages:
 * batch updates copied them in a row at a time, 0.44 s of the main loop
 * for clang's 2.5 million rows while its first compiles waited for them. */
static int upload(int fd, const struct unwind_row *rows, size_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	void *mem;

	if (page <= 0)
		return -EINVAL;
	len = (n * sizeof(*rows) + (size_t)page - 1) & ~((size_t)page - 1);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		return -errno;
	memcpy(mem, rows, n * sizeof(*rows));
	return munmap(mem, len) ? -errno : 0;
}

/* A map of exactly n rows, filled: its fd, or -errno. */
static int rows_map(const struct unwind_row *rows, size_t n)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bpfprof_rows", sizeof(__u32),
			    sizeof(struct unwind_row), (__u32)n, &opts);
	if (fd < 0)
		return -errno;
	err = upload(fd, rows, n);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int rowstore__load(struct rowstore *rs, const struct unwind_row *rows, size_t n)
{
	unsigned int slot;
	uint64_t bytes = 0;
	int fd, err = 0;

	if (!n || n > UINT32_MAX)
		return -EINVAL;
	if (n > rs->budget - rs->rows || !rs->q_len)
		return -ENOSPC;
	fd = rows_map(rows, n);
	if (fd < 0)
		return fd;
	slot = rs->free_q[rs->q_head];
	/* read now: once the descriptor is closed, only the outer map has
	 * it (unreadable: counted as 0, the rows are loaded all the same) */
	if (kmem__map_bytes(fd, &bytes))
		bytes = 0;
	if (bpf_map_update_elem(rs->files_fd, &slot, &fd, BPF_ANY))
		err = -errno;
	close(fd);	/* the outer map holds it now */
	if (err)
		return err;
	rs->q_head = (rs->q_head + 1) % rs->nslots;
	rs->q_len--;
	rs->slot_rows[slot] = n;
	rs->slot_bytes[slot] = bytes;
	rs->bytes += bytes;
	rs->rows += n;
	rs->files++;
	return (int)slot;
}

void rowstore__drop(struct rowstore *rs, int handle)
{
	unsigned int slot = (unsigned int)handle;

	if (handle < 0 || slot >= rs->nslots || !rs->slot_rows[slot])
		return;
	/* the kernel frees the rows after a grace period, which the delete
	 * waits for (16 ms here): the end of a run, which drops every file,
	 * leaves them to the outer map's own end */
	if (!rs->closing)
		bpf_map_delete_elem(rs->files_fd, &slot);
	rs->rows -= rs->slot_rows[slot];
	rs->bytes -= rs->slot_bytes[slot];
	rs->files--;
	rs->slot_rows[slot] = 0;
	rs->slot_bytes[slot] = 0;
	rs->free_q[(rs->q_head + rs->q_len) % rs->nslots] = slot;
	rs->q_len++;
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
