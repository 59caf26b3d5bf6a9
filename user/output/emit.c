// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The formats' writers: the column of base/formats.h's table that only
 * this room expands. */
#include <errno.h>
#include <stdlib.h>

#include "output/emit.h"
#include "render/flamegraph.h"
#include "output/folded.h"
#include "output/otlp.h"
#include "output/pprof.h"

typedef int (*format_writer)(const struct profile *p, const char *comment, FILE *out);

static int write_folded(const struct profile *p, const char *comment, FILE *out)
{
	(void)comment;
	return folded__write(p, out);
}

static int write_pprof(const struct profile *p, const char *comment, FILE *out)
{
	return pprof__write(p, comment, out);
}

static int write_otlp(const struct profile *p, const char *comment, FILE *out)
{
	(void)comment;
	return otlp__write(p, out);
}

static int write_html(const struct profile *p, const char *comment, FILE *out)
{
	(void)comment;
	return flamegraph__write_profile(p, false, out);
}

static int write_svg(const struct profile *p, const char *comment, FILE *out)
{
	(void)comment;
	return flamegraph__write_profile(p, true, out);
}

#define FORMAT_WRITER(id, name, suffixes, words, content_type, writer, carried) \
	[FORMAT_##id] = writer,

static const format_writer writers[FORMAT_END] = {
	OUT_FORMATS(FORMAT_WRITER)
};

bool emit__has_writer(enum out_format fmt)
{
	return formats__row(fmt) && writers[fmt];
}

int emit__write(const struct profile *p, enum out_format fmt, const char *comment, FILE *out)
{
	if (!emit__has_writer(fmt))
		return -EINVAL;
	return writers[fmt](p, comment, out);
}

int emit__render(const struct profile *p, enum out_format fmt, const char *comment,
		 char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int err;

	if (!f)
		return -errno;
	err = emit__write(p, fmt, comment, f);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}
