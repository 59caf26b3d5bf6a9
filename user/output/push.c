// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Pyroscope ingest and OTLP/HTTP over libcurl, on a thread of its own:
 * the sampling loop only spools (push.h). The worker sends the spool
 * oldest first through a curl multi handle, so that stopping it cuts a
 * transfer at once (curl_multi_wakeup) whatever the server does. The two
 * protocols differ only in the request (push_request.c); spool, back-off,
 * verdicts (push_retry.h: OTLP/HTTP's rules) and accounting are one.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "base/errors.h"
#include "output/libcurl.h"
#include "output/otlp_headers.h"
#include "output/otlp_reply.h"
#include "output/push_priv.h"
#include "output/push_auth.h"
#include "output/push_reply.h"
#include "output/push_retry.h"
#include "output/spool.h"

#define EXIT_WAIT_MS	500	/* at exit, for what waits; the rest stays spooled */

static int64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void deadline_ts(int64_t at_ms, struct timespec *ts)
{
	ts->tv_sec = at_ms / 1000;
	ts->tv_nsec = at_ms % 1000 * 1000000;
}

/* Runs the request until it ends or the pusher stops. Returns the HTTP
 * status, or -1 when no whole answer came; *why says what went wrong. */
static long transfer(struct pusher *ps, const char **why)
{
	CURLcode rc = CURLE_ABORTED_BY_CALLBACK;
	long status = -1;
	int running = 1, left;
	CURLMsg *msg;

	*why = "stopped";
	if (libcurl.multi_add_handle(ps->multi, ps->curl) != CURLM_OK)
		return -1;
	while (running && !atomic_load(&ps->stop)) {
		if (libcurl.multi_perform(ps->multi, &running) != CURLM_OK ||
		    (running && libcurl.multi_poll(ps->multi, NULL, 0, 1000, NULL) != CURLM_OK))
			break;
	}
	while ((msg = libcurl.multi_info_read(ps->multi, &left)))
		if (msg->msg == CURLMSG_DONE)
			rc = msg->data.result;
	/* a reply cut at its bound still has its status */
	if (rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && ps->reply->cut))
		libcurl.easy_getinfo(ps->curl, CURLINFO_RESPONSE_CODE, &status);
	else if (running == 0)
		*why = libcurl.easy_strerror(rc);
	libcurl.multi_remove_handle(ps->multi, ps->curl);
	return status;
}

static long send_item(struct pusher *ps, const struct spool_item *it, const char *body,
		      size_t len, const char **why)
{
	struct curl_slist *hdrs = NULL;
	long status = -1;

	*why = "out of memory";
	push_reply__reset(ps->reply);
	if (!push_request__set(ps, it, body, len, &hdrs)) {
		/* Retry-After and Content-Type: what the verdict and its words need */
		libcurl.easy_setopt(ps->curl, CURLOPT_HEADERFUNCTION, push_reply__header);
		libcurl.easy_setopt(ps->curl, CURLOPT_HEADERDATA, ps->reply);
		status = transfer(ps, why);
	}
	if (hdrs)	/* they may hold credentials */
		for (struct curl_slist *h = hdrs; h; h = h->next)
			explicit_bzero(h->data, strlen(h->data));
	libcurl.slist_free_all(hdrs);
	free(ps->gz);
	ps->gz = NULL;
	return status;
}

/* Under the lock, once a run: the spool (a shared directory) holds item
 * names of files bpfprof did not write. They are never listed: not sent,
 * dropped or removed. */
static void say_others(struct pusher *ps)
{
	size_t n = spool__others(ps->spool);

	if (!n || ps->said_others)
		return;
	ps->said_others = true;
	p_warn("%s: spool directory %s holds %zu file%s named like its items that bpfprof did "
	       "not write (another user's, or not a lone regular file): left alone, never sent",
	       ps->what, ps->o.spool_dir, n, n == 1 ? "" : "s");
}

/* Under the lock: the oldest item that is bpfprof's, read and checked;
 * those that are not are refused, removed and counted. Returns false
 * when there is nothing to send. */
static bool next_item(struct pusher *ps, struct spool_item *out, char **body, size_t *len)
{
	struct spool_item *items;
	bool found = false;
	size_t n, i;
	int err;

	if (spool__list(ps->spool, &items, &n))
		return false;
	say_others(ps);
	for (i = 0; i < n && !found; i++) {
		/* a profile of the other protocol's: not this server's to take */
		if ((items[i].fmt == FORMAT_OTLP) != (ps->o.protocol == PUSH_OTLP)) {
			p_warn("%s: spool item %s is not for this server; removed", ps->what,
			       items[i].name);
			spool__remove(ps->spool, &items[i]);
			ps->st.refused_items++;
			continue;
		}
		err = spool__read(ps->spool, &items[i], body, len);
		if (err == -ENOENT)
			continue;	/* dropped from a full spool meanwhile */
		if (err) {
			p_warn("%s: spool item %s refused: %s; removed", ps->what,
				items[i].name, spool__strerror(err));
			spool__remove(ps->spool, &items[i]);
			ps->st.refused_items++;
			continue;
		}
		*out = items[i];
		items[i].name = NULL;	/* moves to *out */
		found = true;
	}
	spool__free_items(items, n);
	return found;
}

