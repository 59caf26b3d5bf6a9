// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of errors.c: every line bpfprof prints looks the same, and
 * printing it leaves errno alone. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "leak_check.h"
#include "base/errors.h"

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

/* Messages quote what other users control (a comm, a control FIFO's line):
 * printed escaped, one line whatever they hold, and bounded. */
Test(errors, quoted_input_escaped_on_one_line_bounded)
{
	static const char warned[] =
		"bpfprof: warning: control: unknown command '\\x1b]2;X\\x07\\n# m\xc3\xbcller\\xff'\n";
	char big[5000], got[8192];
	size_t n;
	FILE *err;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	p_warn("control: unknown command '%s'", "\033]2;X\007\n# m\xc3\xbcller\xff");
	p_info("%s", big);
	fflush(stderr);
	err = cr_get_redirected_stderr();
	n = fread(got, 1, sizeof(got) - 1, err);
	got[n] = '\0';
	cr_assert_eq(strncmp(got, warned, sizeof(warned) - 1), 0, "%s", got);
	/* the long one: "bpfprof: ", 2047 of its bytes, "...", a newline */
	cr_expect_eq(n - (sizeof(warned) - 1), 9 + 2047 + 3 + 1);
	cr_expect_str_eq(got + n - 5, "x...\n");
}

/* -q: what was done is not said; what went wrong still is. */
Test(errors, quiet_keeps_errors_and_warnings)
{
	p_quiet(true);
	p_info("%d samples", 42);
	p_warn("%s", "16 files' unwind tables did not fit: raise --unwind-rows");
	p_err("%s", "cannot write x");
	p_quiet(false);
	p_info("%s", "said again");
	fflush(stderr);
	cr_assert_stderr_eq_str(
		"bpfprof: warning: 16 files' unwind tables did not fit: raise --unwind-rows\n"
		"bpfprof: cannot write x\n"
		"bpfprof: said again\n");
}

/* libbpf's log (-vv): its lines as it wrote them, no prefix (it names
 * itself), each escaped as a message is (a BTF or ELF name is another
 * user's), its own line ends kept, a last line without one left open. */
Test(errors, foreign_log_escaped_line_by_line)
{
	p_foreign("libbpf: loading object 'a\033[2J'\nlibbpf: map 'x\xff'\n");
	p_foreign("libbpf: no newline");
	fflush(stderr);
	cr_assert_stderr_eq_str("libbpf: loading object 'a\\x1b[2J'\n"
				"libbpf: map 'x\\xff'\n"
				"libbpf: no newline");
}

/* The progress line: back to the line's start, the rest erased, no
 * newline; cleared before the summary. */
Test(errors, progress_line_overwritten_then_cleared)
{
	p_progress("%d s, %d samples, %d lost", 3, 297, 0);
	p_progress_clear();
	p_info("%s", "done");
	fflush(stderr);
	cr_assert_stderr_eq_str("\rbpfprof: 3 s, 297 samples, 0 lost\033[K\r\033[Kbpfprof: done\n");
}

/* From a signal handler: write(2) on fd 2, the line of its own. */
Test(errors, signal_safe_line)
{
	fflush(stderr);
	cr_assert_eq(p_err_signal_safe("aborted by a second signal: no profile written"), 0);
	cr_assert_stderr_eq_str("\nbpfprof: aborted by a second signal: no profile written\n");
}
