// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The user-space symbol cache: one entry per mapped file, shared by pids. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "config.h"
#include "demangle.h"
#include "dwarf_lines.h"
#include "elf_syms.h"
#include "jit_procs.h"
#include "mapped_file.h"
#include "proc_maps.h"
#include "procs.h"
#include "symbolizer.h"

#define DEBUG_DIR	"/usr/lib/debug/.build-id"

/* A mapped file, known by its identity: (device, inode), as the kernel
 * reports mappings. A path names the file only until it is replaced. */
struct dso {
	struct file_id id;		/* first: the tree's key */
	char *name;			/* basename, for [unknown] frames */
	char *path;			/* path as first seen mapped */
	char build_id[2 * BUILD_ID_MAX + 1];	/* hex */
	struct elf_syms *syms;		/* NULL: could not be read */
	struct elf_syms *debug;		/* separate debug file's symbols, if any */
	struct dwarf_lines *lines;	/* DWARF lines and inline frames; NULL: none */
};

struct symbolizer {
	struct procs *procs;
	struct name_sources names;
	struct demangler *dm;		/* NULL with --no-demangle */
	struct jit_procs *jit;		/* /tmp/perf-PID.map of each process */
	void *dsos;			/* tsearch tree of struct dso */
	size_t ndsos;
	size_t nlines;			/* of them, with an open libdwfl handle */
	struct dso vdso;		/* the kernel's vDSO, the same in every process */
	uint64_t over_limit;		/* files skipped: beyond a bound of elf_limits.h */
	bool vdso_loaded;
};

/* libdwfl asks a debuginfod server for missing debug files when
 * DEBUGINFOD_URLS is set (and only then); its own default timeout is 90 s
 * per file, too long to hold a profile back: a few seconds unless the user
 * chose otherwise. */
#define DEBUGINFOD_DEFAULT_TIMEOUT	"2"

#define MAX_DWARF_HANDLES	256	/* files with DWARF lines open at once */

struct symbolizer *symbolizer__new(struct procs *procs, const struct name_sources *names)
{
	struct symbolizer *sz = calloc(1, sizeof(*sz));

	if (!sz)
		return NULL;
	sz->procs = procs;
	sz->names = *names;
	if (getenv("DEBUGINFOD_URLS"))
		setenv("DEBUGINFOD_TIMEOUT", DEBUGINFOD_DEFAULT_TIMEOUT, 0);
	sz->jit = jit_procs__new();
	if (names->demangle)
		sz->dm = demangler__new();
	if (!sz->jit || (names->demangle && !sz->dm)) {
		symbolizer__free(sz);
		return NULL;
	}
	return sz;
}

static bool proc_alive(void *procs, pid_t tgid, uint64_t start_time)
{
	return procs__alive(procs, tgid, start_time);
}

static void free_dso(void *node)
{
	struct dso *d = node;

	elf_syms__free(d->syms);
	elf_syms__free(d->debug);
	dwarf_lines__free(d->lines);
	free(d->name);
	free(d->path);
	free(d);
}

void symbolizer__trim(struct symbolizer *sz, size_t max_files)
{
	jit_procs__next_turn(sz->jit, proc_alive, sz->procs);
	/* a libdwfl handle holds a file descriptor or two: bounded well under
	 * RLIMIT_NOFILE's usual 1024 however many files the symbols allow */
	if (sz->ndsos <= max_files && sz->nlines <= MAX_DWARF_HANDLES)
		return;
	tdestroy(sz->dsos, free_dso);
	sz->dsos = NULL;
	sz->ndsos = sz->nlines = 0;
	if (sz->dm)
		demangler__clear(sz->dm);
}

uint64_t symbolizer__over_limit(const struct symbolizer *sz)
{
	return sz->over_limit;
}

size_t symbolizer__files(const struct symbolizer *sz)
{
	return sz->ndsos;
}

void symbolizer__free(struct symbolizer *sz)
{
	if (!sz)
		return;
	tdestroy(sz->dsos, free_dso);
	elf_syms__free(sz->vdso.syms);
	demangler__free(sz->dm);
	jit_procs__free(sz->jit);
	free(sz);
}

static int vdso_size(uint64_t base, size_t *size)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char *line = NULL;
	size_t cap = 0;
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		struct maps_line ml;

		if (maps_parse_line(line, &ml) || ml.start != base)
			continue;
		*size = ml.end - ml.start;
		err = 0;
		break;
	}
	free(line);
	fclose(f);
	return err;
}

static void hex_build_id(struct dso *d)
{
	const unsigned char *id;
	size_t len = elf_syms__build_id(d->syms, &id), i;

	for (i = 0; i < len; i++)
		sprintf(&d->build_id[2 * i], "%02x", id[i]);
	d->build_id[2 * len] = '\0';
}

/* Every process of this kernel maps the same vDSO image: read ours. */
static struct dso *vdso(struct symbolizer *sz)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR);
	size_t size = 0;

	if (!sz->vdso_loaded) {
		sz->vdso_loaded = true;
		sz->vdso.name = "[vdso]";
		sz->vdso.path = "[vdso]";
		if (base && vdso_size(base, &size) == 0)
			sz->vdso.syms = elf_syms__open_mem((const void *)(uintptr_t)base, size);
		hex_build_id(&sz->vdso);
	}
	return &sz->vdso;
}

