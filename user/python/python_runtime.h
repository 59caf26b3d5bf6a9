/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* CPython's row of the runtimes' table (runtimes/runtimes.c). */
#ifndef BPFPROF_PYTHON_RUNTIME_H
#define BPFPROF_PYTHON_RUNTIME_H

#include "base/runtime.h"

extern const struct runtime_ops python_runtime;

#endif
