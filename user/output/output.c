// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Profiles to their destinations: a file, a directory, a server. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggregate.h"
#include "dirfiles.h"
#include "emit.h"
#include "fleet.h"
#include "output.h"
#include "push.h"
#include "summary.h"

#define DEFAULT_SPOOL	"/var/spool/bpfprof"

struct output {
	const struct config *cfg;
	FILE *file;			/* one-shot: stdout or file.f */
	struct atomic_file file_tmp;	/* -o: renamed into place when complete */
	bool complete;			/* the one-shot profile is all written */
	struct fleet *fleet;		/* --output-dir */
	struct pusher *pusher;		/* --push */
	char host[256];
	char spool[4096];
	uint64_t intervals, samples;
};

/* The hostname, made safe for a file name and a label. */
static void get_host(char *buf, size_t size)
{
	char *c;

	if (gethostname(buf, size) || !buf[0])
		snprintf(buf, size, "localhost");
	buf[size - 1] = '\0';
	for (c = buf; *c; c++)
		if (*c == '/' || *c == '{' || *c == '}' || *c == ',' || *c == '=')
			*c = '_';
}

/* -o FILE: written to a temporary beside it and renamed over it only
 * when the profile is complete, so a run that fails leaves FILE as it was. */
static int open_file(struct output *o)
{
	int err;

	o->file_tmp.dirfd = -1;
	if (!o->cfg->output) {
		o->file = stdout;
		return 0;
	}
	err = atomic_file__open(&o->file_tmp, o->cfg->output, 0644);
	if (err) {
		fprintf(stderr, "bpfprof: cannot write %s: %s\n", o->cfg->output,
			dirfiles__strerror(err));
		return err;
	}
	o->file = o->file_tmp.f;
	return 0;
}

void output__temporary(const struct output *o, int *dirfd, const char **name)
{
	bool open = o && o->cfg->output && o->file_tmp.dirfd >= 0;

	*dirfd = open ? o->file_tmp.dirfd : -1;
	*name = open ? o->file_tmp.tmp : NULL;
}

/* The -o file goes into place only with a whole profile in it. */
static int close_file(struct output *o)
{
	int err;

	if (!o->cfg->output || o->file_tmp.dirfd < 0)
		return 0;
	if (!o->complete) {
		atomic_file__discard(&o->file_tmp);
		return 0;
	}
	err = atomic_file__commit(&o->file_tmp);
	if (err)
		fprintf(stderr, "bpfprof: writing %s: %s\n", o->cfg->output,
			dirfiles__strerror(err));
	return err;
}

static int open_fleet(struct output *o)
{
	const struct config *cfg = o->cfg;
	struct fleet_opts fo = {
		.dir = cfg->output_dir, .host = o->host,
		.max_files = cfg->max_files, .max_bytes = cfg->max_bytes,
	};
	struct push_opts po = {
		.url = cfg->push_url, .app = cfg->app_name, .host = o->host,
		.spool_dir = o->spool, .spool_max = cfg->spool_max, .freq = cfg->freq,
	};
	int err = 0;

	if (cfg->output_dir)
		err = fleet__open(&fo, &o->fleet);
	if (err || !cfg->push_url)
		return err;
	if (cfg->spool_dir)
		snprintf(o->spool, sizeof(o->spool), "%s", cfg->spool_dir);
	else if (cfg->output_dir)
		snprintf(o->spool, sizeof(o->spool), "%s/spool", cfg->output_dir);
	else
		snprintf(o->spool, sizeof(o->spool), DEFAULT_SPOOL);
	return pusher__new(&po, &o->pusher);
}

int output__open(const struct config *cfg, struct output **out)
{
	struct output *o = calloc(1, sizeof(*o));
	int err;

	if (!o)
		return -ENOMEM;
	o->cfg = cfg;
	get_host(o->host, sizeof(o->host));
	err = cfg->interval ? open_fleet(o) : open_file(o);
	if (err) {
		output__close(o);
		return err;
	}
	*out = o;
	return 0;
}

/* One format of one interval: to the directory, to the server. */
static int ship(struct output *o, const struct profile *p, enum out_format fmt,
		const char *summary)
{
	int64_t from = (int64_t)(p->stats.start_wall_ns / 1000000000ull);
	int64_t until = from + (int64_t)(p->stats.duration + 0.5);
	char *buf;
	size_t len;
	int err;

	err = emit__render(p, fmt, summary, &buf, &len);
	if (!err && o->fleet)
		err = fleet__write(o->fleet, p->stats.start_wall_ns, emit__extension(fmt), buf, len);
	if (!err && o->pusher)
		pusher__submit(o->pusher, buf, len, fmt, from, until > from ? until : from + 1);
	free(buf);
	if (err)
		fprintf(stderr, "bpfprof: writing a %s profile into %s: %s\n",
			emit__extension(fmt), o->cfg->output_dir, strerror(-err));
	return err;
}

static int interval_profile(struct output *o, const struct profile *p, const char *summary)
{
	enum out_format fmt = o->cfg->format;
	int err = 0;

	if (fmt == FORMAT_FOLDED || fmt == FORMAT_BOTH)
		err = ship(o, p, FORMAT_FOLDED, summary);
	if (!err && (fmt == FORMAT_PPROF || fmt == FORMAT_BOTH))
		err = ship(o, p, FORMAT_PPROF, summary);
	if (o->fleet) {
		char line[1536];

		snprintf(line, sizeof(line), "%" PRIu64 " %s; stack map held %zu ids",
			 p->stats.start_wall_ns, summary, p->stats.stack_ids);
		if (fleet__log(o->fleet, line) && !err)
			err = -EIO;
		if (fleet__rotate(o->fleet) < 0 && !err)
			err = -EIO;
	}
	o->intervals++;
	o->samples += profile__total(p);
	return err;
}

int output__profile(struct output *o, const struct profile *p, const char *why)
{
	char summary[1280];
	int err;

	summary__format(p, why, summary, sizeof(summary));
	if (o->cfg->interval) {
		err = interval_profile(o, p, summary);
	} else {
		err = emit__write(p, o->cfg->format, summary, o->file);
		o->complete = !err;
		if (err)
			fprintf(stderr, "bpfprof: writing %s: %s\n",
				o->cfg->output ? o->cfg->output : "standard output", strerror(-err));
	}
	fprintf(stderr, "bpfprof: %s\n", summary);
	return err;
}

void output__reopen(struct output *o)
{
	if (o->fleet)
		fleet__reopen(o->fleet);
}

void output__totals(const struct output *o, uint64_t *intervals, uint64_t *samples)
{
	*intervals = o->intervals;
	*samples = o->samples;
}

int output__close(struct output *o)
{
	struct push_stats st;
	int err = 0;

	if (!o)
		return 0;
	if (o->pusher) {
		pusher__flush(o->pusher);
		pusher__stats(o->pusher, &st);
		fprintf(stderr, "bpfprof: push: %" PRIu64 " sent, %" PRIu64 " refused, %" PRIu64
			" dropped from a full spool, %" PRIu64 " failed attempts, %zu waiting in %s\n",
			st.sent, st.rejected, st.dropped, st.failures, st.waiting, o->spool);
		pusher__free(o->pusher);
	}
	fleet__free(o->fleet);
	if (!o->cfg->interval)
		err = close_file(o);
	free(o);
	return err;
}
