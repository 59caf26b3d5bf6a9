/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The keys of a BPF hash map keyed by __u32 (a tid, a tgid), as they are
 * at the walk: for a caller that then looks up or deletes each one (a
 * delete during the walk would restart it). */
#ifndef BPFPROF_MAP_KEYS_H
#define BPFPROF_MAP_KEYS_H

#include <errno.h>
#include <stdlib.h>

#include <bpf/bpf.h>
#include <linux/types.h>

/* The map's keys into *out (the caller frees it); returns how many. *err
 * is -ENOMEM when memory ran out: *out then holds the keys read so far. */
static inline size_t map_u32_keys(int fd, __u32 **out, int *err)
{
	__u32 key, next, *keys = NULL, *grown;
	size_t n = 0, cap = 0;

	*err = 0;
	for (void *prev = NULL; !bpf_map_get_next_key(fd, prev, &next); prev = &key) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			grown = reallocarray(keys, cap, sizeof(*keys));
			if (!grown) {
				*err = -ENOMEM;
				break;
			}
			keys = grown;
		}
		keys[n++] = key = next;
	}
	*out = keys;
	return n;
}

#endif
