// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Command line parsing, following perf record's option names. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include <linux/types.h>
#include "profile.h"

#ifndef BPFPROF_VERSION
#define BPFPROF_VERSION "dev"
#endif

static const char usage_text[] =
"Usage: bpfprof [OPTIONS] [-- COMMAND [ARGS...]]\n"
"Sample on-CPU stacks with eBPF and write them as folded stacks\n"
"(comm;outer;...;inner COUNT), ready for flame graph tools.\n"
"\n"
"  -F, --freq HZ         samples per second per CPU (default 99)\n"
"  -d, --duration SECS   stop after SECS seconds (default: Ctrl-C, or when COMMAND exits)\n"
"  -p, --pid PID[,PID]   profile only these processes (and their threads)\n"
"  -a, --all-cpus        profile the whole system (the default)\n"
"  -U, --user-only       user stacks only\n"
"  -K, --kernel-only     kernel stacks only\n"
"  -o, --output FILE     write the profile to FILE (default: standard output)\n"
"      --max-stacks N    room for N distinct stacks in the BPF maps (default 16384)\n"
"      --btf PATH        kernel BTF to use instead of /sys/kernel/btf/vmlinux\n"
"  -v, --verbose         print libbpf's messages\n"
"  -h, --help            this help\n"
"  -V, --version         print the version\n"
"\n"
"With -- COMMAND, bpfprof starts COMMAND, profiles it and its threads until it\n"
"exits, and writes the profile. Kernel frames carry the suffix _[k].\n"
"A one-line summary (samples, stacks, lost samples, unresolved frames) goes to stderr.\n";

static void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "bpfprof: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see bpfprof --help)\n");
}

/* Whole-string unsigned parse: no sign, no trailing garbage, no overflow. */
static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || *end || *out > max)
		return -EINVAL;
	return 0;
}

static int parse_duration(const char *s, double *out)
{
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	*out = strtod(s, &end);
	if (errno || *end || !isfinite(*out) || *out <= 0 || *out > 365.0 * 86400)
		return -EINVAL;
	return 0;
}

static int parse_pids(const char *list, struct config *cfg)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned long pid;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		pid_t *grown;

		if (parse_ulong(tok, INT_MAX, &pid) || pid == 0) {
			err = -EINVAL;
			break;
		}
		grown = realloc(cfg->pids, (cfg->npids + 1) * sizeof(*grown));
		if (!grown) {
			err = -ENOMEM;
			break;
		}
		cfg->pids = grown;
		cfg->pids[cfg->npids++] = (pid_t)pid;
	}
	if (!err && cfg->npids == 0)
		err = -EINVAL;
	free(copy);
	return err;
}

enum { OPT_BTF = 256, OPT_MAX_STACKS };

static const struct option long_opts[] = {
	{ "freq",        required_argument, NULL, 'F' },
	{ "duration",    required_argument, NULL, 'd' },
	{ "pid",         required_argument, NULL, 'p' },
	{ "all-cpus",    no_argument,       NULL, 'a' },
	{ "user-only",   no_argument,       NULL, 'U' },
	{ "kernel-only", no_argument,       NULL, 'K' },
	{ "output",      required_argument, NULL, 'o' },
	{ "btf",         required_argument, NULL, OPT_BTF },
	{ "max-stacks",  required_argument, NULL, OPT_MAX_STACKS },
	{ "verbose",     no_argument,       NULL, 'v' },
	{ "help",        no_argument,       NULL, 'h' },
	{ "version",     no_argument,       NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* One option into cfg; returns a cli_result, or -1 to keep going. */
static int apply_option(int opt, const char *arg, struct config *cfg)
{
	unsigned long n;

	switch (opt) {
	case 'F':
		if (parse_ulong(arg, CLI_MAX_FREQ, &n) || n == 0) {
			usage_error("invalid frequency '%s': expected 1.." "100000 Hz", arg);
			return CLI_EXIT_USAGE;
		}
		cfg->freq = (unsigned int)n;
		return -1;
	case 'd':
		if (parse_duration(arg, &cfg->duration)) {
			usage_error("invalid duration '%s': expected seconds > 0", arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case 'p':
		if (parse_pids(arg, cfg)) {
			usage_error("invalid pid list '%s'", arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case 'a':
		return -1;	/* system-wide is what we do without -p */
	case 'U':
	case 'K':
		if (cfg->sides != SIDES_BOTH) {
			usage_error("%s: -U and -K exclude each other", opt == 'U' ? "-U" : "-K");
			return CLI_EXIT_USAGE;
		}
		cfg->sides = opt == 'U' ? SIDES_USER_ONLY : SIDES_KERNEL_ONLY;
		return -1;
	case 'o':
		cfg->output = arg;
		return -1;
	case OPT_BTF:
		cfg->btf_path = arg;
		return -1;
	case OPT_MAX_STACKS:
		if (parse_ulong(arg, CLI_MAX_STACKS, &n) || n == 0) {
			usage_error("invalid --max-stacks '%s': expected 1..4194304", arg);
			return CLI_EXIT_USAGE;
		}
		cfg->max_stacks = (unsigned int)n;
		return -1;
	case 'v':
		cfg->verbose = true;
		return -1;
	case 'h':
		fputs(usage_text, stdout);
		return CLI_EXIT_OK;
	case 'V':
		printf("bpfprof %s\n", BPFPROF_VERSION);
		return CLI_EXIT_OK;
	default:
		return CLI_EXIT_USAGE;
	}
}

/* getopt's own messages are off (opterr = 0): ours fit on one line. */
static void bad_option(int opt, char **argv)
{
	const char *arg = argv[optind - 1];
	char shortopt[3] = { '-', (char)optopt, '\0' };

	if (optopt && opt == ':')
		usage_error("option '%s' needs an argument", shortopt);
	else if (opt == ':')
		usage_error("option '%s' needs an argument", arg);
	else if (optopt)
		usage_error("unknown option '%s'", shortopt);
	else
		usage_error("unknown option '%s'", arg);
}

enum cli_result cli_parse(int argc, char **argv, struct config *cfg)
{
	int opt, res;

	memset(cfg, 0, sizeof(*cfg));
	cfg->freq = 99;
	cfg->max_stacks = DEFAULT_MAX_STACKS;
	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option, so "bpfprof cmd -x" is not parsed as ours;
	 * ':': tell a missing argument from an unknown option */
	while ((opt = getopt_long(argc, argv, "+:F:d:p:aUKo:vhV", long_opts, NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			bad_option(opt, argv);
			return CLI_EXIT_USAGE;
		}
		res = apply_option(opt, optarg, cfg);
		if (res >= 0)
			return res;
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0) {
			usage_error("unexpected argument '%s' (a command goes after --)", argv[optind]);
			return CLI_EXIT_USAGE;
		}
		cfg->cmd = &argv[optind];
	}
	if (cfg->cmd && cfg->npids) {
		usage_error("%s", "-p and -- COMMAND exclude each other");
		return CLI_EXIT_USAGE;
	}
	return CLI_RUN;
}

void cli_free(struct config *cfg)
{
	free(cfg->pids);
	cfg->pids = NULL;
	cfg->npids = 0;
}
