/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Source lines and inline frames of one ELF file, through libdwfl as
 * `eu-addr2line -i -f` reads them: the compile unit's scopes at an address
 * (dwarf_getscopes), each DW_TAG_inlined_subroutine a frame whose caller's
 * line is its DW_AT_call_file/call_line. libdwfl finds the DWARF where gdb
 * and perf find it: in the file, else its separate debug file (build-id
 * directory, .gnu_debuglink with CRC, /usr/lib/debug, .gnu_debugdata
 * MiniDebugInfo) and, when DEBUGINFOD_URLS is set, a debuginfod server.
 * Each distinct address is resolved once.
 */
#ifndef BPFPROF_DWARF_LINES_H
#define BPFPROF_DWARF_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dwarf_lines;

/* One frame at an address: a function, the source file and line there. */
struct src_frame {
	const char *name;	/* NULL when DWARF does not say (linkage name if any) */
	const char *file;	/* NULL when unknown */
	uint32_t line;		/* 0 when unknown */
};

/* What one address resolves to: the function that holds the code (outer)
 * and the functions inlined into it there, outermost first. */
struct src_chain {
	struct src_frame outer;
	uint32_t ninlined;
	struct src_frame inlined[];
};

/* For the ELF file open at fd (dup'ed; the caller keeps its own), named
 * path in messages and debug-file searches. NULL when it is not ELF.
 * with_inline false: no inline frames (ninlined 0), outer's line is the
 * address's own. */
struct dwarf_lines *dwarf_lines__open(int fd, const char *path, bool with_inline);
void dwarf_lines__free(struct dwarf_lines *dl);

/* The chain at vaddr (as the ELF's own headers number addresses), cached
 * with its own copy of every string: valid until dwarf_lines__free(). NULL
 * when nothing is known there, or the session is closed and it was never
 * asked. */
const struct src_chain *dwarf_lines__at(struct dwarf_lines *dl, uint64_t vaddr);

/* The name of the function at vaddr from the symbol tables libdwfl found
 * beyond the file's own (a debug file's: .gnu_debuglink, .gnu_debugdata,
 * debuginfod), or NULL, also when it found none: the file's own table is
 * elf_syms' to search. Cached as the chain is. */
const char *dwarf_lines__symbol(struct dwarf_lines *dl, uint64_t vaddr);

/* True when answering for vaddr (its symbol too when symbol) needs the
 * libdwfl session: it was never asked. */
bool dwarf_lines__needs_session(const struct dwarf_lines *dl, uint64_t vaddr, bool symbol);

/* libdwfl's session (the mapped file and debug file, the DWARF it read) is
 * the heavy part: closed, the answers stay; reopened from the file at fd
 * (dup'ed) to answer new addresses. Returns 0 or -ENOEXEC. */
void dwarf_lines__close(struct dwarf_lines *dl);
int dwarf_lines__reopen(struct dwarf_lines *dl, int fd, const char *path);
bool dwarf_lines__is_open(const struct dwarf_lines *dl);

/* The bytes the cached answers hold. */
size_t dwarf_lines__bytes(const struct dwarf_lines *dl);

/* Distinct addresses resolved so far. */
size_t dwarf_lines__count(const struct dwarf_lines *dl);

#endif
