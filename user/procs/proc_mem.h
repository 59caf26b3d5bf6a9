/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Another process's memory, read the way the runtimes' readers (python/,
 * v8/) take it: a callback over a pid. */
#ifndef BPFPROF_PROC_MEM_H
#define BPFPROF_PROC_MEM_H

#include <stddef.h>
#include <stdint.h>

/* len bytes at addr of the process *(pid_t *)arg into buf, whole or not at
 * all: 0, -ESRCH (gone), -EFAULT (not all of it mapped) or another -errno. */
int proc_mem__read(void *arg, uint64_t addr, void *buf, size_t len);

#endif
