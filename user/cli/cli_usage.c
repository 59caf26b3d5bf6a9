// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What the command line tells a person: --help, grouped as the man page
 * is, and the closest option to one that was mistyped. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_usage.h"
#include "base/errors.h"
#include "base/formats.h"
#include "base/runtime.h"

static const char help_text[] =
"Usage: bpfprof [OPTIONS] [-- COMMAND [ARGS...]]\n"
"       bpfprof --interval SECS {--output-dir DIR | --push URL | --otlp URL} [OPTIONS]\n"
"       bpfprof --list\n"
"       bpfprof top [--interval SECS] [-p PID | --comm NAME] [OPTIONS]   (live table)\n"
"       bpfprof report|flamegraph|diff PROFILE... [OPTIONS]     (views, see below)\n"
"       bpfprof symbolize IN.pb.gz -o OUT.pb.gz [--debug-dir DIR]...  (name addresses)\n"
"Sample stacks with eBPF and write them as folded stacks (comm;outer;...;inner COUNT)\n"
"or pprof, ready for flame graph tools. Kernel frames carry the suffix _[k].\n"
"\n"
"Profiling (whom, how long, how stacks are taken):\n"
"  -a, --all-cpus        the whole system, every CPU (the default)\n"
"  -p, --pid PID[,PID]   only these processes and their threads, until they exit\n"
"  -t, --tid TID[,TID]   only these threads\n"
"      --comm NAME       only tasks of this name\n"
"      --cgroup PATH     only tasks in this cgroup (v2) or below it\n"
"  -d, --duration SECS   stop after SECS seconds (default: Ctrl-C, or when COMMAND exits)\n"
"      --kill-after SECS when profiling stops, COMMAND gets SIGTERM, and SIGKILL SECS\n"
"                        later if still running (default 2)\n"
"  -U, --user-only       user stacks only\n"
"  -K, --kernel-only     kernel stacks only\n"
"      --call-graph MODE auto (default), fp or dwarf: how user stacks are taken. auto:\n"
"                        each frame from its file's .eh_frame, by frame pointers in\n"
"                        files that keep them; fp: frame pointers only (cheapest, but\n"
"                        stacks through code built without them lose frames); dwarf:\n"
"                        every frame from .eh_frame\n"
"      --unwind-rows N   at most N unwind rows loaded at once (auto, dwarf; default 4194304)\n"
"      --max-stacks N    room for N distinct stacks in the BPF maps (default 16384)\n"
"      --btf PATH        kernel BTF to use instead of /sys/kernel/btf/vmlinux\n"
"\n"
"Events (what to sample):\n"
"  -e, --event EV[,EV]   default cpu-clock: perf's names (page-faults, context-switches,\n"
"                        cycles...), NAME:u / NAME:k, tracepoints subsystem:name,\n"
"                        uprobes u:PATH:SYMBOL\n"
"  -F, --freq HZ         samples per second per CPU (default 99; fleet mode 19)\n"
"  -c, --count N         sample every N events instead of -F\n"
"      --off-cpu         also record where threads block, and how long (microseconds)\n"
"      --min-block USEC  ignore blocks shorter than USEC (default 1)\n"
"      --list            list the events this machine can open, and exit\n"
"\n"
"Outputs:\n";

/* -o and --format: generated from the formats' table (base/formats.h) */

static const char help_after_formats[] =
"      --report          after the run, print the report table (see bpfprof report)\n"
"      --group-by LABEL  a root frame per container, pod, unit (systemd), cgroup or pid\n"
"                        (\"container:ID\", \"unit:nginx.service\"; none: the default)\n"
"      --labels LIST     the labels of pprof's samples: pid, tid, comm, cgroup,\n"
"                        container, pod, unit (default all; fleet mode: comm,\n"
"                        container, pod, unit), all or none\n"
"      --max-cgroups N   label samples with at most N distinct cgroups a profile\n"
"                        (default 1024); the rest carry none, counted\n"
"      --demangle[=FORM] C++ names as perf prints them (short, the default: no parameters\n"
"                        or return type), full (all the symbol says) or none\n"
"      --no-demangle     print C++ and Rust names as the symbol table has them\n"
"      --no-inline       no frames for inlined functions (source lines stay)\n"
"      --dwarf-mem SIZE  DWARF held at once for source lines and inline frames; a file\n"
"                        needing more gets names only, counted (K, M, G; 0: no bound;\n"
"                        default: none, 8M in fleet mode)\n"
"      --jit-map-mem SIZE\n"
"                        what all JIT maps (/tmp/perf-PID.map) hold at once, one\n"
"                        process's at most a quarter; a map past it is cut short, said\n"
"                        and counted (K, M, G; 0: no bound; default 64M)\n"
"";

