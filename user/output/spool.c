// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The push spool: one file per profile, with bpfprof's header, checked
 * before anything of it is sent (see spool.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <zlib.h>

#include "base/dirfiles.h"
#include "base/formats.h"
#include "output/spool.h"

#define MAGIC		"bpfprof-spool 1"

struct spool {
	int dirfd;
	unsigned int max_items;
	uint64_t next_seq;
	size_t others;		/* item names of files not ours: left alone */
};

/* The header's word of a format: its name in the table. */
static const char *format_word(enum out_format fmt)
{
	const struct format_row *r = formats__row(fmt);

	return r ? r->name : "";
}

/* What a spool holds: what --push takes, and OTLP for --otlp. */
static bool spooled(enum out_format fmt)
{
	return fmt == FORMAT_OTLP || formats__carries(fmt, FORMAT_TO_PUSH);
}

static size_t render_header(char *buf, enum out_format fmt, int64_t from, int64_t until,
			    size_t len, uint32_t crc)
{
	int n = snprintf(buf, SPOOL_HEADER_MAX, MAGIC " %s %" PRId64 " %" PRId64 " %zu %08" PRIx32
			 "\n", format_word(fmt), from, until, len, crc);

	return n > 0 && n < SPOOL_HEADER_MAX ? (size_t)n : 0;
}

static uint32_t body_crc(const void *body, size_t len)
{
	return (uint32_t)crc32_z(crc32_z(0, Z_NULL, 0), body, len);
}

size_t spool__header(char *buf, const void *body, size_t len, enum out_format fmt,
		     int64_t from, int64_t until)
{
	return render_header(buf, fmt, from, until, len, body_crc(body, len));
}

static void render_name(char *buf, size_t size, uint64_t seq, int64_t from, int64_t until,
			enum out_format fmt)
{
	snprintf(buf, size, "%020" PRIu64 "-%" PRId64 "-%" PRId64 ".%s", seq, from, until,
		 formats__extension(fmt));
}

/* Strict: the name must be exactly what render_name makes of its fields. */
int spool__parse_name(const char *name, struct spool_item *it)
{
	char ext[8], dotted[9], again[96];
	int n = 0;

	if (strlen(name) >= sizeof(again) ||
	    sscanf(name, "%" SCNu64 "-%" SCNd64 "-%" SCNd64 ".%7s%n", &it->seq, &it->from,
		   &it->until, ext, &n) != 4 || name[n])
		return -EINVAL;
	snprintf(dotted, sizeof(dotted), ".%s", ext);
	it->fmt = formats__by_suffix(dotted);
	if (!spooled(it->fmt) || strcmp(ext, formats__extension(it->fmt)))
		return -EINVAL;
	render_name(again, sizeof(again), it->seq, it->from, it->until, it->fmt);
	return strcmp(again, name) ? -EINVAL : 0;
}

static bool is_item(const char *name, void *ctx)
{
	struct spool_item it;

	(void)ctx;
	return spool__parse_name(name, &it) == 0;
}

int spool__list(struct spool *sp, struct spool_item **out, size_t *n)
{
	struct dir_entry *list;
	struct spool_item *items;
	int err = dirfiles__list(sp->dirfd, is_item, NULL, &list, n, &sp->others);

	if (err)
		return err;
	items = calloc(*n ? *n : 1, sizeof(*items));
	if (!items) {
		dirfiles__free(list, *n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < *n; i++) {
		spool__parse_name(list[i].name, &items[i]);
		items[i].name = list[i].name;	/* the name moves over */
	}
	free(list);
	*out = items;
	return 0;
}

size_t spool__others(const struct spool *sp)
{
	return sp->others;
}

void spool__free_items(struct spool_item *items, size_t n)
{
	for (size_t i = 0; items && i < n; i++)
		free(items[i].name);
	free(items);
}

int spool__open(const char *dir, unsigned int max_items, struct spool **out)
{
	struct spool *sp = calloc(1, sizeof(*sp));
	struct spool_item *items;
	size_t n;
	int err;

	if (!sp)
		return -ENOMEM;
	sp->max_items = max_items;
	sp->dirfd = dirfiles__open_dir(dir, 0700);
	if (sp->dirfd < 0) {
		err = sp->dirfd;
		free(sp);
		return err;
	}
	/* what a killed run was writing (its own temporaries are nobody's item) */
	dirfiles__clean_stale(sp->dirfd, NULL);
	/* new items go after those an earlier run left */
	err = spool__list(sp, &items, &n);
	if (err) {
		spool__free(sp);
		return err;
	}
	sp->next_seq = n ? items[n - 1].seq + 1 : 0;
	spool__free_items(items, n);
	*out = sp;
	return 0;
}

void spool__free(struct spool *sp)
{
	if (!sp)
		return;
	close(sp->dirfd);
	free(sp);
}

static int write_item(struct spool *sp, const char *name, const char *header, size_t hlen,
		      const void *body, size_t len)
{
	struct atomic_file af;
	int err = atomic_file__open_at(&af, sp->dirfd, name, 0600);

	if (err)
		return err;
	if (fwrite(header, 1, hlen, af.f) != hlen || (len && fwrite(body, 1, len, af.f) != len)) {
		err = -(errno ? errno : EIO);
		atomic_file__discard(&af);
		return err;
	}
	return atomic_file__commit(&af);
}

/* Drops the oldest beyond max_items, sparing the one being sent. */
static size_t bound(struct spool *sp, const char *keep)
{
	struct spool_item *items;
	size_t n, i, dropped = 0;

	if (spool__list(sp, &items, &n))
		return 0;
	for (i = 0; i < n && n - dropped > sp->max_items; i++) {
		if (keep && !strcmp(items[i].name, keep))
			continue;
		if (unlinkat(sp->dirfd, items[i].name, 0) == 0)
			dropped++;
	}
	spool__free_items(items, n);
	return dropped;
}

int spool__add(struct spool *sp, const void *body, size_t len, enum out_format fmt,
	       int64_t from, int64_t until, const char *keep, size_t *dropped)
{
	char name[96], header[SPOOL_HEADER_MAX];
	size_t hlen;
	int err;

	*dropped = 0;
	if (len > SPOOL_ITEM_MAX)
		return -EFBIG;
	hlen = spool__header(header, body, len, fmt, from, until);
	if (!hlen)
		return -EINVAL;
	render_name(name, sizeof(name), sp->next_seq, from, until, fmt);
	err = write_item(sp, name, header, hlen, body, len);
	if (!err)
		sp->next_seq++;
	*dropped = bound(sp, keep);
	return err;
}

/* The header line at the start of buf (n bytes): its length, or 0 when
 * it is not exactly what render_header makes of the item and a body of
 * the file's remaining bytes (*len, *crc). */
static size_t check_header(const char *buf, size_t n, const struct spool_item *it,
			   uint64_t file_size, size_t *len, uint32_t *crc)
{
	char word[8], again[SPOOL_HEADER_MAX], line[SPOOL_HEADER_MAX + 1];
	const char *nl = memchr(buf, '\n', n);
	int64_t from, until;
	size_t hlen;

	if (!nl)
		return 0;
	hlen = (size_t)(nl - buf) + 1;
	if (hlen > SPOOL_HEADER_MAX || memchr(buf, '\0', hlen))
		return 0;
	memcpy(line, buf, hlen);
	line[hlen] = '\0';
	if (sscanf(line, MAGIC " %7s %" SCNd64 " %" SCNd64 " %zu %" SCNx32, word, &from, &until,
		   len, crc) != 5)
		return 0;
	if (strcmp(word, format_word(it->fmt)) || from != it->from || until != it->until ||
	    *len > SPOOL_ITEM_MAX || file_size != hlen + *len)
		return 0;
	if (render_header(again, it->fmt, from, until, *len, *crc) != hlen || memcmp(again, line, hlen))
		return 0;
	return hlen;
}

static int read_all(int fd, char *buf, size_t len, off_t at)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, buf + done, len - done, at + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -SPOOL_EHEADER;	/* shorter than its header says */
		done += (size_t)n;
	}
	return 0;
}

