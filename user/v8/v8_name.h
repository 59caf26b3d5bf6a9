/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A JavaScript function's name, script and line, read from another
 * process's V8 heap (hostile: any word may lie): every object's type is
 * checked before it is read as one, strings are followed through cons and
 * thin strings to a bounded depth and length, and the reads one name may
 * take are counted against a budget, so a heap of loops or huge strings
 * costs a bounded time and gives no name, never a wrong one.
 */
#ifndef BPFPROF_V8_NAME_H
#define BPFPROF_V8_NAME_H

#include <stddef.h>
#include <stdint.h>

#include "v8/v8_find.h"

#define V8_FUNC_MAX	256	/* a function's name, escaped, with its NUL */
#define V8_SCRIPT_MAX	512	/* a script's name, escaped, with its NUL */

/* Reads len bytes at addr of the process into buf: 0, -ESRCH (the
 * process is gone) or another -errno. */
typedef int (*v8_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

struct v8_fn_name {
	char func[V8_FUNC_MAX];		/* "" for an anonymous function */
	char script[V8_SCRIPT_MAX];	/* "" when not known */
	uint32_t line;			/* the function's first line; 0: not known */
};

/* The function whose SharedFunctionInfo is at tagged address sfi, sampled
 * with fingerprint finger (bpf/v8.h's V8_FINGER), into *out. Returns 0;
 * -ESRCH: the process is gone; -ESTALE: the object there is no more the
 * one sampled (moved by the collector, or another took its place);
 * -EINVAL: not what V8's layout says it is (a fake), or past the bounds;
 * -EFAULT: unreadable. */
int v8_name__sfi(const struct v8_layout *l, v8_read_fn read, void *arg, uint64_t sfi,
		 uint32_t finger, struct v8_fn_name *out);

#endif
