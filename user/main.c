// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bpfprof: sample stacks with eBPF, write folded stacks.
 *
 * sample (bpf/profile.bpf.c) -> maps -> drain -> symbolize -> aggregate -> emit.
 * This file parses the command line and dispatches: a view of a profile
 * (user/views/), the event list, or a run (user/run/).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "cli/cli.h"
#include "sampling/events.h"
#include "run/run.h"
#include "base/term_safe.h"
#include "views/views.h"

/* libbpf's log (-v): names from BTF and ELF files, a verifier log of many
 * lines; each line printed by the one rule for text on a terminal
 * (term_safe.h), libbpf's own line ends kept. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char msg[4096], *line, *end;
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);

	(void)level;
	if (n < 0)
		return n;
	for (line = msg; *line; line = end + 1) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		term_safe__fputs(line, 0, stderr);
		if (!end)
			break;
		fputc('\n', stderr);
	}
	return n;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level; (void)fmt; (void)ap;
	return 0;
}

int main(int argc, char **argv)
{
	struct config cfg;
	int ret;

	if (argc > 1 && views__is_command(argv[1]))
		return views__main(argc - 1, argv + 1);
	switch (cli_parse(argc, argv, &cfg)) {
	case CLI_EXIT_OK:
		cli_free(&cfg);
		return 0;
	case CLI_EXIT_USAGE:
		cli_free(&cfg);
		return 2;
	case CLI_RUN:
		break;
	}
	libbpf_set_print(cfg.verbose ? libbpf_print : libbpf_quiet);
	if (cfg.list) {
		events__list(stdout);
		cli_free(&cfg);
		return 0;
	}
	ret = run__profile(&cfg);
	cli_free(&cfg);
	return ret;
}
