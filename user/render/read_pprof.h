/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pprof half of the views' reader (read_profile.c has the files,
 * gzip and folded text): a profile decoded, then made a vprof. */
#ifndef BPFPROF_READ_PPROF_H
#define BPFPROF_READ_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/addr_ranges.h"
#include "profile.pb-c.h"
#include "render/vprof.h"

/* The one bound on a profile the views read, compressed or not, and on
 * what it takes to decode: memory is bounded by it. */
#define MAX_PROFILE_BYTES	((size_t)1 << 30)
#define MAX_PROFILE_TEXT	"1 GiB"

/* The bytes as a pprof profile: they decode as one and look like one
 * (sample types, string_table[0] ""); NULL when they do not, *too_big
 * when decoding them would take more than MAX_PROFILE_BYTES. */
Perftools__Profiles__Profile *read_pprof__unpack(const uint8_t *buf, size_t len, bool *too_big);

/* The pprof profile in the file at path ("-": standard input), gzip or
 * not, within MAX_PROFILE_BYTES; 0, or -errno with one line said. Freed
 * with perftools__profiles__profile__free_unpacked(). */
int read_pprof__load(const char *path, Perftools__Profiles__Profile **out);

/* pr's samples (their first value) into v; 0, or -ENOMEM, -EOVERFLOW (the
 * counts' sum), -E2BIG (a sample's frames), -EFBIG (all frames), each
 * but -ENOMEM said on stderr with what. */
int read_pprof__parse(const char *what, const Perftools__Profiles__Profile *pr, struct vprof *v);

/* ids (zeroed) as the ids of a pprof list's count entries (arr: Location **,
 * Function **, Mapping **), each id the key of its entry's index: sorted
 * once, found in O(log n) by read_pprof__at (ids need not be index + 1: a
 * scan for each would be quadratic). 0 or -ENOMEM. */
#define READ_PPROF_IDS(ids, arr, count) ({							\
	int e_ = addr_ranges__reserve((ids), (count));						\
	for (size_t i_ = 0; !e_ && i_ < (count); i_++)						\
		e_ = addr_ranges__add((ids), (arr)[i_]->id, (arr)[i_]->id, i_);		\
	if (!e_)										\
		addr_ranges__sort(ids);								\
	e_; })

/* The index of id's entry (of equal ids the first listed), SIZE_MAX if none. */
size_t read_pprof__at(const struct addr_ranges *ids, uint64_t id);

#endif
