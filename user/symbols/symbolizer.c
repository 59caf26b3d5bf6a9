// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* User addresses -> names, through the registry of mapped files. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "elf/demangle.h"
#include "elf/dwarf_lines.h"
#include "elf/elf_syms.h"
#include "elf/fde_index.h"
#include "files/files.h"
#include "symbols/jit_procs.h"
#include "procs/proc_maps.h"
#include "procs/procs.h"
#include "symbols/symbolizer.h"

struct symbolizer {
	struct procs *procs;
	struct files *files;		/* the registry of mapped files */
	struct name_sources names;
	struct demangler *dm;		/* NULL with --no-demangle */
	struct jit_procs *jit;		/* /tmp/perf-PID.map of each process */
	struct file_entry vdso;		/* the kernel's vDSO, the same in every process */
	bool vdso_loaded;
};

/* Demangled names kept between turns; past that the cache starts over. */
#define MAX_DEMANGLED	65536

struct symbolizer *symbolizer__new(struct procs *procs, struct files *files,
				   const struct name_sources *names)
{
	struct symbolizer *sz = calloc(1, sizeof(*sz));

	if (!sz)
		return NULL;
	sz->procs = procs;
	sz->files = files;
	sz->names = *names;
	sz->jit = jit_procs__new(names->jit_map_mem);
	if (names->demangle)
		sz->dm = demangler__new(names->demangle_full ? DEMANGLE_FULL : DEMANGLE_SHORT);
	if (!sz->jit || (names->demangle && !sz->dm)) {
		symbolizer__free(sz);
		return NULL;
	}
	return sz;
}

struct drained_by {
	struct procs *procs;
	uint64_t before;
};

static bool proc_drained(void *arg, pid_t tgid, uint64_t start_time)
{
	struct drained_by *d = arg;

	return procs__drained(d->procs, tgid, start_time, d->before);
}

void symbolizer__forget(struct symbolizer *sz, uint64_t drained_before)
{
	struct drained_by d = { .procs = sz->procs, .before = drained_before };

	jit_procs__next_turn(sz->jit, proc_drained, &d);
}

void symbolizer__between_stacks(struct symbolizer *sz)
{
	files__trim(sz->files);
}

void symbolizer__trim(struct symbolizer *sz)
{
	files__trim(sz->files);
	if (sz->dm && demangler__count(sz->dm) > MAX_DEMANGLED)
		demangler__clear(sz->dm);
}

void symbolizer__skips(const struct symbolizer *sz, struct symbolizer_skips *sk)
{
	struct files_stats st;
	struct jit_skips jit;

	files__stats(sz->files, &st);
	sk->files_over_limit = st.over_limit;
	sk->files_dwarf_over = st.dwarf_over;
	jit_procs__skipped(sz->jit, &jit);
	sk->jit_malformed = jit.malformed;
	sk->jit_over_share = jit.over_share;
	sk->jit_over_cap = jit.over_cap;
	sk->jit_refused = jit.refused;
	sk->jit_share_spent_by = (uint64_t)jit.share_spent_by;
}

void symbolizer__free(struct symbolizer *sz)
{
	if (!sz)
		return;
	elf_syms__free(sz->vdso.syms);
	demangler__free(sz->dm);
	jit_procs__free(sz->jit);
	free(sz);
}

/* Every process of this kernel maps the same vDSO image: read ours. */
static struct file_entry *vdso(struct symbolizer *sz)
{
	const void *base;
	size_t size = 0;

	if (!sz->vdso_loaded) {
		sz->vdso_loaded = true;
		sz->vdso.name = "[vdso]";
		sz->vdso.path = "[vdso]";
		if (vdso_image(&base, &size) == 0)
			sz->vdso.syms = elf_syms__open_mem(base, size);
		elf_syms__build_id_hex(sz->vdso.syms, sz->vdso.build_id);
	}
	return &sz->vdso;
}

/* The file v maps, with its symbols read. */
static struct file_entry *file_of(struct symbolizer *sz, pid_t tgid, bool alive,
				  const struct vma *v)
{
	if (strcmp(v->path, "[vdso]") == 0)
		return vdso(sz);
	if (!v->file)	/* anonymous, special, or not entered (ENOMEM) */
		return NULL;
	files__symbols(sz->files, v->file, tgid, alive, v);
	return v->file;
}

/* Memory no file backs: where JITs put the code they generate. */
static bool anonymous(const struct vma *v)
{
	return !v || v->path[0] != '/' || !strncmp(v->path, "//anon", 6);
}

/* Anonymous memory proper (the mappings kept are executable ones): not
 * [vdso], [heap] or another special mapping. "[anon:NAME]" is memory a
 * process named with prctl(PR_SET_VMA_ANON_NAME). */
static bool jit_code(const struct vma *v)
{
	return v && (!v->path[0] || !strncmp(v->path, "//anon", 6) ||
		     !strncmp(v->path, "[anon:", 6));
}

