// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of grow.h: the one growth rule of appended arrays. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

/* qsort and bsearch take no NULL: an array asked for nothing yet exists */
Test(grow, first_call_allocates_even_for_nothing)
{
	uint64_t *arr = NULL;
	size_t cap = 0;

	cr_assert_eq(GROW(arr, cap, 0), 0);
	cr_assert_not_null(arr);
	cr_assert_eq(cap, 4096 / sizeof(*arr), "a page's worth: %zu", cap);
	free(arr);
}

Test(grow, doubles_and_keeps_what_it_held)
{
	uint32_t *arr = NULL;
	size_t cap = 0;

	for (uint32_t i = 0; i < 5000; i++) {
		cr_assert_eq(GROW(arr, cap, i + 1), 0);
		arr[i] = i;
	}
	cr_assert_eq(cap, 8192, "1024 doubled three times: %zu", cap);
	for (uint32_t i = 0; i < 5000; i++)
		cr_assert_eq(arr[i], i);
	free(arr);
}

Test(grow, over_max_leaves_the_array_as_it_was)
{
	char *arr = NULL;
	size_t cap = 0;

	cr_assert_eq(grow__to(&arr, &cap, 100, 1, 5000), 0);
	memset(arr, 'x', 100);
	cr_assert_eq(grow__to(&arr, &cap, 5001, 1, 5000), -ENOMEM);
	cr_assert_eq(cap, 4096);
	cr_assert_eq(arr[99], 'x');
	cr_assert_eq(grow__to(&arr, &cap, 4097, 1, 5000), 0);
	cr_assert_eq(cap, 5000, "capped at max: %zu", cap);
	free(arr);
}

Test(grow, a_size_over_a_page_starts_at_one)
{
	char (*arr)[8192] = NULL;
	size_t cap = 0;

	cr_assert_eq(GROW(arr, cap, 3), 0);
	cr_assert_eq(cap, 4);
	free(arr);
}
