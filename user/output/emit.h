/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A profile in one output format, to a stream or into memory. */
#ifndef BPFPROF_EMIT_H
#define BPFPROF_EMIT_H

#include <stddef.h>
#include <stdio.h>

#include "base/config.h"

struct profile;

/* FORMAT_FOLDED, FORMAT_PPROF, FORMAT_OTLP, FORMAT_HTML or FORMAT_SVG; comment goes into pprof only. Returns 0 or -errno. */
int emit__write(const struct profile *p, enum out_format fmt, const char *comment, FILE *out);

/* The same into a new buffer (*buf, *len; free() it). */
int emit__render(const struct profile *p, enum out_format fmt, const char *comment,
		 char **buf, size_t *len);

/* The file name extension of a format: "folded", "pb.gz", "otlp", "html", "svg". */
const char *emit__extension(enum out_format fmt);

#endif
