/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Symbolizing later, elsewhere: `bpfprof symbolize IN -o OUT [--debug-dir
 * DIR]...` names the addresses of a pprof profile written with
 * --symbolize none, from the debug files of the machine it runs on.
 */
#ifndef BPFPROF_SYMBOLIZE_H
#define BPFPROF_SYMBOLIZE_H

#include <getopt.h>

/* The subcommand (argv[0] "symbolize"): 0, 1 on failure, 2 on bad usage. */
int symbolize__main(int argc, char **argv);

/* Its long options (the completion's words). */
const struct option *symbolize__options(void);

#endif
