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
#include "cli_usage.h"
#include "errors.h"
#include <linux/types.h>
#include "profile.h"

#ifndef BPFPROF_VERSION
#define BPFPROF_VERSION "dev"
#endif

#define SEE_HELP "bpfprof --help"

static void usage_error(const char *fmt, const char *arg)
{
	p_usage(SEE_HELP, fmt, arg);
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

/* Seconds, fractions allowed: > 0, or >= 0 when zero_ok; at most a year. */
static int parse_seconds(const char *s, bool zero_ok, double *out)
{
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	*out = strtod(s, &end);
	if (errno || *end || !isfinite(*out) || *out < 0 || (*out == 0 && !zero_ok) ||
	    *out > 365.0 * 86400)
		return -EINVAL;
	return 0;
}

static int parse_pids(const char *list, pid_t **pids, int *npids)
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
		grown = realloc(*pids, (*npids + 1) * sizeof(*grown));
		if (!grown) {
			err = -ENOMEM;
			break;
		}
		*pids = grown;
		(*pids)[(*npids)++] = (pid_t)pid;
	}
	if (!err && *npids == 0)
		err = -EINVAL;
	free(copy);
	return err;
}

enum {
	OPT_BTF = 256, OPT_MAX_STACKS, OPT_FORMAT, OPT_INTERVAL, OPT_OUTPUT_DIR, OPT_MAX_FILES,
	OPT_MAX_BYTES, OPT_PUSH, OPT_APP, OPT_SPOOL_DIR, OPT_SPOOL_MAX,
	OPT_COMM, OPT_CGROUP, OPT_OFFCPU, OPT_MIN_BLOCK, OPT_LIST,
	OPT_CALL_GRAPH, OPT_UNWIND_ROWS, OPT_NO_DEMANGLE, OPT_KILL_AFTER, OPT_NO_PROGRESS,
	OPT_NO_INLINE, OPT_NO_PYTHON, OPT_DEBUGINFOD_TIMEOUT,
	OPT_REPORT, OPT_CONTROL, OPT_START_DISABLED,
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
	{ "off-cpu",     no_argument,       NULL, OPT_OFFCPU },
	{ "min-block",   required_argument, NULL, OPT_MIN_BLOCK },
	{ "list",        no_argument,       NULL, OPT_LIST },
	{ "call-graph",  required_argument, NULL, OPT_CALL_GRAPH },
	{ "unwind-rows", required_argument, NULL, OPT_UNWIND_ROWS },
	{ "no-demangle", no_argument,       NULL, OPT_NO_DEMANGLE },
	{ "no-inline",   no_argument,       NULL, OPT_NO_INLINE },
	{ "no-python",   no_argument,       NULL, OPT_NO_PYTHON },
	{ "debuginfod-timeout", required_argument, NULL, OPT_DEBUGINFOD_TIMEOUT },
	{ "all-cpus",    no_argument,       NULL, 'a' },
	{ "user-only",   no_argument,       NULL, 'U' },
	{ "kernel-only", no_argument,       NULL, 'K' },
	{ "output",      required_argument, NULL, 'o' },
	{ "btf",         required_argument, NULL, OPT_BTF },
	{ "max-stacks",  required_argument, NULL, OPT_MAX_STACKS },
	{ "format",      required_argument, NULL, OPT_FORMAT },
	{ "report",      no_argument,       NULL, OPT_REPORT },
	{ "control",     required_argument, NULL, OPT_CONTROL },
	{ "start-disabled", no_argument,    NULL, OPT_START_DISABLED },
	{ "interval",    required_argument, NULL, OPT_INTERVAL },
	{ "output-dir",  required_argument, NULL, OPT_OUTPUT_DIR },
	{ "max-files",   required_argument, NULL, OPT_MAX_FILES },
	{ "max-bytes",   required_argument, NULL, OPT_MAX_BYTES },
	{ "push",        required_argument, NULL, OPT_PUSH },
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

static int parse_format(const char *s, enum out_format *out)
{
	if (!strcmp(s, "folded"))
		*out = FORMAT_FOLDED;
	else if (!strcmp(s, "pprof"))
		*out = FORMAT_PPROF;
	else if (!strcmp(s, "both"))
		*out = FORMAT_BOTH;
	else if (!strcmp(s, "html"))
		*out = FORMAT_HTML;
	else if (!strcmp(s, "svg"))
		*out = FORMAT_SVG;
	else
		return -EINVAL;
	return 0;
}

/* "512", "64K", "10M", "1G": bytes. */
static int parse_size(const char *s, unsigned long long *out)
{
	unsigned long long mult = 1;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		mult = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mult = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mult = 1ull << 30;
	else if (*end)
		return -EINVAL;
	if (mult > 1 && end[1])
		return -EINVAL;
	if (*out == 0 || *out > (1ull << 50) / mult)
		return -EINVAL;
	*out *= mult;
	return 0;
}

/* --control fifo:CTL[,ACK], perf record's syntax: the paths only (opened
 * by the run, never created). */
static int parse_control(const char *arg, struct config *cfg)
{
	const char *spec = arg + strlen("fifo:"), *comma;

	if (strncmp(arg, "fifo:", 5) || !*spec || *spec == ',') {
		usage_error("invalid --control '%s': expected fifo:CTL[,ACK]", arg);
		return CLI_EXIT_USAGE;
	}
	comma = strchr(spec, ',');
	if (comma && (!comma[1] || strchr(comma + 1, ','))) {
		usage_error("invalid --control '%s': expected fifo:CTL[,ACK]", arg);
		return CLI_EXIT_USAGE;
	}
	free(cfg->control_ctl);
	free(cfg->control_ack);
	cfg->control_ack = comma ? strdup(comma + 1) : NULL;
	cfg->control_ctl = strndup(spec, comma ? (size_t)(comma - spec) : strlen(spec));
	if (!cfg->control_ctl || (comma && !cfg->control_ack)) {
		usage_error("%s", "out of memory");
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
		if (parse_seconds(arg, false, &cfg->interval) || cfg->interval < 0.1) {
			usage_error("invalid interval '%s': expected seconds >= 0.1", arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case OPT_OUTPUT_DIR:
		cfg->output_dir = arg;
		return -1;
	case OPT_MAX_FILES:
	case OPT_SPOOL_MAX:
		if (parse_ulong(arg, 1000000, &n) || n == 0) {
			usage_error("invalid count '%s': expected 1..1000000", arg);
			return CLI_EXIT_USAGE;
		}
		*(opt == OPT_MAX_FILES ? &cfg->max_files : &cfg->spool_max) = (unsigned int)n;
		return -1;
	case OPT_MAX_BYTES:
		if (parse_size(arg, &cfg->max_bytes)) {
			usage_error("invalid size '%s': expected bytes, or a number with K, M or G", arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case OPT_PUSH:
		cfg->push_url = arg;
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
		if (events__parse(arg, cfg->events, MAX_EVENTS - 1, &cfg->nevents, err, sizeof(err))) {
			usage_error("%s", err);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case 'c':
		if (parse_ulong(arg, 1ul << 40, &n) || n == 0) {
			usage_error("invalid period '%s': expected a count > 0", arg);
			return CLI_EXIT_USAGE;
		}
		cfg->period = n;
		return -1;
	case OPT_COMM:
		if (!*arg || strlen(arg) >= TASK_COMM_LEN) {
			usage_error("invalid --comm '%s': a task name has 1 to 15 characters", arg);
			return CLI_EXIT_USAGE;
		}
		cfg->comm = arg;
		return -1;
	case OPT_CGROUP:
		cfg->cgroup = arg;
		return -1;
	case OPT_OFFCPU:
		cfg->offcpu = true;
		return -1;
	case OPT_MIN_BLOCK:
		if (parse_ulong(arg, 3600ul * 1000000, &n)) {
			usage_error("invalid --min-block '%s': expected microseconds", arg);
			return CLI_EXIT_USAGE;
		}
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
	if (opt == 'e' || opt == 'c' || (opt >= OPT_COMM && opt <= OPT_LIST))
		return apply_event_option(opt, arg, cfg);
	switch (opt) {
	case OPT_FORMAT:
		if (parse_format(arg, &cfg->format)) {
			usage_error("invalid format '%s': expected folded, pprof, both, html or svg", arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case 'F':
		if (parse_ulong(arg, CLI_MAX_FREQ, &n) || n == 0) {
			usage_error("invalid frequency '%s': expected 1.." "100000 Hz", arg);
			return CLI_EXIT_USAGE;
		}
		cfg->freq = (unsigned int)n;
		cfg->freq_set = true;
		return -1;
	case 'd':
		if (parse_seconds(arg, false, &cfg->duration)) {
			usage_error("invalid duration '%s': expected seconds > 0", arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case 'p':
	case 't':
		if (opt == 'p' ? parse_pids(arg, &cfg->pids, &cfg->npids) :
				 parse_pids(arg, &cfg->tids, &cfg->ntids)) {
			usage_error(opt == 'p' ? "invalid pid list '%s'" : "invalid tid list '%s'", arg);
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
	case OPT_CALL_GRAPH:
		if (!strcmp(arg, "auto")) {
			cfg->call_graph = UNWIND_AUTO;
		} else if (!strcmp(arg, "fp")) {
			cfg->call_graph = UNWIND_FP;
		} else if (!strcmp(arg, "dwarf")) {
			cfg->call_graph = UNWIND_DWARF;
		} else {
			usage_error("invalid --call-graph '%s': expected auto, fp or dwarf", arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case OPT_NO_DEMANGLE:
		cfg->names.demangle = false;
		return -1;
	case OPT_NO_INLINE:
		cfg->names.inlines = false;
		return -1;
	case OPT_NO_PYTHON:
		cfg->names.python = false;
		return -1;
	case OPT_UNWIND_ROWS:
		if (parse_ulong(arg, 1ul << 28, &n) || n == 0) {
			usage_error("invalid --unwind-rows '%s': expected 1..268435456", arg);
			return CLI_EXIT_USAGE;
		}
		cfg->unwind_rows = (unsigned int)n;
		return -1;
	case OPT_MAX_STACKS:
		if (parse_ulong(arg, CLI_MAX_STACKS, &n) || n == 0) {
			usage_error("invalid --max-stacks '%s': expected 1..4194304", arg);
			return CLI_EXIT_USAGE;
		}
		cfg->max_stacks = (unsigned int)n;
		return -1;
	case OPT_DEBUGINFOD_TIMEOUT:
		if (parse_seconds(arg, true, &cfg->names.debuginfod_timeout)) {
			usage_error("invalid --debuginfod-timeout '%s': expected seconds >= 0", arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case OPT_KILL_AFTER:
		if (parse_seconds(arg, true, &cfg->kill_after)) {
			usage_error("invalid --kill-after '%s': expected seconds >= 0", arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case 'q':
		cfg->quiet = true;
		return -1;
	case OPT_NO_PROGRESS:
		cfg->no_progress = true;
		return -1;
	case 'v':
		cfg->verbose = true;
		return -1;
	case OPT_REPORT:
		cfg->report = true;
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

	for (i = 0; long_opts[i].name; i++) {
		if (len && !strncmp(long_opts[i].name, word, len) &&
		    strlen(names) + strlen(long_opts[i].name) + 5 < sizeof(names)) {
			strcat(strcat(names, n++ ? ", --" : "--"), long_opts[i].name);
		}
	}
	if (n > 1) {
		p_usage(SEE_HELP, "option '%.*s' is ambiguous: %s",
			(int)len + 2, arg, names);
		return;
	}
	closest = strncmp(arg, "--", 2) ? NULL : cli_usage__closest(word, long_opts);
	if (closest)
		p_usage(SEE_HELP, "unknown option '%s'; did you mean --%s?",
			arg, closest);
	else
		usage_error("unknown option '%s'", arg);
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
		unknown_long_option(arg);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* -o's name picks the format when --format does not: .pb.gz, .pb (and
 * .pprof): pprof; .html, .htm: the flame graph page; .svg: a static flame
 * graph; anything else: folded. */
static enum cli_result format_from_name(struct config *cfg)
{
	const char *o = cfg->output;

	cfg->format = FORMAT_FOLDED;
	if (!o)
		return CLI_RUN;
	if (ends_with(o, ".pb.gz") || ends_with(o, ".pb") || ends_with(o, ".pprof"))
		cfg->format = FORMAT_PPROF;
	else if (ends_with(o, ".html") || ends_with(o, ".htm"))
		cfg->format = FORMAT_HTML;
	else if (ends_with(o, ".svg"))
		cfg->format = FORMAT_SVG;
	return CLI_RUN;
}

/* No -e: cpu-clock, unless --off-cpu alone was asked for. Off-CPU time is
 * always the last event. */
static void add_default_events(struct config *cfg)
{
	char err[64];
	int n;

	if (!cfg->nevents && !cfg->offcpu)
		events__parse("cpu-clock", cfg->events, 1, &cfg->nevents, err, sizeof(err));
	if (cfg->offcpu) {
		n = cfg->nevents++;
		memset(&cfg->events[n], 0, sizeof(cfg->events[n]));
		cfg->events[n].kind = EVENT_OFFCPU;
		strcpy(cfg->events[n].name, "offcpu");
	}
}

/* bpfprof top shows what it drains, every --interval (default 1 s). */
static const char *check_top(struct config *cfg)
{
	if (cfg->output || cfg->output_dir || cfg->push_url || cfg->report || cfg->format)
		return "top shows a live table and writes no profile: no -o, --output-dir, "
		       "--push, --format or --report";
	if (cfg->cmd)
		return "top watches what runs: -p PID or --comm NAME, not -- COMMAND";
	if (cfg->offcpu)
		return "--off-cpu is one-shot only for now (not with top)";
	if (cfg->control_ctl)
		return "--control is for profiling runs; in top, 'p' pauses the view";
	cfg->refresh = cfg->interval ? cfg->interval : 1.0;
	cfg->interval = 0;
	cfg->quiet = true;	/* the screen is top's */
	return NULL;
}

/* One-shot and fleet options that only make sense together. */
static enum cli_result check_modes(struct config *cfg)
{
	const char *err = NULL;

	if (cfg->top)
		err = check_top(cfg);
	else if (cfg->start_disabled && !cfg->control_ctl)
		err = "--start-disabled needs --control (nothing else can enable sampling)";
	else if (cfg->interval) {
		if (!cfg->output_dir && !cfg->push_url)
			err = "--interval needs --output-dir or --push";
		else if (cfg->output)
			err = "-o is for one profile; with --interval use --output-dir";
		if (!cfg->freq_set)
			cfg->freq = FLEET_DEFAULT_FREQ;
	} else if (cfg->output_dir || cfg->push_url) {
		err = "--output-dir and --push need --interval";
	}
	if (!err && cfg->format == FORMAT_BOTH && !cfg->output_dir)
		err = "--format both needs --output-dir";
	if (!err)
		add_default_events(cfg);
	if (err) {
		usage_error("%s", err);
		return CLI_EXIT_USAGE;
	}
	if (cfg->format == FORMAT_AUTO)
		return format_from_name(cfg);
	return CLI_RUN;
}

enum cli_result cli_parse(int argc, char **argv, struct config *cfg)
{
	const char *last_arg = NULL;
	int opt, res;

	memset(cfg, 0, sizeof(*cfg));
	if (argc > 1 && !strcmp(argv[1], "top")) {	/* bpfprof top [options] */
		cfg->top = true;
		argc--;
		argv++;
	}
	cfg->freq = 99;
	cfg->max_stacks = DEFAULT_MAX_STACKS;
	cfg->max_files = 1000;
	cfg->max_bytes = 1ull << 30;
	cfg->app_name = "bpfprof.cpu";
	cfg->spool_max = 100;
	cfg->min_block_us = 1;
	cfg->unwind_rows = DEFAULT_UNWIND_ROWS;
	cfg->call_graph = UNWIND_AUTO;
	cfg->names.demangle = true;
	cfg->kill_after = DEFAULT_KILL_AFTER;
	cfg->names.inlines = true;
	cfg->names.python = true;
	cfg->names.debuginfod_timeout = DEFAULT_DEBUGINFOD_TIMEOUT;
	/* 0, not 1: getopt also resets its hidden state (the rest of a cluster
	 * like "-hv" left over by an earlier call), glibc and musl alike */
	optind = 0;
	opterr = 0;
	/* '+': stop at the first non-option, so "bpfprof cmd -x" is not parsed as ours;
	 * ':': tell a missing argument from an unknown option */
	while ((opt = getopt_long(argc, argv, "+:e:F:c:d:p:t:aUKo:qvhV", long_opts, NULL)) != -1) {
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
			usage_error("unexpected argument '%s' (a command goes after --)", argv[optind]);
			return CLI_EXIT_USAGE;
		}
		cfg->cmd = &argv[optind];
	}
	if (cfg->cmd && cfg->npids) {
		usage_error("%s", "-p and -- COMMAND exclude each other");
		return CLI_EXIT_USAGE;
	}
	return check_modes(cfg);
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
