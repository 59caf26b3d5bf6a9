// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The registry of mapped files: one refcounted entry per file identity. */
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/debug_file.h"
#include "elf/dwarf_lines.h"
#include "elf/fde_index.h"
#include "files/files.h"
#include "base/open_regular.h"
#include "procs/procs.h"

/* What symbols may hold by default: a busy machine's working set of
 * binaries fits, a fleet agent stays small (issue 16's 20 MiB). */
#define DEFAULT_MAX_BYTES	(16u << 20)
/* A libdwfl session maps the file and its debug file and keeps the DWARF
 * it has read (CUs, abbreviations, line tables): the heaviest thing a file
 * holds, and one or two file descriptors. Its answers are kept (copies,
 * counted in the budget); only the most recently used sessions stay open,
 * one is opened again when a new address needs it. Measured on a busy
 * machine in fleet mode: 16 kept peak RSS 67 MiB at 1.5 s of CPU a
 * minute; closing all at each interval's end cost 30% more CPU, 4 open at
 * once twice the CPU (reopened within a drain), for a few MiB less. */
#define MAX_DWARF_SESSIONS	16
#define MAX_KEPT_OPEN		256	/* well under RLIMIT_NOFILE's usual 1024 */
/* Entries no process maps that may linger at once (files_opts.linger_ns):
 * a busy machine's programs run again (a shell loop's, a build's) fit;
 * a churner of distinct files fills it within a second and stays flat
 * (512 held their symbols: RSS 26 -> 31 MiB from 5 to 15 s beside one). */
#define MAX_LINGERING		64

/* Entries by last use, one list per kind of content. */
struct lru_link {
	struct fentry *newer, *older;
};

struct lru {
	struct fentry *newest, *oldest;
	size_t n;
};

enum { LRU_SYMS, LRU_LINES, LRU_IDLE, NR_LRU };

struct fentry {
	struct file_entry pub;		/* first: its id is the tree's key */
	unsigned long refs;
	int fd;				/* the mapped file, kept open; -1: by path */
	bool tried;			/* symbols read (or found unreadable) */
	bool fdes_tried;		/* functions by CFI read (or found unreadable) */
	bool no_lines;			/* libdwfl refused it, or over the DWARF budget */
	size_t bytes;			/* what its symbols, answers and functions hold */
	uint64_t dwarf_bytes;		/* what its session holds (its files' DWARF) */
	uint64_t idle_since;		/* lingering: when its last reference went */
	struct lru_link link[NR_LRU];
};

struct files {
	struct files_opts opts;
	void *tree;			/* tsearch tree of struct fentry */
	struct lru lru[NR_LRU];		/* tried entries, most recently used first */
	void (*release)(void *ctx, void *unwind);
	void *release_ctx;
	struct files_stats st;
};

struct files *files__new(const struct files_opts *opts)
{
	struct files *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return NULL;
	fs->opts = *opts;
	if (!fs->opts.max_bytes)
		fs->opts.max_bytes = DEFAULT_MAX_BYTES;
	return fs;
}

void files__on_release(struct files *fs, void (*release)(void *ctx, void *unwind), void *ctx)
{
	fs->release = release;
	fs->release_ctx = ctx;
}

static void lru_unlink(struct files *fs, int kind, struct fentry *e)
{
	struct lru *l = &fs->lru[kind];
	struct lru_link *k = &e->link[kind];

	if (k->newer)
		k->newer->link[kind].older = k->older;
	else
		l->newest = k->older;
	if (k->older)
		k->older->link[kind].newer = k->newer;
	else
		l->oldest = k->newer;
	k->newer = k->older = NULL;
	l->n--;
}

static void lru_push(struct files *fs, int kind, struct fentry *e)
{
	struct lru *l = &fs->lru[kind];

	e->link[kind] = (struct lru_link){ .older = l->newest };
	if (l->newest)
		l->newest->link[kind].newer = e;
	else
		l->oldest = e;
	l->newest = e;
	l->n++;
}

static void lru_touch(struct files *fs, int kind, struct fentry *e)
{
	lru_unlink(fs, kind, e);
	lru_push(fs, kind, e);
}

