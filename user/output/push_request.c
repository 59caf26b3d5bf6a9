// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The encoders of push.c's one sender: a spool item as Pyroscope's push
 * (pprof) or ingest (folded) request or as an OTLP/HTTP export, on the
 * worker's curl handle. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/formats.h"
#include "output/gzip.h"
#include "output/push_priv.h"
#include "output/push_reply.h"
#include "output/push_series.h"

/* What every request is: its URL, bounds, reply, credentials. */
static int set_common(struct pusher *ps, const char *url, struct curl_slist **hdrs)
{
	CURL *c = ps->curl;

	libcurl.easy_reset(c);
	libcurl.easy_setopt(c, CURLOPT_URL, url);
	libcurl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	libcurl.easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)ATTEMPT_MS);
	libcurl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)CONNECT_MS);
	libcurl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	libcurl.easy_setopt(c, CURLOPT_USERAGENT, "bpfprof/" BPFPROF_VERSION);
	/* the reply goes to memory, bounded: never to stdout */
	libcurl.easy_setopt(c, CURLOPT_WRITEFUNCTION, push_reply__write);
	libcurl.easy_setopt(c, CURLOPT_WRITEDATA, ps->reply);
	if (ps->auth.kind == PUSH_AUTH_BASIC)
		libcurl.easy_setopt(c, CURLOPT_USERPWD, ps->auth.secret);
	if (ps->bearer) {
		*hdrs = libcurl.slist_append(NULL, ps->bearer);
		if (!*hdrs)
			return -ENOMEM;
	}
	return 0;
}

static int add_header(struct curl_slist **hdrs, const char *line)
{
	struct curl_slist *more = libcurl.slist_append(*hdrs, line);

	if (!more)
		return -ENOMEM;
	*hdrs = more;
	return 0;
}

/* The body's Content-Type: its format's (base/formats.h). */
static int add_content_type(struct curl_slist **hdrs, enum out_format fmt)
{
	char line[128];

	snprintf(line, sizeof(line), "Content-Type: %s", formats__row(fmt)->content_type);
	return add_header(hdrs, line);
}

/* The server's base URL without its trailing slashes: its length. */
static int base_len(const char *url)
{
	size_t n = strlen(url);

	while (n && url[n - 1] == '/')
		n--;
	return (int)n;
}

/* pprof: POST URL/push.v1.PusherService/Push, the body a PushRequest in
 * JSON (push_series.h): Pyroscope's public push API, whose labels name
 * each event's profile type (the legacy /ingest guesses it from the
 * sample type's name, and calls off_cpu CPU time). */
static int pyroscope_push(struct pusher *ps, const char *body, size_t len,
			  struct curl_slist **hdrs)
{
	char url[2048];
	int err;

	snprintf(url, sizeof(url), "%.*s%s", base_len(ps->o.url), ps->o.url, PUSH_SERIES_PATH);
	err = set_common(ps, url, hdrs);
	if (err)
		return err;
	if (add_header(hdrs, "Content-Type: application/json"))
		return -ENOMEM;
	libcurl.easy_setopt(ps->curl, CURLOPT_POSTFIELDS, body);
	libcurl.easy_setopt(ps->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	libcurl.easy_setopt(ps->curl, CURLOPT_HTTPHEADER, *hdrs);
	return 0;
}

/* folded: POST URL/ingest?name=APP.cpu{hostname=H}&from=&until=
 * &format=folded&sampleRate=&spyName=bpfprof, the body text. Pyroscope
 * takes the name's last ".word" as the profile type (cpu: samples of
 * 1e9/sampleRate ns each) and the rest as the service, so APP is the
 * service name a pprof push gives, dots and all. */
static int pyroscope_ingest(struct pusher *ps, const struct spool_item *it, const char *body,
			    size_t len, struct curl_slist **hdrs)
{
	char label[512], url[2048], *name;
	int err;

	snprintf(label, sizeof(label), "%s.cpu{hostname=%s}", ps->o.app, ps->o.host);
	name = libcurl.easy_escape(ps->curl, label, 0);
	if (!name)
		return -ENOMEM;
	snprintf(url, sizeof(url), "%.*s/ingest?name=%s&from=%" PRId64 "&until=%" PRId64
		 "&format=folded&sampleRate=%u&spyName=bpfprof", base_len(ps->o.url), ps->o.url,
		 name, it->from, it->until, ps->o.freq);
	libcurl.free(name);
	err = set_common(ps, url, hdrs);
	if (err)
		return err;
	if (add_content_type(hdrs, FORMAT_FOLDED))
		return -ENOMEM;
	libcurl.easy_setopt(ps->curl, CURLOPT_POSTFIELDS, body);
	libcurl.easy_setopt(ps->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	libcurl.easy_setopt(ps->curl, CURLOPT_HTTPHEADER, *hdrs);
	return 0;
}

/* POST the endpoint: the request gzipped, with the environment's headers. */
static int otlp_request(struct pusher *ps, const char *body, size_t len,
			struct curl_slist **hdrs)
{
	size_t gz_len;
	int err = set_common(ps, ps->endpoint, hdrs);

	if (!err)
		err = gzip__memory(body, len, &ps->gz, &gz_len);
	if (err)
		return err;
	if (add_content_type(hdrs, FORMAT_OTLP) ||
	    add_header(hdrs, "Content-Encoding: gzip"))
		return -ENOMEM;
	for (size_t i = 0; i < ps->headers.n; i++)
		if (add_header(hdrs, ps->headers.lines[i]))
			return -ENOMEM;
	libcurl.easy_setopt(ps->curl, CURLOPT_POSTFIELDS, ps->gz);
	libcurl.easy_setopt(ps->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)gz_len);
	libcurl.easy_setopt(ps->curl, CURLOPT_HTTPHEADER, *hdrs);
	return 0;
}

int push_request__set(struct pusher *ps, const struct spool_item *it, const char *body,
		      size_t len, struct curl_slist **hdrs)
{
	if (ps->o.protocol == PUSH_OTLP)
		return otlp_request(ps, body, len, hdrs);
	if (it->fmt == FORMAT_PPROF)
		return pyroscope_push(ps, body, len, hdrs);
	return pyroscope_ingest(ps, it, body, len, hdrs);
}
