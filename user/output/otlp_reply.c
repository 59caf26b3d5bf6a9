// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* An OTLP export's answer, decoded (otlp_reply.h). */
#include "base/term_safe.h"
#include "output/otlp_reply.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb-c.h"

typedef Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesServiceResponse
	Response;

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
		if (m && size)
			term_safe__escape(msg, size, m, size - 1, NULL);
		partial = *rejected || (m && *m);
	}
	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_response__free_unpacked(
		r, NULL);
	return partial;
}
