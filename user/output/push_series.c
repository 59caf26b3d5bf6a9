// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Pyroscope's PushRequest in JSON (push_series.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "output/pprof.h"
#include "output/push_series.h"
#include "output/sample_kind.h"
#include "profile/aggregate.h"

/* s as a JSON string: quotes, backslashes and control bytes escaped,
 * bytes past ASCII made '_' (protojson refuses invalid UTF-8; a hostname
 * or --app has none that is valid either). */
static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c < 0x80 ? c : '_', out);
	}
	fputc('"', out);
}

static void put_label(FILE *out, const char *name, const char *value, bool last)
{
	fputs("{\"name\":", out);
	put_string(out, name);
	fputs(",\"value\":", out);
	put_string(out, value);
	fputs(last ? "}" : "},", out);
}

/* len bytes of data in standard base64, padded (protojson's bytes). */
static void put_base64(FILE *out, const unsigned char *data, size_t len)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char quad[4];

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)data[i] << 16;
		size_t n = len - i < 3 ? len - i : 3;

		if (n > 1)
			v |= (uint32_t)data[i + 1] << 8;
		if (n > 2)
			v |= data[i + 2];
		quad[0] = digits[v >> 18 & 63];
		quad[1] = digits[v >> 12 & 63];
		quad[2] = n > 1 ? digits[v >> 6 & 63] : '=';
		quad[3] = n > 2 ? digits[v & 63] : '=';
		fwrite(quad, 1, 4, out);
	}
}

/* One series: event ev's pprof and its labels. */
static int put_series(FILE *out, const struct profile *p, int ev, const char *app,
		      const char *host, const char *comment)
{
	struct pevent spare;
	struct sample_kind k;
	char *pprof = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&pprof, &len);
	int err;

	if (!f)
		return -errno;
	err = pprof__write_event(p, p->nevents > 0 ? ev : -1, comment, f);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (!err) {
		sample_kind__of(sample_kind__event(p, ev, &spare), &k);
		fputs("{\"labels\":[", out);
		put_label(out, "__name__", k.profile, false);
		put_label(out, "service_name", app, false);
		put_label(out, "hostname", host, true);
		fputs("],\"samples\":[{\"rawProfile\":\"", out);
		put_base64(out, (const unsigned char *)pprof, len);
		fputs("\"}]}", out);
	}
	free(pprof);
	return err;
}

int push_series__render(const struct profile *p, const char *app, const char *host,
			const char *comment, char **buf, size_t *len)
{
	int nseries = p->nevents > 1 ? p->nevents : 1, err = 0;
	FILE *out = open_memstream(buf, len);

	if (!out)
		return -errno;
	fputs("{\"series\":[", out);
	for (int ev = 0; ev < nseries && !err; ev++) {
		if (ev)
			fputc(',', out);
		err = put_series(out, p, ev, app, host, comment);
	}
	fputs("]}", out);
	if (fclose(out) && !err)
		err = -ENOMEM;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}
