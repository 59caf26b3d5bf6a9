/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * When a push is sent again, and after how long: the OTLP/HTTP rules
 * (opentelemetry-proto docs/specification.md, "Failures", "Retryable
 * Response Codes", "OTLP/HTTP Throttling", "OTLP/HTTP Connection"), kept
 * for Pyroscope's ingest too, which shares the sender.
 *
 *   2xx                        sent (a partial success is not sent again)
 *   429, 502, 503, 504         retried, as is a request that got no answer
 *                              (no connection, a reset, the 10 s bound)
 *   any other status           refused: dropped, never retried (400, 408,
 *                              413, 500, 501, a 3xx that is not followed ...)
 *
 * The wait before the next try: the n-th failure in a row backs off
 * d = 1 s * 2^(n-1), at most PUSH_BACKOFF_MAX_MS, drawn at random from
 * [d/2, 3d/2) (the OTel Collector's exporterhelper draws the same way,
 * randomization factor 0.5), so that a fleet that failed together does not
 * come back in step. A Retry-After of the answer (seconds, or an HTTP-date)
 * is honoured: the wait is at least that long, bounded by
 * PUSH_RETRY_AFTER_MAX_MS (a server may ask for an hour; the spool holds
 * only --spool-max profiles meanwhile).
 */
#ifndef BPFPROF_PUSH_RETRY_H
#define BPFPROF_PUSH_RETRY_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define PUSH_BACKOFF_MIN_MS	1000
#define PUSH_BACKOFF_MAX_MS	300000	/* d's bound: a wait is at most 1.5 times it */
#define PUSH_RETRY_AFTER_MAX_MS	300000	/* a longer Retry-After is taken as this */

enum push_verdict {
	PUSH_SENT,			/* 2xx: the server has it */
	PUSH_REFUSED,			/* a status not retryable: never sent again */
	PUSH_RETRY,			/* 429, 502, 503, 504, or no answer */
};

/* status: the HTTP status, or <= 0 when no answer came. */
enum push_verdict push_retry__verdict(long status);

/* A Retry-After value (RFC 9110 10.2.3: delay-seconds, or an HTTP-date in
 * any of its three forms, compared with now): the wait it asks for in
 * *ms (0 for a date past), bounded by PUSH_RETRY_AFTER_MAX_MS. Returns
 * false, *ms 0, when the value is neither. */
bool push_retry__after(const char *value, time_t now, int64_t *ms);

/* The wait after the failures-th failure in a row (1 for the first), given
 * a random 32-bit number and the server's Retry-After in ms (0: none). */
int64_t push_retry__wait_ms(unsigned int failures, uint32_t random, int64_t after_ms);

#endif
