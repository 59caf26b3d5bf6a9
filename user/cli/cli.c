// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Command line parsing, following perf record's option names. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_modes.h"
#include "cli/cli_usage.h"
#include "cli/cli_values.h"
#include "base/errors.h"
#include "base/formats.h"
#include "base/runtime.h"
#include "sampling/events.h"
#include <linux/types.h>
#include "bpf/profile.h"

#ifndef BPFPROF_VERSION
#define BPFPROF_VERSION "dev"
#endif

enum {
	OPT_BTF = 256, OPT_MAX_STACKS, OPT_FORMAT, OPT_INTERVAL, OPT_OUTPUT_DIR, OPT_MAX_FILES,
	OPT_MAX_BYTES, OPT_PUSH, OPT_PUSH_AUTH_FILE, OPT_OTLP, OPT_APP, OPT_SPOOL_DIR, OPT_SPOOL_MAX,
	OPT_COMM, OPT_CGROUP, OPT_GROUP_BY, OPT_MAX_CGROUPS, OPT_LABELS, OPT_OFFCPU, OPT_MIN_BLOCK, OPT_LIST,
	OPT_CALL_GRAPH, OPT_UNWIND_ROWS, OPT_NO_DEMANGLE, OPT_DEMANGLE, OPT_KILL_AFTER, OPT_NO_PROGRESS,
	OPT_NO_INLINE, OPT_DEBUGINFOD_TIMEOUT, OPT_DWARF_MEM,
	OPT_JIT_MAP_MEM, OPT_SYMBOLIZE,
	OPT_REPORT, OPT_CONTROL, OPT_START_DISABLED, OPT_STATS,
	OPT_RUNTIME_OFF,	/* + a runtime's id: its row's off option (base/runtime.h) */
};

