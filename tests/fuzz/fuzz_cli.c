// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: user/cli/, the command line. The input is argv[1..] with
 * a NUL byte after each argument (the last one's is optional; argv[0] is
 * "bpfprof"; at most 64 arguments).
 * Each argument is its own heap block, so ASan sees a read past its end.
 *
 * Besides the config's invariants, the parse must not depend on what was
 * parsed before (getopt keeps global state): the same argv is parsed twice
 * and must give the same config, then a fixed command line must give its
 * known config.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "fuzz_check.h"

#define MAX_ARGS	64

static FILE *real_stderr;

/* cli.c prints usage errors to stderr and --help to stdout: send both
 * streams to /dev/null. Only the FILE pointers change: file descriptor 2,
 * where libFuzzer and the sanitizers report, stays as it is. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *null = fopen("/dev/null", "w");

	(void)argc;
	(void)argv;
	if (!null)
		abort();
	real_stderr = stderr;
	stdout = null;
	stderr = null;
	return 0;
}

static void check_config(enum cli_result res, const struct config *cfg, int argc, char **argv)
{
	CHECK(res == CLI_RUN || res == CLI_EXIT_OK || res == CLI_EXIT_USAGE);
	CHECK(cfg->npids >= 0 && (cfg->npids == 0) == (cfg->pids == NULL));
	for (int i = 0; i < cfg->npids; i++)
		CHECK(cfg->pids[i] > 0);
	if (res != CLI_RUN)
		return;
	CHECK(cfg->freq >= 1 && cfg->freq <= CLI_MAX_FREQ);
	CHECK(cfg->max_stacks >= 1 && cfg->max_stacks <= CLI_MAX_STACKS);
	CHECK(cfg->duration == 0 || (cfg->duration > 0 && cfg->duration <= 365.0 * 86400));
	CHECK(cfg->sides == SIDES_BOTH || cfg->sides == SIDES_USER_ONLY ||
	      cfg->sides == SIDES_KERNEL_ONLY);
	CHECK(!(cfg->cmd && cfg->npids));
	if (cfg->cmd) {
		/* a suffix of argv, non-empty, NULL-terminated where argv is */
		CHECK(cfg->cmd > argv && cfg->cmd < argv + argc);
		CHECK(cfg->cmd[argc - (cfg->cmd - argv)] == NULL);
		/* after a "--" that ended the options, not one that was an
		 * option's argument ("-o -- ls" has no command) */
		CHECK(!strcmp(cfg->cmd[-1], "--"));
		CHECK(cfg->cmd[-1] != cfg->output && cfg->cmd[-1] != cfg->btf_path);
	}
	if (cfg->output)
		(void)strlen(cfg->output);
	if (cfg->btf_path)
		(void)strlen(cfg->btf_path);
}

static bool same_config(const struct config *a, const struct config *b)
{
	return a->freq == b->freq && a->duration == b->duration && a->npids == b->npids &&
	       (!a->npids || !memcmp(a->pids, b->pids, a->npids * sizeof(*a->pids))) &&
	       a->sides == b->sides && a->output == b->output && a->btf_path == b->btf_path &&
	       a->max_stacks == b->max_stacks && a->cmd == b->cmd && a->verbose == b->verbose;
}

/* A known command line after whatever was parsed before. */
static void check_reference(void)
{
	char *argv[] = { "bpfprof", "-F", "7", "-d", "1.5", "--", "true", NULL };
	struct config cfg;

	CHECK(cli_parse(7, argv, &cfg) == CLI_RUN);
	CHECK(cfg.freq == 7 && cfg.duration == 1.5 && !cfg.verbose && !cfg.npids);
	CHECK(cfg.sides == SIDES_BOTH && !cfg.output && !cfg.btf_path);
	CHECK(cfg.cmd == &argv[6]);
	cli_free(&cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 2];
	int argc = 0;
	const uint8_t *p = data, *end = data + size, *nul;
	struct config first, second;
	enum cli_result r1, r2;

	argv[argc++] = strdup("bpfprof");
	while (p < end && argc <= MAX_ARGS) {
		size_t len;

		nul = memchr(p, '\0', (size_t)(end - p));
		len = nul ? (size_t)(nul - p) : (size_t)(end - p);
		argv[argc] = malloc(len + 1);
		if (!argv[argc])
			abort();
		memcpy(argv[argc], p, len);
		argv[argc][len] = '\0';
		argc++;
		if (!nul)
			break;
		p = nul + 1;
	}
	argv[argc] = NULL;

	r1 = cli_parse(argc, argv, &first);
	check_config(r1, &first, argc, argv);
	r2 = cli_parse(argc, argv, &second);
	CHECK(r1 == r2);
	/* (a usage error may leave a rejected value behind, NaN included) */
	if (r1 != CLI_EXIT_USAGE)
		CHECK(same_config(&first, &second));
	cli_free(&first);
	cli_free(&second);
	check_reference();

	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return 0;
}
