/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Recognising a CPython file: by its name, then by its symbols. */
#ifndef BPFPROF_PY_FIND_H
#define BPFPROF_PY_FIND_H

#include <stdint.h>

#include "elf/elf_read.h"

#define PY_ELF_LOADS	8

/* What an interpreter file says about itself (file virtual addresses). */
struct py_elf {
	uint64_t runtime;		/* _PyRuntime */
	uint64_t eval, eval_size;	/* _PyEval_EvalFrameDefault */
	struct elf_load loads[PY_ELF_LOADS];
	int nloads;
};

/* The minor version of a CPython file by its name ("python3.11",
 * "libpython3.12.so.1.0", "libpython3.7m.so"), -1 when it does not look
 * like one; *major set. */
int py_find__version(const char *path, int *major);

/* Reads the symbols and segments of the ELF file fd. Returns 0, or -ENOENT
 * when it lacks _PyRuntime or _PyEval_EvalFrameDefault. */
int py_find__elf(int fd, struct py_elf *out);

/* runtime address = file virtual address + *bias, for a mapping of the
 * file at start from file offset pgoff. Returns 0 or -ENOENT. */
int py_find__bias(const struct py_elf *e, uint64_t start, uint64_t pgoff, uint64_t *bias);

#endif
