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

#include "base/errors.h"
#include "base/runtime.h"
#include "cli/cli.h"
#include "sampling/events.h"
#include "run/run.h"
#include "offline/symbolize.h"
#include "views/views.h"

/* libbpf's log (-vv; -v is bpfprof's own lines): names from BTF and ELF
 * files, a verifier log of many lines, each escaped by the one printer. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char msg[4096];
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);

	(void)level;
	if (n < 0)
		return n;
	p_foreign(msg);
	return n;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level; (void)fmt; (void)ap;
	return 0;
}

/* A profile (or top) run from a parsed command line. */
static int run_parsed(enum cli_result parsed, struct config *cfg)
{
	int ret = 0;

	switch (parsed) {
	case CLI_EXIT_OK:
		break;
	case CLI_EXIT_USAGE:
		ret = 2;
		break;
	case CLI_RUN:
		libbpf_set_print(cfg->verbose >= 2 ? libbpf_print : libbpf_quiet);
		p_quiet(cfg->quiet && !cfg->top);	/* top's own -q: its screen */
		if (cfg->list)
			events__list(stdout);
		else
			ret = run__profile(cfg);
		break;
	}
	cli_free(cfg);
	return ret;
}

static int cmd_top(int argc, char **argv)
{
	struct config cfg;

	return run_parsed(cli_parse_top(argc, argv, &cfg), &cfg);
}

/* The subcommands, by the first argument; anything else is a profile run
 * (`bpfprof [options] [-- command]`). */
static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the name */
	const struct option *(*options)(void);	/* its long options */
} cmds[] = {
	{ "report", views__main, views__options },
	{ "flamegraph", views__main, views__options },
	{ "diff", views__main, views__options },
	{ "symbolize", symbolize__main, symbolize__options },
	{ "top", cmd_top, cli_options },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* Hidden, for completion/bpfprof.bash: `--complete-words commands` prints
 * the subcommands, `--complete-words options [COMMAND]` the long options of
 * a profile run (or of COMMAND), one a line, from the tables above. */
static int complete_words(int argc, char **argv)
{
	const struct option *opts = cli_options();
	size_t i;

	if (argc == 3 && !strcmp(argv[2], "commands")) {
		for (i = 0; i < NCMDS; i++)
			printf("%s\n", cmds[i].name);
		return 0;
	}
	if ((argc != 3 && argc != 4) || strcmp(argv[2], "options")) {
		p_err("usage: bpfprof --complete-words commands | options [COMMAND]");
		return 2;
	}
	for (i = 0; argc == 4 && i < NCMDS && strcmp(argv[3], cmds[i].name); i++)
		;
	if (argc == 4 && i == NCMDS) {
		p_err("--complete-words: no command '%s'", argv[3]);
		return 2;
	}
	if (argc == 4)
		opts = cmds[i].options();
	for (; opts->name; opts++)
		printf("--%s\n", opts->name);
	return 0;
}

int main(int argc, char **argv)
{
	struct config cfg;
	size_t i;

	cli_use_runtimes(runtime_rows);
	if (argc > 1 && !strcmp(argv[1], "--complete-words"))
		return complete_words(argc, argv);
	for (i = 0; argc > 1 && i < NCMDS; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	return run_parsed(cli_parse(argc, argv, &cfg), &cfg);
}
