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

/* id's path, or NULL when it is not (or no longer) there. tgid, a process
 * seen in it (0: none), is asked first: its /proc/TGID/cgroup line, if the
 * directory it names has inode id; then the whole tree is walked, once per
 * cgroup_paths__new_pass() however many ids miss (bounded in directories
 * and depth), naming every cgroup it meets. The string lives until cp is
 * freed. */
const char *cgroup_paths__name(struct cgroup_paths *cp, uint64_t id, pid_t tgid);

/* A new naming pass (each drain): the tree may be walked once more. */
void cgroup_paths__new_pass(struct cgroup_paths *cp);

/* Directories the walks met and their count, for tests and -v. */
uint64_t cgroup_paths__walks(const struct cgroup_paths *cp);

#endif
