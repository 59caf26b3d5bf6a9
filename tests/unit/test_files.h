/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Test helpers for suites that build and write files: run a shell command
 * and assert it succeeded, write a file whole. */
#ifndef BPFPROF_TEST_FILES_H
#define BPFPROF_TEST_FILES_H

#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

__attribute__((format(printf, 1, 2)))
static inline void run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int n, st;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert(n > 0 && (size_t)n < sizeof(cmd));
	st = system(cmd);
	cr_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "command failed (status %d): %s", st, cmd);
}

static inline void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

#endif