/* Closes the libdwfl session (its answers stay); opened again on demand. */
static void close_session(struct files *fs, struct fentry *e)
{
	if (!e->pub.lines || !dwarf_lines__is_open(e->pub.lines))
		return;
	lru_unlink(fs, LRU_LINES, e);
	dwarf_lines__close(e->pub.lines);
	fs->st.dwarf_open -= e->dwarf_bytes;
}

/* Drops what files__symbols() and files__src() read; read again on demand. */
static void unload(struct files *fs, struct fentry *e)
{
	close_session(fs, e);
	dwarf_lines__free(e->pub.lines);
	e->pub.lines = NULL;
	e->no_lines = false;
	if (!e->tried)
		return;
	lru_unlink(fs, LRU_SYMS, e);
	fs->st.bytes -= e->bytes;
	fs->st.loaded--;
	elf_syms__free(e->pub.syms);
	elf_syms__free(e->pub.debug);
	fde_index__free(e->pub.fdes);
	e->pub.syms = e->pub.debug = NULL;
	e->pub.fdes = NULL;
	e->fdes_tried = false;
	e->bytes = 0;
	e->tried = false;
}

/* What an entry holds, but the entry itself. */
static void release(struct files *fs, struct fentry *e)
{
	if (e->pub.unwind && fs->release)
		fs->release(fs->release_ctx, e->pub.unwind);
	e->pub.unwind = NULL;
	unload(fs, e);
	if (e->fd >= 0) {
		close(e->fd);
		fs->st.kept_open--;
	}
	e->fd = -1;
}

static void free_entry(void *node)
{
	struct fentry *e = node;

	free(e->pub.name);
	free(e->pub.path);
	free(e);
}

static void release_node(const void *nodep, VISIT which, void *fs)
{
	if (which == postorder || which == leaf)
		release(fs, *(struct fentry *const *)nodep);
}

void files__free(struct files *fs)
{
	if (!fs)
		return;
	/* tdestroy() passes no context: released in a walk before */
	twalk_r(fs->tree, release_node, fs);
	tdestroy(fs->tree, free_entry);
	free(fs);
}

/* The entry goes, with all it holds. */
static void drop(struct files *fs, struct fentry *e)
{
	tdelete(e, &fs->tree, file_id__cmp);
	fs->st.released++;
	release(fs, e);
	free_entry(e);
}

/* Lingering entries past their time, or past MAX_LINGERING, go. */
static void sweep_lingering(struct files *fs, uint64_t now)
{
	struct fentry *e;

	while ((e = fs->lru[LRU_IDLE].oldest) &&
	       (fs->lru[LRU_IDLE].n > MAX_LINGERING || e->idle_since + fs->opts.linger_ns <= now)) {
		lru_unlink(fs, LRU_IDLE, e);
		drop(fs, e);
	}
	fs->st.lingering = fs->lru[LRU_IDLE].n;
}

/* A lingering entry mapped again: taken when v's path names the same file
 * it named (its stamp unchanged), with its symbols and table; else it goes
 * (the file was replaced, or it is another mount namespace's path). */
static struct fentry *take_lingering(struct files *fs, struct fentry *e, const struct vma *v)
{
	struct file_stamp now = file_stamp__of_path(v->path);

