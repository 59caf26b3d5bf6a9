/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Where a file's separate debug file is: one ordered search for every
 * reader (the symbol tables of files/, the lines of dwarf_lines, bpfprof
 * symbolize), in the order gdb, libdwfl and perf look:
 *
 *   DEBUG_IN_DIRS    each user debug directory (bpfprof symbolize's
 *                    --debug-dir): DIR/.build-id/xx/rest.debug,
 *                    DIR/.build-id/xx/rest, DIR/NAME, DIR/NAME.debug
 *   DEBUG_BY_ID      ROOT/.build-id/xx/rest.debug (ROOT: /usr/lib/debug)
 *   DEBUG_BY_LINK    the file's .gnu_debuglink name beside it, in its
 *                    .debug/, then under each user directory and ROOT
 *                    (DIR/path/to/LINK), its CRC checked
 *   DEBUG_BY_SERVER  the servers of DEBUGINFOD_URLS, within the run's
 *                    budget (debuginfod.h); a build-id they did not have
 *                    is not asked again
 *
 * A caller names the places it wants; the order is this one. Every
 * candidate is opened through file_open_path(): no FIFO, device or
 * directory, whoever planted it; where a name is a file's own (DIR/NAME,
 * the .gnu_debuglink places) it is opened with O_NOFOLLOW, a link there
 * refused. A build-id tree's names are links by design (Debian's -dbg
 * packages): followed, and the file they lead to is used only when
 * whoever placed them could read it (debug_trust.h), so a link in a user's
 * directory never brings root's bpfprof a file that user could not read
 * (a 0700 program's debug file, /etc/shadow). What was refused is counted
 * (debug_file__refused()) and said in the summary.
 */
#ifndef BPFPROF_DEBUG_FILE_H
#define BPFPROF_DEBUG_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elf_syms.h"

#define DEBUG_ROOT	"/usr/lib/debug"

enum debug_places {
	DEBUG_IN_DIRS	= 1 << 0,
	DEBUG_BY_ID	= 1 << 1,
	DEBUG_BY_LINK	= 1 << 2,
	DEBUG_BY_SERVER	= 1 << 3,
	DEBUG_ANYWHERE	= (1 << 4) - 1,
};

struct debug_query {
	const char *build_id;		/* hex; NULL or "": no build-id places */
	const char *path;		/* the file's path (the link's places, NAME) */
	const char *link;		/* its .gnu_debuglink name; NULL: none */
	uint32_t crc;			/* the link's CRC-32 */
	const char *const *dirs;	/* DEBUG_IN_DIRS' directories */
	int ndirs;
	const char *root;		/* NULL: DEBUG_ROOT */
	/* a candidate is taken when this says so (NULL: any that opens) */
	bool (*accept)(int fd, void *arg);
	void *arg;
};

/* The first candidate of places taken: its fd, and its path in *found
 * (malloc'd, the caller frees it). -1 when none. */
int debug_file__open(const struct debug_query *q, unsigned int places, char **found);

/* Candidates refused since the start: a link where a file's own name was
 * expected, or a file whoever placed it could not read. */
uint64_t debug_file__refused(void);

/* The .gnu_debuglink of the ELF file fd is open on: its name into name
 * (size bytes), its CRC in *crc. Returns 0, or -ENOENT when it has none
 * (or one that is no plain file name). */
int debug_file__link(int fd, char *name, size_t size, uint32_t *crc);

/* The build-id (hex, into hex: 2 * BUILD_ID_MAX + 1 bytes) of the dwz
 * alternate debug file the ELF file fd is open on names in its
 * .gnu_debugaltlink. Returns 0, or -ENOENT. */
int debug_file__altlink(int fd, char hex[2 * BUILD_ID_MAX + 1]);

#endif
