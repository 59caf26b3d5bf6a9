/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The stacks the BPF side copied out before their process's tables were in
 * (struct early_stack, the `early` ring): read from the ring every loop
 * turn and held until they are walked (run/early_walks.c). Bounded: when
 * full, the oldest is handed on to be walked at once with what there is.
 */
#ifndef BPFPROF_EARLY_H
#define BPFPROF_EARLY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "bpf/profile.h"

#define EARLY_HELD	64	/* stacks held at once (5-29 KiB each) */

struct early;

/* fn(e, arg): a stack leaves the queue and must be walked now (full). */
typedef void early_fn(const struct early_stack *e, void *arg);

/* ring_fd: the session's early ring. */
int early__new(int ring_fd, early_fn *overflow, void *arg, struct early **out);

/* Readable (poll) when the ring holds stacks. */
int early__fd(const struct early *q);

/* Moves what the ring holds into the queue. Returns how many stacks it
 * moved, or -errno. */
int early__read(struct early *q);

/* Stacks held now; of tgid. */
/* The ring let go (its 1 MiB of pages, mapped twice, out of the RSS of a
 * run's end): once its last record was read. Reads find nothing after,
 * early__fd() is -1; what is held stays. */
void early__close_ring(struct early *q);

size_t early__held(const struct early *q);
bool early__holds(const struct early *q, pid_t tgid);

/* Each held stack of tgid (every one with tgid 0) for which take(e, arg)
 * says true leaves the queue, in the order they came. */
void early__take(struct early *q, pid_t tgid, bool (*take)(const struct early_stack *e, void *arg),
		 void *arg);

/* The same, over the stacks that came since the last take tried them
 * (every take tries those it looks at): a stack tried and left waits for a
 * change of its process, which the caller knows of. */
void early__take_fresh(struct early *q, bool (*take)(const struct early_stack *e, void *arg),
		       void *arg);

void early__free(struct early *q);

#endif
