// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Pyroscope ingest over libcurl, with an on-disk spool and backoff. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <curl/curl.h>

#include "dirfiles.h"
#include "push.h"

#define TIMEOUT_S	10	/* per request: the sampler loop waits for it */
#define BACKOFF_MIN_S	1
#define BACKOFF_MAX_S	300

/* A spooled profile: SEQ-FROM-UNTIL.folded|.pb.gz, SEQ orders them. */
struct item {
	char *name;
	uint64_t seq;
	int64_t from, until;
	enum out_format fmt;
};

struct pusher {
	struct push_opts o;
	CURL *curl;
	int spool_fd;
	uint64_t next_seq;
	time_t retry_at;		/* no attempt before this (backoff) */
	unsigned int backoff;		/* seconds; 0 after a success */
	struct push_stats st;
};

static int64_t monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static int parse_item(const char *name, struct item *it)
{
	char ext[8];
	int n = 0;

	if (sscanf(name, "%" SCNu64 "-%" SCNd64 "-%" SCNd64 ".%7s%n",
		   &it->seq, &it->from, &it->until, ext, &n) != 4 || name[n])
		return -EINVAL;
	if (!strcmp(ext, "folded"))
		it->fmt = FORMAT_FOLDED;
	else if (!strcmp(ext, "pb.gz") || !strncmp(ext, "pb", 2))
		it->fmt = FORMAT_PPROF;
	else
		return -EINVAL;
	return 0;
}

static void free_items(struct item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(items[i].name);
	free(items);
}

static bool is_item(const char *name, void *ctx)
{
	struct item it;

	(void)ctx;
	return parse_item(name, &it) == 0;
}

/* The spool's profiles, oldest first (zero-padded sequence numbers sort
 * by name). */
static int list_spool(struct pusher *ps, struct item **out, size_t *n)
{
	struct dir_entry *list;
	struct item *items;
	size_t i;
	int err;

	err = dirfiles__list(ps->spool_fd, is_item, NULL, &list, n);
	if (err)
		return err;
	items = calloc(*n ? *n : 1, sizeof(*items));
	if (!items) {
		dirfiles__free(list, *n);
		return -ENOMEM;
	}
	for (i = 0; i < *n; i++) {
		parse_item(list[i].name, &items[i]);
		items[i].name = list[i].name;	/* the name moves over */
	}
	free(list);
	*out = items;
	return 0;
}

int pusher__new(const struct push_opts *o, struct pusher **out)
{
	struct pusher *ps = calloc(1, sizeof(*ps));
	struct item *items;
	size_t n;
	int err;

	if (!ps)
		return -ENOMEM;
	ps->o = *o;
	ps->spool_fd = -1;
	ps->spool_fd = dirfiles__open_dir(o->spool_dir, 0700);
	err = ps->spool_fd < 0 ? ps->spool_fd : 0;
	ps->curl = err ? NULL : curl_easy_init();
	if (!err && !ps->curl)
		err = -ENOMEM;
	if (err)
		goto fail;
	/* profiles left by an earlier run are sent first */
	if (list_spool(ps, &items, &n) == 0) {
		ps->next_seq = n ? items[n - 1].seq + 1 : 0;
		ps->st.waiting = n;
		free_items(items, n);
	}
	*out = ps;
	return 0;
fail:
	fprintf(stderr, "bpfprof: cannot use spool directory %s: %s\n", o->spool_dir,
		dirfiles__strerror(err));
	pusher__free(ps);
	return err;
}

void pusher__free(struct pusher *ps)
{
	if (!ps)
		return;
	if (ps->curl)
		curl_easy_cleanup(ps->curl);
	if (ps->spool_fd >= 0)
		close(ps->spool_fd);
	free(ps);
}

