/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Command line -> one struct config. Parses only: opens nothing. */
#ifndef BPFPROF_CLI_H
#define BPFPROF_CLI_H

#include <getopt.h>

#include "base/config.h"

enum cli_result {
	CLI_RUN = 0,	/* profile with the config */
	CLI_EXIT_OK,	/* --help, --version: printed, exit 0 */
	CLI_EXIT_USAGE,	/* bad usage: message printed, exit 2 */
};

/* Fills cfg from argv. Messages go to stderr (usage errors) or stdout
 * (--help, --version). cfg must be released with cli_free(). */
enum cli_result cli_parse(int argc, char **argv, struct config *cfg);

/* The same for `bpfprof top [options]`, argv[0] being "top". */
enum cli_result cli_parse_top(int argc, char **argv, struct config *cfg);
void cli_free(struct config *cfg);

/* The runtimes whose off options ("--no-python") the parser, the usage and
 * the completion take, by id (base/runtime.h's runtime_rows): main gives
 * them before parsing, so the parser links no runtime (the fuzz harness
 * of this file has none); until then none. */
struct runtime_ops;
void cli_use_runtimes(const struct runtime_ops *const *rows);

/* The long options of a profile run and of top (the completion's words). */
const struct option *cli_options(void);

#endif