/* A stripped file keeps only .dynsym; its full symbol table may be in a
 * separate debug file (Debian's -dbg and -dbgsym packages), found by the
 * build-id as gdb and perf find it: /usr/lib/debug/.build-id/ab/cdef.debug. */
/* The symbols of an open file; a file beyond the bounds is counted. */
static struct elf_syms *open_syms(struct symbolizer *sz, int fd)
{
	struct elf_syms *es = elf_syms__open_fd(fd);

	if (!es && errno == E2BIG)
		sz->over_limit++;
	return es;
}

static struct elf_syms *open_debug_file(struct symbolizer *sz, const struct elf_syms *es)
{
	char path[sizeof(DEBUG_DIR) + 2 * BUILD_ID_MAX + 16], *p = path;
	const unsigned char *id;
	struct elf_syms *dbg;
	size_t len = elf_syms__build_id(es, &id), i;
	int fd;

	if (len < 2)
		return NULL;
	p += sprintf(p, "%s/%02x/", DEBUG_DIR, id[0]);
	for (i = 1; i < len; i++)
		p += sprintf(p, "%02x", id[i]);
	strcpy(p, ".debug");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	dbg = open_syms(sz, fd);
	close(fd);
	if (dbg && !elf_syms__count(dbg)) {
		elf_syms__free(dbg);
		dbg = NULL;
	}
	return dbg;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static struct dso *find_dso(struct symbolizer *sz, pid_t tgid, bool alive, const struct vma *v)
{
	struct dso key = { .id = file_id__of(v) };
	struct dso *d;
	void *node;
	int fd;

	if (strcmp(v->path, "[vdso]") == 0)
		return vdso(sz);
	if (v->path[0] != '/')	/* anonymous or special: no file to read */
		return NULL;
	node = tfind(&key, &sz->dsos, file_id__cmp);
	if (node)
		return *(struct dso **)node;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	*d = key;
	d->name = strdup(base_name(v->path));
	d->path = strdup(v->path);
	if (!d->name || !d->path || !tsearch(d, &sz->dsos, file_id__cmp)) {
		free_dso(d);
		return NULL;
	}
	sz->ndsos++;
	fd = mapped_file__open(tgid, alive, v);
	if (fd >= 0) {
		d->syms = open_syms(sz, fd);	/* NULL: not ELF, kept as such */
		if (d->syms)
			d->lines = dwarf_lines__open(fd, d->path, sz->names.inlines);
		sz->nlines += d->lines != NULL;
		close(fd);
	}
	if (d->syms && !elf_syms__full_symtab(d->syms))
		d->debug = open_debug_file(sz, d->syms);
	hex_build_id(d);
	return d;
}

/* Memory no file backs: where JITs put the code they generate. */
static bool anonymous(const struct vma *v)
{
	return !v || v->path[0] != '/' || !strncmp(v->path, "//anon", 6);
}

/* Code a JIT generated, named by the process's /tmp/perf-PID.map. Its
 * "offset" is the address itself: the code belongs to no file. */
static void name_jit(struct symbolizer *sz, const struct user_ctx *ctx, bool alive, uint64_t ip,
		     struct user_sym *out)
{
	const char *name = jit_procs__lookup(sz->jit, ctx->tgid, ctx->start_time, alive, ip);

	if (!name)
		return;
	out->name = name;
	out->dso = out->path = JIT_MAPPING;
	out->build_id = "";
	out->file_off = ip;
}

void symbolizer__user(struct symbolizer *sz, const struct user_ctx *ctx, uint64_t ip,
		      struct user_sym *out)
{
	const struct vma *v = procs__find(sz->procs, ctx->tgid, ctx->start_time, ctx->exec_time, ip);
	bool alive = procs__alive(sz->procs, ctx->tgid, ctx->start_time);
	uint64_t sym_off, vaddr;
	struct dso *d;

	memset(out, 0, sizeof(*out));
	if (v) {
		out->map_start = v->start;
		out->map_end = v->end;
		out->map_pgoff = v->pgoff;
	}
	if (anonymous(v))
		name_jit(sz, ctx, alive, ip, out);
	if (!v || out->name)
		return;
	out->file_off = ip - v->start + v->pgoff;
	d = find_dso(sz, ctx->tgid, alive, v);
	if (!d)
		return;
	out->dso = d->name;
	out->path = d->path;
	out->build_id = d->build_id;
	/* the debug file numbers addresses as its stripped twin does */
	if (d->debug && elf_syms__vaddr(d->syms, out->file_off, &vaddr) == 0)
		out->name = elf_syms__lookup_vaddr(d->debug, vaddr, &sym_off);
	if (!out->name && d->syms)
		out->name = elf_syms__lookup(d->syms, out->file_off, &sym_off);
	if (d->lines && elf_syms__vaddr(d->syms, out->file_off, &vaddr) == 0)
		out->src = dwarf_lines__at(d->lines, vaddr);
	/* libdwfl's symbols: a debug file found by .gnu_debuglink, in
	 * .gnu_debugdata or on a debuginfod server */
	if (!out->name && out->src)
		out->name = out->src->symbol;
	out->name = symbolizer__demangle(sz, out->name);
}

const char *symbolizer__demangle(struct symbolizer *sz, const char *name)
{
	return sz->dm ? demangler__name(sz->dm, name) : name;
}