static const struct option long_opts[] = {
	{ "freq",        required_argument, NULL, 'F' },
	{ "duration",    required_argument, NULL, 'd' },
	{ "pid",         required_argument, NULL, 'p' },
	{ "tid",         required_argument, NULL, 't' },
	{ "event",       required_argument, NULL, 'e' },
	{ "count",       required_argument, NULL, 'c' },
	{ "comm",        required_argument, NULL, OPT_COMM },
	{ "cgroup",      required_argument, NULL, OPT_CGROUP },
	{ "group-by",    required_argument, NULL, OPT_GROUP_BY },
	{ "max-cgroups", required_argument, NULL, OPT_MAX_CGROUPS },
	{ "labels",      required_argument, NULL, OPT_LABELS },
	{ "off-cpu",     no_argument,       NULL, OPT_OFFCPU },
	{ "min-block",   required_argument, NULL, OPT_MIN_BLOCK },
	{ "list",        no_argument,       NULL, OPT_LIST },
	{ "call-graph",  required_argument, NULL, OPT_CALL_GRAPH },
	{ "unwind-rows", required_argument, NULL, OPT_UNWIND_ROWS },
	{ "no-demangle", no_argument,       NULL, OPT_NO_DEMANGLE },
	{ "demangle",    optional_argument, NULL, OPT_DEMANGLE },
	{ "no-inline",   no_argument,       NULL, OPT_NO_INLINE },
	{ "symbolize",   required_argument, NULL, OPT_SYMBOLIZE },
	{ "dwarf-mem",   required_argument, NULL, OPT_DWARF_MEM },
	{ "jit-map-mem", required_argument, NULL, OPT_JIT_MAP_MEM },
	{ "debuginfod-timeout", required_argument, NULL, OPT_DEBUGINFOD_TIMEOUT },
	{ "all-cpus",    no_argument,       NULL, 'a' },
	{ "user-only",   no_argument,       NULL, 'U' },
	{ "kernel-only", no_argument,       NULL, 'K' },
	{ "output",      required_argument, NULL, 'o' },
	{ "btf",         required_argument, NULL, OPT_BTF },
	{ "max-stacks",  required_argument, NULL, OPT_MAX_STACKS },
	{ "format",      required_argument, NULL, OPT_FORMAT },
	{ "report",      no_argument,       NULL, OPT_REPORT },
	{ "stats",       required_argument, NULL, OPT_STATS },
	{ "control",     required_argument, NULL, OPT_CONTROL },
	{ "start-disabled", no_argument,    NULL, OPT_START_DISABLED },
	{ "interval",    required_argument, NULL, OPT_INTERVAL },
	{ "output-dir",  required_argument, NULL, OPT_OUTPUT_DIR },
	{ "max-files",   required_argument, NULL, OPT_MAX_FILES },
	{ "max-bytes",   required_argument, NULL, OPT_MAX_BYTES },
	{ "push",        required_argument, NULL, OPT_PUSH },
	{ "push-auth-file", required_argument, NULL, OPT_PUSH_AUTH_FILE },
	{ "otlp",        required_argument, NULL, OPT_OTLP },
	{ "app",         required_argument, NULL, OPT_APP },
	{ "spool-dir",   required_argument, NULL, OPT_SPOOL_DIR },
	{ "spool-max",   required_argument, NULL, OPT_SPOOL_MAX },
	{ "kill-after",  required_argument, NULL, OPT_KILL_AFTER },
	{ "quiet",       no_argument,       NULL, 'q' },
	{ "no-progress", no_argument,       NULL, OPT_NO_PROGRESS },
	{ "verbose",     no_argument,       NULL, 'v' },
	{ "help",        no_argument,       NULL, 'h' },
	{ "version",     no_argument,       NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

#define N_LONG_OPTS	(sizeof(long_opts) / sizeof(long_opts[0]) - 1)

void cli_use_runtimes(const struct runtime_ops *const *rows)
{
	cli_usage__use_runtimes(rows);
}

/* long_opts, then each runtime's off option ("no-python"): its row's. */
static const struct option *all_options(void)
{
	static struct option all[N_LONG_OPTS + RUNTIME_MAX + 1];
	static const struct runtime_ops *made_for;
	const struct runtime_ops *rt;

	if (all[0].name && made_for == cli_usage__runtime(0))
		return all;
	memset(all, 0, sizeof(all));
	memcpy(all, long_opts, N_LONG_OPTS * sizeof(*all));
	for (int id = 0, n = N_LONG_OPTS; id < RUNTIME_MAX; id++)
		if ((rt = cli_usage__runtime(id)) && rt->off_option)
			all[n++] = (struct option){ rt->off_option, no_argument, NULL,
						    OPT_RUNTIME_OFF + id };
	made_for = cli_usage__runtime(0);
	return all;
}

/* --demangle[=short|full|none]: alone, perf's short form. */
static int set_demangle(struct name_sources *names, const char *form)
{
	if (!form || !strcmp(form, "short") || !strcmp(form, "full")) {
		names->demangle = true;
		names->demangle_full = form && !strcmp(form, "full");
	} else if (!strcmp(form, "none")) {
		names->demangle = false;
	} else {
		cli_usage__error("invalid --demangle '%s': expected short, full or none", form);
		return CLI_EXIT_USAGE;
	}
	return -1;
}

/* CLI_EXIT_USAGE with msg said (it takes arg) when bad, else -1: go on. */
static int usage_if(bool bad, const char *msg, const char *arg)
{
	if (!bad)
		return -1;
	cli_usage__error(msg, arg);
	return CLI_EXIT_USAGE;
}

/* --format: a row's name of base/formats.h, or both. */
static int format_option(const char *arg, struct config *cfg)
{
	char names[160];

	if (!cli_value__format(arg, &cfg->format))
		return -1;
	formats__list(names, sizeof(names), 0, " or ");
	p_usage(CLI_SEE_HELP, "invalid format '%s': expected %s", arg, names);
	return CLI_EXIT_USAGE;
}

/* A count 1..max in *n; false with msg said (it takes arg) if not. */
static bool count_ok(const char *arg, unsigned long max, const char *msg, unsigned long *n)
{
	if (!cli_value__ulong(arg, max, n) && *n)
		return true;
	cli_usage__error(msg, arg);
	return false;
}

/* --control fifo:CTL[,ACK], perf record's syntax: the paths only (opened
 * by the run, never created). */
static int parse_control(const char *arg, struct config *cfg)
{
	const char *spec = arg + strlen("fifo:"), *comma;

	if (strncmp(arg, "fifo:", 5) || !*spec || *spec == ',') {
		cli_usage__error("invalid --control '%s': expected fifo:CTL[,ACK]", arg);
		return CLI_EXIT_USAGE;
	}
	comma = strchr(spec, ',');
	if (comma && (!comma[1] || strchr(comma + 1, ','))) {
		cli_usage__error("invalid --control '%s': expected fifo:CTL[,ACK]", arg);
		return CLI_EXIT_USAGE;
	}
	free(cfg->control_ctl);
	free(cfg->control_ack);
	cfg->control_ack = comma ? strdup(comma + 1) : NULL;
	cfg->control_ctl = strndup(spec, comma ? (size_t)(comma - spec) : strlen(spec));
	if (!cfg->control_ctl || (comma && !cfg->control_ack)) {
		cli_usage__error("%s", "out of memory");
		return CLI_EXIT_USAGE;
	}
	return -1;
}

/* Options of fleet mode; returns a cli_result, or -1 to keep going. */
static int apply_fleet_option(int opt, const char *arg, struct config *cfg)
{
	unsigned long n;

	switch (opt) {
	case OPT_INTERVAL:
		return usage_if(cli_value__seconds(arg, false, &cfg->interval) || cfg->interval < 0.1,
				"invalid interval '%s': expected seconds >= 0.1", arg);
	case OPT_OUTPUT_DIR:
		cfg->output_dir = arg;
		return -1;
	case OPT_MAX_FILES:
	case OPT_SPOOL_MAX:
		if (!count_ok(arg, 1000000, "invalid count '%s': expected 1..1000000", &n))
			return CLI_EXIT_USAGE;
		*(opt == OPT_MAX_FILES ? &cfg->max_files : &cfg->spool_max) = (unsigned int)n;
		return -1;
	case OPT_MAX_BYTES:
		return usage_if(cli_value__size(arg, &cfg->max_bytes),
				"invalid size '%s': expected bytes, or a number with K, M or G", arg);
	case OPT_PUSH:
		cfg->push_url = arg;
		return -1;
	case OPT_PUSH_AUTH_FILE:
		cfg->push_auth_file = arg;
		return -1;
	case OPT_OTLP:
		cfg->otlp_url = arg;
		return -1;
	case OPT_APP:
		cfg->app_name = arg;
		return -1;
	default:	/* OPT_SPOOL_DIR */
		cfg->spool_dir = arg;
		return -1;
	}
}

/* What and whom to sample; returns a cli_result, or -1 to keep going. */
static int apply_event_option(int opt, const char *arg, struct config *cfg)
{
	unsigned long n;
	char err[256];

	switch (opt) {
	case 'e':
		if (!events__parse(arg, cfg->events, MAX_EVENTS - 1, &cfg->nevents, err,
				   sizeof(err)))
			return -1;
		p_usage("bpfprof --list", "%s", err);	/* the events there are */
		return CLI_EXIT_USAGE;
	case 'c':
		if (!count_ok(arg, 1ul << 40, "invalid period '%s': expected a count > 0", &n))
			return CLI_EXIT_USAGE;
		cfg->period = n;
		return -1;
	case OPT_COMM:
		cfg->comm = arg;
		return usage_if(!*arg || strlen(arg) >= TASK_COMM_LEN,
				"invalid --comm '%s': a task name has 1 to 15 characters", arg);
	case OPT_CGROUP:
		cfg->cgroup = arg;
		return -1;
	case OPT_GROUP_BY:
		n = (unsigned long)group_by__parse(arg);
		cfg->group_by = (enum group_by)n;
		return usage_if(n >= GROUP_MAX, "invalid --group-by '%s': expected container, pod, "
				"unit, cgroup, pid or none", arg);
	case OPT_MAX_CGROUPS:
		if (!count_ok(arg, 1ul << 20, "invalid --max-cgroups '%s': expected 1..1048576", &n))
			return CLI_EXIT_USAGE;
		cfg->max_cgroups = (unsigned int)n;
		return -1;
	case OPT_LABELS: {
		const char *bad = NULL;

		cfg->labels_set = true;
		return usage_if(labels__parse(arg, &cfg->labels, &bad), "invalid --labels '%s': "
				"expected a list of pid, tid, comm, cgroup, container, pod, unit, "
				"or all or none", arg);
	}
	case OPT_OFFCPU:
		cfg->offcpu = true;
		return -1;
	case OPT_MIN_BLOCK:
		if (cli_value__ulong(arg, 3600ul * 1000000, &n))
			return usage_if(true, "invalid --min-block '%s': expected microseconds", arg);
		cfg->min_block_us = n;
		return -1;
	default:	/* OPT_LIST */
		cfg->list = true;
		return -1;
	}
}

/* One option into cfg; returns a cli_result, or -1 to keep going. */
static int apply_option(int opt, const char *arg, struct config *cfg)
{
	unsigned long n;

	if (opt >= OPT_INTERVAL && opt <= OPT_SPOOL_MAX)
		return apply_fleet_option(opt, arg, cfg);
	if (opt >= OPT_RUNTIME_OFF && opt < OPT_RUNTIME_OFF + RUNTIME_MAX) {
		cfg->names.runtimes_off |= 1u << (opt - OPT_RUNTIME_OFF);
		return -1;
	}
	if (opt == 'e' || opt == 'c' || (opt >= OPT_COMM && opt <= OPT_LIST))
		return apply_event_option(opt, arg, cfg);
	switch (opt) {
	case OPT_FORMAT:
		return format_option(arg, cfg);
	case 'F':
		if (!count_ok(arg, CLI_MAX_FREQ, "invalid frequency '%s': expected 1.." "100000 Hz", &n))
			return CLI_EXIT_USAGE;
		cfg->freq = (unsigned int)n;
		cfg->freq_set = true;
		return -1;
	case 'd':
		return usage_if(cli_value__seconds(arg, false, &cfg->duration),
				"invalid duration '%s': expected seconds > 0", arg);
	case 'p':
	case 't':
		return usage_if(opt == 'p' ? cli_value__ids(arg, &cfg->pids, &cfg->npids) :
					     cli_value__ids(arg, &cfg->tids, &cfg->ntids),
				opt == 'p' ? "invalid pid list '%s'" : "invalid tid list '%s'", arg);
	case 'a':
		return -1;	/* system-wide is what we do without -p */
	case 'U':
	case 'K':
		if (cfg->sides != SIDES_BOTH) {
			cli_usage__error("%s: -U and -K exclude each other", opt == 'U' ? "-U" : "-K");
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
	case OPT_CALL_GRAPH:
		if (!strcmp(arg, "auto")) {
			cfg->call_graph = UNWIND_AUTO;
		} else if (!strcmp(arg, "fp")) {
			cfg->call_graph = UNWIND_FP;
		} else if (!strcmp(arg, "dwarf")) {
			cfg->call_graph = UNWIND_DWARF;
		} else {
			cli_usage__error("invalid --call-graph '%s': expected auto, fp or dwarf", arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case OPT_NO_DEMANGLE:
		cfg->names.demangle = false;
		return -1;
	case OPT_DEMANGLE:
		return set_demangle(&cfg->names, arg);
	case OPT_NO_INLINE:
		cfg->names.inlines = false;
		return -1;
	case OPT_DWARF_MEM:
		cfg->names.dwarf_mem_set = true;
		return usage_if(cli_value__size(arg, &cfg->names.dwarf_mem),
				"invalid --dwarf-mem '%s': expected bytes, or a number with K, M or G",
				arg);
	case OPT_JIT_MAP_MEM:
		return usage_if(cli_value__size(arg, &cfg->names.jit_map_mem),
				"invalid --jit-map-mem '%s': expected bytes, or a number with K, M or G",
				arg);
	case OPT_SYMBOLIZE:
		cfg->names.addresses_only = !strcmp(arg, "none");
		return usage_if(strcmp(arg, "none") && strcmp(arg, "here"),
				"invalid --symbolize '%s': expected here or none", arg);
	case OPT_UNWIND_ROWS:
		if (!count_ok(arg, 1ul << 28, "invalid --unwind-rows '%s': expected 1..268435456", &n))
			return CLI_EXIT_USAGE;
		cfg->unwind_rows = (unsigned int)n;
		return -1;
	case OPT_MAX_STACKS:
		if (!count_ok(arg, CLI_MAX_STACKS, "invalid --max-stacks '%s': expected 1..4194304", &n))
			return CLI_EXIT_USAGE;
		cfg->max_stacks = (unsigned int)n;
		return -1;
	case OPT_DEBUGINFOD_TIMEOUT:
		return usage_if(cli_value__seconds(arg, true, &cfg->names.debuginfod_timeout),
				"invalid --debuginfod-timeout '%s': expected seconds >= 0", arg);
	case OPT_KILL_AFTER:
		return usage_if(cli_value__seconds(arg, true, &cfg->kill_after),
				"invalid --kill-after '%s': expected seconds >= 0", arg);
	case 'q':
		cfg->quiet = true;
		return -1;
	case OPT_NO_PROGRESS:
		cfg->no_progress = true;
		return -1;
	case 'v':
		cfg->verbose += cfg->verbose < 2;	/* -v, -vv (more: as -vv) */
		return -1;
	case OPT_REPORT:
		cfg->report = true;
		return -1;
	case OPT_STATS:
		cfg->stats_file = arg;
		return -1;
	case OPT_CONTROL:
		return parse_control(arg, cfg);
	case OPT_START_DISABLED:
		cfg->start_disabled = true;
		return -1;
	case 'h':
		cli_usage__help(stdout);
		return CLI_EXIT_OK;
	case 'V':
		printf("bpfprof %s\n", BPFPROF_VERSION);
		return CLI_EXIT_OK;
	default:
		return CLI_EXIT_USAGE;
	}
}

/* "--ma" (a prefix of several) is ambiguous; "--durration" gets the
 * closest name, if one is close. */
static void unknown_long_option(const char *arg)
{
	const char *word = arg + 2, *closest;
	size_t len = strcspn(word, "=");
	char names[256] = "";
	int n = 0, i;

	for (i = 0; all_options()[i].name; i++) {
		const char *name = all_options()[i].name;

		if (len && !strncmp(name, word, len) && strlen(names) + strlen(name) + 5 < sizeof(names)) {
			strcat(strcat(names, n++ ? ", --" : "--"), name);
		}
	}
	if (n > 1) {
		p_usage(CLI_SEE_HELP, "option '%.*s' is ambiguous: %s",
			(int)len + 2, arg, names);
		return;
	}
	closest = strncmp(arg, "--", 2) ? NULL : cli_usage__closest(word, all_options());
	if (closest)
		p_usage(CLI_SEE_HELP, "unknown option '%s'; did you mean --%s?",
			arg, closest);
	else
		cli_usage__error("unknown option '%s'", arg);
}

/* getopt's own messages are off (opterr = 0): ours fit on one line. */
static void bad_option(int opt, char **argv)
{
	const char *arg = argv[optind - 1];
	char shortopt[3] = { '-', (char)optopt, '\0' };

	if (optopt && opt == ':')
		cli_usage__error("option '%s' needs an argument", shortopt);
	else if (opt == ':')
		cli_usage__error("option '%s' needs an argument", arg);
	else if (optopt)
		cli_usage__error("unknown option '%s'", shortopt);
	else
		unknown_long_option(arg);
}

static enum cli_result parse_args(int argc, char **argv, bool top, struct config *cfg)
{
	const char *last_arg = NULL;
	int opt, res;

	memset(cfg, 0, sizeof(*cfg));
	cfg->top = top;
	cfg->freq = 99;
	cfg->max_stacks = DEFAULT_MAX_STACKS;
	cfg->max_files = 1000;
	cfg->max_bytes = 1ull << 30;
	cfg->app_name = "bpfprof";
	cfg->spool_max = 100;
	cfg->min_block_us = 1;
	cfg->unwind_rows = DEFAULT_UNWIND_ROWS;
	cfg->call_graph = UNWIND_AUTO;
	cfg->labels = LABELS_ALL;
	cfg->names.demangle = true;
	cfg->kill_after = DEFAULT_KILL_AFTER;
	cfg->names.inlines = true;
	cfg->names.debuginfod_timeout = DEFAULT_DEBUGINFOD_TIMEOUT;
	cfg->names.jit_map_mem = DEFAULT_JIT_MAP_MEM;
	/* 0, not 1: getopt also resets its hidden state (the rest of a cluster
	 * like "-hv" left over by an earlier call), glibc and musl alike */
	optind = 0;
	opterr = 0;
	/* '+': stop at the first non-option, so "bpfprof cmd -x" is not parsed as ours;
	 * ':': tell a missing argument from an unknown option */
	while ((opt = getopt_long(argc, argv, "+:e:F:c:d:p:t:aUKo:qvhV", all_options(), NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			bad_option(opt, argv);
			return CLI_EXIT_USAGE;
		}
		last_arg = optarg;
		res = apply_option(opt, optarg, cfg);
		if (res >= 0)
			return res;
	}
	if (optind < argc) {
		/* a "--" that was an option's argument ("-o -- ls") ended nothing */
		if (strcmp(argv[optind - 1], "--") != 0 || argv[optind - 1] == last_arg) {
			cli_usage__error("unexpected argument '%s' (a command goes after --)", argv[optind]);
			return CLI_EXIT_USAGE;
		}
		cfg->cmd = &argv[optind];
	}
	if (cfg->cmd && cfg->npids) {
		cli_usage__error("%s", "-p and -- COMMAND exclude each other");
		return CLI_EXIT_USAGE;
	}
	return cli_modes__check(cfg);
}

enum cli_result cli_parse(int argc, char **argv, struct config *cfg)
{
	return parse_args(argc, argv, false, cfg);
}

enum cli_result cli_parse_top(int argc, char **argv, struct config *cfg)
{
	return parse_args(argc, argv, true, cfg);
}

const struct option *cli_options(void)
{
	return all_options();
}

void cli_free(struct config *cfg)
{
	free(cfg->pids);
	free(cfg->tids);
	free(cfg->control_ctl);
	free(cfg->control_ack);
	cfg->control_ctl = cfg->control_ack = NULL;
	cfg->pids = cfg->tids = NULL;
	cfg->npids = cfg->ntids = 0;
}
