// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of cli.c: perf-style options into struct config. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <string.h>

#include "leak_check.h"
#include "base/runtime.h"
#include "cli/cli.h"
#include "cli/cli_usage.h"

TestSuite(cli, .fini = check_leaks);

#define ARGV(...) ((char *[]){ "bpfprof", __VA_ARGS__, NULL })

static enum cli_result parse(char **argv, struct config *cfg)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	cli_use_runtimes(runtime_rows);	/* as main() does */
	return cli_parse(argc, argv, cfg);
}

/* `bpfprof top ...`, as main()'s command table hands it over: argv from "top" */
static enum cli_result parse_top(char **argv, struct config *cfg)
{
	int argc = 0;

	while (argv[argc + 1])
		argc++;
	cli_use_runtimes(runtime_rows);
	return cli_parse_top(argc, argv + 1, cfg);
}

Test(cli, defaults)
{
	struct config cfg;

	cr_assert_eq(parse((char *[]){ "bpfprof", NULL }, &cfg), CLI_RUN);
	cr_expect_eq(cfg.freq, 99);
	cr_expect_eq(cfg.duration, 0);
	cr_expect_eq(cfg.npids, 0);
	cr_expect_eq(cfg.sides, SIDES_BOTH);
	cr_expect_null(cfg.output);
	cr_expect_null(cfg.cmd);
	cli_free(&cfg);
}

Test(cli, options)
{
	char **argv = ARGV("-F", "997", "-d", "2.5", "-p", "12,34", "-K", "-o", "x.folded");
	struct config cfg;

	cr_assert_eq(parse(argv, &cfg), CLI_RUN);
	cr_expect_eq(cfg.freq, 997);
	cr_expect_float_eq(cfg.duration, 2.5, 1e-9);
	cr_assert_eq(cfg.npids, 2);
	cr_expect_eq(cfg.pids[0], 12);
	cr_expect_eq(cfg.pids[1], 34);
	cr_expect_eq(cfg.sides, SIDES_KERNEL_ONLY);
	cr_expect_str_eq(cfg.output, "x.folded");
	cli_free(&cfg);
}

Test(cli, command_after_double_dash_keeps_its_options)
{
	char **argv = ARGV("-U", "--", "ls", "-l", "-F");	/* cfg.cmd points into it */
	struct config cfg;

	cr_assert_eq(parse(argv, &cfg), CLI_RUN);
	cr_assert_not_null(cfg.cmd);
	cr_expect_str_eq(cfg.cmd[0], "ls");
	cr_expect_str_eq(cfg.cmd[1], "-l");
	cr_expect_str_eq(cfg.cmd[2], "-F");
	cr_expect_null(cfg.cmd[3]);
	cr_expect_eq(cfg.freq, 99);
	cr_expect_eq(cfg.sides, SIDES_USER_ONLY);
	cli_free(&cfg);
}

Test(cli, bad_usage, .init = cr_redirect_stderr)
{
	char **bad[] = {
		ARGV("-F", "0"), ARGV("-F", "100001"), ARGV("-F", "-5"), ARGV("-F", "12x"),
		ARGV("-d", "0"), ARGV("-d", "nan"), ARGV("-d", "-1"), ARGV("-p", "0"),
		ARGV("-p", "1,,x"), ARGV("-p", ""), ARGV("-U", "-K"), ARGV("--bogus"),
		ARGV("-F"), ARGV("stray"), ARGV("-p", "1", "--", "ls"),
	};
	struct config cfg;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(parse(bad[i], &cfg), CLI_EXIT_USAGE, "argv[1] = %s", bad[i][1]);
		cli_free(&cfg);
	}
}

