/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A code object, read field by field from another process's memory. */
#ifndef BPFPROF_PY_CODE_H
#define BPFPROF_PY_CODE_H

#include <stddef.h>
#include <stdint.h>

struct py_version;

#define PY_STR_MAX	1024		/* characters of a name or file kept */
#define PY_LINES_MAX	(64 << 10)	/* bytes of a line table read */

/* Copies len bytes at addr of the other process into buf: 0 or -errno. */
typedef int (*py_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

struct py_code_info {
	char *qualname;		/* UTF-8, malloc()ed */
	char *filename;
	int firstlineno;
	uint8_t *lines;		/* co_linetable's bytes */
	size_t nlines;
	uint64_t lines_addr;	/* co_linetable itself: the object's fingerprint */
};

/* Reads the code object at addr; its type must be named "code" (*code_type
 * caches the type's address once checked). Returns 0, -ESRCH when the
 * process is gone, -EINVAL when it is not a code object, or -errno. */
int py_code__read(const struct py_version *v, py_read_fn rd, void *arg, uint64_t addr,
		  uint64_t *code_type, struct py_code_info *out);

void py_code__free(struct py_code_info *c);

/* A str object at addr as UTF-8 (compact strings: every str CPython makes
 * for names), malloc()ed into *out. Returns 0 or -errno. */
int py_code__str(const struct py_version *v, py_read_fn rd, void *arg, uint64_t addr, char **out);

#endif
