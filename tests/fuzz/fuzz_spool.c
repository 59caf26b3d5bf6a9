// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: user/output/spool.c, the reader of push spool items (files
 * anyone with access to the spool directory could have planted). The
 * first byte picks the item's format, the rest is the file, read as the
 * item 00000000000000000000-7-8.EXT. A file accepted must be exactly its
 * header (as spool__header makes it) followed by its body; and any input,
 * spooled as a body, must read back unchanged.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/dirfiles.h"
#include "output/spool.h"
#include "fuzz_check.h"

static char path[] = "/dev/shm/fuzz_spool.XXXXXX";
static int fd = -1;

static void remove_file(void)
{
	unlink(path);
}

/* A linked file of ours (the reader refuses one with no link, as a memfd has). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fd = mkstemp(path);
	if (fd < 0)
		abort();
	atexit(remove_file);
	return 0;
}

static int read_file(const struct spool_item *it, const uint8_t *bytes, size_t n, char **body,
		     size_t *len)
{
	fuzz_fill_memfd(fd, bytes, n);
	return spool__read_fd(fd, it, body, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spool_item it = { .from = 7, .until = 8 };
	char header[SPOOL_HEADER_MAX], *body = NULL, name[64];
	size_t len = 0, hlen;
	int err;

	if (!size)
		return 0;
	it.fmt = data[0] & 1 ? FORMAT_PPROF : FORMAT_FOLDED;
	data++, size--;
	err = read_file(&it, data, size, &body, &len);
	CHECK(err == 0 || err == -SPOOL_EHEADER || err == -SPOOL_EBIG);
	if (!err) {
		CHECK(len <= SPOOL_ITEM_MAX);
		hlen = spool__header(header, body, len, it.fmt, it.from, it.until);
		CHECK(hlen && hlen + len == size);
		CHECK(!memcmp(header, data, hlen) && !memcmp(body, data + hlen, len));
	} else {
		CHECK(!body);
	}
	free(body);

	/* the input as a body: header + body reads back unchanged */
	hlen = spool__header(header, data, size, it.fmt, it.from, it.until);
	CHECK(hlen > 0 && hlen < SPOOL_HEADER_MAX && header[hlen - 1] == '\n');
	{
		uint8_t *file = malloc(hlen + size + 1);

		CHECK(file);
		memcpy(file, header, hlen);
		memcpy(file + hlen, data, size);
		CHECK(read_file(&it, file, hlen + size, &body, &len) == 0);
		CHECK(len == size && !memcmp(body, data, size));
		free(body);
		/* one byte short, or one more: refused */
		CHECK(read_file(&it, file, hlen + size - 1, &body, &len) == -SPOOL_EHEADER);
		file[hlen + size] = '\n';
		CHECK(read_file(&it, file, hlen + size + 1, &body, &len) == -SPOOL_EHEADER);
		free(file);
	}

	/* the name parser: what it accepts it gives back the same */
	len = size < sizeof(name) - 1 ? size : sizeof(name) - 1;
	memcpy(name, data, len);
	name[len] = '\0';
	if (spool__parse_name(name, &it) == 0)
		CHECK(strlen(name) > 20 && name[20] == '-');
	return 0;
}
