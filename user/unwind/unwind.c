// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unwind tables into the BPF maps, per file and per process. */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <bpf/bpf.h>

#include "elf_syms.h"
#include "mapped_file.h"
#include "procs.h"
#include "unwind.h"
#include "unwind_table.h"

#define UPLOAD_CHUNK	65536	/* rows per batch update */

/* A file, by identity, and where its rows went. */
struct ufile {
	struct file_id id;		/* first: the tree's key */
	struct elf_syms *es;		/* for file offset -> virtual address */
	uint32_t first_row, nrows;	/* nrows 0: no table */
};

struct unwinder {
	int rows_fd, procs_fd;
	unsigned int max_rows, next_row;
	void *files;			/* tsearch tree of struct ufile */
	struct unwind_stats st;
	void (*on_sync)(void *arg, struct procs *procs, pid_t tgid);
	void *on_sync_arg;
};

int unwinder__new(int rows_fd, int procs_fd, unsigned int max_rows, struct unwinder **out)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->rows_fd = rows_fd;
	u->procs_fd = procs_fd;
	u->max_rows = max_rows;
	*out = u;
	return 0;
}

static void free_file(void *node)
{
	struct ufile *f = node;

	elf_syms__free(f->es);
	free(f);
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	tdestroy(u->files, free_file);
	free(u);
}

/* Rows into unwind_rows[first, first + n), in batches. */
static int upload(struct unwinder *u, const struct unwind_table *t, uint32_t first)
{
	uint32_t *keys = malloc(UPLOAD_CHUNK * sizeof(*keys));
	size_t done = 0, i;
	int err = 0;

	if (!keys)
		return -ENOMEM;
	while (!err && done < t->nrows) {
		__u32 count = t->nrows - done < UPLOAD_CHUNK ? t->nrows - done : UPLOAD_CHUNK;

		for (i = 0; i < count; i++)
			keys[i] = first + (uint32_t)(done + i);
		if (bpf_map_update_batch(u->rows_fd, keys, &t->rows[done], &count, NULL))
			err = -errno;
		done += count;
	}
	free(keys);
	return err;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Reads the file's CFI into a table and loads it, once per file. */
static void load_table(struct unwinder *u, struct ufile *f, int fd)
{
	struct unwind_table t = { 0 };
	double t0 = seconds();

	f->es = elf_syms__open_fd(fd);
	if (!f->es || unwind_table__build(fd, &t) || !t.nrows) {
		u->st.files_without++;
		goto out;
	}
	if (t.nrows > u->max_rows - u->next_row) {
		u->st.rows_refused++;	/* --unwind-rows too small for all files */
		goto out;
	}
	if (upload(u, &t, u->next_row)) {
		u->st.files_without++;
		goto out;
	}
	f->first_row = u->next_row;
	f->nrows = (uint32_t)t.nrows;
	u->next_row += (uint32_t)t.nrows;
	u->st.rows = u->next_row;
	u->st.files++;
out:
	unwind_table__free(&t);
	u->st.build_seconds += seconds() - t0;
}

static struct ufile *get_file(struct unwinder *u, pid_t tgid, bool alive, const struct vma *v)
{
	struct ufile key = { .id = file_id__of(v) };
	struct ufile *f;
	void *node = tfind(&key, &u->files, file_id__cmp);
	int fd;

	if (node)
		return *(struct ufile **)node;
	f = malloc(sizeof(*f));
	if (!f)
		return NULL;
	*f = key;
	if (!tsearch(f, &u->files, file_id__cmp)) {
		free(f);
		return NULL;
	}
	fd = mapped_file__open(tgid, alive, v, NULL);
	if (fd >= 0) {
		load_table(u, f, fd);
		close(fd);
	} else {
		u->st.files_without++;
	}
	return f;
}

struct proc_ctx {
	struct unwinder *u;
	pid_t tgid;
	struct unwind_proc entry;
	struct unwind_map all[MAX_UNWIND_MAPS];	/* oldest first; the newest MAX kept */
	size_t n;
};

static int add_mapping(const struct vma *v, bool alive, void *arg)
{
	struct proc_ctx *c = arg;
	struct ufile *f;
	uint64_t vaddr;

	if (v->path[0] != '/')
		return 0;
	f = get_file(c->u, c->tgid, alive, v);
	if (!f || !f->nrows || elf_syms__vaddr(f->es, v->pgoff, &vaddr))
		return 0;
	c->all[c->n % MAX_UNWIND_MAPS] = (struct unwind_map){
		.start = v->start, .end = v->end, .bias = v->start - vaddr,
		.first_row = f->first_row, .nrows = f->nrows,
	};
	c->n++;
	return 0;
}

/* The newest mappings first: the BPF side takes the first that covers an
 * address, and a later mmap over a range replaces the older one. */
static void sync_proc(struct unwinder *u, struct procs *procs, pid_t tgid)
{
	struct proc_ctx *c = calloc(1, sizeof(*c));
	__u32 key = (__u32)tgid;
	size_t i, kept;

	if (!c)
		return;
	c->u = u;
	c->tgid = tgid;
	if (procs__for_each_vma(procs, tgid, add_mapping, c) == 0 && c->n) {
		kept = c->n < MAX_UNWIND_MAPS ? c->n : MAX_UNWIND_MAPS;
		for (i = 0; i < kept; i++)
			c->entry.maps[i] = c->all[(c->n - 1 - i) % MAX_UNWIND_MAPS];
		c->entry.nmaps = (__u32)kept;
		if (bpf_map_update_elem(u->procs_fd, &key, &c->entry, BPF_ANY) == 0)
			u->st.procs++;
	}
	free(c);
}

int unwinder__preload(struct unwinder *u, const char *path)
{
	struct stat st;
	struct vma v;
	int fd = file_open_regular(path);

	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	close(fd);
	v = (struct vma){ .dev_major = major(st.st_dev), .dev_minor = minor(st.st_dev),
			  .ino = st.st_ino, .path = (char *)path };
	/* as if a running process (ours) mapped it: opened by path, checked */
	return get_file(u, getpid(), false, &v) ? 0 : -ENOMEM;
}

void unwinder__sync(struct unwinder *u, struct procs *procs, const pid_t *roots, int nroots)
{
	pid_t *tgids;
	size_t n = procs__take_changed(procs, &tgids), i;

	for (i = 0; i < n; i++)
		if (!nroots || procs__descends(procs, tgids[i], roots, nroots)) {
			sync_proc(u, procs, tgids[i]);
			if (u->on_sync)
				u->on_sync(u->on_sync_arg, procs, tgids[i]);
		}
	free(tgids);
}

void unwinder__on_sync(struct unwinder *u, void (*fn)(void *arg, struct procs *procs, pid_t tgid),
		       void *arg)
{
	u->on_sync = fn;
	u->on_sync_arg = arg;
}

void unwinder__stats(const struct unwinder *u, struct unwind_stats *st)
{
	*st = u->st;
}
