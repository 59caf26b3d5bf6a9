/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* User addresses -> function names: process mappings, then the ELF file,
 * read once for all processes through the registry of mapped files. */
#ifndef BPFPROF_SYMBOLIZER_H
#define BPFPROF_SYMBOLIZER_H

#include <stdint.h>
#include <sys/types.h>

#include "profile/unnamed.h"

struct files;
struct name_sources;
struct src_chain;
struct procs;
struct symbolizer;

/* The mapping JIT frames (code in anonymous executable memory) are
 * reported in, and the one name of those its /tmp/perf-PID.map does not
 * name: one frame per caller, as perf's "[JIT] tid N" is one library,
 * not one frame per address (V8 without --perf-basic-prof: 112). */
#define JIT_MAPPING	"[jit]"
#define JIT_UNNAMED	"[JIT]"

struct user_sym {
	const char *name;	/* function; NULL when unresolved */
	const char *dso;	/* file name (basename) of the mapping; NULL if none */
	const char *path;	/* its path as mapped; NULL if none */
	const char *build_id;	/* its file id (files.h): GNU build-id in hex, or
				 * a Go binary's Go build ID; "" when unknown */
	uint64_t file_off;	/* offset of the address in that file */
	uint64_t map_start, map_end, map_pgoff;	/* the mapping holding it; 0 if none */
	const struct src_chain *src;	/* source lines, inline frames (DWARF); NULL if none */
	enum unnamed why;	/* when name is NULL: why */
	bool jit;		/* in anonymous executable memory: a JIT's code */
	bool in_function;	/* unnamed, but in a function the file's CFI knows: */
	uint64_t func_off;	/* its start's file offset (its FDE's) */
};

/* names: which sources name frames (config.h); copied. procs must enter
 * its mappings' files in files (procs__set_files()). */
struct symbolizer *symbolizer__new(struct procs *procs, struct files *files,
				   const struct name_sources *names);
void symbolizer__free(struct symbolizer *sz);

/* Which process, and which of its images (see procs__find()). */
struct user_ctx {
	pid_t tgid;
	uint64_t start_time;
	uint64_t exec_time;
};

/* Resolves one user address. The strings stay valid until
 * symbolizer__between_stacks(), symbolizer__trim(), symbolizer__free() or
 * the process's reap. */
void symbolizer__user(struct symbolizer *sz, const struct user_ctx *ctx, uint64_t ip,
		      struct user_sym *out);

/* name demangled when demangling is on (see demangle.h), else name. */
const char *symbolizer__demangle(struct symbolizer *sz, const char *name);

/* --symbolize none: a user address in a file is left unnamed (its frame's
 * name ""), its file, build-id and address kept for bpfprof symbolize. */
bool symbolizer__addresses_only(const struct symbolizer *sz);

/* Between two stacks (no name it gave is held): files' symbols past the
 * registry's byte budget are dropped, read again on demand. */
void symbolizer__between_stacks(struct symbolizer *sz);

/* Once a turn (an interval), no name it gave held, before
 * procs__reap(drained_before): JIT maps may be re-read once more, those of
 * processes whose samples are all named (procs__drained()) are dropped. */
void symbolizer__forget(struct symbolizer *sz, uint64_t drained_before);

/* A safe point (no name it gave is held): files' symbols past the
 * registry's byte budget are dropped (re-read on demand). */
void symbolizer__trim(struct symbolizer *sz);

/* What was skipped since the start: files beyond a bound of elf_limits.h
 * (their frames stay unresolved, FILE+0xOFFSET), files whose DWARF is
 * over the budget (no source lines, no inline frames), JIT map lines malformed
 * or past the maps' byte cap (--jit-map-mem), JIT maps refused (their code
 * stays unnamed). */
struct symbolizer_skips {
	uint64_t files_over_limit;
	uint64_t files_dwarf_over;	/* DWARF over --dwarf-mem: names only */
	uint64_t jit_malformed;
	uint64_t jit_over_share;	/* past a process's share of --jit-map-mem */
	uint64_t jit_over_cap;		/* past --jit-map-mem, all maps */
	uint64_t jit_refused;		/* maps not the process's own */
	uint64_t jit_share_spent_by;	/* the process with most lines past its share */
};

void symbolizer__skips(const struct symbolizer *sz, struct symbolizer_skips *sk);

#endif
