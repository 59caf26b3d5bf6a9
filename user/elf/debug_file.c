// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The one ordered search for separate debug files (see debug_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <gelf.h>
#include <zlib.h>

#include "base/open_regular.h"
#include "elf/debug_file.h"
#include "elf/debug_trust.h"
#include "elf/debuginfod.h"
#include "elf/elf_read.h"

#define MAX_DEBUG_FILE	(1ull << 30)	/* bytes read for a debug link's CRC */
#define SERVER_MISSES	64		/* build-ids the servers lacked, remembered */

static struct {
	uint64_t refused;
	char misses[SERVER_MISSES][2 * BUILD_ID_MAX + 1];
	unsigned int next_miss;
} state;

uint64_t debug_file__refused(void)
{
	return state.refused;
}

/* zlib's CRC-32 is the one .gnu_debuglink carries. */
static bool crc_matches(int fd, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, Z_NULL, 0);
	struct stat st;
	off_t at = 0;
	ssize_t n;

	if (fstat(fd, &st) || (uint64_t)st.st_size > MAX_DEBUG_FILE)
		return false;
	while ((n = pread(fd, buf, sizeof(buf), at)) > 0) {
		crc = crc32(crc, buf, (uInt)n);
		at += n;
	}
	return n == 0 && (uint32_t)crc == want;
}

/* Whoever placed path (found through the directory given) could read the
 * file path_fd is open on (debug_trust.h). */
static bool placed_by_readers(const char *given, const char *path, int path_fd)
{
	uid_t who[DEBUG_PLACERS];
	int n = debug_trust__placers(given, path, who);

	for (int i = 0; i < n; i++)
		if (!debug_trust__readable_by(who[i], path_fd))
			return false;
	return true;
}

/* A candidate: the name found (given: the directory the search was given;
 * own_name: a file's own name, no link expected there). */
struct candidate {
	const char *given;
	const char *path;
	bool own_name;
	bool check_crc;
};

/* The file taken (accept() said yes), its fd and *found; else -1, nothing
 * left open. */
static int taken(const struct debug_query *q, int fd, const char *path, bool check_crc,
		 char **found)
{
	/* the copy first: what accept() keeps of a file it takes stays its */
	*found = strdup(path);
	if (!*found || (check_crc && !crc_matches(fd, q->crc)) ||
	    (q->accept && !q->accept(fd, q->arg))) {
		free(*found);
		*found = NULL;
		close(fd);
		return -1;
	}
	return fd;
}

/* c opened, trusted and taken, or -1 (closed). */
static int try_path(const struct debug_query *q, const struct candidate *c, char **found)
{
	struct stat st;
	int path_fd = file_open_path(c->path, c->own_name ? O_NOFOLLOW : 0, &st), fd;

	if (path_fd < 0) {
		state.refused += path_fd == -ELOOP;
		return -1;
	}
	if (!placed_by_readers(c->given, c->path, path_fd)) {
		state.refused++;
		close(path_fd);
		return -1;
	}
	fd = file_reopen(path_fd, &st);
	return fd < 0 ? -1 : taken(q, fd, c->path, c->check_crc, found);
}

static int try_at(const struct debug_query *q, const char *given, bool own_name,
		  bool check_crc, char **found, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* The candidate named by fmt, when the name fits a path. */
static int try_at(const struct debug_query *q, const char *given, bool own_name,
		  bool check_crc, char **found, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n <= 0 || (size_t)n >= sizeof(path) || (q->path && !strcmp(path, q->path)))
		return -1;
	return try_path(q, &(struct candidate){ .given = given, .path = path,
						.own_name = own_name, .check_crc = check_crc },
			found);
}

/* The file name after the path's last slash. */
static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "";
}

static bool has_id(const struct debug_query *q)
{
	return q->build_id && strlen(q->build_id) >= 4;
}

/* The user's directories: the build-id tree, then by the file's name. */
static int in_dirs(const struct debug_query *q, char **found)
{
	const char *id = q->build_id, *name = base_name(q->path);
	int fd = -1;

	for (int d = 0; d < q->ndirs && fd < 0; d++) {
		const char *dir = q->dirs[d];

		if (has_id(q))
			fd = try_at(q, dir, false, false, found, "%s/.build-id/%.2s/%s.debug", dir,
				    id, id + 2);
		if (fd < 0 && has_id(q))
			fd = try_at(q, dir, false, false, found, "%s/.build-id/%.2s/%s", dir, id,
				    id + 2);
		if (fd < 0 && name[0])
			fd = try_at(q, dir, true, false, found, "%s/%s", dir, name);
		if (fd < 0 && name[0])
			fd = try_at(q, dir, true, false, found, "%s/%s.debug", dir, name);
	}
	return fd;
}

static int by_id(const struct debug_query *q, const char *root, char **found)
{
	const char *id = q->build_id;

	if (!has_id(q))
		return -1;
	return try_at(q, root, false, false, found, "%s/.build-id/%.2s/%s.debug", root, id, id + 2);
}

/* The .gnu_debuglink file beside the file, in its .debug/, then under
 * each user directory and ROOT, as gdb and libdwfl look. */
