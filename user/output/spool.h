/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The push spool: profiles waiting for the server, one file each, named
 * SEQ-FROM-UNTIL.folded|.pb.gz (SEQ orders them). Each file starts with
 * bpfprof's own header line,
 *     bpfprof-spool 1 FORMAT FROM UNTIL LENGTH CRC32\n
 * (FORMAT folded|pprof, LENGTH the body's bytes, CRC32 zlib's of the body,
 * 8 hex digits), so that only what bpfprof spooled is ever sent: a file
 * that is not a regular file of ours with one link is not an item (left
 * alone); an item larger than SPOOL_ITEM_MAX, or whose header does not
 * match its name and body, is refused and removed, and never read into
 * memory whole.
 * Not thread-safe: the pusher serialises its calls.
 */
#ifndef BPFPROF_SPOOL_H
#define BPFPROF_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"

#define SPOOL_ITEM_MAX		(64u << 20)	/* body bytes of one profile */
#define SPOOL_HEADER_MAX	128		/* bytes of the header line */

/* An -errno of ours: a spool item that is not bpfprof's (see spool__strerror). */
#define SPOOL_ENOTOURS		4200	/* another owner, or more than one link */
#define SPOOL_EBIG		4201	/* larger than SPOOL_ITEM_MAX */
#define SPOOL_EHEADER		4202	/* no valid header, or one that disagrees */

struct spool;

struct spool_item {
	char *name;
	uint64_t seq;
	int64_t from, until;
	enum out_format fmt;		/* FORMAT_FOLDED, FORMAT_PPROF or FORMAT_OTLP */
};

/* Opens (makes) the directory, which must be ours (dirfiles__open_dir).
 * Returns 0 or -errno. */
int spool__open(const char *dir, unsigned int max_items, struct spool **out);
void spool__free(struct spool *sp);

/* Adds one profile after the newest, then drops the oldest beyond
 * max_items (never the item named keep, being sent); *dropped says how
 * many. Returns 0 or -errno (-EFBIG: larger than SPOOL_ITEM_MAX). */
int spool__add(struct spool *sp, const void *body, size_t len, enum out_format fmt,
	       int64_t from, int64_t until, const char *keep, size_t *dropped);

/* The items, oldest first (a new array, spool__free_items): files of
 * ours only (dirfiles__is_ours). In a shared directory another user can
 * plant any name; such a file is never listed, read, dropped or removed. */
int spool__list(struct spool *sp, struct spool_item **out, size_t *n);
/* How many names of items the last listing left out as not ours. */
size_t spool__others(const struct spool *sp);
void spool__free_items(struct spool_item *items, size_t n);

/* Reads one item's body into *body (malloc'd, *len bytes), checked
 * against its name and header. Returns 0 or -errno: one of SPOOL_E* or
 * an errno of the file system. */
int spool__read(struct spool *sp, const struct spool_item *it, char **body, size_t *len);
void spool__remove(struct spool *sp, const struct spool_item *it);

/* The reader on an open file, for spool__read and the fuzz target: it
 * must be a regular file owned by the effective user, with one link. */
int spool__read_fd(int fd, const struct spool_item *it, char **body, size_t *len);

/* The header line of a body, into buf (SPOOL_HEADER_MAX). Returns its length. */
size_t spool__header(char *buf, const void *body, size_t len, enum out_format fmt,
		     int64_t from, int64_t until);

/* Parses an item's name (SEQ-FROM-UNTIL.EXT). Returns 0 or -EINVAL. */
int spool__parse_name(const char *name, struct spool_item *it);

const char *spool__strerror(int err);

#endif
