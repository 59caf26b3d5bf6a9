/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An OTLP export's answer, decoded. A 2xx answer is an
 * ExportProfilesServiceResponse whose partial_success, when set, says how
 * many profiles the receiver rejected and why: the request is not sent
 * again (the OTLP specification: a partial success is not retried), the
 * count goes to the sender's tally. A 4xx or 5xx answer's body is a
 * google.rpc.Status (googleapis' google/rpc/status.proto, in
 * user/output/proto/google/rpc/) whose message says what went wrong.
 */
#ifndef BPFPROF_OTLP_REPLY_H
#define BPFPROF_OTLP_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OTLP_REPLY_MESSAGE	160	/* columns of the receiver's message kept */
/* the bytes a message takes (UTF-8, escapes) with its "..." */
#define OTLP_REPLY_MESSAGE_SIZE	(OTLP_REPLY_MESSAGE * 2 + 4)

/* Whether body (len bytes, a 2xx answer) reports a partial success: some
 * profiles rejected, or a message. *rejected and msg (escaped for a
 * terminal, cut to fit size) say what. A body that does not decode as the
 * answer (empty, JSON, HTML) reports none. */
bool otlp_reply__partial(const void *body, size_t len, int64_t *rejected, char *msg,
			 size_t size);

/* Whether body (len bytes, binary protobuf) decodes as a google.rpc.Status
 * with something to say; its message into msg, escaped for a terminal in
 * one line (a newline as \n), at most OTLP_REPLY_MESSAGE columns and
 * "..." when cut; "code N" when it has no message. */
bool otlp_reply__status(const void *body, size_t len, char *msg, size_t size);

#endif
