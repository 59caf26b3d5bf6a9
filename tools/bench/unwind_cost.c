// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* unwind_cost FILE...: builds each file's unwind table as bpfprof does
 * (user/unwind/unwind_table.c) and prints "FILE ROWS BYTES MILLISECONDS". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "unwind/unwind_table.h"

static double ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int ret = 0;

	for (int i = 1; i < argc; i++) {
		struct unwind_table t = { 0 };
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC), err;
		double t0 = ms();

		if (fd < 0) {
			fprintf(stderr, "unwind_cost: %s: %s\n", argv[i], strerror(errno));
			ret = 1;
			continue;
		}
		err = unwind_table__build(fd, &t);
		close(fd);
		if (err) {
			fprintf(stderr, "unwind_cost: %s: %s\n", argv[i], strerror(-err));
			ret = 1;
			continue;
		}
		printf("%s %zu %zu %.2f\n", argv[i], t.nrows, t.nrows * sizeof(*t.rows), ms() - t0);
		unwind_table__free(&t);
	}
	return ret;
}
