// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The one ordered search for separate debug files (see debug_file.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <zlib.h>

#include "base/open_regular.h"
#include "elf/debug_file.h"

#define MAX_DEBUG_FILE	(1ull << 30)	/* bytes read for a debug link's CRC */

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

/* path opened and taken, or -1 (closed). */
static int try_path(const struct debug_query *q, const char *path, bool check_crc, char **found)
{
	int fd = file_open_regular(path);

	if (fd < 0)
		return -1;
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

/* The file name after the path's last slash. */
static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "";
}

/* The user's directories: the build-id tree, then by the file's name. */
static int in_dirs(const struct debug_query *q, char **found)
{
	const char *id = q->build_id ? q->build_id : "", *name = base_name(q->path);
	bool has_id = strlen(id) >= 4;
	char path[PATH_MAX];
	int fd = -1;

	for (int d = 0; d < q->ndirs && fd < 0; d++) {
		for (int which = 0; which < 4 && fd < 0; which++) {
			int n = -1;

			if (which == 0 && has_id)
				n = snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug",
					     q->dirs[d], id, id + 2);
			else if (which == 1 && has_id)
				n = snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", q->dirs[d],
					     id, id + 2);
			else if (which >= 2 && name[0])
				n = snprintf(path, sizeof(path), "%s/%s%s", q->dirs[d], name,
					     which == 3 ? ".debug" : "");
			if (n > 0 && (size_t)n < sizeof(path))
				fd = try_path(q, path, false, found);
		}
	}
	return fd;
}

static int by_id(const struct debug_query *q, const char *root, char **found)
{
	const char *id = q->build_id ? q->build_id : "";
	char path[PATH_MAX];
	int n;

	if (strlen(id) < 4)
		return -1;
	n = snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", root, id, id + 2);
	return n > 0 && (size_t)n < sizeof(path) ? try_path(q, path, false, found) : -1;
}

/* The .gnu_debuglink file beside the file, in its .debug/ and under
 * ROOT/DIR/, as gdb and libdwfl look. */
static int by_link(const struct debug_query *q, const char *root, char **found)
{
	const struct { const char *root, *subdir; } places[] = {
		{ "", "" }, { "", ".debug/" }, { root, "" },
	};
	const char *slash = q->path ? strrchr(q->path, '/') : NULL;
	char path[PATH_MAX];
	int fd = -1;

	if (!slash || !q->link || !q->link[0] || strchr(q->link, '/'))
		return -1;
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]) && fd < 0; i++) {
		int n = snprintf(path, sizeof(path), "%s%.*s/%s%s", places[i].root,
				 (int)(slash - q->path), q->path, places[i].subdir, q->link);

		if (n > 0 && (size_t)n < sizeof(path) && strcmp(path, q->path))
			fd = try_path(q, path, true, found);
	}
	return fd;
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
	return fd;
}