Test(cli, events_and_filters)
{
	char **argv = ARGV("-e", "page-faults:u,sched:sched_switch,u:/bin/ls:main", "-c", "1",
			   "-t", "5,6", "--comm", "app", "--cgroup", "/sys/fs/cgroup/x", "--off-cpu");
	struct config cfg;

	cr_assert_eq(parse(argv, &cfg), CLI_RUN);
	cr_assert_eq(cfg.nevents, 4);	/* off-CPU comes last */
	cr_expect_eq(cfg.events[0].kind, EVENT_SOFTWARE);
	cr_expect(cfg.events[0].exclude_kernel);
	cr_expect_not(cfg.events[0].exclude_user);
	cr_expect_eq(cfg.events[1].kind, EVENT_TRACEPOINT);
	cr_expect_str_eq(cfg.events[1].sys, "sched");
	cr_expect_str_eq(cfg.events[1].tp, "sched_switch");
	cr_expect_eq(cfg.events[2].kind, EVENT_UPROBE);
	cr_expect_str_eq(cfg.events[2].path, "/bin/ls");
	cr_expect_str_eq(cfg.events[2].sym, "main");
	cr_expect_eq(cfg.events[3].kind, EVENT_OFFCPU);
	cr_expect_eq(cfg.period, 1);
	cr_assert_eq(cfg.ntids, 2);
	cr_expect_str_eq(cfg.comm, "app");
	cli_free(&cfg);
}

Test(cli, default_event_is_cpu_clock)
{
	struct config cfg;

	cr_assert_eq(parse((char *[]){ "bpfprof", NULL }, &cfg), CLI_RUN);
	cr_assert_eq(cfg.nevents, 1);
	cr_expect_str_eq(cfg.events[0].name, "cpu-clock");
	cr_expect(cfg.events[0].clock);
	cli_free(&cfg);
}

/* Off-CPU works in fleet mode (its blocks land in the interval they end in). */
Test(cli, offcpu_in_fleet_mode)
{
	struct config cfg;

	cr_assert_eq(parse(ARGV("--off-cpu", "--interval", "1", "--output-dir", "d"), &cfg), CLI_RUN);
	cr_expect(cfg.offcpu);
	cli_free(&cfg);
}

/* --call-graph: auto by default, fp and dwarf asked for, nothing else. */
Test(cli, call_graph_modes, .init = cr_redirect_stderr)
{
	struct config cfg;

	cr_assert_eq(parse((char *[]){ "bpfprof", NULL }, &cfg), CLI_RUN);
	cr_expect_eq(cfg.call_graph, UNWIND_AUTO);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("--call-graph", "fp"), &cfg), CLI_RUN);
	cr_expect_eq(cfg.call_graph, UNWIND_FP);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("--call-graph", "dwarf"), &cfg), CLI_RUN);
	cr_expect_eq(cfg.call_graph, UNWIND_DWARF);
	cli_free(&cfg);
	cr_expect_eq(parse(ARGV("--call-graph", "lbr"), &cfg), CLI_EXIT_USAGE);
	cli_free(&cfg);
}

Test(cli, bad_events, .init = cr_redirect_stderr)
{
	char **bad[] = {
		ARGV("-e", "nosuch"), ARGV("-e", "page-faults:x"), ARGV("-e", "a:b:c"),
		ARGV("-e", "u:/bin/ls"), ARGV("-e", "u::main"), ARGV("-e", ","),
		ARGV("-e", "cs,cs,cs,cs,cs,cs,cs,cs"), ARGV("--comm", "0123456789abcdef"),
		ARGV("-c", "0"),
	};
	struct config cfg;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(parse(bad[i], &cfg), CLI_EXIT_USAGE, "argv[2] = %s", bad[i][2]);
		cli_free(&cfg);
	}
}

Test(cli, help_and_version, .init = cr_redirect_stdout)
{
	struct config cfg;

	cr_expect_eq(parse(ARGV("--help"), &cfg), CLI_EXIT_OK);
	cli_free(&cfg);
	cr_expect_eq(parse(ARGV("-V"), &cfg), CLI_EXIT_OK);
	cli_free(&cfg);
}

Test(cli, name_sources_on_by_default_each_with_a_switch)
{
	struct config cfg;

	cr_assert_eq(parse((char *[]){ "bpfprof", NULL }, &cfg), CLI_RUN);
	cr_expect(cfg.names.demangle);
	cr_expect(cfg.names.inlines);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("--no-demangle"), &cfg), CLI_RUN);
	cr_expect_not(cfg.names.demangle);
	cr_expect(cfg.names.inlines);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("--no-inline"), &cfg), CLI_RUN);
	cr_expect(cfg.names.demangle);
	cr_expect_not(cfg.names.inlines);
	cli_free(&cfg);
}

