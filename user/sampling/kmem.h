/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel memory of the run's BPF maps, as the kernel accounts it (the
 * memlock figure of each map's fdinfo, what `bpftool map show` prints):
 * every map this process holds a descriptor of, and the unwind rows' inner
 * maps, which only the unwind_files array-of-maps holds (rowstore.c closes
 * their descriptors once they are in it). Fleet mode logs it every interval,
 * so a leak of kernel memory shows as a figure that keeps growing.
 */
#ifndef BPFPROF_KMEM_H
#define BPFPROF_KMEM_H

#include <stdint.h>

struct kmem {
	uint64_t maps;		/* bytes of the maps behind our descriptors */
	uint64_t rows;		/* bytes of the inner maps in unwind_files */
	unsigned int row_maps;	/* how many of those */
};

/* Fills *out; files_fd: the unwind_files array-of-maps. 0 or -errno. */
int kmem__read(int files_fd, struct kmem *out);

#endif
