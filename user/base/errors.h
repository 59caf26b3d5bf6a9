/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one printer of bpfprof's own lines on stderr (and of all it writes
 * there: make layers fails on a write to stderr elsewhere): each is one line,
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

/* Text another library wrote for its log (libbpf's, under -vv): each of its
 * lines escaped as MESSAGE is, no prefix (the library names itself), its own
 * line ends kept. */
void p_foreign(const char *text);

/* The progress line of a terminal: "\rbpfprof: MESSAGE", the rest of the
 * line erased, no newline (the next one overwrites it); p_progress_clear()
 * erases it before other lines. For a terminal only: the caller checks. */
void p_progress(const char *fmt, ...) P_PRINTF(1, 2);
void p_progress_clear(void);

/* From a signal handler: "\nbpfprof: MSG\n" by write(2) alone
 * (async-signal-safe); MSG is a literal of bpfprof's, not escaped. -1 when
 * stderr took none of it. */
int p_err_signal_safe(const char *msg);

#endif