/* The jitter's random number: a fleet that failed together must not
 * come back in step, so not one seeded by the clock alone. */
static uint32_t jitter_random(void)
{
	struct timespec ts;
	uint32_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == sizeof(r))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)ts.tv_nsec * 2654435761u ^ (uint32_t)getpid();
}

/* What the server said, in one line: OTLP's google.rpc.Status message
 * when the body is one, else the body's first line; "" for none. */
static void reply_words(struct pusher *ps, char *buf, size_t size)
{
	if (ps->o.protocol == PUSH_OTLP && !ps->reply->cut && push_reply__is_protobuf(ps->reply) &&
	    otlp_reply__status(ps->reply->buf, ps->reply->len, buf, size))
		return;
	push_reply__excerpt(ps->reply, buf, size);
}

/* The next try after a failure: backoff with jitter, at least what the
 * answer's Retry-After asked (bounded). Said once when failing starts. */
static void back_off(struct pusher *ps, long status, const char *why)
{
	char words[OTLP_REPLY_MESSAGE_SIZE], asked[64] = "";
	int64_t after_ms = 0, wait_ms;

	ps->st.failures++;
	ps->failures_in_row++;
	ps->flushing = false;	/* at exit, one try is all */
	if (status > 0 && ps->reply->retry_after[0])
		push_retry__after(ps->reply->retry_after, time(NULL), &after_ms);
	wait_ms = push_retry__wait_ms(ps->failures_in_row, jitter_random(), after_ms);
	ps->retry_at_ms = monotonic_ms() + wait_ms;
	ps->asked_at_ms = after_ms ? monotonic_ms() + after_ms : 0;
	if (ps->failing)
		return;
	ps->failing = true;
	if (status <= 0) {
		p_warn("%s: %s: %s; profiles stay spooled, retrying with backoff", ps->what,
		       ps->shown, why);
		return;
	}
	reply_words(ps, words, sizeof(words));
	if (after_ms)
		snprintf(asked, sizeof(asked), ", as its Retry-After asks%s",
			 after_ms == PUSH_RETRY_AFTER_MAX_MS ? " (bounded)" : "");
	p_warn("%s: %s answered HTTP %ld%s%s; profiles stay spooled, retrying with backoff "
	       "(the next try in %.1f s%s)", ps->what, ps->shown, status, words[0] ? ": " : "",
	       words, wait_ms / 1000.0, asked);
}

/* OTLP: a 2xx answer may be a partial success (not retried: counted,
 * said the first time). */
static void note_partial(struct pusher *ps)
{
	char msg[OTLP_REPLY_MESSAGE_SIZE];
	int64_t rejected;

	if (ps->o.protocol != PUSH_OTLP || ps->reply->cut ||
	    !otlp_reply__partial(ps->reply->buf, ps->reply->len, &rejected, msg, sizeof(msg)))
		return;
	if (!ps->st.partial++)
		p_warn("%s: %s took a request in part: %" PRId64 " profiles rejected%s%s "
		       "(counted at exit; said once)", ps->what, ps->shown, rejected,
		       msg[0] ? ": " : "", msg);
	ps->st.rejected_profiles += rejected;
}

/* Under the lock: what one attempt's answer means for the item. */
static void settle(struct pusher *ps, const struct spool_item *it, long status, const char *why)
{
	char words[OTLP_REPLY_MESSAGE_SIZE];

	if (status < 0 && atomic_load(&ps->stop))
		return;		/* cut by the exit: it stays spooled */
	switch (push_retry__verdict(status)) {
	case PUSH_SENT:
		ps->st.sent++;
		ps->st.replies_cut += ps->reply->cut;
		note_partial(ps);
		if (ps->failing)
			p_info("%s: %s takes profiles again", ps->what, ps->shown);
		ps->failing = false;
		ps->failures_in_row = 0;
		ps->asked_at_ms = 0;
		spool__remove(ps->spool, it);
		break;
	case PUSH_REFUSED:
		reply_words(ps, words, sizeof(words));
		p_warn("%s: %s refused the profile of %" PRId64 "..%" PRId64
			" (HTTP %ld%s%s); dropped, not retried", ps->what, ps->shown, it->from,
			it->until, status, words[0] ? ": " : "", words);
		ps->st.rejected++;
		spool__remove(ps->spool, it);
		break;
	case PUSH_RETRY:
		back_off(ps, status, why);
		break;
	}
}