/* Code a JIT generated, named by the process's /tmp/perf-PID.map; in
 * anonymous memory, marked JIT even when the map does not name it. Its
 * "offset" is the address itself: the code belongs to no file. */
static void name_jit(struct symbolizer *sz, const struct user_ctx *ctx, bool alive,
		     const struct vma *v, uint64_t ip, struct user_sym *out)
{
	struct proc_owner owner = procs__owner(sz->procs, ctx->tgid, ctx->start_time);
	const char *name = jit_procs__lookup(sz->jit, ctx->tgid, ctx->start_time, alive, &owner, ip);

	if (!name && !jit_code(v))
		return;
	out->name = name;	/* NULL: the frame is JIT_UNNAMED (resolve.c) */
	out->jit = true;
	out->dso = out->path = JIT_MAPPING;
	out->build_id = "";
	out->file_off = ip;
}

/* The function an unnamed address is in, as the file's CFI sees it (its
 * FDE's start): all samples in one unnamed function are then one frame.
 * The one that starts at the program's entry point is its _start, named so
 * (a stripped gzip's stacks end in _start as an unstripped one's do). */
static void cfi_function(struct symbolizer *sz, struct file_entry *f, pid_t tgid, bool alive,
			 const struct vma *v, struct user_sym *out)
{
	const struct fde_index *fi = files__functions(sz->files, f, tgid, alive, v);
	uint64_t vaddr, start;

	if (!fi || elf_syms__vaddr(f->syms, out->file_off, &vaddr) ||
	    fde_index__find(fi, vaddr, &start))
		return;
	if (elf_syms__is_entry(f->syms, start)) {
		out->name = "_start";
		out->why = UNNAMED_NONE;
		return;
	}
	out->in_function = true;
	out->func_off = out->file_off - (vaddr - start);
}

/* Why an address of mapping v (of file f) has no name (see unnamed.h). */
static enum unnamed why_unnamed(const struct vma *v, const struct file_entry *f)
{
	if (!v)
		return UNNAMED_NO_MAPPING;
	if (jit_code(v))
		return UNNAMED_NO_JIT_MAP;
	if (!f)
		return UNNAMED_NO_FILE;
	return f->syms ? UNNAMED_NO_SYMBOL : f->why;
}

void symbolizer__user(struct symbolizer *sz, const struct user_ctx *ctx, uint64_t ip,
		      struct user_sym *out)
{
	const struct vma *v = procs__find(sz->procs, ctx->tgid, ctx->start_time, ctx->exec_time, ip);
	bool alive = procs__alive(sz->procs, ctx->tgid, ctx->start_time);
	uint64_t sym_off, vaddr;
	struct file_entry *f;

	memset(out, 0, sizeof(*out));
	if (v) {
		out->map_start = v->start;
		out->map_end = v->end;
		out->map_pgoff = v->pgoff;
	}
	if (anonymous(v))
		name_jit(sz, ctx, alive, v, ip, out);
	if (!v || out->jit) {
		out->why = out->name ? UNNAMED_NONE : why_unnamed(v, NULL);
		return;
	}
	out->file_off = ip - v->start + v->pgoff;
	f = file_of(sz, ctx->tgid, alive, v);
	if (!f) {
		out->why = why_unnamed(v, NULL);
		return;
	}
	out->dso = f->name;
	out->path = f->path;
	out->build_id = f->build_id;
	if (sz->names.addresses_only && f != &sz->vdso)
		return;	/* named later, elsewhere: no DWARF read here */
	/* the debug file numbers addresses as its stripped twin does */
	if (f->debug && elf_syms__vaddr(f->syms, out->file_off, &vaddr) == 0)
		out->name = elf_syms__lookup_vaddr(f->debug, vaddr, &sym_off);
	if (!out->name && f->syms)
		out->name = elf_syms__lookup(f->syms, out->file_off, &sym_off);
	if (f != &sz->vdso && elf_syms__vaddr(f->syms, out->file_off, &vaddr) == 0) {
		out->src = files__src(sz->files, f, ctx->tgid, alive, v, vaddr);
		/* libdwfl's symbols: a debug file found by .gnu_debuglink,
		 * in .gnu_debugdata or on a debuginfod server */
		if (!out->name)
			out->name = files__dwfl_symbol(sz->files, f, ctx->tgid, alive, v, vaddr);
	}
	out->name = symbolizer__demangle(sz, out->name);
	out->why = out->name ? UNNAMED_NONE : why_unnamed(v, f);
	if (out->why == UNNAMED_NO_SYMBOL && f != &sz->vdso)
		cfi_function(sz, f, ctx->tgid, alive, v, out);
}

bool symbolizer__addresses_only(const struct symbolizer *sz)
{
	return sz->names.addresses_only;
}

const char *symbolizer__demangle(struct symbolizer *sz, const char *name)
{
	return sz->dm ? demangler__name(sz->dm, name) : name;
}
