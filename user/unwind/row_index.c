// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A file's page index: for each page of its text, how many rows start at or before it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/row_index.h"

_Static_assert(sizeof(struct row_index_head) == sizeof(struct unwind_row),
	       "the head is one row of the chunk");
_Static_assert(sizeof(struct row_index_slot) == sizeof(struct unwind_row),
	       "a slot is one row of the chunk");

#define MIN_SHIFT	4	/* 16-byte pages: no finer than the code's alignment */
#define MAX_SHIFT	47	/* any two user addresses share such a page */

static uint64_t pages_at(const struct unwind_row *rows, size_t n, unsigned int shift)
{
	return (rows[n - 1].pc >> shift) - (rows[0].pc >> shift) + 1;
}

/* The finest pages with at most one per ROW_INDEX_ROWS_PER_PAGE rows. */
static unsigned int page_shift(const struct unwind_row *rows, size_t n)
{
	uint64_t most = n / ROW_INDEX_ROWS_PER_PAGE ? n / ROW_INDEX_ROWS_PER_PAGE : 1;
	unsigned int shift = MIN_SHIFT;

	while (shift < MAX_SHIFT && pages_at(rows, n, shift) > most)
		shift++;
	return shift;
}

/* How many of the rows have pc <= the start of page p (from *counted, the
 * count of an earlier page: pages are asked in order). */
static size_t count_to(const struct unwind_row *rows, size_t n, uint64_t page, unsigned int shift,
		       size_t *counted)
{
	uint64_t start = page > UINT64_MAX >> shift ? UINT64_MAX : page << shift;

	while (*counted < n && rows[*counted].pc <= start)
		(*counted)++;
	return *counted;
}

int row_index__build(const struct unwind_row *rows, size_t n, struct unwind_row **out,
		     size_t *nout)
{
	unsigned int shift = page_shift(rows, n);
	uint64_t npages = pages_at(rows, n, shift), base = rows[0].pc >> shift;
	size_t nslots = (size_t)(npages + ROW_INDEX_PER_SLOT - 1) / ROW_INDEX_PER_SLOT, counted = 0;
	struct row_index_head head = { .base_page = base, .npages = (__u32)npages,
				       .shift = (__u8)shift };
	struct unwind_row *idx;

	if (npages > UINT32_MAX)	/* unreachable at MAX_SHIFT: rows of 64-bit pcs */
		return -EINVAL;
	idx = calloc(nslots + 1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t k = 0; k < nslots; k++) {
		struct row_index_slot slot;

		/* count 3 is the next slot's count 0: the counter stays */
		for (unsigned int j = 0; j <= ROW_INDEX_PER_SLOT; j++)
			slot.count[j] = (__u32)count_to(rows, n, base + k * ROW_INDEX_PER_SLOT + j,
							shift, &counted);
		memcpy(&idx[k], &slot, sizeof(slot));
	}
	memcpy(&idx[nslots], &head, sizeof(head));
	*out = idx;
	*nout = nslots + 1;
	return 0;
}
