/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Why a frame stayed unnamed: each unresolved frame is counted under one. */
#ifndef BPFPROF_UNNAMED_H
#define BPFPROF_UNNAMED_H

#include <linux/types.h>
#include "bpf/profile.h"	/* RUNTIME_MAX */

enum unnamed {
	UNNAMED_NONE,		/* named */
	UNNAMED_NO_MAPPING,	/* the address is in no mapping known of the process */
	UNNAMED_NO_JIT_MAP,	/* anonymous memory, and no perf map names it */
	UNNAMED_NO_FILE,	/* a mapping of no file that could be read ([heap], ...) */
	UNNAMED_UNREADABLE,	/* its file could not be opened */
	UNNAMED_NOT_ELF,	/* its file is not (valid) ELF */
	UNNAMED_OVER_LIMIT,	/* its file is beyond a bound of elf_limits.h */
	UNNAMED_NO_SYMBOL,	/* its file was read; no symbol covers the address */
	UNNAMED_NO_KSYMS,	/* a kernel address, and /proc/kallsyms was unreadable */
	UNNAMED_NO_KSYM,	/* a kernel address no kernel symbol covers */
	/* a runtime's frame it could not name: one each, at UNNAMED_RUNTIME +
	 * its id (its row says why: base/runtime.h) */
	UNNAMED_RUNTIME,
	UNNAMED_MAX = UNNAMED_RUNTIME + RUNTIME_MAX
};

#endif
