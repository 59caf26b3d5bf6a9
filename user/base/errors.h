/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one printer of bpfprof's own lines on stderr: each is one line,
 * "bpfprof: MESSAGE\n", written whole (other threads' lines do not cut into
 * it) and leaving errno as it was, so a caller may print, then return -errno. */
#ifndef BPFPROF_ERRORS_H
#define BPFPROF_ERRORS_H

#include <stdbool.h>

#define P_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Something failed: "bpfprof: MESSAGE". */
void p_err(const char *fmt, ...) P_PRINTF(1, 2);
/* Something is missing or lost but the run goes on: "bpfprof: warning: MESSAGE". */
void p_warn(const char *fmt, ...) P_PRINTF(1, 2);
/* What was done (start line, summaries): "bpfprof: MESSAGE"; nothing
 * after p_quiet(true). */
void p_info(const char *fmt, ...) P_PRINTF(1, 2);
/* -q: p_info() says nothing from now on (errors and warnings still do). */
void p_quiet(bool quiet);
/* A bad command line: "bpfprof: MESSAGE (see HELP)", HELP e.g. "bpfprof --help". */
void p_usage(const char *help, const char *fmt, ...) P_PRINTF(2, 3);

#endif
