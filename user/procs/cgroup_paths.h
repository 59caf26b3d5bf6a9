/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* cgroup v2 ids (what BPF's bpf_get_current_cgroup_id() gives) named by
 * their paths under the cgroup v2 mount, as /proc/PID/cgroup's "0::" line
 * writes them ("/system.slice/nginx.service"). */
#ifndef BPFPROF_CGROUP_PATHS_H
#define BPFPROF_CGROUP_PATHS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct cgroup_paths;

/* Finds the cgroup v2 mount (/proc/self/mountinfo): /sys/fs/cgroup on a
 * v2-only machine, /sys/fs/cgroup/unified beside v1's hierarchies; in a
 * cgroup namespace of its own (a container), init's, through /proc/1/root,
 * so paths are the machine's. Without one it names nothing. NULL when out
 * of memory. */
struct cgroup_paths *cgroup_paths__new(void);
void cgroup_paths__free(struct cgroup_paths *cp);

/* The mount found ("" none). */
const char *cgroup_paths__mount(const struct cgroup_paths *cp);

/* What cgroup_paths__name() found. */
enum cgroup_naming {
	CGROUP_NAMED,		/* *path is its path */
	CGROUP_UNNAMEABLE,	/* gone, or a path too long to name: said once,
				 * never tried again (ids are not reused) */
	CGROUP_LATER,		/* this pass's budget is spent: the next pass tries */
};

/* A new naming pass (each drain): at most CGROUP_NAMES_PER_PASS new ids
 * are looked up in it, none after deadline_ns (procs__now()'s clock). */
#define CGROUP_NAMES_PER_PASS	1024
void cgroup_paths__new_pass(struct cgroup_paths *cp, uint64_t deadline_ns);

/* id's path into *path (it lives until cp is freed). An id is looked up
 * once, whatever the tree holds: by its file handle (the cgroup file
 * system's handle is the id: no walk), or without CAP_DAC_READ_SEARCH by
 * tgid, a process seen in it (0: none), whose /proc/TGID/cgroup line names
 * it if that directory has inode id. */
enum cgroup_naming cgroup_paths__name(struct cgroup_paths *cp, uint64_t id, pid_t tgid,
				      const char **path);

/* Lookups made (ids not already known), for tests and -v. */
uint64_t cgroup_paths__lookups(const struct cgroup_paths *cp);

#endif