int spool__read_fd(int fd, const struct spool_item *it, char **body, size_t *len)
{
	char head[SPOOL_HEADER_MAX];
	struct stat st;
	size_t hlen, want;
	uint32_t crc;
	ssize_t n;
	int err;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -DIRFILES_ENOTREG;
	if (st.st_uid != geteuid() || st.st_nlink != 1)
		return -SPOOL_ENOTOURS;
	/* before any read: a sparse 4 GiB file costs nothing to plant */
	if ((uint64_t)st.st_size > (uint64_t)SPOOL_ITEM_MAX + SPOOL_HEADER_MAX)
		return -SPOOL_EBIG;
	want = (uint64_t)st.st_size < sizeof(head) ? (size_t)st.st_size : sizeof(head);
	n = pread(fd, head, want, 0);
	if (n < 0)
		return -errno;
	hlen = check_header(head, (size_t)n, it, (uint64_t)st.st_size, len, &crc);
	if (!hlen)
		return -SPOOL_EHEADER;
	*body = malloc(*len ? *len : 1);
	if (!*body)
		return -ENOMEM;
	err = read_all(fd, *body, *len, (off_t)hlen);
	if (!err && body_crc(*body, *len) != crc)
		err = -SPOOL_EHEADER;
	if (err) {
		free(*body);
		*body = NULL;
	}
	return err;
}

int spool__read(struct spool *sp, const struct spool_item *it, char **body, size_t *len)
{
	/* O_NONBLOCK: a FIFO swapped in after the listing cannot block us */
	int fd = openat(sp->dirfd, it->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	err = spool__read_fd(fd, it, body, len);
	close(fd);
	return err;
}

void spool__remove(struct spool *sp, const struct spool_item *it)
{
	unlinkat(sp->dirfd, it->name, 0);
}

const char *spool__strerror(int err)
{
	switch (-err) {
	case SPOOL_ENOTOURS:
		return "not bpfprof's (another owner, or more than one link)";
	case SPOOL_EBIG:
		return "larger than a spooled profile can be";
	case SPOOL_EHEADER:
		return "no valid bpfprof spool header, or one that disagrees with its name or body";
	default:
		return dirfiles__strerror(err);
	}
}
