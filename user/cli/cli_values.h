/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The values options take: whole strings only (no sign where none is
 * meant, no trailing garbage, no overflow). Each 0, or -EINVAL (-ENOMEM). */
#ifndef BPFPROF_CLI_VALUES_H
#define BPFPROF_CLI_VALUES_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/config.h"

/* A decimal count 0..max. */
int cli_value__ulong(const char *s, unsigned long max, unsigned long *out);

/* Seconds, fractions allowed: > 0, or >= 0 when zero_ok; at most a year. */
int cli_value__seconds(const char *s, bool zero_ok, double *out);

/* "PID[,PID]": each > 0, appended to *ids (grown; the caller frees it). */
int cli_value__ids(const char *list, pid_t **ids, int *nids);

/* "512", "64K", "10M", "1G": bytes, > 0, at most 2^50. */
int cli_value__size(const char *s, unsigned long long *out);

/* folded, pprof, both, html, svg. */
int cli_value__format(const char *s, enum out_format *out);

#endif
