/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Why a frame stayed unnamed: each unresolved frame is counted under one. */
#ifndef BPFPROF_UNNAMED_H
#define BPFPROF_UNNAMED_H

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
	UNNAMED_PY_CODE,	/* a Python frame whose code object was not read */
	UNNAMED_V8_FUNCTION,	/* a JavaScript frame whose function was not read */
	UNNAMED_MAX
};

#endif
