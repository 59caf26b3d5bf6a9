// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of errors.c: every line bpfprof prints looks the same, and
 * printing it leaves errno alone. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>

#include "leak_check.h"
#include "errors.h"

TestSuite(errors, .init = cr_redirect_stderr, .fini = check_leaks);

Test(errors, every_kind_of_line)
{
	p_err("cannot open %s: %s", "x.folded", "No such file or directory");
	p_warn("no kernel symbols (/proc/kallsyms: %s)", "Permission denied");
	p_info("%d samples", 42);
	p_usage("bpfprof --help", "invalid frequency '%s': expected 1..100000 Hz", "0");
	p_usage("bpfprof report|flamegraph|diff --help", "%s", "unexpected argument 'x'");
	fflush(stderr);
	cr_assert_stderr_eq_str(
		"bpfprof: cannot open x.folded: No such file or directory\n"
		"bpfprof: warning: no kernel symbols (/proc/kallsyms: Permission denied)\n"
		"bpfprof: 42 samples\n"
		"bpfprof: invalid frequency '0': expected 1..100000 Hz (see bpfprof --help)\n"
		"bpfprof: unexpected argument 'x' (see bpfprof report|flamegraph|diff --help)\n");
}

Test(errors, errno_survives_the_print)
{
	errno = ENOENT;
	p_err("%s", "x");
	cr_expect_eq(errno, ENOENT);
	errno = EACCES;
	p_warn("%s", "y");
	cr_expect_eq(errno, EACCES);
}