	lru_unlink(fs, LRU_IDLE, e);
	fs->st.lingering = fs->lru[LRU_IDLE].n;
	if (strcmp(v->path, e->pub.path) || !file_stamp__same(&now, &e->pub.stamp)) {
		drop(fs, e);
		return NULL;
	}
	fs->st.revived++;
	fs->st.entries++;
	return e;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * While the process runs, the file it maps is at hand (map_files/). If the
 * path names it in our mount namespace too, its stamp lets the path be
 * trusted after the process is gone; if not (another mount namespace, a
 * deleted or replaced file), it is kept open: its frames must still be
 * named after the process exits.
 */
static void first_sight(struct files *fs, struct fentry *e, pid_t tgid, const struct vma *v)
{
	int mapped = mapped_file__open_mapped(tgid, v), by_path;
	struct file_stamp exact, there = { .known = false };

	if (mapped < 0)
		return;
	exact = file_stamp__of(mapped);
	by_path = file_open_regular(v->path);
	if (by_path >= 0) {
		there = file_stamp__of(by_path);
		close(by_path);
	}
	if (exact.known && there.known && there.ino == exact.ino && there.size == exact.size &&
	    there.mtime_ns == exact.mtime_ns) {
		e->pub.stamp = there;
		close(mapped);
		return;
	}
	if (fs->st.kept_open >= MAX_KEPT_OPEN) {
		close(mapped);
		return;
	}
	e->fd = mapped;
	fs->st.kept_open++;
}

struct file_entry *files__get(struct files *fs, pid_t tgid, bool alive, const struct vma *v)
{
	struct fentry key = { .pub.id = file_id__of(v) }, *e;
	void *node;

	if (v->path[0] != '/')	/* anonymous or special: no file to read */
		return NULL;
	node = tfind(&key, &fs->tree, file_id__cmp);
	e = node ? *(struct fentry **)node : NULL;
	if (e && !e->refs)
		e = take_lingering(fs, e, v);
	if (e) {
		e->refs++;
		return &e->pub;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->pub.id = key.pub.id;
	e->fd = -1;
	e->refs = 1;
	e->pub.name = strdup(base_name(v->path));
	e->pub.path = strdup(v->path);
	if (!e->pub.name || !e->pub.path || !tsearch(e, &fs->tree, file_id__cmp)) {
		free_entry(e);
		return NULL;
	}
	fs->st.entries++;
	if (fs->st.entries > fs->st.peak_entries)
		fs->st.peak_entries = fs->st.entries;
	if (alive)
		first_sight(fs, e, tgid, v);
	return &e->pub;
}

void files__put(struct files *fs, struct file_entry *f)
{
	struct fentry *e = (struct fentry *)f;

	if (!e || --e->refs)
		return;
	fs->st.entries--;
	/* one kept open cannot be checked by path when mapped again */
	if (!fs->opts.linger_ns || e->fd >= 0 || !e->pub.stamp.known) {
		drop(fs, e);
		return;
	}
	e->idle_since = procs__now();
	lru_push(fs, LRU_IDLE, e);
	sweep_lingering(fs, e->idle_since);
}

static struct file_entry *procs_get(void *fs, pid_t tgid, bool alive, const struct vma *v)
{
	return files__get(fs, tgid, alive, v);
}

static void procs_put(void *fs, struct file_entry *f)
{
	files__put(fs, f);
}

void files__attach(struct files *fs, struct procs *procs)
{
	procs__set_files(procs, &(struct procs_files){ .get = procs_get, .put = procs_put,
						       .ctx = fs });
}

/* The symbols of an open file; a file beyond the bounds is counted. */
static struct elf_syms *open_syms(struct files *fs, int fd)
{
	struct elf_syms *es = elf_syms__open_fd(fd);

	if (!es && errno == E2BIG)
		fs->st.over_limit++;
	return es;
}

/* A stripped file keeps only .dynsym; its full symbol table may be in a
 * separate debug file (Debian's -dbg and -dbgsym packages), found as gdb
 * and perf find it: debug_file's one search (the build-id directory, the
 * .gnu_debuglink places, then debuginfod's servers). */
static struct elf_syms *open_debug_file(struct files *fs, const struct fentry *e, int file_fd)
{
	char id[2 * BUILD_ID_MAX + 1], link[256], *found;
	struct debug_query q = { .build_id = id, .path = e->pub.path };
	struct elf_syms *dbg;
	int fd;

