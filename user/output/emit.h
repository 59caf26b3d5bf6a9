/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A profile in one output format, to a stream or into memory. */
#ifndef BPFPROF_EMIT_H
#define BPFPROF_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/formats.h"

struct profile;

/* A profile in one row's format (base/formats.h; not FORMAT_AUTO or
 * FORMAT_BOTH: -EINVAL); comment goes into pprof only. Returns 0 or -errno. */
int emit__write(const struct profile *p, enum out_format fmt, const char *comment, FILE *out);

/* The same into a new buffer (*buf, *len; free() it). */
int emit__render(const struct profile *p, enum out_format fmt, const char *comment,
		 char **buf, size_t *len);

/* Whether fmt is a row with a writer (a unit test asks it of each row). */
bool emit__has_writer(enum out_format fmt);

#endif
