/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* gzip (deflate with a gzip header), as pprof files and OTLP/HTTP bodies are. */
#ifndef BPFPROF_GZIP_H
#define BPFPROF_GZIP_H

#include <stddef.h>
#include <stdio.h>

/* buf, compressed, to out (flushed). Returns 0 or -errno. */
int gzip__write(const void *buf, size_t len, FILE *out);

/* buf, compressed, into *out (malloc'd, *out_len bytes). Returns 0 or -errno. */
int gzip__memory(const void *buf, size_t len, void **out, size_t *out_len);

#endif
