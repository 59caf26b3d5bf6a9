// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The run's mode from its options: one-shot, fleet (--interval) or top. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli_modes.h"
#include "cli/cli_usage.h"
#include "base/errors.h"
#include "base/formats.h"
#include "sampling/events.h"

/* -o's name picks the format when --format does not: a row's suffix
 * (base/formats.h: .pb.gz: pprof, .html: the flame graph page...),
 * anything else: folded. No -o: folded, or pprof when pushing. */
static void format_from_name(struct config *cfg)
{
	const char *o = cfg->output;

	cfg->format = o ? formats__by_suffix(o) : FORMAT_AUTO;
	/* a push's labels (container, pod, unit, comm) travel as pprof
	 * sample labels, of which Pyroscope makes series; folded has none */
	if (!o && cfg->push_url)
		cfg->format = FORMAT_PPROF;
	if (cfg->format == FORMAT_AUTO)
		cfg->format = FORMAT_FOLDED;
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
	if (cfg->output || cfg->output_dir || cfg->push_url || cfg->otlp_url || cfg->report ||
	    cfg->format)
		return "top shows a live table and writes no profile: no -o, --output-dir, "
		       "--push, --otlp, --format or --report";
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

/* --otlp env: the OTel exporters' variables, the signal's own first
 * (its whole URL), else the base URL (push.c adds the signal's path). */
static const char *check_otlp(struct config *cfg)
{
	const char *url = cfg->otlp_url;

	if (!strcmp(url, "env")) {
		url = getenv("OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT");
		if (!url || !*url)
			url = getenv("OTEL_EXPORTER_OTLP_ENDPOINT");
		if (!url || !*url)
			return "--otlp env: neither OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT nor "
			       "OTEL_EXPORTER_OTLP_ENDPOINT is set";
		cfg->otlp_url = url;
	}
	if (strncasecmp(url, "http://", 7) && strncasecmp(url, "https://", 8))
		return "--otlp takes an http:// or https:// URL (OTLP/HTTP), or env";
	return NULL;
}

/* --app as Grafana Pyroscope takes a service name (its
 * api/model/labelset ValidateServiceName: letters, digits, _ . - /),
 * short enough for a URL (its label values may be 2048 bytes); else why. */
#define CLI_APP_MAX	255

static bool app_name_ok(const char *app, char *why, size_t size)
{
	size_t n = strlen(app);

	if (!n || n > CLI_APP_MAX) {
		snprintf(why, size, "--app: a Pyroscope service name is 1..%d characters, not %zu",
			 CLI_APP_MAX, n);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)app[i];

		if (!isalnum(c) && !strchr("_.-/", c)) {
			snprintf(why, size, "--app: character %zu (0x%02x) is not one Pyroscope takes "
				 "in a service name (letters, digits, _ . - /)", i + 1, c);
			return false;
		}
	}
	return true;
}

/* A folded push is Pyroscope's legacy /ingest, whose folded profiles are
 * CPU time or nothing it can name: every other event goes as pprof. */
static bool folded_push_ok(const struct config *cfg)
{
	for (int i = 0; i < cfg->nevents; i++)
		if (!cfg->events[i].clock)
			return false;
	return true;
}

static enum cli_result check_push(const struct config *cfg)
{
	char why[160];

	if (!cfg->push_url)
		return CLI_RUN;
	if (!app_name_ok(cfg->app_name, why, sizeof(why))) {
		cli_usage__error("%s", why);
		return CLI_EXIT_USAGE;
	}
	if (cfg->format == FORMAT_FOLDED && !folded_push_ok(cfg)) {
		cli_usage__error("%s", "--push --format folded carries CPU time only (Pyroscope's "
				 "folded ingest names no off-CPU time or event counts): push pprof, "
				 "the default");
		return CLI_EXIT_USAGE;
	}
	return CLI_RUN;
}

/* --format FMT where it cannot go: FMT and the formats that can, said. */
static bool refuse_format(const char *name, const char *where, unsigned int carried)
{
	char can[160];

	formats__list(can, sizeof(can), carried, " or ");
	p_usage(CLI_SEE_HELP, "--format %s: %s takes %s", name, where, can);
	return false;
}

/* --symbolize none with a format that names every frame */
static enum cli_result refuse_addresses(void)
{
	char can[160];

	formats__list(can, sizeof(can), FORMAT_ADDRESSES, " or ");
	p_usage(CLI_SEE_HELP, "--symbolize none writes addresses for bpfprof symbolize to name: "
		"%s only (-o FILE.pb.gz, --format)", can);
	return CLI_EXIT_USAGE;
}

/* --format asked of fleet files or a push that cannot carry it (the
 * table's "carried by"): said at start, not an interval that ships
 * nothing. (--otlp sends OTLP whatever --format says.) */
static bool format_carried(const struct config *cfg)
{
	const char *name = cfg->format == FORMAT_BOTH ? "both" :
			   formats__row(cfg->format) ? formats__row(cfg->format)->name : NULL;

	if (!name)
		return true;
	if (cfg->interval && cfg->output_dir && !formats__carries(cfg->format, FORMAT_TO_FLEET))
		return refuse_format(name, "fleet mode (--interval --output-dir, a file per "
				     "interval)", FORMAT_TO_FLEET);
	if (cfg->push_url && !formats__carries(cfg->format, FORMAT_TO_PUSH))
		return refuse_format(name, "--push (Pyroscope)", FORMAT_TO_PUSH);
	return true;
}

enum cli_result cli_modes__check(struct config *cfg)
{
	const char *err = NULL;

	if (cfg->top)
		err = check_top(cfg);
	else if (cfg->start_disabled && !cfg->control_ctl)
		err = "--start-disabled needs --control (nothing else can enable sampling)";
	else if (cfg->interval) {
		if (!cfg->output_dir && !cfg->push_url && !cfg->otlp_url)
			err = "--interval needs --output-dir, --push or --otlp";
		else if (cfg->output)
			err = "-o is for one profile; with --interval use --output-dir";
		if (!cfg->freq_set)
			cfg->freq = FLEET_DEFAULT_FREQ;
		if (!cfg->names.dwarf_mem_set)
			cfg->names.dwarf_mem = FLEET_DEFAULT_DWARF_MEM;
		if (!cfg->labels_set)
			cfg->labels = LABELS_FLEET;
	} else if (cfg->output_dir || cfg->push_url || cfg->otlp_url) {
		err = "--output-dir, --push and --otlp need --interval";
	}
	if (!err && cfg->otlp_url)
		err = check_otlp(cfg);
	if (!err && cfg->push_auth_file && !cfg->push_url)
		err = "--push-auth-file needs --push";
	if (!err && cfg->format == FORMAT_BOTH && !cfg->output_dir)
		err = "--format both needs --output-dir";
	if (!err)
		add_default_events(cfg);
	if (err) {
		cli_usage__error("%s", err);
		return CLI_EXIT_USAGE;
	}
	if (!format_carried(cfg))
		return CLI_EXIT_USAGE;
	if (cfg->format == FORMAT_AUTO)
		format_from_name(cfg);
	if (check_push(cfg) != CLI_RUN)
		return CLI_EXIT_USAGE;
	if (cfg->names.addresses_only &&
	    (!formats__carries(cfg->format, FORMAT_ADDRESSES) || cfg->report || cfg->top)) {
		return refuse_addresses();
	}
	return CLI_RUN;
}
