// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: user/render/read_profile.c, the views' reader of profile
 * files (folded text, pprof raw or gzip-compressed, told apart by decoding),
 * then what every view builds of what it read: the report table, the flame
 * tree, the SVG. The input is the file's bytes. An accepted profile's total
 * is the sum of its stacks (no wrap), every frame index is in range, the
 * table and the tree account for the same total, the SVG is UTF-8 with
 * no control byte but a newline and no '<' but the markup's own, and the
 * HTML page (which may be written to standard output) is UTF-8 with no
 * control character (C0 but a tab or newline, DEL, C1) and no mark that
 * reorders text.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/fgtree.h"
#include "render/flamegraph.h"
#include "fuzz_check.h"
#include "render/svg.h"
#include "render/table.h"
#include "render/vprof.h"

static void check_profile(const struct vprof *v)
{
	uint64_t sum = 0;
	size_t i, d;

	for (i = 0; i < v->nstacks; i++) {
		CHECK(!__builtin_add_overflow(sum, v->stacks[i].count, &sum));
		CHECK(v->stacks[i].comm != NULL);
		for (d = 0; d < v->stacks[i].depth; d++)
			CHECK(v->stacks[i].frames[d] < v->nframes);
	}
	CHECK(sum == v->total);
}

/* Well-formed UTF-8 and no control byte but '\n' (what svg__xml_text and
 * the markup promise XML parsers), and '\t' where tab is true (the page's
 * script); no C1 control, no mark that reorders text (what json_string
 * promises a terminal). */
static void check_text_bytes(const unsigned char *s, size_t len, bool tab)
{
	size_t i = 0, n, k;

	while (i < len) {
		if (s[i] < 0x80) {
			CHECK(s[i] >= 0x20 || s[i] == '\n' || (tab && s[i] == '\t'));
			CHECK(s[i] != 0x7f);
			i++;
			continue;
		}
		n = s[i] >= 0xf0 ? 4 : s[i] >= 0xe0 ? 3 : 2;
		CHECK(s[i] >= 0xc2 && s[i] <= 0xf4 && i + n <= len);
		for (k = 1; k < n; k++)
			CHECK((s[i + k] & 0xc0) == 0x80);
		CHECK(!(s[i] == 0xed && s[i + 1] >= 0xa0));	/* no surrogate */
		CHECK(!(s[i] == 0xc2 && s[i + 1] <= 0x9f));	/* no C1 */
		CHECK(!(s[i] == 0xe2 && s[i + 1] == 0x80 &&	/* U+200E-200F, U+2028-202E */
			((s[i + 2] >= 0x8e && s[i + 2] <= 0x8f) || (s[i + 2] >= 0xa8 && s[i + 2] <= 0xae))));
		CHECK(!(s[i] == 0xe2 && s[i + 1] == 0x81 && s[i + 2] >= 0xa6 && s[i + 2] <= 0xa9));
		i += n;
	}
}

static void check_views(struct vprof *v)
{
	static const enum vfield fields[] = { VF_COMM, VF_DSO, VF_SYMBOL };
	struct vfilter all = { 0 };
	struct vtable t;
	struct fgtree tree;
	char *svg = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(vtable__build(v, fields, 3, &all, &t) == 0);
	CHECK(t.total == v->total && t.stacks == v->nstacks);
	vtable__free(&t);
	CHECK(fgtree__build(v, NULL, &all, &tree) == 0);
	CHECK(tree.total == v->total && tree.n >= 1 && tree.value[0] == v->total);
	f = open_memstream(&svg, &len);
	CHECK(f != NULL);
	CHECK(svg__write(v, &tree, "fuzz", f) == 0);
	CHECK(fclose(f) == 0);
	check_text_bytes((const unsigned char *)svg, len, false);
	free(svg);
	fgtree__free(&tree);
	svg = NULL;
	f = open_memstream(&svg, &len);
	CHECK(f != NULL);
	CHECK(flamegraph__write(v, NULL, &(struct fg_opts){ .title = "fuzz" }, f) == 0);
	CHECK(fclose(f) == 0);
	check_text_bytes((const unsigned char *)svg, len, true);
	free(svg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vprof *v = NULL;
	int err = vprof__parse("fuzz", data, size, &v);

	if (err) {
		CHECK(v == NULL);
		CHECK(err == -EINVAL || err == -ERANGE || err == -EOVERFLOW || err == -ENOMEM ||
		      err == -EFBIG || err == -E2BIG);
		return 0;
	}
	check_profile(v);
	check_views(v);
	vprof__free(v);
	return 0;
}
