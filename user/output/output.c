// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Profiles to their destinations: a file, a directory, a server. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/aggregate.h"
#include "base/dirfiles.h"
#include "output/emit.h"
#include "base/errors.h"
#include "base/formats.h"
#include "output/fleet.h"
#include "output/output.h"
#include "output/push.h"
#include "output/push_series.h"
#include "render/report.h"
#include "output/summary.h"

#define DEFAULT_SPOOL	"/var/spool/bpfprof"

/* Where an interval goes, each failing alone: a full directory stops the
 * files, not the sends; a spool that cannot be written stops its sender
 * only. */
enum dest { DEST_FILES, DEST_PUSH, DEST_OTLP, DEST_N };

struct output {
	const struct config *cfg;
	FILE *file;			/* one-shot: stdout or file.f */
	struct atomic_file file_tmp;	/* -o: renamed into place when complete */
	bool complete;			/* the one-shot profile is all written */
	struct fleet *fleet;		/* --output-dir */
	struct pusher *pusher;		/* --push */
	struct pusher *otlp;		/* --otlp */
	char host[256];
	char spool[4096];		/* --push's; --otlp's is beside it */
	char otlp_spool[4096 + 8];
	struct fleet_totals tot;
	int failing[DEST_N];		/* -errno of the last interval's failure, or 0 */
	uint64_t lost[DEST_N];		/* intervals each could not take */
	bool log_failing;
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
	int err, stale;

	o->file_tmp.dirfd = -1;
	if (!o->cfg->output) {
		o->file = o->cfg->report ? NULL : stdout;
		return 0;
	}
	err = atomic_file__open(&o->file_tmp, o->cfg->output, 0644);
	if (err) {
		p_err("cannot write %s: %s", o->cfg->output,
			dirfiles__strerror(err));
		return err;
	}
	o->file = o->file_tmp.f;
	stale = dirfiles__clean_stale(o->file_tmp.dirfd, o->file_tmp.name);
	if (stale)
		p_info("removed %d temporary file%s of %s that killed runs left", stale,
		       stale == 1 ? "" : "s", o->cfg->output);
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
		p_err("writing %s: %s", o->cfg->output,
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
		.protocol = PUSH_PYROSCOPE, .url = cfg->push_url, .auth_file = cfg->push_auth_file,
		.app = cfg->app_name, .host = o->host,
		.spool_dir = o->spool, .spool_max = cfg->spool_max, .freq = cfg->freq,
	};
	int err = 0;