/* Under the lock: may the worker send now? Not before the backoff's
 * time; at exit, one try whatever the backoff, but never before the time a
 * server's Retry-After asked for. */
static bool may_send(struct pusher *ps)
{
	if (!ps->work)
		return false;
	return monotonic_ms() >= (ps->flushing ? ps->asked_at_ms : ps->retry_at_ms);
}

static void wait_for_work(struct pusher *ps)
{
	struct timespec ts;

	ps->idle = true;
	pthread_cond_broadcast(&ps->cond);
	if (ps->work) {		/* backing off */
		deadline_ts(ps->retry_at_ms, &ts);
		pthread_cond_timedwait(&ps->cond, &ps->lock, &ts);
	} else {
		pthread_cond_wait(&ps->cond, &ps->lock);
	}
}

static void send_one(struct pusher *ps)
{
	struct spool_item it;
	const char *why;
	char *body;
	size_t len;
	long status;

	ps->idle = false;
	if (!next_item(ps, &it, &body, &len)) {
		ps->work = false;
		ps->flushing = false;
		return;
	}
	snprintf(ps->sending, sizeof(ps->sending), "%s", it.name);
	pthread_mutex_unlock(&ps->lock);
	status = send_item(ps, &it, body, len, &why);
	free(body);
	pthread_mutex_lock(&ps->lock);
	ps->sending[0] = '\0';
	settle(ps, &it, status, why);
	free(it.name);
}

static void *worker(void *arg)
{
	struct pusher *ps = arg;

	pthread_mutex_lock(&ps->lock);
	while (!atomic_load(&ps->stop)) {
		if (may_send(ps)) {
			send_one(ps);
			continue;
		}
		ps->flushing = false;	/* a Retry-After pending: what waits stays spooled */
		wait_for_work(ps);
	}
	ps->idle = true;
	pthread_cond_broadcast(&ps->cond);
	pthread_mutex_unlock(&ps->lock);
	return NULL;
}

/* Signals stay with the main thread (its signalfd): the worker blocks them all. */
static int start_worker(struct pusher *ps)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&ps->thread, NULL, worker, ps);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	ps->started = !err;
	return -err;
}

static int init_sync(struct pusher *ps)
{
	pthread_condattr_t ca;
	int err = pthread_condattr_init(&ca);

	if (!err)
		err = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!err)
		err = pthread_cond_init(&ps->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (!err)
		err = pthread_mutex_init(&ps->lock, NULL);
	return -err;
}

static void free_auth(struct pusher *ps)
{
	if (ps->bearer) {
		explicit_bzero(ps->bearer, strlen(ps->bearer));
		free(ps->bearer);
	}
	ps->bearer = NULL;
	push_auth__free(&ps->auth);
	otlp_headers__free(&ps->headers);
	free(ps->endpoint);
	ps->endpoint = NULL;
}

/* OTLP: the URL posted to, the endpoint itself when it names the
 * profiles path, else the base URL with it (the OTel exporters' rule for
 * OTEL_EXPORTER_OTLP_ENDPOINT); the headers of the environment. */
static int load_otlp(struct pusher *ps)
{
	const char *url = ps->o.url, *env = getenv(OTLP_HEADERS_ENV), *why;
	size_t n = strlen(url), pl = strlen(OTLP_PROFILES_PATH);
	int err;

	while (n && url[n - 1] == '/')
		n--;
	if (n >= pl && !strncmp(url + n - pl, OTLP_PROFILES_PATH, pl))
		pl = 0;
	if (asprintf(&ps->endpoint, "%.*s%s", (int)n, url, pl ? OTLP_PROFILES_PATH : "") < 0) {
		ps->endpoint = NULL;
		return -ENOMEM;
	}
	push_url__redact(ps->endpoint, ps->shown, sizeof(ps->shown));
	if (!env)
		return 0;
	err = otlp_headers__parse(env, &ps->headers, &why);
	if (err == -EINVAL)
		p_err("%s: %s (not printed: it may hold credentials)", OTLP_HEADERS_ENV, why);
	/* read once; a command bpfprof starts does not inherit root's keys */
	unsetenv(OTLP_HEADERS_ENV);
	return err;
}

/* The credentials of --push-auth-file or the environment; the URL's own
 * userinfo goes to libcurl with the URL. */
