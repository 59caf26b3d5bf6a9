// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* An OTLP export's answer, decoded (otlp_reply.h). */
#include <stdio.h>
#include <string.h>

#include "base/term_safe.h"
#include "output/otlp_reply.h"
#include "google/rpc/status.pb-c.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb-c.h"

typedef Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesServiceResponse
	Response;

/* The receiver's words, escaped into one line of msg, "..." when cut. */
static void escape_message(char *msg, size_t size, const char *m)
{
	size_t took;

	if (size <= 3) {
		if (size)
			msg[0] = '\0';
		return;
	}
	took = term_safe__escape(msg, size - 3, m, OTLP_REPLY_MESSAGE, NULL);
	if (m[took])	/* room kept for it */
		strcat(msg, "...");
}

bool otlp_reply__partial(const void *body, size_t len, int64_t *rejected, char *msg,
			 size_t size)
{
	Response *r;
	bool partial = false;

	*rejected = 0;
	if (size)
		msg[0] = '\0';
	if (!len)
		return false;
	r = opentelemetry__proto__collector__profiles__v1development__export_profiles_service_response__unpack(
		NULL, len, body);
	if (!r)
		return false;
	if (r->partial_success) {
		const char *m = r->partial_success->error_message;

		*rejected = r->partial_success->rejected_profiles;
		if (m)
			escape_message(msg, size, m);
		partial = *rejected || (m && *m);
	}
	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_response__free_unpacked(
		r, NULL);
	return partial;
}

bool otlp_reply__status(const void *body, size_t len, char *msg, size_t size)
{
	Google__Rpc__Status *st;
	bool said = false;

	if (size)
		msg[0] = '\0';
	if (!len)
		return false;
	st = google__rpc__status__unpack(NULL, len, body);
	if (!st)
		return false;
	if (st->message && st->message[0]) {
		escape_message(msg, size, st->message);
		said = true;
	} else if (st->code && size) {
		snprintf(msg, size, "code %d", st->code);
		said = true;
	}
	google__rpc__status__free_unpacked(st, NULL);
	return said;
}