	if (cfg->output_dir)
		err = fleet__open(&fo, &o->fleet);
	if (err || (!cfg->push_url && !cfg->otlp_url))
		return err;
	if (cfg->spool_dir)
		snprintf(o->spool, sizeof(o->spool), "%s", cfg->spool_dir);
	else if (cfg->output_dir)
		snprintf(o->spool, sizeof(o->spool), "%s/spool", cfg->output_dir);
	else
		snprintf(o->spool, sizeof(o->spool), DEFAULT_SPOOL);
	/* a spool of its own: neither sender sees the other's profiles */
	snprintf(o->otlp_spool, sizeof(o->otlp_spool), "%s-otlp", o->spool);
	if (cfg->push_url)
		err = pusher__new(&po, &o->pusher);
	if (!err && cfg->otlp_url) {
		po.protocol = PUSH_OTLP;
		po.url = cfg->otlp_url;
		po.auth_file = NULL;
		po.spool_dir = o->otlp_spool;
		err = pusher__new(&po, &o->otlp);
	}
	return err;
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

static bool dest_used(const struct output *o, enum dest d)
{
	return d == DEST_FILES ? o->fleet != NULL : d == DEST_PUSH ? o->pusher != NULL :
	       o->otlp != NULL;
}

/* What Pyroscope gets: pprof, or folded when --format says so (with
 * --format both, pprof alone: the same samples twice would count twice). */
static bool pushed_format(const struct output *o, enum out_format fmt)
{
	return fmt == FORMAT_PPROF ||
	       (fmt == o->cfg->format && formats__carries(fmt, FORMAT_TO_PUSH));
}

/* Whether destination d is in use and takes format fmt. OTLP goes to the
 * directory when asked for as the format, not only for --otlp. */
static bool takes(const struct output *o, enum dest d, enum out_format fmt)
{
	if (!dest_used(o, d))
		return false;
	if (d == DEST_FILES)
		return fmt != FORMAT_OTLP || o->cfg->format == FORMAT_OTLP;
	if (d == DEST_PUSH)
		return pushed_format(o, fmt);
	return fmt == FORMAT_OTLP;
}

/* pprof to Pyroscope: its push API's request (a series per event), which
 * it renders itself (push_series.h), not the file's bytes. */
static int push_series(struct output *o, const struct profile *p, const char *summary,
		       int64_t from, int64_t until)
{
	char *req;
	size_t req_len;
	int err;

	err = push_series__render(p, o->cfg->app_name, o->host, summary, &req, &req_len);
	if (!err)
		err = pusher__submit(o->pusher, req, req_len, FORMAT_PPROF, from, until);
	free(req);
	return err;
}

/* Whether some destination of fmt needs the file's bytes rendered. */
static bool needs_render(const struct output *o, enum out_format fmt, const int err[DEST_N])
{
	for (int d = 0; d < DEST_N; d++)
		if (takes(o, d, fmt) && !err[d] && !(d == DEST_PUSH && fmt == FORMAT_PPROF))
			return true;
	return false;
}

/* One format of one interval to each destination that takes it; each
 * one's first failure goes into err[]. */
static void ship(struct output *o, const struct profile *p, enum out_format fmt,
		 const char *summary, int err[DEST_N])
{
	/* whole seconds, each interval's until the next one's from */
	int64_t from = (int64_t)(p->stats.start_wall_ns / 1000000000ull);
	int64_t until = (int64_t)(profile_stats__end_wall_ns(&p->stats) / 1000000000ull);
	struct pusher *to[DEST_N] = { NULL, o->pusher, o->otlp };
	char *buf = NULL;
	size_t len = 0;
	int rerr = 0, e;

	if (until <= from)
		until = from + 1;
	if (needs_render(o, fmt, err))
		rerr = emit__render(p, fmt, summary, &buf, &len);
	for (int d = 0; d < DEST_N; d++) {
		if (!takes(o, d, fmt) || err[d])
			continue;
		if (d == DEST_PUSH && fmt == FORMAT_PPROF)
			e = push_series(o, p, summary, from, until);
		else if (rerr)
			e = rerr;
		else if (d == DEST_FILES)
			e = fleet__write(o->fleet, p->stats.start_wall_ns, formats__extension(fmt),
					 buf, len);
		else
			e = pusher__submit(to[d], buf, len, fmt, from, until);
		err[d] = e;
	}
	free(buf);
}

/* Where destination d writes, for its messages. */
static const char *dest_where(const struct output *o, enum dest d)
{
	return d == DEST_FILES ? o->cfg->output_dir : d == DEST_PUSH ? o->spool : o->otlp_spool;
}

/* Failures are said once when they start (or change) and once when they
 * end, not every interval: a full disk may last hours. */
static void report_dest(struct output *o, enum dest d, int err)
{
	const char *where = dest_where(o, d);

	if (err && err != o->failing[d])
		p_err("cannot write an interval's profile into %s: %s; sampling "
			"goes on, retrying every interval", where, dirfiles__strerror(err));
	if (!err && o->failing[d])
		p_info("writing into %s works again; %" PRIu64 " intervals could not be "
		       "written there so far", where, o->lost[d]);
	o->failing[d] = err;
	o->lost[d] += err != 0;
}

/* The totals: an interval some destination could not take is lost. */
static void report(struct output *o, const int err[DEST_N], const struct profile *p)
{
	bool lost = false;

	for (int d = 0; d < DEST_N; d++) {
		if (dest_used(o, d))
			report_dest(o, d, err[d]);
		lost |= err[d] != 0;
	}
	if (lost) {
		o->tot.lost_intervals++;
		o->tot.lost_samples += profile__total(p);
	} else {
		o->tot.intervals++;
		o->tot.samples += profile__total(p);
	}
}

/* What the run held at the drain: unwind rows, mapped files, kernel bytes. */
static void footprint_json(const struct footprint *f, FILE *out)
{
	if (!f->set)
		return;
	fprintf(out, ",\"footprint\":{\"unwind_rows\":%zu,\"unwind_files\":%zu,"
		"\"tables_loaded\":%zu,\"tables_dropped\":%zu,\"registry_files\":%zu,"
		"\"registry_released\":%" PRIu64 ",\"bpf_map_bytes\":%" PRIu64
		",\"unwind_row_bytes\":%" PRIu64 "}", f->unwind_rows, f->unwind_files,
		f->tables_loaded, f->tables_dropped, f->registry_files, f->registry_released,
		f->kernel_bytes, f->row_bytes);
}

/* An interval much longer than asked: the agent was stopped (SIGSTOP, a
 * frozen cgroup) or got no CPU, and its profile spans all of it. Said in
 * the index, on stderr the first time, and counted: never one silent long
 * interval. The margin: 1 s, or a tenth of a long interval. Returns the
 * seconds over, or 0. */
static double late_by(struct output *o, const struct profile *p)
{
	double asked = o->cfg->interval, over = p->stats.duration - asked;

	if (over < 1.0 || over < asked / 10)
		return 0;
	if (!o->tot.late_intervals++)
		p_warn("an interval lasted %.1f s, %.1f s longer than asked: the agent was "
		       "stopped or starved (said in the index each time; once here)",
		       p->stats.duration, over);
	return over;
}

/* The index's line of an interval: one JSON object, the summary's members
 * (as --stats writes them, its start and end among them), what the run held,
 * the stack map's occupancy and whether it was written. */
static int index_json(struct output *o, const struct summary *s, int err, char **line,
		      size_t *len)
{
	const struct profile *p = s->p;
	double late = late_by(o, p);
	FILE *f = open_memstream(line, len);

	if (!f)
		return -errno;
	fputc('{', f);
	summary__json_members(s, f);
	footprint_json(&p->stats.footprint, f);
	if (late)
		fprintf(f, ",\"late_s\":%.1f", late);
	fprintf(f, ",\"stack_ids\":%zu,\"written\":%s}", p->stats.stack_ids,
		err ? "false" : "true");
	if (fclose(f)) {
		free(*line);
		return -ENOMEM;
	}
	return 0;
}

static void index_line(struct output *o, const struct summary *s, int err)
{
	char *line = NULL;
	size_t len;
	int lerr = index_json(o, s, err, &line, &len);

	if (!lerr)
		lerr = fleet__log(o->fleet, line);
	free(line);
	if (lerr && !o->log_failing)
		p_err("cannot append to the index in %s: bpfprof-intervals.log: %s",
			o->cfg->output_dir, dirfiles__strerror(lerr));
	o->log_failing = lerr != 0;
	fleet__rotate(o->fleet);	/* a failure leaves one more file: tried again next time */
}

/* Never ends the run: what cannot be written is counted as lost. Each
 * destination gets every format it takes, whatever another's failure. */
static void interval_profile(struct output *o, const struct profile *p, const char *summary,
			     const struct summary *s)
{
	enum out_format fmt = o->fleet || o->pusher ? o->cfg->format : FORMAT_AUTO;
	int err[DEST_N] = { 0 };

	if (fmt == FORMAT_BOTH) {
		ship(o, p, FORMAT_FOLDED, summary, err);
		ship(o, p, FORMAT_PPROF, summary, err);
	} else if (formats__row(fmt)) {
		/* one fleet mode carries: cli_modes refused the others at start */
		ship(o, p, fmt, summary, err);
	}
	if (o->otlp && fmt != FORMAT_OTLP)
		ship(o, p, FORMAT_OTLP, summary, err);
	report(o, err, p);
	if (o->fleet)
		index_line(o, s, err[DEST_FILES]);
}

/* --report: the table bpfprof report would print of this profile. */
static int print_report(const struct profile *p)
{
	struct report_opts ro;
	struct vprof *v;
	int err = vprof__from_profile(p, &v);

	report__defaults(&ro);
	if (!err)
		err = report__write(v, &ro, stdout);
	vprof__free(v);
	if (err)
		p_err("writing the report: %s", strerror(-err));
	return err;
}

/* Where the profile goes, for the summary: a path, or the stream. */
static const char *destination(const struct output *o)
{
	const struct config *cfg = o->cfg;

	if (cfg->interval)
		return cfg->output_dir ? cfg->output_dir :
		       cfg->push_url ? "the push server" : "the OTLP endpoint";
	if (cfg->output)
		return cfg->output;
	return cfg->report ? NULL : "standard output";
}

static void info_line(const char *text, void *arg)
{
	(void)arg;
	p_info("%s", text);
}

static void warn_line(const char *text, void *arg)
{
	(void)arg;
	p_warn("%s", text);
}

static void comment_line(const char *text, void *arg)
{
	fprintf(arg, "\n%s", text);
}

/* pprof's comments: the short line, then -v's lines (one comment each). */
static char *pprof_comment(const struct summary *s, const char *short_line)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputs(short_line, f);
	summary__details(s, comment_line, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The short line, -v's lines, the advice (one-shot: the fleet's is in its
 * index every interval), --stats. */
static int say_summary(struct output *o, const struct summary *s, const char *short_line)
{
	p_info("%s", short_line);
	if (o->cfg->verbose)
		summary__details(s, info_line, NULL);
	if (!o->cfg->interval)
		summary__advice(s, warn_line, NULL);
	return o->cfg->stats_file ? summary__json_file(s, o->cfg->stats_file) : 0;
}

int output__profile(struct output *o, const struct profile *p, const char *why)
{
	char line[SUMMARY_COLUMNS * 4 + 256], *comment;
	struct summary s;
	int err = 0, serr;

	summary__init(&s, p, why, destination(o));
	summary__short(&s, line, sizeof(line));
	comment = pprof_comment(&s, line);
	if (o->cfg->interval) {
		interval_profile(o, p, comment ? comment : line, &s);
	} else if (o->file) {	/* --report without -o: the table alone */
		err = emit__write(p, o->cfg->format, comment ? comment : line, o->file);
		o->complete = !err;
		if (err)
			p_err("writing %s: %s",
				o->cfg->output ? o->cfg->output : "standard output", strerror(-err));
	}
	free(comment);
	serr = say_summary(o, &s, line);
	if (o->cfg->report && !o->cfg->interval && !err)
		err = print_report(p);
	return err ? err : o->cfg->interval ? 0 : serr;
}

int output__snapshot(struct output *o, const struct profile *p)
{
	const char *path = o->cfg->output;
	char line[SUMMARY_COLUMNS * 4 + 256], *comment, *buf = NULL;
	struct atomic_file af;
	struct summary s;
	size_t len = 0;
	int err;

	if (!path) {
		p_err("snapshot: nothing written: it needs -o FILE");
		return -ENOENT;
	}
	summary__init(&s, p, "snapshot", path);
	summary__short(&s, line, sizeof(line));
	comment = pprof_comment(&s, line);
	err = emit__render(p, o->cfg->format, comment ? comment : line, &buf, &len);
	free(comment);
	if (!err)
		err = atomic_file__open(&af, path, 0644);
	if (!err && fwrite(buf, 1, len, af.f) != len) {
		atomic_file__discard(&af);
		err = -EIO;
	} else if (!err) {
		err = atomic_file__commit(&af);
	}
	free(buf);
	if (err)
		p_err("snapshot to %s: %s", path, dirfiles__strerror(err));
	return err;
}

void output__reopen(struct output *o)
{
	if (o->fleet)
		fleet__reopen(o->fleet);
}

void output__totals(const struct output *o, struct fleet_totals *tot)
{
	*tot = o->tot;
}

/* At exit: what waits gets one more try; what the sender did is said. */
static void close_pusher(struct pusher *ps, const char *what, const char *spool)
{
	struct push_stats st;

	if (!ps)
		return;
	pusher__flush(ps);
	pusher__stats(ps, &st);
	p_info("%s: %" PRIu64 " sent, %" PRIu64 " refused, %" PRIu64 " dropped from a full "
	       "spool, %" PRIu64 " failed attempts, %" PRIu64 " spool items not ours refused, "
	       "%zu waiting in %s", what, st.sent, st.rejected, st.dropped, st.failures,
	       st.refused_items, st.waiting, spool);
	if (st.partial)
		p_warn("%s: %" PRIu64 " of the sent were taken in part, %" PRId64 " profiles "
		       "rejected by the receiver", what, st.partial, st.rejected_profiles);
	pusher__free(ps);
}

int output__close(struct output *o)
{
	int err = 0;

	if (!o)
		return 0;
	close_pusher(o->pusher, "push", o->spool);
	close_pusher(o->otlp, "otlp", o->otlp_spool);
	fleet__free(o->fleet);
	if (!o->cfg->interval)
		err = close_file(o);
	else if (o->tot.lost_intervals)
		err = -EIO;	/* said when it happened; the exit status says it too */
	free(o);
	return err;
}
