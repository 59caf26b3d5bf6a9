/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One profiling run, from the parsed config to the written profile:
 * sample -> maps -> drain -> resolve -> aggregate -> emit -> output. */
#ifndef BPFPROF_RUN_H
#define BPFPROF_RUN_H

#include "base/config.h"

/* Profiles as cfg says. Returns the exit status: 1 on an error, else the
 * command's status (as perf record gives it), else 0. */
int run__profile(const struct config *cfg);

#endif