	elf_syms__build_id_hex(e->pub.syms, id);
	if (!debug_file__link(file_fd, link, sizeof(link), &q.crc))
		q.link = link;
	fd = debug_file__open(&q, DEBUG_BY_ID | DEBUG_BY_LINK | DEBUG_BY_SERVER, &found);
	if (fd < 0)
		return NULL;
	free(found);
	dbg = open_syms(fs, fd);
	close(fd);
	if (dbg && !elf_syms__count(dbg)) {
		elf_syms__free(dbg);
		dbg = NULL;
	}
	return dbg;
}

static void load(struct files *fs, struct fentry *e, int fd)
{
	struct file_entry *f = &e->pub;

	/* --symbolize none: what names it later needs, no more */
	f->syms = fs->opts.layout_only ? elf_syms__open_layout_fd(fd) : open_syms(fs, fd);
	if (!f->syms)
		f->why = errno == E2BIG ? UNNAMED_OVER_LIMIT : UNNAMED_NOT_ELF;
	if (f->syms && !fs->opts.layout_only && !elf_syms__full_symtab(f->syms))
		f->debug = open_debug_file(fs, e, fd);
	elf_syms__file_id(f->syms, f->build_id);
	e->bytes = elf_syms__bytes(f->syms) + elf_syms__bytes(f->debug);
}

/* The file, open: kept open, or opened now (close it after: not kept). */
static int open_file(struct fentry *e, pid_t tgid, bool alive, const struct vma *v)
{
	return e->fd >= 0 ? e->fd : mapped_file__open(tgid, alive, v, &e->pub.stamp);
}

int files__open(struct files *fs, struct file_entry *f, pid_t tgid, bool alive,
		const struct vma *v)
{
	struct fentry *e = (struct fentry *)f;
	int fd;

	(void)fs;
	if (e->fd < 0)
		return mapped_file__open(tgid, alive, v, &f->stamp);
	fd = fcntl(e->fd, F_DUPFD_CLOEXEC, 0);
	return fd >= 0 ? fd : -errno;
}

static void close_file(struct fentry *e, int fd)
{
	if (fd >= 0 && fd != e->fd)
		close(fd);
}

const struct elf_syms *files__symbols(struct files *fs, struct file_entry *f, pid_t tgid,
				      bool alive, const struct vma *v)
{
	struct fentry *e = (struct fentry *)f;
	int fd;

	if (e->tried) {
		lru_touch(fs, LRU_SYMS, e);
		return f->syms;
	}
	e->tried = true;
	fd = open_file(e, tgid, alive, v);
	f->why = UNNAMED_UNREADABLE;
	if (fd >= 0)
		load(fs, e, fd);
	close_file(e, fd);
	lru_push(fs, LRU_SYMS, e);
	fs->st.bytes += e->bytes;
	fs->st.loaded++;
	fs->st.reads++;
	return f->syms;
}

const struct fde_index *files__functions(struct files *fs, struct file_entry *f, pid_t tgid,
					 bool alive, const struct vma *v)
{
	struct fentry *e = (struct fentry *)f;
	size_t bytes;
	int fd;

	if (!e->tried || e->fdes_tried)
		return f->fdes;
	e->fdes_tried = true;
	fd = open_file(e, tgid, alive, v);
	if (fd >= 0)
		f->fdes = fde_index__open_fd(fd);
	close_file(e, fd);
	bytes = f->fdes ? fde_index__bytes(f->fdes) : 0;
	e->bytes += bytes;
	fs->st.bytes += bytes;
	return f->fdes;
}

/* Room for a session holding need bytes of DWARF within the budget: the
 * least recently used sessions close. False when need alone is over it
 * (the file then has names from its symbols, no lines or inline frames:
 * libc's DWARF, decompressed, is 10 MiB). */
static bool dwarf_room(struct files *fs, uint64_t need)
{
	uint64_t max = fs->opts.dwarf_max;

	if (!max)
		return true;
	if (need > max)
		return false;
	while (fs->lru[LRU_LINES].oldest && fs->st.dwarf_open + need > max)
		close_session(fs, fs->lru[LRU_LINES].oldest);
	return true;
}

/* A libdwfl session for f, open (the cache of its answers made the first
 * time); false when libdwfl cannot read the file or its DWARF is over the
 * budget. */
static bool open_session(struct files *fs, struct fentry *e, pid_t tgid, bool alive,
			 const struct vma *v)
{
	struct file_entry *f = &e->pub;
	uint64_t need = elf_syms__dwarf_bytes(f->syms) + elf_syms__dwarf_bytes(f->debug);
	int fd;

	if (f->lines && dwarf_lines__is_open(f->lines)) {
		lru_touch(fs, LRU_LINES, e);
		return true;
	}
	if (!dwarf_room(fs, need)) {
		e->no_lines = true;
		fs->st.dwarf_over++;
		return false;
	}
	fd = open_file(e, tgid, alive, v);
	if (fd >= 0 && !f->lines)
		f->lines = dwarf_lines__open(fd, f->path, fs->opts.inlines);
	else if (fd >= 0)
		dwarf_lines__reopen(f->lines, fd, f->path);	/* checked below */
	close_file(e, fd);
	if (!f->lines || !dwarf_lines__is_open(f->lines)) {
		e->no_lines = true;
		return false;
	}
	lru_push(fs, LRU_LINES, e);
	e->dwarf_bytes = need;
	fs->st.dwarf_open += need;
	if (fs->st.dwarf_open > fs->st.dwarf_peak)
		fs->st.dwarf_peak = fs->st.dwarf_open;
	fs->st.line_opens++;
	return true;
}

/* f's libdwfl answers, with a session open when answering at vaddr (its
 * symbol too when symbol) needs one; NULL when there are none. */
static struct dwarf_lines *lines_for(struct files *fs, struct fentry *e, pid_t tgid, bool alive,
				     const struct vma *v, uint64_t vaddr, bool symbol)
{
	struct file_entry *f = &e->pub;

	if (!files__symbols(fs, f, tgid, alive, v))
		return NULL;	/* not ELF: nothing for libdwfl either */
	if (f->lines && !dwarf_lines__needs_session(f->lines, vaddr, symbol))
		return f->lines;
	if (!e->no_lines)
		open_session(fs, e, tgid, alive, v);
	return f->lines;
}

/* What libdwfl says at vaddr: its source lines and inline frames, or
 * (symbol) the name from the symbol tables it found. */
struct dwfl_answer {
	const struct src_chain *chain;
	const char *name;
};

/* One answer about f from libdwfl (NULL fields when it has none); what it
 * added to f's cache is counted in the budget. */
static struct dwfl_answer ask_dwfl(struct files *fs, struct file_entry *f, pid_t tgid,
				   bool alive, const struct vma *v, uint64_t vaddr, bool symbol)
{
	struct fentry *e = (struct fentry *)f;
	struct dwarf_lines *dl = lines_for(fs, e, tgid, alive, v, vaddr, symbol);
	struct dwfl_answer a = { 0 };
	size_t before, added;

	if (!dl)
		return a;
	before = dwarf_lines__bytes(dl);
	if (symbol)
		a.name = dwarf_lines__symbol(dl, vaddr);
	else
		a.chain = dwarf_lines__at(dl, vaddr);
	added = dwarf_lines__bytes(dl) - before;
	e->bytes += added;
	fs->st.bytes += added;
	return a;
}

const struct src_chain *files__src(struct files *fs, struct file_entry *f, pid_t tgid,
				   bool alive, const struct vma *v, uint64_t vaddr)
{
	return ask_dwfl(fs, f, tgid, alive, v, vaddr, false).chain;
}

const char *files__dwfl_symbol(struct files *fs, struct file_entry *f, pid_t tgid, bool alive,
			       const struct vma *v, uint64_t vaddr)
{
	return ask_dwfl(fs, f, tgid, alive, v, vaddr, true).name;
}

void files__trim(struct files *fs)
{
	sweep_lingering(fs, procs__now());
	while (fs->lru[LRU_SYMS].oldest && fs->st.bytes > fs->opts.max_bytes)
		unload(fs, fs->lru[LRU_SYMS].oldest);
	while (fs->lru[LRU_LINES].n > MAX_DWARF_SESSIONS)
		close_session(fs, fs->lru[LRU_LINES].oldest);
}

void files__stats(const struct files *fs, struct files_stats *st)
{
	*st = fs->st;
}
