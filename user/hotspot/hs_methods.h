/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The interpreted methods HotSpot's BPF walker saw (bpf/hotspot.h's
 * hs_methods: a Method* per process), named while their processes live,
 * so that a JVM that exited before its samples were named still has its
 * interpreted frames named. At most HS_METHODS_MAX names are kept; a
 * process's go when it is gone.
 */
#ifndef BPFPROF_HS_METHODS_H
#define BPFPROF_HS_METHODS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HS_METHODS_MAX		65536	/* names kept, every process's */
#define HS_METHODS_POLL_MAX	4096	/* methods read from the map per poll */

struct hs_methods;

/* Names the Method* method of process tgid into name: 0 or -errno. */
typedef int (*hs_method_name_fn)(void *ctx, pid_t tgid, uint64_t method, char *name,
				 size_t size);

/* On the BPF map map_fd and its count noted (NULL: out of memory). */
struct hs_methods *hs_methods__new(int map_fd, volatile uint64_t *noted);
void hs_methods__free(struct hs_methods *m);

/* The methods noted since the last call, named by name_of (once each) and
 * deleted from the map. */
void hs_methods__poll(struct hs_methods *m, hs_method_name_fn name_of, void *ctx);

/* The name of method of process (tgid, start_time); NULL: never named. */
const char *hs_methods__find(const struct hs_methods *m, pid_t tgid, uint64_t start_time,
			     uint64_t method);

/* Process tgid gone: its names let go. */
void hs_methods__forget(struct hs_methods *m, pid_t tgid);

#endif