/* --demangle[=short|full|none]: perf's short form unless full is asked. */
Test(cli, demangle_forms, .init = cr_redirect_stderr)
{
	static const struct { char *arg; bool on, full; } forms[] = {
		{ "--demangle", true, false }, { "--demangle=short", true, false },
		{ "--demangle=full", true, true }, { "--demangle=none", false, false },
	};
	struct config cfg;

	cr_assert_eq(parse((char *[]){ "bpfprof", NULL }, &cfg), CLI_RUN);
	cr_expect(cfg.names.demangle && !cfg.names.demangle_full);
	cli_free(&cfg);
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		cr_assert_eq(parse(ARGV(forms[i].arg), &cfg), CLI_RUN, "%s", forms[i].arg);
		cr_expect_eq(cfg.names.demangle, forms[i].on, "%s", forms[i].arg);
		cr_expect_eq(cfg.names.demangle_full, forms[i].full, "%s", forms[i].arg);
		cli_free(&cfg);
	}
	cr_expect_eq(parse(ARGV("--demangle=long"), &cfg), CLI_EXIT_USAGE);
	cli_free(&cfg);
}

Test(cli, closest_option_to_a_typo)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' }, { "output", required_argument, NULL, 'o' },
		{ "max-stacks", required_argument, NULL, 1 }, { NULL, 0, NULL, 0 },
	};

	cr_expect_str_eq(cli_usage__closest("durration", opts), "duration");
	cr_expect_str_eq(cli_usage__closest("outptu=x", opts), "output");
	cr_expect_str_eq(cli_usage__closest("max-stack", opts), "max-stacks");
	cr_expect_null(cli_usage__closest("zzzzzz", opts));
	cr_expect_null(cli_usage__closest("", opts));
}

Test(cli, output_name_picks_the_format, .init = cr_redirect_stderr)
{
	struct config cfg;

	cr_assert_eq(parse(ARGV("-o", "x.pb"), &cfg), CLI_RUN);
	cr_expect_eq(cfg.format, FORMAT_PPROF);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("-o", "x.pb.gz"), &cfg), CLI_RUN);
	cr_expect_eq(cfg.format, FORMAT_PPROF);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("-o", "x.txt"), &cfg), CLI_RUN);
	cr_expect_eq(cfg.format, FORMAT_FOLDED);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("-o", "x.svg", "--format", "folded"), &cfg), CLI_RUN);
	cr_expect_eq(cfg.format, FORMAT_FOLDED);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("-o", "x.html"), &cfg), CLI_RUN);
	cr_expect_eq(cfg.format, FORMAT_HTML);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("-o", "x.svg"), &cfg), CLI_RUN);
	cr_expect_eq(cfg.format, FORMAT_SVG);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("-o", "x.otlp"), &cfg), CLI_RUN);
	cr_expect_eq(cfg.format, FORMAT_OTLP);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("-o", "x.pprof"), &cfg), CLI_RUN);
	cr_expect_eq(cfg.format, FORMAT_PPROF);
	cli_free(&cfg);
}

/* a format fleet files or a push cannot carry: refused at start (the
 * table's "carried by"), not an interval that ships nothing */
Test(cli, format_where_it_cannot_go_refused, .init = cr_redirect_stderr)
{
	char **refused[] = {
		ARGV("--interval", "1", "--format", "html", "--output-dir", "/tmp/d"),
		ARGV("--interval", "1", "--format", "svg", "--output-dir", "/tmp/d"),
		ARGV("--interval", "1", "--format", "otlp", "--push", "http://h"),
		ARGV("--interval", "1", "--format", "html", "--push", "http://h"),
	};
	char **taken[] = {
		ARGV("--interval", "1", "--format", "otlp", "--output-dir", "/tmp/d"),
		ARGV("--interval", "1", "--format", "both", "--output-dir", "/tmp/d", "--push", "http://h"),
		ARGV("--interval", "1", "--format", "folded", "--push", "http://h"),
		ARGV("--format", "html", "-o", "x.folded"),
	};
	struct config cfg;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		cr_expect_eq(parse(refused[i], &cfg), CLI_EXIT_USAGE, "refused[%zu]", i);
		cli_free(&cfg);
	}
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		cr_expect_eq(parse(taken[i], &cfg), CLI_RUN, "taken[%zu]", i);
		cli_free(&cfg);
	}
}

