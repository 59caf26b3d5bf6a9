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
 *                    .debug/, and under ROOT/DIR/, its CRC checked
 *
 * then debuginfod, which each caller asks through its own client
 * (debuginfod.h). A caller names the places it wants; the order is this
 * one. Every candidate is opened through file_open_regular(): no FIFO,
 * device or directory, whoever planted it.
 */
#ifndef BPFPROF_DEBUG_FILE_H
#define BPFPROF_DEBUG_FILE_H

#include <stdbool.h>
#include <stdint.h>

#define DEBUG_ROOT	"/usr/lib/debug"

enum debug_places {
	DEBUG_IN_DIRS	= 1 << 0,
	DEBUG_BY_ID	= 1 << 1,
	DEBUG_BY_LINK	= 1 << 2,
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

#endif
