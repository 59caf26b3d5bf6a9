/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shipping profiles to a server, one sender for two protocols: a Grafana
 * Pyroscope server's push API (pprof: POST /push.v1.PusherService/Push,
 * push_series.h) or legacy ingest API (folded: POST /ingest?name=
 * APP.cpu{hostname=H}&from=&until=&format=folded&sampleRate=&spyName=)
 * and OTLP/HTTP profiles (POST
 * /v1development/profiles, an ExportProfilesServiceRequest, gzip), through
 * a bounded on-disk spool (spool.h): every profile is spooled first and
 * sent oldest first, so a server that is away gets them all, in order,
 * later. Sending is a thread of its own: the caller never waits for the
 * network; each attempt is bounded in time (10 s) and its reply in size;
 * which answers are retried, and when, push_retry.h says.
 */
#ifndef BPFPROF_PUSH_H
#define BPFPROF_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "base/config.h"

struct pusher;

enum push_protocol { PUSH_PYROSCOPE, PUSH_OTLP };

#define OTLP_PROFILES_PATH	"/v1development/profiles"
#define OTLP_HEADERS_ENV	"OTEL_EXPORTER_OTLP_HEADERS"

struct push_opts {
	enum push_protocol protocol;
	const char *url;		/* server base URL (OTLP: or the whole
					 * endpoint); printed only redacted */
	const char *auth_file;		/* Pyroscope: --push-auth-file, or NULL
					 * (push_auth.h); OTLP: none, its
					 * headers come from OTLP_HEADERS_ENV */
	const char *app;		/* application name */
	const char *host;		/* hostname label */
	const char *spool_dir;
	unsigned int spool_max;		/* profiles waiting, at most */
	unsigned int freq;		/* sampleRate */
};

struct push_stats {
	uint64_t sent;			/* accepted by the server (2xx) */
	uint64_t rejected;		/* refused (a status not retryable, push_retry.h):
					 * dropped, not retried */
	uint64_t dropped;		/* pushed out of a full spool */
	uint64_t failures;		/* attempts that failed and will be retried */
	uint64_t refused_items;		/* spool items not bpfprof's: removed unsent */
	uint64_t replies_cut;		/* 2xx replies longer than PUSH_REPLY_MAX */
	uint64_t partial;		/* OTLP: 2xx answers of a partial success */
	int64_t rejected_profiles;	/* ... the profiles they say were rejected */
	size_t waiting;			/* in the spool now */
};

/* Returns 0 or -errno with a message printed. */
int pusher__new(const struct push_opts *o, struct pusher **out);
void pusher__free(struct pusher *ps);

/* Spools one interval's profile (fmt FORMAT_FOLDED, or FORMAT_PPROF for
 * a push API request, push_series__render()'s, to Pyroscope; FORMAT_OTLP
 * to OTLP; the interval as UNIX seconds) and wakes
 * the sender, which sends what the spool holds, oldest first, unless
 * backing off after a failure. Returns at once: 0, or -errno when it
 * could not be spooled. */
int pusher__submit(struct pusher *ps, const void *body, size_t len, enum out_format fmt,
		   int64_t from, int64_t until);

/* At exit: one more try for what is waiting, ignoring the backoff but not
 * a server's Retry-After (no try before the time it asked for), for at most
 * half a second; then the sender stops (a transfer under way is cut). What
 * was not sent stays spooled for the next run. */
void pusher__flush(struct pusher *ps);

void pusher__stats(struct pusher *ps, struct push_stats *st);

#endif
