/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel memory of the run's BPF maps, as the kernel accounts it (the
 * memlock figure of each map's fdinfo, what `bpftool map show` prints).
 * The unwind rows' inner maps are held by the unwind_files array-of-maps
 * only (rowstore.c closes their descriptors once they are in it): the
 * rowstore reads each one's figure when it creates it. Fleet mode logs the
 * sum every interval, so a leak of kernel memory shows as a figure that
 * keeps growing.
 */
#ifndef BPFPROF_KMEM_H
#define BPFPROF_KMEM_H

#include <stdint.h>

/* The bytes the kernel charges the map behind fd. 0 or -errno. */
int kmem__map_bytes(int fd, uint64_t *bytes);

/* The sum over every map this process holds a descriptor of. 0 or -errno. */
int kmem__read(uint64_t *bytes);

#endif