/* after each runtime's off option (base/runtime.h) */
static const char help_after_runtimes[] =
"      --symbolize WHERE here (default), or none: pprof/otlp keep user addresses with\n"
"                        their file and build-id, unnamed, for bpfprof symbolize\n"
"      --debuginfod-timeout SECS\n"
"                        with DEBUGINFOD_URLS set, the most the run waits on its servers\n"
"                        for debug files, in all (default 2; 0: never ask them)\n"
"  -q, --quiet           nothing on stderr but errors and warnings\n"
"      --no-progress     no progress line (shown on a terminal for runs over 2 s)\n"
"  -v, --verbose         the summary's details (lost, names, unwinding, tables, ...)\n"
"                        under its short line; -vv: and libbpf's log\n"
"      --stats FILE      the summary's every count as JSON into FILE (for scripts;\n"
"                        fleet mode: the latest interval's)\n"
"  -h, --help            this help\n"
"  -V, --version         print the version\n"
"\n"
"Control of a running profiler (perf record's --control):\n"
"      --control fifo:CTL[,ACK]  read commands from the FIFO CTL (made with mkfifo; never\n"
"                        created): enable, disable, snapshot (write the profile so far to\n"
"                        -o now; SIGUSR1 too), clear (drop what was counted); each gets\n"
"                        'ack' in the FIFO ACK\n"
"      --start-disabled  count nothing until an enable command\n"
"\n"
"Fleet mode (a profile every interval until SIGTERM; 19 Hz unless -F is given):\n"
"      --interval SECS   write a profile every SECS seconds\n"
"      --output-dir DIR  into DIR, named HOST-YYYYmmddTHHMMSS.mmmZ.folded or .pb.gz\n"
"                        (the interval's start, UTC)\n"
"      --max-files N     keep at most N profiles in DIR (default 1000)\n"
"      --max-bytes SIZE  keep at most SIZE bytes there (K, M, G suffixes; default 1G)\n"
"      --push URL        send each profile to a Pyroscope server (its push API; folded: /ingest)\n"
"      --push-auth-file FILE\n"
"                        its credentials, one line: user:password or Bearer TOKEN (or\n"
"                        the environment's BPFPROF_PUSH_AUTH): off the command line\n"
"      --otlp URL        send each profile as OTLP/HTTP (POST URL/v1development/profiles,\n"
"                        gzip); --otlp env: OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT, else\n"
"                        OTEL_EXPORTER_OTLP_ENDPOINT; OTEL_EXPORTER_OTLP_HEADERS: API keys\n"
"      --app NAME        Pyroscope service name: letters, digits, _ . - / (default bpfprof)\n"
"      --spool-dir DIR   profiles waiting for the server (default OUTPUT-DIR/spool,\n"
"                        else /var/spool/bpfprof; --otlp's in DIR-otlp)\n"
"      --spool-max N     at most N waiting profiles, oldest dropped (default 100)\n"
"\n"
"Live view: bpfprof top, the hottest functions, redrawn every --interval SECS (default\n"
"1); -p, --comm, -F, -e, -U/-K as above; keys q quit, k/u kernel/user frames, p pause\n"
"\n"
"Views (of a folded or pprof file, '-' for stdin; bpfprof report --help for all):\n"
"  bpfprof report FILE [--sort comm,dso,symbol] [--children] [--percent-limit P]\n"
"                        self and total shares per function, as perf report\n"
"  bpfprof flamegraph FILE -o PAGE.html   one self-contained interactive page (.svg: an image)\n"
"  bpfprof diff BEFORE AFTER [-o DIFF.html]  functions by change in self share\n"
"\n"
"Examples:\n"
"  bpfprof -d 10 -o system.folded             the whole system for 10 s\n"
"  bpfprof -p 1234 -F 199 -o app.pb.gz        one process until Ctrl-C or its exit, pprof\n"
"  bpfprof -o ls.folded -- ls -lR /usr        a command, start to end\n"
"  bpfprof -e page-faults -c 1 -- ls /usr     every page fault of a command, with its stack\n"
"  bpfprof --interval 60 --output-dir /var/lib/bpfprof --format both\n"
"\n"
"Exit status: 0 done, 1 error, 2 bad usage; with -- COMMAND, the command's status\n"
"(128+N if a signal N killed it). Ctrl-C stops and writes; a second Ctrl-C aborts.\n"
"A summary line (samples, stacks, lost samples, unresolved frames) goes to stderr.\n"
"See bpfprof(1).\n";

