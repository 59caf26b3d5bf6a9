/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* V8's (node's) row of the runtimes' table (runtimes/runtimes.c). */
#ifndef BPFPROF_V8_RUNTIME_H
#define BPFPROF_V8_RUNTIME_H

#include "base/runtime.h"

extern const struct runtime_ops v8_runtime;

#endif