Test(cli, kill_after_quiet_no_progress, .init = cr_redirect_stderr)
{
	struct config cfg;

	cr_assert_eq(parse(ARGV("--", "ls"), &cfg), CLI_RUN);
	cr_expect_float_eq(cfg.kill_after, DEFAULT_KILL_AFTER, 1e-9);
	cr_expect(!cfg.quiet && !cfg.no_progress);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("--kill-after", "0", "-q", "--no-progress", "--", "ls"), &cfg), CLI_RUN);
	cr_expect_float_eq(cfg.kill_after, 0, 1e-9);
	cr_expect(cfg.quiet && cfg.no_progress);
	cli_free(&cfg);
	cr_expect_eq(parse(ARGV("--kill-after", "-1"), &cfg), CLI_EXIT_USAGE);
	cli_free(&cfg);
}

Test(cli, control_fifo_paths, .init = cr_redirect_stderr)
{
	struct config cfg;

	cr_assert_eq(parse(ARGV("--control", "fifo:/t/ctl,/t/ack", "--start-disabled"), &cfg),
		     CLI_RUN);
	cr_expect_str_eq(cfg.control_ctl, "/t/ctl");
	cr_expect_str_eq(cfg.control_ack, "/t/ack");
	cr_expect(cfg.start_disabled);
	cli_free(&cfg);
	cr_assert_eq(parse(ARGV("--control", "fifo:ctl"), &cfg), CLI_RUN);
	cr_expect_str_eq(cfg.control_ctl, "ctl");
	cr_expect_null(cfg.control_ack);
	cli_free(&cfg);
	cr_expect_eq(parse(ARGV("--control", "ctl"), &cfg), CLI_EXIT_USAGE);
	cli_free(&cfg);
	cr_expect_eq(parse(ARGV("--control", "fifo:"), &cfg), CLI_EXIT_USAGE);
	cli_free(&cfg);
	cr_expect_eq(parse(ARGV("--control", "fifo:a,"), &cfg), CLI_EXIT_USAGE);
	cli_free(&cfg);
	cr_expect_eq(parse(ARGV("--control", "fifo:a,b,c"), &cfg), CLI_EXIT_USAGE);
	cli_free(&cfg);
	cr_expect_eq(parse(ARGV("--start-disabled"), &cfg), CLI_EXIT_USAGE);
	cli_free(&cfg);
}

Test(cli, top_subcommand, .init = cr_redirect_stderr)
{
	struct config cfg;

	cr_assert_eq(parse_top(ARGV("top"), &cfg), CLI_RUN);
	cr_expect(cfg.top);
	cr_expect_float_eq(cfg.refresh, 1.0, 1e-9);
	cr_expect_eq(cfg.interval, 0, "top is not fleet mode");
	cr_expect(cfg.quiet);
	cli_free(&cfg);
	cr_assert_eq(parse_top(ARGV("top", "--interval", "2.5", "-p", "7", "-K"), &cfg), CLI_RUN);
	cr_expect_float_eq(cfg.refresh, 2.5, 1e-9);
	cr_expect_eq(cfg.npids, 1);
	cr_expect_eq(cfg.sides, SIDES_KERNEL_ONLY);
	cli_free(&cfg);
	cr_expect_eq(parse_top(ARGV("top", "-o", "x.folded"), &cfg), CLI_EXIT_USAGE);
	cli_free(&cfg);
	cr_expect_eq(parse_top(ARGV("top", "--output-dir", "/tmp"), &cfg), CLI_EXIT_USAGE);
	cli_free(&cfg);
	cr_expect_eq(parse_top(ARGV("top", "--", "ls"), &cfg), CLI_EXIT_USAGE);
	cli_free(&cfg);
	cr_expect_eq(parse_top(ARGV("top", "--control", "fifo:c"), &cfg), CLI_EXIT_USAGE);
	cli_free(&cfg);
}

/* each runtime's off option comes from its row: --no-python turns Python's off */
Test(cli, runtime_off_option_from_its_row)
{
	struct config cfg;

	cr_assert_eq(parse((char *[]){ "bpfprof", "--no-python", NULL }, &cfg), CLI_RUN);
	cr_expect(cfg.names.runtimes_off & 1u << RUNTIME_PYTHON);
	cli_free(&cfg);
}
