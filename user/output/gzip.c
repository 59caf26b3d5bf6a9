// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* gzip through zlib (gzip.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "output/gzip.h"

int gzip__write(const void *buf, size_t len, FILE *out)
{
	uint8_t chunk[65536];
	z_stream zs = { 0 };
	int zerr, err = 0;

	/* windowBits 16 + 15: deflate with a gzip header */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	zs.next_in = (uint8_t *)buf;
	zs.avail_in = (uInt)len;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zerr = deflate(&zs, Z_FINISH);
		if (zerr == Z_STREAM_ERROR) {
			err = -EIO;
			break;
		}
		if (fwrite(chunk, 1, sizeof(chunk) - zs.avail_out, out) !=
		    sizeof(chunk) - zs.avail_out) {
			err = -errno ? -errno : -EIO;
			break;
		}
	} while (zerr != Z_STREAM_END);
	deflateEnd(&zs);
	if (!err && (fflush(out) || ferror(out)))
		err = errno ? -errno : -EIO;
	return err;
}

int gzip__memory(const void *buf, size_t len, void **out, size_t *out_len)
{
	char *mem = NULL;
	size_t mem_len = 0;
	FILE *f = open_memstream(&mem, &mem_len);
	int err;

	if (!f)
		return -errno;
	err = gzip__write(buf, len, f);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(mem);
		return err;
	}
	*out = mem;
	*out_len = mem_len;
	return 0;
}
