/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* After the options: one-shot, fleet and top options that only make
 * sense together, and the defaults that depend on the mode. */
#ifndef BPFPROF_CLI_MODES_H
#define BPFPROF_CLI_MODES_H

#include "cli/cli.h"

/* Checks the parsed cfg's mode (a usage error printed: CLI_EXIT_USAGE)
 * and fills in what depends on it: fleet mode's rate, top's refresh, the
 * default events, the format from -o's name. */
enum cli_result cli_modes__check(struct config *cfg);

#endif
