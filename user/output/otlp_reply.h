/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An OTLP export's 2xx answer: an ExportProfilesServiceResponse whose
 * partial_success, when set, says how many profiles the receiver rejected
 * and why. The request is not sent again (the OTLP specification: a
 * partial success is not retried); the count goes to the sender's tally.
 */
#ifndef BPFPROF_OTLP_REPLY_H
#define BPFPROF_OTLP_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OTLP_REPLY_MESSAGE	160	/* bytes of the receiver's message kept */

/* Whether body (len bytes, a 2xx answer) reports a partial success: some
 * profiles rejected, or a message. *rejected and msg (escaped for a
 * terminal, cut to fit size) say what. A body that does not decode as the
 * answer (empty, JSON, HTML) reports none. */
bool otlp_reply__partial(const void *body, size_t len, int64_t *rejected, char *msg,
			 size_t size);

#endif