static int load_auth(struct pusher *ps)
{
	bool otlp = ps->o.protocol == PUSH_OTLP;
	int err = otlp ? load_otlp(ps) : push_auth__load(ps->o.auth_file, ps->o.url, &ps->auth);

	if (!err && push_url__has_userinfo(ps->o.url))
		p_warn("%s: every user can read the credentials in the --%s URL "
		       "(/proc/PID/cmdline); %s keeps them off the command line", ps->what,
		       ps->what, otlp ? OTLP_HEADERS_ENV : "--push-auth-file or " PUSH_AUTH_ENV);
	if (err || ps->auth.kind != PUSH_AUTH_BEARER)
		return err;
	if (asprintf(&ps->bearer, "Authorization: Bearer %s", ps->auth.secret) < 0) {
		ps->bearer = NULL;
		push_auth__free(&ps->auth);
		return -ENOMEM;
	}
	return 0;
}

int pusher__new(const struct push_opts *o, struct pusher **out)
{
	struct pusher *ps = calloc(1, sizeof(*ps));
	int err;

	if (!ps)
		return -ENOMEM;
	if (libcurl__load()) {
		free(ps);
		return -ENOENT;
	}
	ps->o = *o;
	ps->what = o->protocol == PUSH_OTLP ? "otlp" : "push";
	push_url__redact(o->url, ps->shown, sizeof(ps->shown));
	err = load_auth(ps);
	if (err) {
		free_auth(ps);
		free(ps);
		return err;
	}
	/* a write to a socket or pipe closed by its reader fails with EPIPE
	 * instead of killing the run */
	signal(SIGPIPE, SIG_IGN);
	err = init_sync(ps);
	if (err) {
		free_auth(ps);
		free(ps);
		return err;
	}
	err = spool__open(o->spool_dir, o->spool_max, &ps->spool);
	if (err) {
		p_err("cannot use spool directory %s: %s", o->spool_dir,
			spool__strerror(err));
		pusher__free(ps);
		return err;
	}
	ps->curl = libcurl.easy_init();
	ps->multi = libcurl.multi_init();
	ps->reply = malloc(sizeof(*ps->reply));
	ps->work = true;	/* what an earlier run left goes first */
	err = ps->curl && ps->multi && ps->reply ? start_worker(ps) : -ENOMEM;
	if (err) {
		p_err("%s: cannot start: %s", ps->what, strerror(-err));
		pusher__free(ps);
		return err;
	}
	*out = ps;
	return 0;
}

static void stop_worker(struct pusher *ps)
{
	if (!ps->started)
		return;
	pthread_mutex_lock(&ps->lock);
	atomic_store(&ps->stop, true);
	pthread_cond_broadcast(&ps->cond);
	pthread_mutex_unlock(&ps->lock);
	libcurl.multi_wakeup(ps->multi);	/* cuts a transfer under way */
	pthread_join(ps->thread, NULL);
	ps->started = false;
}

void pusher__free(struct pusher *ps)
{
	if (!ps)
		return;
	stop_worker(ps);
	if (ps->curl)
		libcurl.easy_cleanup(ps->curl);
	if (ps->multi)
		libcurl.multi_cleanup(ps->multi);
	free(ps->reply);
	spool__free(ps->spool);
	pthread_cond_destroy(&ps->cond);
	pthread_mutex_destroy(&ps->lock);
	free_auth(ps);
	free(ps);
}

int pusher__submit(struct pusher *ps, const void *body, size_t len, enum out_format fmt,
		   int64_t from, int64_t until)
{
	size_t dropped;
	int err;

	pthread_mutex_lock(&ps->lock);
	err = spool__add(ps->spool, body, len, fmt, from, until, ps->sending, &dropped);
	say_others(ps);
	ps->st.dropped += dropped;
	if (dropped)
		p_warn("%s: spool full (%u profiles): dropped the %zu oldest", ps->what,
			ps->o.spool_max, dropped);
	ps->work = true;
	pthread_cond_broadcast(&ps->cond);
	pthread_mutex_unlock(&ps->lock);
	return err;
}

void pusher__flush(struct pusher *ps)
{
	int64_t until = monotonic_ms() + EXIT_WAIT_MS;
	struct timespec ts;

	deadline_ts(until, &ts);
	pthread_mutex_lock(&ps->lock);
	ps->flushing = true;
	ps->work = true;
	pthread_cond_broadcast(&ps->cond);
	while (ps->started && !(ps->idle && !ps->flushing) && monotonic_ms() < until)
		pthread_cond_timedwait(&ps->cond, &ps->lock, &ts);
	pthread_mutex_unlock(&ps->lock);
	stop_worker(ps);
}

void pusher__stats(struct pusher *ps, struct push_stats *st)
{
	struct spool_item *items;
	size_t n;

	pthread_mutex_lock(&ps->lock);
	*st = ps->st;
	if (spool__list(ps->spool, &items, &n) == 0) {
		st->waiting = n;
		spool__free_items(items, n);
	}
	pthread_mutex_unlock(&ps->lock);
}