#define HELP_INDENT	24	/* the column option texts start at */
#define HELP_WIDTH	80

/* text after the option's name (at HELP_INDENT), wrapped at HELP_WIDTH */
static void help_wrapped(FILE *f, const char *option, const char *text)
{
	char word[128];
	int col = fprintf(f, "%-*s", HELP_INDENT, option), n;
	bool first = true;

	while (sscanf(text, "%127s%n", word, &n) == 1) {
		if (!first && col + 1 + (int)strlen(word) > HELP_WIDTH)
			col = fprintf(f, "\n%*s", HELP_INDENT, "") - 1;
		else if (!first)
			col += fprintf(f, " ");
		col += fprintf(f, "%s", word);
		first = false;
		text += n;
	}
	fputc('\n', f);
}

/* -o's names, row by row: ".pb.gz .pb .pprof: pprof, " */
static void suffixes_text(char *buf, size_t size)
{
	size_t n = 0;

	for (int fmt = FORMAT_FIRST_ROW; fmt < FORMAT_END && n < size; fmt++) {
		const struct format_row *r = formats__row(fmt);

		for (int i = 0; i < FORMAT_MAX_SUFFIXES && r->suffixes[i] && n < size; i++)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? " " : "", r->suffixes[i]);
		if (n < size)
			n += (size_t)snprintf(buf + n, size - n, ": %s, ", r->name);
	}
}

/* -o and --format, from the formats' table */
static void help_formats(FILE *f)
{
	char names[160], suffixes[256], text[512];

	suffixes_text(suffixes, sizeof(suffixes));
	snprintf(text, sizeof(text), "write the profile to FILE (default: standard output); its "
		 "name picks the format: %sanything else: folded", suffixes);
	help_wrapped(f, "  -o, --output FILE", text);
	formats__list(names, sizeof(names), 0, ", or ");
	snprintf(text, sizeof(text), "%s (fleet mode: folded and pprof): overrides the name",
		 names);
	help_wrapped(f, "      --format FMT", text);
}

static const struct runtime_ops *const *runtimes;	/* cli_use_runtimes()'s */

void cli_usage__use_runtimes(const struct runtime_ops *const *rows)
{
	runtimes = rows;
}

const struct runtime_ops *cli_usage__runtime(int id)
{
	return runtimes && id >= 0 && id < RUNTIME_MAX ? runtimes[id] : NULL;
}

/* each runtime's off option, from its row */
static void help_runtimes(FILE *f)
{
	char option[64];

	for (int id = 0; id < RUNTIME_MAX; id++) {
		const struct runtime_ops *rt = cli_usage__runtime(id);

		if (!rt || !rt->off_option)
			continue;
		snprintf(option, sizeof(option), "      --%s", rt->off_option);
		help_wrapped(f, option, rt->off_usage);
	}
}

void cli_usage__help(FILE *f)
{
	fputs(help_text, f);
	help_formats(f);
	fputs(help_after_formats, f);
	help_runtimes(f);
	fputs(help_after_runtimes, f);
}

/* Edits (insert, delete, substitute, swap two neighbours) from a to b:
 * Damerau-Levenshtein, restricted, over short strings. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t d[CLI_USAGE_MAX_NAME + 1][CLI_USAGE_MAX_NAME + 1];

	if (la > CLI_USAGE_MAX_NAME || lb > CLI_USAGE_MAX_NAME)
		return (size_t)-1;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const char *cli_usage__closest(const char *word, const struct option *opts)
{
	const char *best = NULL, *eq = strchr(word, '=');
	char name[CLI_USAGE_MAX_NAME + 1];
	size_t best_d = (size_t)-1, len, limit;

	len = eq ? (size_t)(eq - word) : strlen(word);
	if (len == 0 || len > CLI_USAGE_MAX_NAME)
		return NULL;
	memcpy(name, word, len);
	name[len] = '\0';
	/* a third of the name, at least 1, at most 3 edits: closer guesses mislead */
	limit = len / 3 < 1 ? 1 : len / 3 > 3 ? 3 : len / 3;
	for (; opts->name; opts++) {
		size_t d = edit_distance(name, opts->name);

		if (d < best_d) {
			best_d = d;
			best = opts->name;
		}
	}
	return best_d <= limit ? best : NULL;
}

void cli_usage__error(const char *fmt, const char *arg)
{
	p_usage(CLI_SEE_HELP, fmt, arg);
}
