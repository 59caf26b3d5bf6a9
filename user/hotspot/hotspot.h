/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * OpenJDK's HotSpot as a runtime (base/runtime.h): its processes found by
 * their libjvm.so, their vmStructs read once (hs_find), and the code
 * cache's addresses named from the VM's own structures (hs_code) while
 * the process runs: compiled Java methods "package.Class.method", stubs
 * and the interpreter by their blobs' names. What was named is kept per
 * process, so a JVM that exited before its samples were named still has
 * them named.
 */
#ifndef BPFPROF_HOTSPOT_H
#define BPFPROF_HOTSPOT_H

#include "base/runtime.h"

extern const struct runtime_ops hotspot_runtime;

#define HS_NAMED_MAX	8192	/* blobs kept named per process */

#endif
