// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The two encoders of push.c's one sender: a spool item as Pyroscope's
 * ingest request or as an OTLP/HTTP export, on the worker's curl handle. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output/gzip.h"
#include "output/push_priv.h"
#include "output/push_reply.h"

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

/* POST URL/ingest?...: the query names the app with its labels, the
 * interval, the format, the rate. */
static int pyroscope_request(struct pusher *ps, const struct spool_item *it, const char *body,
			     size_t len, curl_mime **mime, struct curl_slist **hdrs)
{
	char label[512], url[2048], *name;
	size_t bl = strlen(ps->o.url);
	CURL *c = ps->curl;
	int err;

	snprintf(label, sizeof(label), "%s{hostname=%s}", ps->o.app, ps->o.host);
	name = libcurl.easy_escape(c, label, 0);
	if (!name)
		return -ENOMEM;
	while (bl && ps->o.url[bl - 1] == '/')
		bl--;
	snprintf(url, sizeof(url), "%.*s/ingest?name=%s&from=%" PRId64 "&until=%" PRId64
		 "&format=%s&sampleRate=%u&spyName=bpfprof", (int)bl, ps->o.url, name, it->from,
		 it->until, it->fmt == FORMAT_PPROF ? "pprof" : "folded", ps->o.freq);
	libcurl.free(name);
	err = set_common(ps, url, hdrs);
	if (err)
		return err;
	if (it->fmt == FORMAT_PPROF) {
		/* Pyroscope takes pprof as a multipart form field "profile" */
		curl_mimepart *part;

		*mime = libcurl.mime_init(c);
		part = *mime ? libcurl.mime_addpart(*mime) : NULL;
		if (!part || libcurl.mime_name(part, "profile") ||
		    libcurl.mime_filename(part, "profile.pb.gz") ||
		    libcurl.mime_data(part, body, len) ||
		    libcurl.mime_type(part, "application/octet-stream"))
			return -ENOMEM;
		libcurl.easy_setopt(c, CURLOPT_MIMEPOST, *mime);
	} else {
		if (add_header(hdrs, "Content-Type: text/plain"))
			return -ENOMEM;
		libcurl.easy_setopt(c, CURLOPT_POSTFIELDS, body);
		libcurl.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	if (*hdrs)
		libcurl.easy_setopt(c, CURLOPT_HTTPHEADER, *hdrs);
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
	if (add_header(hdrs, "Content-Type: application/x-protobuf") ||
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
		      size_t len, curl_mime **mime, struct curl_slist **hdrs)
{
	if (ps->o.protocol == PUSH_OTLP)
		return otlp_request(ps, body, len, hdrs);
	return pyroscope_request(ps, it, body, len, mime, hdrs);
}
