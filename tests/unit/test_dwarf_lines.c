// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of dwarf_lines.c against eu-addr2line -i on a real -O2 binary
 * (build/examples/inline_hot, built by make examples before the units). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dwarf_lines.h"
#include "leak_check.h"

TestSuite(dwarf_lines, .fini = check_leaks);

#define INLINE_HOT	"build/examples/inline_hot"

/* The address of a symbol, from nm. */
static uint64_t sym_addr(const char *file, const char *sym)
{
	char cmd[256];
	unsigned long long a = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s | awk '$3 == \"%s\" { print $1 }'", file, sym);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%llx", &a), 1, "%s in %s", sym, file);
	pclose(p);
	return a;
}

static struct dwarf_lines *open_file(const char *path, bool with_inline)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct dwarf_lines *dl;

	cr_assert(fd >= 0, "%s (make examples first)", path);
	dl = dwarf_lines__open(fd, path, with_inline);
	close(fd);
	cr_assert_not_null(dl, "%s", path);
	return dl;
}

/* Some address in mix_rounds is inside the inlined mix_step: the loop. */
Test(dwarf_lines, inline_frame_with_call_site)
{
	struct dwarf_lines *dl = open_file(INLINE_HOT, true);
	uint64_t start = sym_addr(INLINE_HOT, "mix_rounds");
	const struct src_chain *c, *hit = NULL;
	uint64_t a;

	for (a = start; a < start + 0x40 && !hit; a++) {
		c = dwarf_lines__at(dl, a);
		if (c && c->ninlined)
			hit = c;
	}
	cr_assert_not_null(hit, "no inline frame in mix_rounds");
	cr_expect_str_eq(hit->outer.name, "mix_rounds");
	cr_expect_str_eq(dwarf_lines__symbol(dl, a - 1), "mix_rounds");
	cr_assert_eq(hit->ninlined, 1);
	cr_expect_str_eq(hit->inlined[0].name, "mix_step");
	cr_assert_not_null(hit->outer.file);
	cr_expect(strstr(hit->outer.file, "examples/inline_hot.c") != NULL, "%s", hit->outer.file);
	cr_expect_eq(hit->outer.line, 27, "the call site in mix_rounds");
	cr_expect(hit->inlined[0].line >= 16 && hit->inlined[0].line <= 19, "line %u in mix_step",
		  hit->inlined[0].line);
	cr_expect_eq(dwarf_lines__at(dl, start + 0x13), dwarf_lines__at(dl, start + 0x13),
		     "cached: the same answer object");
	dwarf_lines__free(dl);
}

Test(dwarf_lines, no_inline_keeps_lines)
{
	struct dwarf_lines *dl = open_file(INLINE_HOT, false);
	uint64_t start = sym_addr(INLINE_HOT, "mix_rounds");

	for (uint64_t a = start; a < start + 0x30; a++) {
		const struct src_chain *c = dwarf_lines__at(dl, a);

		cr_assert_not_null(c);
		cr_expect_eq(c->ninlined, 0);
		cr_expect(c->outer.line > 0);
	}
	dwarf_lines__free(dl);
}

Test(dwarf_lines, not_elf)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	cr_assert(fd >= 0);
	cr_expect_null(dwarf_lines__open(fd, "/proc/self/cmdline", true));
	close(fd);
}
