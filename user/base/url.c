// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A URL's authority, found one way for every use (url.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/url.h"

/* The scheme's length when url starts with "scheme://", else 0. */
static size_t scheme_len(const char *url)
{
	size_t n = 0;

	if (!isalpha((unsigned char)url[0]))
		return 0;
	while (isalnum((unsigned char)url[n]) || url[n] == '+' || url[n] == '-' || url[n] == '.')
		n++;
	return strncmp(url + n, "://", 3) ? 0 : n;
}

void url__authority(const char *url, struct url_authority *a)
{
	const char *port;

	a->scheme_len = scheme_len(url);
	a->scheme = a->scheme_len ? url : NULL;
	a->start = a->scheme ? url + a->scheme_len + 3 : url;
	a->end = a->start + strcspn(a->start, "/?#");
	a->at = NULL;
	for (const char *c = a->start; c < a->end; c++)
		if (*c == '@')
			a->at = c;
	a->host = a->at ? a->at + 1 : a->start;
	/* an IPv6 address's colons are inside its brackets */
	port = *a->host == '[' ? memchr(a->host, ']', (size_t)(a->end - a->host)) : a->host;
	port = port ? memchr(port, ':', (size_t)(a->end - port)) : NULL;
	a->host_len = (size_t)((port ? port : a->end) - a->host);
	a->port = port ? port + 1 : NULL;
	a->port_len = port ? (size_t)(a->end - port - 1) : 0;
}

bool url__origin(const char *url, char *buf, size_t size)
{
	struct url_authority a;
	const char *scheme, *port;
	int slen, plen, n;

	url__authority(url, &a);
	scheme = a.scheme ? a.scheme : "http";
	slen = a.scheme ? (int)a.scheme_len : 4;
	port = a.port && a.port_len ? a.port : "80";
	plen = a.port && a.port_len ? (int)a.port_len : 2;
	if (!(a.port && a.port_len) && slen == 5 && !strncasecmp(scheme, "https", 5))
		port = "443", plen = 3;
	n = snprintf(buf, size, "%.*s://%.*s:%.*s", slen, scheme, (int)a.host_len, a.host, plen,
		     port);
	if (n < 0 || (size_t)n >= size) {
		if (size)
			buf[0] = '\0';
		return false;
	}
	for (char *c = buf; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return true;
}
