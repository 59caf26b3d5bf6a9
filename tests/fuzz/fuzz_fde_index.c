// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: user/elf/fde_index.c, the function starts read from
 * .eh_frame (with user/elf/cfi_bytes.c's readers). The input is the
 * section's bytes, loaded at 0x1000. Whatever is found for an address must
 * be a function start at or below it, and the same on a second lookup.
 */
#include <stdint.h>
#include <string.h>

#include "elf/fde_index.h"
#include "fuzz_check.h"

#define VADDR	0x1000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fde_index *fi = fde_index__from_eh_frame(data, size, VADDR);
	uint64_t start, again, probe;

	if (!fi)
		return 0;
	/* probes: addresses around the section and the input's own words */
	for (size_t i = 0; i + 4 <= size && i < 256; i += 4) {
		uint32_t word;

		memcpy(&word, data + i, 4);
		for (int k = 0; k < 2; k++) {
			probe = k ? VADDR + i + (int32_t)word : word;
			if (fde_index__find(fi, probe, &start))
				continue;
			CHECK(start <= probe);
			CHECK(!fde_index__find(fi, start, &again) && again == start);
		}
	}
	CHECK(fde_index__bytes(fi) >= fde_index__count(fi) * 16);
	fde_index__free(fi);
	return 0;
}