static int by_link(const struct debug_query *q, const char *root, char **found)
{
	const char *slash = q->path ? strrchr(q->path, '/') : NULL;
	int fd = -1, at;
	char dir[PATH_MAX];

	if (!slash || !q->link || !q->link[0] || strchr(q->link, '/'))
		return -1;
	at = (int)(slash - q->path);
	snprintf(dir, sizeof(dir), "%.*s", at, q->path);
	fd = try_at(q, dir[0] ? dir : "/", true, true, found, "%s/%s", dir, q->link);
	if (fd < 0)
		fd = try_at(q, dir[0] ? dir : "/", true, true, found, "%s/.debug/%s", dir,
			    q->link);
	for (int d = 0; d <= q->ndirs && fd < 0; d++) {
		const char *under = d < q->ndirs ? q->dirs[d] : root;

		fd = try_at(q, under, true, true, found, "%s%s/%s", under, dir, q->link);
	}
	return fd;
}

/* A build-id as a path or a URL may hold it: lowercase hex, an even
 * length. */
static bool is_hex_id(const char *id)
{
	size_t n = strspn(id, "0123456789abcdef");

	return !id[n] && n >= 4 && n % 2 == 0 && n <= 2 * BUILD_ID_MAX;
}

static bool missed_before(const char *id)
{
	for (unsigned int i = 0; i < SERVER_MISSES; i++)
		if (!strcmp(state.misses[i], id))
			return true;
	return false;
}

/* The servers last: a build-id they lacked is not asked again. */
static int by_server(const struct debug_query *q, char **found)
{
	char *path = NULL;
	int fd;

	if (!q->build_id || !is_hex_id(q->build_id) || missed_before(q->build_id))
		return -1;
	fd = debuginfod__fetch_debuginfo(q->build_id, &path);
	if (fd >= 0) {
		fd = taken(q, fd, path, false, found);
		free(path);
		return fd;
	}
	snprintf(state.misses[state.next_miss++ % SERVER_MISSES], sizeof(state.misses[0]), "%s",
		 q->build_id);
	return -1;
}

int debug_file__open(const struct debug_query *q, unsigned int places, char **found)
{
	const char *root = q->root ? q->root : DEBUG_ROOT;
	int fd = -1;

	*found = NULL;
	if (places & DEBUG_IN_DIRS)
		fd = in_dirs(q, found);
	if (fd < 0 && (places & DEBUG_BY_ID))
		fd = by_id(q, root, found);
	if (fd < 0 && (places & DEBUG_BY_LINK))
		fd = by_link(q, root, found);
	if (fd < 0 && (places & DEBUG_BY_SERVER))
		fd = by_server(q, found);
	return fd;
}

/* The bytes of fd's ELF section name, at most size, into buf: their count,
 * or -ENOENT; *msb: the file's byte order is big-endian. */
static ssize_t section_bytes(int fd, const char *name, unsigned char *buf, size_t size, bool *msb)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	struct stat st;
	ssize_t n = -ENOENT;
	Elf *elf;

	if (fstat(fd, &st) || elf_version(EV_CURRENT) == EV_NONE)
		return -ENOENT;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && gelf_getehdr(elf, &eh) && elf_read__next_named(elf, name, &scn, &sh) == 1 &&
	    !elf_read__scn_data(scn, &sh, (uint64_t)st.st_size, &data) && data->d_buf) {
		n = (ssize_t)(data->d_size < size ? data->d_size : size);
		memcpy(buf, data->d_buf, (size_t)n);
		*msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	}
	elf_end(elf);
	return n;
}

/* .gnu_debuglink: NAME\0, padding to 4, the CRC in the file's order. */
int debug_file__link(int fd, char *name, size_t size, uint32_t *crc)
{
	unsigned char b[PATH_MAX + 8];
	const unsigned char *at;
	bool msb = false;
	ssize_t n = section_bytes(fd, ".gnu_debuglink", b, sizeof(b), &msb);
	size_t len = n > 0 ? strnlen((const char *)b, (size_t)n) : 0, crc_at = (len + 4) & ~(size_t)3;

	if (!len || len >= size || crc_at + 4 > (size_t)n || memchr(b, '/', len))
		return -ENOENT;
	memcpy(name, b, len);
	name[len] = '\0';
	at = b + crc_at;
	*crc = msb ? (uint32_t)at[0] << 24 | (uint32_t)at[1] << 16 | (uint32_t)at[2] << 8 | at[3] :
		     (uint32_t)at[3] << 24 | (uint32_t)at[2] << 16 | (uint32_t)at[1] << 8 | at[0];
	return 0;
}

/* .gnu_debugaltlink: PATH\0, then the alternate file's build-id. */
int debug_file__altlink(int fd, char hex[2 * BUILD_ID_MAX + 1])
{
	unsigned char b[PATH_MAX + BUILD_ID_MAX + 1];
	bool msb;
	ssize_t n = section_bytes(fd, ".gnu_debugaltlink", b, sizeof(b), &msb);
	size_t len = n > 0 ? strnlen((const char *)b, (size_t)n) : 0, idlen;

	hex[0] = '\0';
	if (!len || len + 1 >= (size_t)n)
		return -ENOENT;
	idlen = (size_t)n - len - 1;
	if (idlen < 2 || idlen > BUILD_ID_MAX)
		return -ENOENT;
	for (size_t i = 0; i < idlen; i++)
		sprintf(hex + 2 * i, "%02x", b[len + 1 + i]);
	return 0;
}
