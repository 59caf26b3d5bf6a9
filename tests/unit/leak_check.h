/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Criterion ignores how a test's process exits once the test has reported,
 * and failed assertions in .fini, so a leak LeakSanitizer finds at exit
 * would not fail the run: suites check after each test instead, and crash
 * (which Criterion reports as a failure) on a leak.
 *   TestSuite(name, .fini = check_leaks);
 */
#ifndef BPFPROF_TEST_LEAK_CHECK_H
#define BPFPROF_TEST_LEAK_CHECK_H

#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_LSAN 1
#endif
#endif

#ifdef HAVE_LSAN
#include <sanitizer/lsan_interface.h>
#endif

static inline void check_leaks(void)
{
#ifdef HAVE_LSAN
	if (__lsan_do_recoverable_leak_check())
		abort();
#endif
}

#endif
