/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The subcommands that look at a profile: bpfprof report | flamegraph | diff. */
#ifndef BPFPROF_VIEWS_H
#define BPFPROF_VIEWS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

/* Runs the subcommand argv[0] (argv[1..] its arguments). Returns the exit
 * status: 0, 1 (runtime error) or 2 (usage). */
int views__main(int argc, char **argv);

/* The subcommands' long options (the completion's words). */
const struct option *views__options(void);

/* Writes buf to path ("-" or NULL: standard output), whole or not at all
 * (a temporary file renamed over it). Returns 0 or -errno, message printed. */
int views__write_file(const char *path, const void *buf, size_t len);

#endif
