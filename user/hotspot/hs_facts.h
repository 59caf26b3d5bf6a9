/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What HotSpot's BPF walker (bpf/hotspot.bpf.h) needs of a JVM, read from
 * the process by the layout hs_find read: its code heaps' bounds and
 * segment maps, the interpreter's code, the offsets of the CodeBlob fields
 * it steps by. Every value is checked against what the walker may trust
 * (the offsets it reads, the heaps' count and segment sizes); what is not
 * is refused, never written to the BPF side.
 */
#ifndef BPFPROF_HS_FACTS_H
#define BPFPROF_HS_FACTS_H

#include <linux/types.h>

#include "bpf/profile.h"
#include "hotspot/hs_find.h"

/* The facts of the process read through rd into *out: 0; -ENOENT when the
 * VM has not made its code heaps or interpreter yet; -EPROTO when a value
 * is out of the walker's bounds; -ESRCH when the process is gone. */
int hs_facts__read(const struct hs_layout *l, hs_read_fn rd, void *arg, struct hs_facts *out);

#endif
