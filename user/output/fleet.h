/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Fleet mode's output directory: one file per interval and format, written
 * atomically, rotated by count and size, with an index of per-interval
 * stats. */
#ifndef BPFPROF_FLEET_H
#define BPFPROF_FLEET_H

#include <stddef.h>
#include <stdint.h>

struct fleet;

struct fleet_opts {
	const char *dir;
	const char *host;		/* the file name prefix */
	unsigned int max_files;
	unsigned long long max_bytes;
};

/* Creates the directory if needed and opens it. Returns 0 or -errno with a
 * message printed. */
int fleet__open(const struct fleet_opts *o, struct fleet **out);

/* Reopens the directory (SIGHUP: it may have been moved or replaced). */
int fleet__reopen(struct fleet *f);

/* Writes HOST-<start, UTC>.<ext> under a temporary name and renames it, so
 * readers never see half a file. Returns 0 or -errno. */
int fleet__write(struct fleet *f, uint64_t start_wall_ns, const char *ext,
		 const void *buf, size_t len);

/* Appends one line to bpfprof-intervals.log in the directory. */
int fleet__log(struct fleet *f, const char *line);

/* Deletes the oldest profiles beyond max_files / max_bytes. Returns how
 * many were deleted, or -errno. */
int fleet__rotate(struct fleet *f);

void fleet__free(struct fleet *f);

#endif
