/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the procs tests share: a mapping made up at an address and time,
 * and a process /proc never answers for. */
#ifndef BPFPROF_TEST_PROCS_FIXTURES_H
#define BPFPROF_TEST_PROCS_FIXTURES_H

#include <stdint.h>

#include "procs/procs.h"

static inline struct vma vma_at(uint64_t start, uint64_t time, const char *path)
{
	return (struct vma){ .start = start, .end = start + 0x1000, .ino = start, .time = time,
			     .path = (char *)path };
}

/* A tgid far above pid_max, so /proc never answers for it. */
#define FAKE	(1 << 30)

#endif
