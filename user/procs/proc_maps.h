/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* /proc/PID/maps lines, parsed. */
#ifndef BPFPROF_PROC_MAPS_H
#define BPFPROF_PROC_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct maps_line {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of start */
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	bool exec;		/* 'x' in perms */
	bool deleted;		/* path ended in " (deleted)", stripped from path */
	const char *path;	/* points into the line; "" for anonymous;
				 * "[vdso]", "[stack]"... for special ones */
};

/* Parses one line of /proc/PID/maps (without or with its trailing '\n',
 * which is removed). The line is modified in place. Returns 0, or -EINVAL
 * when the line is malformed. */
int maps_parse_line(char *line, struct maps_line *out);

/* Calls fn for every executable mapping of pid, in address order. Returns 0,
 * or -errno when /proc/PID/maps cannot be read (-ENOENT: no such process),
 * or the first non-zero value fn returned. */
int maps_for_each_exec(pid_t pid, int (*fn)(const struct maps_line *ml, void *ctx),
		       void *ctx);

#endif
