// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bpftool's p_err, for bpfprof: one place decides how a line looks, and
 * the only file that writes to stderr (tools/check_printer.sh, make layers). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/term_safe.h"

/* A message's bound before escaping; longer ones end in "...". */
#define MESSAGE_MAX 2048

/* "bpfprof: " KIND MESSAGE [" (see " HELP ")"] "\n", under stderr's lock so
 * that the pieces of one line stay together. MESSAGE often quotes what other
 * users control (a comm, a file name, a line from the control FIFO): it is
 * escaped (term_safe.h), so it is one line and drives no terminal. */
static void print_line(const char *kind, const char *help, const char *fmt, va_list ap)
{
	char msg[MESSAGE_MAX];
	int saved = errno, n;

	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		snprintf(msg, sizeof(msg), "(unprintable message: %s)", fmt);
	flockfile(stderr);
	fputs("bpfprof: ", stderr);
	fputs(kind, stderr);
	term_safe__fputs(msg, 0, stderr);
	if (n >= (int)sizeof(msg))
		fputs("...", stderr);
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

/* Set once, before the run's threads start. */
static bool info_quiet;

void p_quiet(bool quiet)
{
	info_quiet = quiet;
}

void p_info(const char *fmt, ...)
{
	va_list ap;

	if (info_quiet)
		return;

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

void p_foreign(const char *text)
{
	const char *line, *end;
	char piece[MESSAGE_MAX];
	int saved = errno;

	flockfile(stderr);
	for (line = text; *line; line = end + 1) {
		end = strchr(line, '\n');
		snprintf(piece, sizeof(piece), "%.*s", (int)(end ? end - line : (long)strlen(line)),
			 line);
		term_safe__fputs(piece, 0, stderr);
		if (!end)
			break;
		fputc('\n', stderr);
	}
	funlockfile(stderr);
	errno = saved;
}

void p_progress(const char *fmt, ...)
{
	char msg[MESSAGE_MAX];
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	flockfile(stderr);
	fputs("\rbpfprof: ", stderr);
	term_safe__fputs(msg, 0, stderr);
	fputs("\033[K", stderr);
	fflush(stderr);
	funlockfile(stderr);
	errno = saved;
}

void p_progress_clear(void)
{
	flockfile(stderr);
	fputs("\r\033[K", stderr);
	fflush(stderr);
	funlockfile(stderr);
}

/* write(2) only: stdio's lock may be held by the code the signal cut into. */
int p_err_signal_safe(const char *msg)
{
	static const char head[] = "\nbpfprof: ";
	int saved = errno, ret = 0;

	if (write(STDERR_FILENO, head, sizeof(head) - 1) < 0 ||
	    write(STDERR_FILENO, msg, strlen(msg)) < 0 || write(STDERR_FILENO, "\n", 1) < 0)
		ret = -1;
	errno = saved;
	return ret;
}
