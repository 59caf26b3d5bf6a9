/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * OpenJDK's HotSpot as a runtime (base/runtime.h): its processes found by
 * their libjvm.so, their vmStructs read once (hs_find), and the code
 * cache's addresses named from the VM's own structures (hs_code) while
 * the process runs: compiled Java methods "package.Class.method", stubs
 * and the interpreter by their blobs' names. Its code heaps are walked
 * while it runs (each second at most), so a JVM that exited before its
 * samples were named still has them named.
 */
#ifndef BPFPROF_HOTSPOT_H
#define BPFPROF_HOTSPOT_H

#include "base/runtime.h"

extern const struct runtime_ops hotspot_runtime;

#define HS_WALK_EVERY_NS	1000000000ULL	/* a JVM's code heaps walked at most each second */
#define HS_WALK_CHANGING_NS	100000000ULL	/* ... each tenth of one while its code changes */
#define HS_WALK_SHARE		20	/* ... and at most a twentieth of the time */
#define HS_REFUSE_AFTER_NS	500000000ULL	/* tables refused twice this far apart: refused */
#define HS_FACTS_SETTLE_NS	2000000000ULL	/* the walker's facts: this far apart */

#endif
