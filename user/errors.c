// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bpftool's p_err, for bpfprof: one place decides how a line looks. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "errors.h"

/* "bpfprof: " KIND MESSAGE [" (see " HELP ")"] "\n", under stderr's lock so
 * that the pieces of one line stay together. */
static void print_line(const char *kind, const char *help, const char *fmt, va_list ap)
{
	int saved = errno;

	flockfile(stderr);
	fputs("bpfprof: ", stderr);
	fputs(kind, stderr);
	vfprintf(stderr, fmt, ap);
	if (help)
		fprintf(stderr, " (see %s)", help);
	fputc('\n', stderr);
	funlockfile(stderr);
	errno = saved;
}

void p_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line("", NULL, fmt, ap);
	va_end(ap);
}

void p_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line("warning: ", NULL, fmt, ap);
	va_end(ap);
}

void p_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line("", NULL, fmt, ap);
	va_end(ap);
}

void p_usage(const char *help, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line("", help, fmt, ap);
	va_end(ap);
}
