// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Choosing the emitter for a format. */
#include <errno.h>
#include <stdlib.h>

#include "output/emit.h"
#include "render/flamegraph.h"
#include "output/folded.h"
#include "output/otlp.h"
#include "output/pprof.h"

int emit__write(const struct profile *p, enum out_format fmt, const char *comment, FILE *out)
{
	if (fmt == FORMAT_HTML || fmt == FORMAT_SVG)
		return flamegraph__write_profile(p, fmt == FORMAT_SVG, out);
	if (fmt == FORMAT_OTLP)
		return otlp__write(p, out);
	return fmt == FORMAT_PPROF ? pprof__write(p, comment, out) : folded__write(p, out);
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

const char *emit__extension(enum out_format fmt)
{
	return fmt == FORMAT_PPROF ? "pb.gz" : fmt == FORMAT_HTML ? "html" : fmt == FORMAT_OTLP ? "otlp" :
		fmt == FORMAT_SVG ? "svg" : "folded";
}
