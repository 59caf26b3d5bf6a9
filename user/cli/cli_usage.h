/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* --help, and the option a mistyped one was probably meant to be. */
#ifndef BPFPROF_CLI_USAGE_H
#define BPFPROF_CLI_USAGE_H

#include <getopt.h>
#include <stdio.h>

#define CLI_USAGE_MAX_NAME	32	/* longer words are no option's misspelling */
#define CLI_SEE_HELP		"bpfprof --help"	/* where a usage error points */

/* One usage error line on stderr (fmt takes arg), pointing at --help. */
void cli_usage__error(const char *fmt, const char *arg);

/* Prints --help, grouped: profiling, events, outputs, fleet mode. */
void cli_usage__help(FILE *f);

/* The long option (name without "--") nearest to word (without "--", an
 * "=VALUE" ignored), or NULL when none is close enough to be a typo. */
const char *cli_usage__closest(const char *word, const struct option *opts);

/* The runtimes' rows whose off options the parser and --help list
 * (cli_use_runtimes()); NULL for an id with none given. */
struct runtime_ops;
void cli_usage__use_runtimes(const struct runtime_ops *const *rows);
const struct runtime_ops *cli_usage__runtime(int id);

#endif
