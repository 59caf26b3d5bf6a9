// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bpfprof report | flamegraph | diff: parse the subcommand's options, read
 * the profiles, render, write. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "views/diff.h"
#include "base/dirfiles.h"
#include "base/errors.h"
#include "render/flamegraph.h"
#include "render/report.h"
#include "views/views.h"

enum {
	OPT_SORT = 256, OPT_CHILDREN, OPT_PERCENT_LIMIT, OPT_COMM, OPT_PID, OPT_FORMAT, OPT_TITLE,
	OPT_LIMIT,
};

static const struct option view_opts[] = {
	{ "sort",          required_argument, NULL, OPT_SORT },
	{ "children",      no_argument,       NULL, OPT_CHILDREN },
	{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
	{ "comm",          required_argument, NULL, OPT_COMM },
	{ "pid",           required_argument, NULL, OPT_PID },
	{ "format",        required_argument, NULL, OPT_FORMAT },
	{ "title",         required_argument, NULL, OPT_TITLE },
	{ "limit",         required_argument, NULL, OPT_LIMIT },
	{ "output",        required_argument, NULL, 'o' },
	{ "help",          no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char view_usage[] =
"Usage: bpfprof report FILE [--sort comm,dso,symbol] [--children] [--percent-limit P]\n"
"                           [--comm NAME] [--pid PID] [-o OUT]\n"
"       bpfprof flamegraph FILE [-o OUT.html|OUT.svg] [--format html|svg] [--title TEXT]\n"
"                           [--comm NAME] [--pid PID]\n"
"       bpfprof diff BEFORE AFTER [--limit N] [-o DIFF.html]\n"
"FILE is folded stacks (bpfprof's, stackcollapse-perf's) or pprof (.pb.gz, .pb);\n"
"'-' reads standard input.\n"
"  report      self and total (inclusive) shares per function, sorted by self\n"
"              (--children: by total); --sort as perf report's (default comm,dso,symbol)\n"
"  flamegraph  one self-contained interactive HTML page (click to zoom, search,\n"
"              tooltips, flame/icicle), or a static SVG (--format svg, -o *.svg)\n"
"  diff        functions by change in self share (percentage points), largest first;\n"
"              -o DIFF.html: AFTER's flame graph coloured by growth (red) and shrinkage (blue)\n";

struct view_args {
	const char *cmd;
	const char *files[2];
	int nfiles;
	const char *output;
	const char *title;
	bool svg;
	size_t limit;
	struct report_opts report;
};

static int usage(const char *fmt, const char *arg)
{
	p_usage("bpfprof report|flamegraph|diff --help", fmt, arg);
	return 2;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* One option; returns -1 to go on, else an exit status. */
static int apply(struct view_args *a, int opt, const char *arg)
{
	const char *bad;
	char *end;
	long n;
	double d;

	switch (opt) {
	case OPT_SORT:
		a->report.nfields = vtable__parse_sort(arg, a->report.fields, &bad);
		return a->report.nfields > 0 ? -1 :
			usage("invalid --sort key '%s': expected comm, dso, symbol", bad);
	case OPT_CHILDREN:
		a->report.children = true;
		return -1;
	case OPT_PERCENT_LIMIT:
		d = strtod(arg, &end);
		if (end == arg || *end || !(d >= 0 && d <= 100))
			return usage("invalid --percent-limit '%s': expected 0..100", arg);
		a->report.percent_limit = d;
		return -1;
	case OPT_COMM:
		a->report.filter.comm = arg;
		return -1;
	case OPT_PID:
	case OPT_LIMIT:
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || end == arg || *end || n <= 0 || n > INT_MAX)
			return usage(opt == OPT_PID ? "invalid --pid '%s'" : "invalid --limit '%s'", arg);
		if (opt == OPT_PID)
			a->report.filter.pid = (pid_t)n;
		else
			a->limit = (size_t)n;
		return -1;
	case OPT_FORMAT:
		if (strcmp(arg, "html") && strcmp(arg, "svg"))
			return usage("invalid format '%s': expected html or svg", arg);
		a->svg = !strcmp(arg, "svg");
		return -1;
	case OPT_TITLE:
		a->title = arg;
		return -1;
	case 'o':
		a->output = arg;
		if (ends_with(arg, ".svg"))
			a->svg = true;
		return -1;
	case 'h':
		fputs(view_usage, stdout);
		return 0;
	default:
		return usage("unknown option '%s'", arg);
	}
}

static int parse(int argc, char **argv, struct view_args *a)
{
	int want = !strcmp(argv[0], "diff") ? 2 : 1, opt, res;

	memset(a, 0, sizeof(*a));
	report__defaults(&a->report);
	a->cmd = argv[0];
	a->limit = 30;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:h", view_opts, NULL)) != -1) {
		if (opt == ':')
			return usage("option '%s' needs an argument", argv[optind - 1]);
		res = apply(a, opt, opt == '?' ? argv[optind - 1] : optarg);
		if (res >= 0)
			return res;
	}
	for (; optind < argc; optind++) {
		if (a->nfiles == want)
			return usage("unexpected argument '%s'", argv[optind]);
		a->files[a->nfiles++] = argv[optind];
	}
	if (a->nfiles < want)
		return usage("%s needs a profile file ('-' for standard input)", a->cmd);
	if (a->nfiles == 2 && !strcmp(a->files[0], "-") && !strcmp(a->files[1], "-"))
		return usage("%s", "only one of the profiles can be standard input");
	/* a page or an SVG is read by a browser, never by a terminal: refused
	 * there rather than a screenful of markup (its names are escaped anyway) */
	if (!strcmp(a->cmd, "flamegraph") && (!a->output || !strcmp(a->output, "-")) &&
	    isatty(STDOUT_FILENO))
		return usage("%s", "a flame graph page is not for a terminal: -o FILE.html "
			     "(or .svg), or redirect standard output");
	return -1;
}

int views__write_file(const char *path, const void *buf, size_t len)
{
	struct atomic_file af;
	int err;

	if (!path || !strcmp(path, "-")) {
		if (fwrite(buf, 1, len, stdout) != len || fflush(stdout)) {
			p_err("cannot write standard output: %s", strerror(errno));
			return -EIO;
		}
		return 0;
	}
	err = atomic_file__open(&af, path, 0644);
	if (!err && fwrite(buf, 1, len, af.f) != len) {
		err = -EIO;
		atomic_file__discard(&af);
	} else if (!err) {
		err = atomic_file__commit(&af);
	}
	if (err)
		p_err("cannot write %s: %s", path, dirfiles__strerror(err));
	return err;
}

/* Renders with fn into memory, then writes the whole of it. */
static int render_to(const char *path, int (*fn)(const void *ctx, FILE *f), const void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -errno;
	err = fn(ctx, f);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (!err)
		err = views__write_file(path, buf, len);
	else
		p_err("cannot render: %s", strerror(-err));
	free(buf);
	return err;
}

struct render_ctx {
	const struct view_args *a;
	struct vprof *v[2];
};

static int render_report(const void *p, FILE *f)
{
	const struct render_ctx *c = p;

	return report__write(c->v[0], &c->a->report, f);
}

static int render_flamegraph(const void *p, FILE *f)
{
	const struct render_ctx *c = p;
	struct fg_opts o = {
		.title = c->a->title ? c->a->title : c->a->files[0],
		.filter = c->a->report.filter, .svg = c->a->svg,
	};

	return flamegraph__write(c->v[0], NULL, &o, f);
}

static int render_diff_table(const void *p, FILE *f)
{
	const struct render_ctx *c = p;

	return diff__write_table(c->v[0], c->v[1], c->a->limit, f);
}

static int render_diff_page(const void *p, FILE *f)
{
	const struct render_ctx *c = p;
	struct fg_opts o = { .title = c->a->title ? c->a->title : "bpfprof diff" };

	return flamegraph__write(c->v[1], c->v[0], &o, f);
}

static int run(const struct view_args *a)
{
	struct render_ctx c = { .a = a };
	int i, err = 0;

	for (i = 0; !err && i < a->nfiles; i++)
		err = vprof__read(a->files[i], &c.v[i]);
	if (!err && !strcmp(a->cmd, "report"))
		err = render_to(a->output, render_report, &c);
	else if (!err && !strcmp(a->cmd, "flamegraph"))
		err = render_to(a->output, render_flamegraph, &c);
	else if (!err && a->output)	/* diff -o: the page; the table to stdout */
		err = render_to(a->output, render_diff_page, &c);
	if (!err && !strcmp(a->cmd, "diff"))
		err = render_to(NULL, render_diff_table, &c);
	vprof__free(c.v[0]);
	vprof__free(c.v[1]);
	return err ? 1 : 0;
}

const struct option *views__options(void)
{
	return view_opts;
}

int views__main(int argc, char **argv)
{
	struct view_args a;
	int res = parse(argc, argv, &a);

	return res >= 0 ? res : run(&a);
}
