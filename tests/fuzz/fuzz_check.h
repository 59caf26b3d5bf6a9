/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the fuzz targets share: CHECK, whose failure is a crash libFuzzer
 * reports and keeps the input of, and a memfd to feed fd-reading parsers. */
#ifndef BPFPROF_FUZZ_CHECK_H
#define BPFPROF_FUZZ_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/* A memory-backed file for parsers that read from an fd or a path: made
 * once in LLVMFuzzerInitialize, refilled with each input. */
static inline int fuzz_memfd(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	return fd;
}

/* Replaces the memfd's contents with the input. */
static inline void fuzz_fill_memfd(int fd, const uint8_t *data, size_t size)
{
	size_t done = 0;
	ssize_t n;

	if (ftruncate(fd, 0))
		abort();
	while (done < size) {
		n = pwrite(fd, data + done, size - done, (off_t)done);
		if (n <= 0)
			abort();
		done += (size_t)n;
	}
}

#endif
