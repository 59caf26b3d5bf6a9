// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The BPF walker's facts of a JVM (hs_facts.h). */
#include <errno.h>
#include <string.h>

#include "hotspot/hs_code.h"
#include "hotspot/hs_facts.h"

/* An offset of a CodeBlob field the walker reads: bounded. */
static bool field_ok(uint32_t offset)
{
	return offset <= HS_BLOB_FIELD_MAX;
}

/* The code heaps, each within the code cache's bounds [low, high). */
static int heaps(const struct hs_layout *l, hs_read_fn rd, void *arg, uint64_t low, uint64_t high,
		 struct hs_facts *out)
{
	struct hs_heap_view h[HS_BPF_HEAPS];
	int n = hs_code__heaps(l, rd, arg, h, HS_BPF_HEAPS);

	if (n < 0)
		return n;
	if (!n)
		return -ENOENT;
	for (int i = 0; i < n; i++) {
		if (h[i].low < low || h[i].high > high || !h[i].segmap)
			return -EPROTO;
		out->heaps[i] = (struct hs_heap){ .low = h[i].low, .high = h[i].high,
						  .segmap = h[i].segmap,
						  .log2_seg = (uint32_t)h[i].log2_seg };
	}
	out->nheaps = (uint32_t)n;
	return 0;
}

int hs_facts__read(const struct hs_layout *l, hs_read_fn rd, void *arg, struct hs_facts *out)
{
	uint64_t low, high, start, end;
	int err;

	memset(out, 0, sizeof(*out));
	if (!field_ok(l->blob_code_begin) || !field_ok(l->blob_frame_size) ||
	    !field_ok(l->blob_frame_complete) || l->heap_block_size > HS_BLOB_FIELD_MAX ||
	    l->frame_sender_sp >= 0 || l->frame_method >= 0)
		return -EPROTO;
	if ((err = rd(arg, l->code_low, &low, sizeof(low))) ||
	    (err = rd(arg, l->code_high, &high, sizeof(high))))
		return err == -ESRCH ? err : -EPROTO;
	if (!low || low >= high)
		return -ENOENT;		/* the VM starting: no code cache yet */
	if ((err = heaps(l, rd, arg, low, high, out)) ||
	    (err = hs_code__interpreter(l, rd, arg, low, high, &start, &end)))
		return err;
	out->interp_start = start;
	out->interp_end = end;
	out->block_size = (uint16_t)l->heap_block_size;
	out->blob_code_begin = (uint16_t)l->blob_code_begin;
	out->blob_frame_size = (uint16_t)l->blob_frame_size;
	out->blob_frame_complete = (uint16_t)l->blob_frame_complete;
	out->frame_sender_sp = (int16_t)l->frame_sender_sp;
	out->frame_method = (int16_t)l->frame_method;
	return 0;
}
