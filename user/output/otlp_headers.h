/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The headers an OTLP exporter adds to each request, from the standard
 * environment variable OTEL_EXPORTER_OTLP_HEADERS: "key=value,key2=value2",
 * values percent-encoded (the OpenTelemetry SDK's environment rules), as
 * collectors and vendors ask for their API keys. They carry credentials:
 * never printed, and wiped when freed.
 */
#ifndef BPFPROF_OTLP_HEADERS_H
#define BPFPROF_OTLP_HEADERS_H

#include <stddef.h>

#define OTLP_HEADERS_MAX	64	/* headers, at most */
#define OTLP_HEADERS_BYTES	8192	/* of the variable, at most */

struct otlp_headers {
	char **lines;		/* "Key: value", each without CR or LF */
	size_t n;
};

/* text into h, each line ready for the request. Empty members are skipped;
 * a key must be an HTTP token, a value decodes to no control character;
 * the body's own headers (Content-Type, -Encoding, -Length) are refused.
 * Returns 0, -EINVAL with *why saying what is wrong (never quoting the
 * text), or -ENOMEM. */
int otlp_headers__parse(const char *text, struct otlp_headers *h, const char **why);

/* Wipes and frees every line. */
void otlp_headers__free(struct otlp_headers *h);

#endif
