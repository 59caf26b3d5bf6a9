/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A URL's authority ([userinfo@]host[:port]), found the one way bpfprof
 * needs it: to print a --push URL without its credentials (push_auth.h)
 * and to compare the server a debuginfod request goes to with
 * DEBUGINFOD_URLS' (debuginfod_curl.h). The scheme is what precedes "://"
 * only when it is a scheme ([A-Za-z][A-Za-z0-9+.-]*, RFC 3986): in
 * "u:pw@h/x?from=http://y" the "://" is in the query, and the URL has no
 * scheme (libcurl then guesses http). The authority ends at the first '/',
 * '?' or '#'; its userinfo ends at its last '@' (an unencoded '@' in a
 * password stays hidden).
 */
#ifndef BPFPROF_URL_H
#define BPFPROF_URL_H

#include <stdbool.h>
#include <stddef.h>

struct url_authority {
	const char *scheme;	/* NULL: none (libcurl guesses one) */
	size_t scheme_len;
	const char *start;	/* the authority, [start, end) */
	const char *end;	/* at the path, query, fragment or NUL */
	const char *at;		/* the userinfo's '@', or NULL */
	const char *host;	/* after the userinfo; "[::1]" with its brackets */
	size_t host_len;
	const char *port;	/* the digits after ':', or NULL */
	size_t port_len;
};

/* The parts of url (NUL-terminated), pointers into it. */
void url__authority(const char *url, struct url_authority *a);

/* "scheme://host:port" of url, lowercased, http when it has no scheme,
 * the scheme's port (http 80, https 443) when it gives none. Returns
 * false (buf "") when it does not fit in size. */
bool url__origin(const char *url, char *buf, size_t size);

#endif
