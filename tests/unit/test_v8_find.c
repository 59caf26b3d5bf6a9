// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of v8_find: node's own v8dbg_ symbols read into a layout that
 * holds what every x86-64 V8 without pointer compression guarantees (the
 * frame's function 16 bytes below its frame pointer, the context 8, the
 * map at an object's start, the tags); a file that fakes them with a value
 * out of bounds refused; a file without them, and no ELF, told apart.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "v8/v8_find.h"

#define NODE		"/usr/bin/node"		/* the e2e tests' node: Debian's 18 or 20 */
#define FAKE		"build/examples/v8dbg_fake"
#define FAKE_OK		"build/examples/v8dbg_fake_ok"	/* the same without the lie */
#define NOT_V8		"build/examples/inline_hot"

static int find(const char *path, struct v8_layout *l)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	cr_assert(fd >= 0, "open %s", path);
	err = v8_find__elf(fd, l);
	close(fd);
	return err;
}

Test(v8_find, node)
{
	struct v8_layout l;

	cr_assert_eq(find(NODE, &l), 0);
	cr_expect_eq(l.fp_function, -16);
	cr_expect_eq(l.fp_context, -8);
	cr_expect(l.fp_bytecode_offset < l.fp_function);
	cr_expect_eq(l.obj_map, 0);
	cr_expect_eq(l.smi_tag, 0);
	cr_expect_eq(l.smi_mask, 1);
	cr_expect_eq(l.heap_tag, 1);
	cr_expect_eq(l.heap_mask, 3);
	cr_expect_eq(l.smi_shift, 32);
	/* fields after the map, 8-aligned pointers */
	cr_expect(l.fn_shared >= 8 && !(l.fn_shared & 7));
	cr_expect(l.sfi_name >= 8 && !(l.sfi_name & 7));
	cr_expect(l.seq_chars > l.str_length);
	/* strings come first among the instance types */
	cr_expect(l.type_function > l.first_nonstring);
	cr_expect(l.type_sfi > l.first_nonstring);
	cr_expect(l.type_sfi != l.type_script && l.type_sfi != l.type_scope_info);
	cr_expect(l.first_nonstring & l.not_string_mask);
	cr_expect(!((l.first_nonstring - 1u) & l.not_string_mask), "the last string is one");
	/* what the namer follows: strings' halves, arrays, ScopeInfo's counts */
	cr_expect(l.cons_first >= 8 && l.cons_second > l.cons_first);
	cr_expect(l.thin_actual >= 8 && l.seq2_chars > l.str_length);
	cr_expect(l.fixed_data > l.fixed_length && l.script_line_ends > l.script_name);
	cr_expect(l.scope_first_vars > l.scope_ncontextlocals);
	/* the builtins embedded in the file: node's are 1.6 MiB of .text */
	cr_expect(l.builtins_end - l.builtins_start > (1u << 20), "builtins %#lx-%#lx",
		  (unsigned long)l.builtins_start, (unsigned long)l.builtins_end);
}

Test(v8_find, faked_out_of_bounds_refused)
{
	struct v8_layout l;

	cr_expect_eq(find(FAKE, &l), -EPROTO);
	cr_expect_eq(l.fp_function, 0, "nothing of a refused file is kept");
	/* in bounds, the same file is read (from .symtab, .data and .bss) */
	cr_assert_eq(find(FAKE_OK, &l), 0);
	cr_expect_eq(l.fp_function, -16);
	cr_expect_eq(l.fn_shared, 24);
	cr_expect_eq(l.type_function, 2066);
}

Test(v8_find, not_v8)
{
	struct v8_layout l;
	char path[] = "/tmp/bpfprof_v8_XXXXXX";
	int fd = mkstemp(path);

	cr_expect_eq(find(NOT_V8, &l), -ENOENT);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "v8dbg_SmiTag\n", 13), 13);
	cr_expect_eq(v8_find__elf(fd, &l), -EINVAL);
	close(fd);
	unlink(path);
}

Test(v8_find, named)
{
	cr_expect(v8_find__named("/usr/bin/node"));
	cr_expect(v8_find__named("/opt/node-v20/bin/node20"));
	cr_expect(v8_find__named("/usr/lib/x86_64-linux-gnu/libnode.so.108"));
	cr_expect(v8_find__named("node"));
	cr_expect_not(v8_find__named("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	cr_expect_not(v8_find__named("/usr/bin/python3.11"));
	cr_expect_not(v8_find__named("/tmp/x/app-node"));
}
