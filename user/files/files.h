/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The registry of mapped files: one entry per file identity (as perf's dso
 * and OTel's FileID), shared by every process that maps the file and by
 * every room that reads it. The symbolizer's symbols, build-id, debug
 * file and libdwfl handle and the unwinder's table are kept once per
 * file, read once for all processes.
 *
 * Entries are referenced by the processes that map them: procs takes a
 * reference for each mapping it records and drops it when it forgets the
 * process, which is after the drain that covers the process's last samples
 * (procs__reap). So the names of an exited process still resolve at that
 * drain, and when the last process mapping a file is gone, the entry and
 * its unwind table are released.
 *
 * Symbols are read on demand (files__symbols, files__src): only files
 * the samples need, and the bytes they hold are bounded: past the budget,
 * the least recently used files' symbols are dropped at the next safe
 * point (files__trim, between stacks) and read again if needed.
 */
#ifndef BPFPROF_FILES_H
#define BPFPROF_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "elf/elf_syms.h"
#include "procs/mapped_file.h"
#include "profile/unnamed.h"

struct dwarf_lines;
struct fde_index;
struct files;
struct src_chain;
struct procs;
struct vma;

/* One file. Read-only outside files.c, but for the unwind slot. */
struct file_entry {
	struct file_id id;		/* first: the tree's key */
	char *name;			/* basename, for FILE+0xOFFSET frames */
	char *path;			/* path as first seen mapped */
	struct file_stamp stamp;	/* size, mtime: what else identifies it */
	/* symbols: valid after files__symbols() until files__trim() */
	struct elf_syms *syms;		/* NULL: not read yet, or unreadable */
	struct elf_syms *debug;		/* separate debug file's symbols, if any */
	struct dwarf_lines *lines;	/* its answers: see files__src() */
	enum unnamed why;		/* when syms is NULL: why (unreadable, not ELF...) */
	/* its functions by CFI: after files__functions() until files__trim() */
	struct fde_index *fdes;
	char build_id[FILE_ID_MAX + 1];	/* elf_syms__file_id(): GNU hex, or a Go
					 * binary's Go build ID; "" when unknown */
	/* the unwinder's (its table, its rows): released with the entry by
	 * the callback of files__on_release() */
	void *unwind;
};

struct files_opts {
	bool inlines;			/* dwarf_lines with inline frames */
	size_t max_bytes;		/* what symbols may hold; 0: the default */
	uint64_t dwarf_max;		/* DWARF open sessions may hold; 0: no bound */
	bool layout_only;		/* files__symbols() reads segments and build-id,
					 * no symbols (--symbolize none) */
	uint64_t linger_ns;		/* an entry no process maps stays this long
					 * (its symbols, its table), taken again when a
					 * process maps the unchanged file; 0: none */
};

struct files *files__new(const struct files_opts *opts);
/* Releases every entry still referenced (each unwind slot through the
 * callback). */
void files__free(struct files *fs);

/* procs enters the files of the mappings it records from now on (a
 * reference per mapping, dropped when it forgets the process). */
void files__attach(struct files *fs, struct procs *procs);

/* The entry of the file v maps, with one more reference (the caller's);
 * made on first sight, while the process (tgid; alive) still has it
 * mapped: a file it cannot name later by path (another mount namespace,
 * deleted, replaced) is kept open. NULL for memory no file backs
 * (anonymous, [vdso]...) or on ENOMEM. */
struct file_entry *files__get(struct files *fs, pid_t tgid, bool alive, const struct vma *v);

/* The file f, open for reading (the caller closes it): the one kept open
 * since first sight, else opened through v in process tgid as
 * mapped_file__open() does, checked against f's identity. Returns -errno
 * when it cannot be. */
int files__open(struct files *fs, struct file_entry *f, pid_t tgid, bool alive,
		const struct vma *v);

/* Drops a reference; the last one releases the entry. */
void files__put(struct files *fs, struct file_entry *f);

/* Reads f's symbols (once; again after a trim dropped them) through v, a
 * mapping of it in process tgid. Returns f->syms (NULL: not ELF, over a
 * bound, or gone). */
const struct elf_syms *files__symbols(struct files *fs, struct file_entry *f, pid_t tgid,
				      bool alive, const struct vma *v);

/* The functions of f by its CFI (fde_index.h), read once at its first
 * address no symbol names (again after a trim), through v as
 * files__symbols(). NULL when it has no usable .eh_frame. */
const struct fde_index *files__functions(struct files *fs, struct file_entry *f, pid_t tgid,
					 bool alive, const struct vma *v);

/* The source lines and inline frames at vaddr (as f's ELF headers number
 * addresses) through libdwfl, each address resolved once; NULL when none.
 * Valid until files__trim() drops f's symbols. */
const struct src_chain *files__src(struct files *fs, struct file_entry *f, pid_t tgid,
				   bool alive, const struct vma *v, uint64_t vaddr);

/* The name at vaddr from the symbol tables libdwfl found (a debug file's
 * too: .gnu_debuglink, .gnu_debugdata, debuginfod), or NULL: asked only
 * for what f's own symbols did not name. Valid as files__src()'s. */
const char *files__dwfl_symbol(struct files *fs, struct file_entry *f, pid_t tgid, bool alive,
			       const struct vma *v, uint64_t vaddr);

/* A safe point (no name from the symbols or lines is held): drops the
 * least recently used files' symbols and answers while they hold more
 * than the budget, and closes the least recently used libdwfl sessions
 * past a few. */
void files__trim(struct files *fs);

/* Called with each entry's unwind slot when the entry is released. */
void files__on_release(struct files *fs, void (*release)(void *ctx, void *unwind), void *ctx);

struct files_stats {
	size_t entries;			/* files referenced now */
	size_t peak_entries;		/* the most at once */
	size_t loaded;			/* of them, with symbols read */
	size_t bytes;			/* the symbols' bytes */
	size_t kept_open;		/* files held open (not nameable by path) */
	uint64_t reads;			/* symbol reads since the start */
	uint64_t line_opens;		/* libdwfl sessions opened since the start */
	uint64_t over_limit;		/* files beyond a bound of elf_limits.h */
	uint64_t dwarf_over;		/* files whose DWARF alone is over dwarf_max */
	uint64_t dwarf_open;		/* the DWARF bytes of the open sessions */
	uint64_t dwarf_peak;		/* their most at once */
	uint64_t released;		/* entries released since the start */
	size_t lingering;		/* entries no process maps, kept a while */
	uint64_t revived;		/* lingering entries mapped again since the start */
};

void files__stats(const struct files *fs, struct files_stats *st);

#endif