static int read_item(struct pusher *ps, const char *name, char **buf, size_t *len)
{
	int fd = openat(ps->spool_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	*len = (size_t)st.st_size;
	*buf = malloc(*len ? *len : 1);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	n = pread(fd, *buf, *len, 0);
	close(fd);
	if (n != (ssize_t)*len) {
		free(*buf);
		return -EIO;
	}
	return 0;
}

/* POST URL/ingest?...: the query names the app with its labels, the
 * interval, the format, the rate. Returns the HTTP status, or -1 when no
 * answer came (connection refused, timeout). */
static long send_item(struct pusher *ps, const struct item *it, const char *body, size_t len)
{
	char label[512], url[2048], *name;
	const char *base = ps->o.url;
	size_t bl = strlen(base);
	struct curl_slist *hdrs = NULL;
	curl_mime *mime = NULL;
	long status = -1;
	CURLcode rc;

	snprintf(label, sizeof(label), "%s{hostname=%s}", ps->o.app, ps->o.host);
	name = curl_easy_escape(ps->curl, label, 0);
	if (!name)
		return -1;
	while (bl && base[bl - 1] == '/')
		bl--;
	snprintf(url, sizeof(url), "%.*s/ingest?name=%s&from=%" PRId64 "&until=%" PRId64
		 "&format=%s&sampleRate=%u&spyName=bpfprof", (int)bl, base, name, it->from,
		 it->until, it->fmt == FORMAT_PPROF ? "pprof" : "folded", ps->o.freq);
	curl_free(name);
	curl_easy_reset(ps->curl);
	curl_easy_setopt(ps->curl, CURLOPT_URL, url);
	curl_easy_setopt(ps->curl, CURLOPT_TIMEOUT, (long)TIMEOUT_S);
	curl_easy_setopt(ps->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(ps->curl, CURLOPT_USERAGENT, "bpfprof/" BPFPROF_VERSION);
	if (it->fmt == FORMAT_PPROF) {
		/* Pyroscope takes pprof as a multipart form field "profile" */
		curl_mimepart *part;

		mime = curl_mime_init(ps->curl);
		part = mime ? curl_mime_addpart(mime) : NULL;
		if (!part || curl_mime_name(part, "profile") ||
		    curl_mime_filename(part, "profile.pb.gz") ||
		    curl_mime_data(part, body, len) ||
		    curl_mime_type(part, "application/octet-stream"))
			goto out;
		curl_easy_setopt(ps->curl, CURLOPT_MIMEPOST, mime);
	} else {
		hdrs = curl_slist_append(NULL, "Content-Type: text/plain");
		curl_easy_setopt(ps->curl, CURLOPT_HTTPHEADER, hdrs);
		curl_easy_setopt(ps->curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(ps->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	rc = curl_easy_perform(ps->curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(ps->curl, CURLINFO_RESPONSE_CODE, &status);
out:
	curl_mime_free(mime);
	curl_slist_free_all(hdrs);
	return status;
}

/* One spooled profile: true when it is done with (sent or refused). */
static bool deliver(struct pusher *ps, const struct item *it)
{
	char *body = NULL;
	size_t len = 0;
	long status;

	if (read_item(ps, it->name, &body, &len)) {
		unlinkat(ps->spool_fd, it->name, 0);	/* unreadable: nothing to retry */
		return true;
	}
	status = send_item(ps, it, body, len);
	free(body);
	if (status >= 400 && status < 500) {
		fprintf(stderr, "bpfprof: push: %s refused the profile of %" PRId64 "..%" PRId64
			" (HTTP %ld); dropped\n", ps->o.url, it->from, it->until, status);
		ps->st.rejected++;
	} else if (status < 200 || status >= 300) {
		ps->st.failures++;
		return false;
	} else {
		ps->st.sent++;
	}
	unlinkat(ps->spool_fd, it->name, 0);
	return true;
}

static void send_waiting(struct pusher *ps)
{
	struct item *items;
	size_t n, i;

	if (list_spool(ps, &items, &n))
		return;
	for (i = 0; i < n; i++) {
		if (!deliver(ps, &items[i]))
			break;
	}
	if (i < n) {	/* the server is away: back off, keep order */
		ps->backoff = ps->backoff ? ps->backoff * 2 : BACKOFF_MIN_S;
		if (ps->backoff > BACKOFF_MAX_S)
			ps->backoff = BACKOFF_MAX_S;
		ps->retry_at = monotonic_s() + ps->backoff;
	} else {
		ps->backoff = 0;
	}
	ps->st.waiting = n - i;
	free_items(items, n);
}

/* Keeps the spool within spool_max: the oldest go first. */
static void bound_spool(struct pusher *ps)
{
	struct item *items;
	size_t n, i;

	if (list_spool(ps, &items, &n))
		return;
	for (i = 0; n - i > ps->o.spool_max; i++) {
		if (unlinkat(ps->spool_fd, items[i].name, 0) == 0)
			ps->st.dropped++;
	}
	if (i)
		fprintf(stderr, "bpfprof: push: spool full (%u profiles): dropped the %zu oldest\n",
			ps->o.spool_max, i);
	ps->st.waiting = n - i;
	free_items(items, n);
}

static int spool(struct pusher *ps, const void *body, size_t len, enum out_format fmt,
		 int64_t from, int64_t until)
{
	char name[96];
	int err;

	snprintf(name, sizeof(name), "%020" PRIu64 "-%" PRId64 "-%" PRId64 ".%s", ps->next_seq,
		 from, until, fmt == FORMAT_PPROF ? "pb.gz" : "folded");
	err = dirfiles__write(ps->spool_fd, name, body, len, 0600);
	if (!err)
		ps->next_seq++;
	return err;
}

int pusher__submit(struct pusher *ps, const void *body, size_t len, enum out_format fmt,
		   int64_t from, int64_t until)
{
	int err = spool(ps, body, len, fmt, from, until);

	bound_spool(ps);
	if (monotonic_s() >= ps->retry_at)
		send_waiting(ps);
	return err;
}

void pusher__flush(struct pusher *ps)
{
	send_waiting(ps);
}

void pusher__stats(const struct pusher *ps, struct push_stats *st)
{
	*st = ps->st;
}
