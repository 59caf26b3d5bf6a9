/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* /proc/PID/maps lines, parsed. */
#ifndef BPFPROF_PROC_MAPS_H
#define BPFPROF_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct maps_line {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of start */
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	bool exec;		/* 'x' in perms */
	bool deleted;		/* unlinked: the kernel's " (deleted)" is stripped */
	const char *path;	/* points into the line, decoded (vma_name__decode);
				 * "" for anonymous; "[vdso]", "[stack]"... */
};

/* Parses one line of /proc/PID/maps (without or with its trailing '\n',
 * which is removed). The line is modified in place. The path is decoded
 * without looking at any file (as vma_name__decode with pid -1). Returns 0,
 * or -EINVAL when the line is malformed. */
int maps_parse_line(char *line, struct maps_line *out);

/* A mapped file's name as the kernel gives it, decoded in place the same
 * way whichever way it came: from /proc/PID/maps (escaped: a newline shows
 * as "\012") or from a perf MMAP2 record (raw). A trailing " (deleted)" is
 * the kernel's mark of an unlinked file, unless the name with it still
 * names the mapped file (dev, ino) inside pid's root: a file really called
 * "x (deleted)"; likewise a "\012" that is really in the name is kept.
 * pid < 0: no file is looked at. Returns true when the file is deleted. */
bool vma_name__decode(char *name, bool escaped, pid_t pid, uint32_t dev_major,
		      uint32_t dev_minor, uint64_t ino);

/* Calls fn for every executable mapping of pid, in address order. Returns 0,
 * or -errno when /proc/PID/maps cannot be read (-ENOENT: no such process),
 * or the first non-zero value fn returned. */
int maps_for_each_exec(pid_t pid, int (*fn)(const struct maps_line *ml, void *ctx),
		       void *ctx);

/* This process's vDSO image (every process of this kernel maps the same
 * one): its address (getauxval(AT_SYSINFO_EHDR)) and its mapping's size.
 * Returns 0, or -ENOENT without one, -errno when our maps are unreadable. */
int vdso_image(const void **base, size_t *size);

#endif
