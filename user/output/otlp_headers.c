// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* OTEL_EXPORTER_OTLP_HEADERS into request headers (otlp_headers.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output/otlp_headers.h"

/* RFC 9110's tchar */
static bool is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* [s, e) without the spaces and tabs around it */
static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
		(*e)--;
}

/* "key: value" of one member [s, e), into *line. */
static int member_line(const char *s, const char *e, char **line, const char **why)
{
	const char *eq = memchr(s, '=', (size_t)(e - s)), *k = s, *ke = eq, *v, *ve = e;
	char *out, *o;

	if (!eq) {
		*why = "a member without '='";
		return -EINVAL;
	}
	trim(&k, &ke);
	v = eq + 1;
	trim(&v, &ve);
	if (k == ke) {
		*why = "an empty key";
		return -EINVAL;
	}
	for (const char *c = k; c < ke; c++)
		if (!is_tchar((unsigned char)*c)) {
			*why = "a key that is not an HTTP header name";
			return -EINVAL;
		}
	if ((ke - k == 12 && !strncasecmp(k, "content-type", 12)) ||
	    (ke - k == 16 && !strncasecmp(k, "content-encoding", 16)) ||
	    (ke - k == 14 && !strncasecmp(k, "content-length", 14))) {
		*why = "a header of the body's own (Content-Type, -Encoding, -Length)";
		return -EINVAL;
	}
	out = malloc((size_t)(ke - k) + 2 + (size_t)(ve - v) + 1);
	if (!out)
		return -ENOMEM;
	memcpy(out, k, (size_t)(ke - k));
	o = out + (ke - k);
	*o++ = ':';
	*o++ = ' ';
	for (const char *c = v; c < ve; c++) {
		unsigned char ch = (unsigned char)*c;

		if (ch == '%' && ve - c >= 3 && hex_value(c[1]) >= 0 && hex_value(c[2]) >= 0) {
			ch = (unsigned char)(hex_value(c[1]) << 4 | hex_value(c[2]));
			c += 2;
		}
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
			explicit_bzero(out, (size_t)(o - out));
			free(out);
			*why = "a value with a control character";
			return -EINVAL;
		}
		*o++ = (char)ch;
	}
	*o = '\0';
	*line = out;
	return 0;
}

int otlp_headers__parse(const char *text, struct otlp_headers *h, const char **why)
{
	const char *s = text, *e;
	int err = 0;

	h->lines = NULL;
	h->n = 0;
	*why = NULL;
	if (strlen(text) > OTLP_HEADERS_BYTES) {
		*why = "longer than 8 KiB";
		return -EINVAL;
	}
	h->lines = calloc(OTLP_HEADERS_MAX, sizeof(*h->lines));
	if (!h->lines)
		return -ENOMEM;
	for (; !err && *s; s = *e ? e + 1 : e) {
		const char *ts = s, *te;

		e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		te = e;
		trim(&ts, &te);
		if (ts == te)
			continue;
		if (h->n == OTLP_HEADERS_MAX) {
			*why = "more than 64 headers";
			err = -EINVAL;
			break;
		}
		err = member_line(ts, te, &h->lines[h->n], why);
		h->n += !err;
	}
	if (err)
		otlp_headers__free(h);
	return err;
}

void otlp_headers__free(struct otlp_headers *h)
{
	for (size_t i = 0; i < h->n; i++) {
		explicit_bzero(h->lines[i], strlen(h->lines[i]));
		free(h->lines[i]);
	}
	free(h->lines);
	h->lines = NULL;
	h->n = 0;
}
