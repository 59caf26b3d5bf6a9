/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Arrays that grow by appending (drained records, symbols, mappings, rows,
 * frames): one rule for all of them. The first allocation holds a page's
 * worth of elements, each growth doubles, and a failure leaves the array
 * as it was.
 */
#ifndef BPFPROF_GROW_H
#define BPFPROF_GROW_H

#include <stddef.h>
#include <stdint.h>

/* *arrp (the address of an array pointer; *cap elements of size held)
 * to hold need elements, never more than max. Returns 0, or -ENOMEM when
 * need is over max or memory is short (the array unchanged). */
int grow__to(void *arrp, size_t *cap, size_t need, size_t size, size_t max);

/* GROW(arr, cap, need): arr, an lvalue pointer, to hold need elements. */
#define GROW(arr, cap, need)	grow__to(&(arr), &(cap), (need), sizeof(*(arr)), SIZE_MAX)

#endif
