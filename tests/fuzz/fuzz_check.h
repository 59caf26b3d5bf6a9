/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What every fuzz target asserts with: a failed property is a crash, which
 * libFuzzer reports and keeps the input of. */
#ifndef BPFPROF_FUZZ_CHECK_H
#define BPFPROF_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

#endif
