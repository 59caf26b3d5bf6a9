// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of debug_file.c: the one ordered search for debug files, on
 * a tree made here (the root given, so /usr/lib/debug is not touched). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <zlib.h>

#include "elf/debug_file.h"

#define ID	"ab0123456789"

static char top[64];

/* top/rel with text as its content (directories made). */
static void put(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	for (slash = strchr(path + strlen(top) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* What the file found says, "" when none. */
static const char *found_text(const struct debug_query *q, unsigned int places)
{
	static char text[64];
	char *path;
	int fd = debug_file__open(q, places, &path);
	ssize_t n;

	text[0] = '\0';
	if (fd < 0) {
		cr_assert_null(path);
		return text;
	}
	n = read(fd, text, sizeof(text) - 1);
	text[n > 0 ? n : 0] = '\0';
	close(fd);
	cr_assert_not_null(path);
	free(path);
	return text;
}

static void make_top(void)
{
	strcpy(top, "/tmp/test_debug_file.XXXXXX");
	cr_assert_not_null(mkdtemp(top));
}

static void remove_top(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(debug_file, .init = make_top, .fini = remove_top);

Test(debug_file, root_build_id_tree)
{
	char root[128];
	struct debug_query q = { .build_id = ID, .root = root };

	snprintf(root, sizeof(root), "%s/root", top);
	cr_assert_str_eq(found_text(&q, DEBUG_BY_ID), "");
	put("root/.build-id/ab/0123456789.debug", "by-id");
	cr_assert_str_eq(found_text(&q, DEBUG_BY_ID), "by-id");
	cr_assert_str_eq(found_text(&q, DEBUG_BY_LINK), "", "only the places asked for");
	q.build_id = "ab";
	cr_assert_str_eq(found_text(&q, DEBUG_BY_ID), "", "an id too short to name a file");
}

Test(debug_file, user_dirs_in_order_before_the_root)
{
	char root[128], d1[128], d2[128], bin[128];
	const char *dirs[] = { d1, d2 };
	struct debug_query q = { .build_id = ID, .path = bin, .dirs = dirs, .ndirs = 2,
				 .root = root };
	unsigned int all = DEBUG_IN_DIRS | DEBUG_BY_ID | DEBUG_BY_LINK;

	snprintf(root, sizeof(root), "%s/root", top);
	snprintf(d1, sizeof(d1), "%s/d1", top);
	snprintf(d2, sizeof(d2), "%s/d2", top);
	snprintf(bin, sizeof(bin), "%s/bin/app", top);
	put("root/.build-id/ab/0123456789.debug", "root");
	cr_assert_str_eq(found_text(&q, all), "root");
	put("d2/.build-id/ab/0123456789.debug", "d2-id");
	cr_assert_str_eq(found_text(&q, all), "d2-id");
	put("d1/app.debug", "d1-name.debug");
	cr_assert_str_eq(found_text(&q, all), "d1-name.debug", "the first directory first");
	put("d1/app", "d1-name");
	cr_assert_str_eq(found_text(&q, all), "d1-name");
	put("d1/.build-id/ab/0123456789", "d1-id-bare");
	cr_assert_str_eq(found_text(&q, all), "d1-id-bare");
	put("d1/.build-id/ab/0123456789.debug", "d1-id");
	cr_assert_str_eq(found_text(&q, all), "d1-id");
}

static bool not_first(int fd, void *arg)
{
	char c = 0;

	(void)arg;
	return pread(fd, &c, 1, 0) == 1 && c != '1';
}

Test(debug_file, a_candidate_refused_gives_way_to_the_next)
{
	char root[128], d1[128];
	const char *dirs[] = { d1 };
	struct debug_query q = { .build_id = ID, .dirs = dirs, .ndirs = 1, .root = root,
				 .accept = not_first };

	snprintf(root, sizeof(root), "%s/root", top);
	snprintf(d1, sizeof(d1), "%s/d1", top);
	put("d1/.build-id/ab/0123456789.debug", "1st");
	put("root/.build-id/ab/0123456789.debug", "2nd");
	cr_assert_str_eq(found_text(&q, DEBUG_IN_DIRS | DEBUG_BY_ID), "2nd");
}

Test(debug_file, a_fifo_is_passed_over_not_opened, .timeout = 10)
{
	char root[128], d1[128], fifo[192];
	const char *dirs[] = { d1 };
	struct debug_query q = { .build_id = ID, .dirs = dirs, .ndirs = 1, .root = root };

	snprintf(root, sizeof(root), "%s/root", top);
	snprintf(d1, sizeof(d1), "%s/d1", top);
	put("d1/.build-id/ab/keep", "");
	snprintf(fifo, sizeof(fifo), "%s/.build-id/ab/0123456789.debug", d1);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	put("root/.build-id/ab/0123456789.debug", "root");
	cr_assert_str_eq(found_text(&q, DEBUG_IN_DIRS | DEBUG_BY_ID), "root");
}

static uint32_t crc_of(const char *text)
{
	return (uint32_t)crc32(crc32(0, Z_NULL, 0), (const Bytef *)text, (uInt)strlen(text));
}

Test(debug_file, debuglink_places_and_their_crc)
{
	char root[128], bin[128];
	struct debug_query q = { .path = bin, .link = "app.dbg", .root = root };

	snprintf(root, sizeof(root), "%s/root", top);
	snprintf(bin, sizeof(bin), "%s/bin/app", top);
	put("bin/app", "the binary");
	q.crc = crc_of("under-root");
	put("bin/app.dbg", "beside, another build");
	put("bin/.debug/app.dbg", "in .debug, another build");
	cr_assert_str_eq(found_text(&q, DEBUG_BY_LINK), "", "no CRC matches");
	char under[256];
	snprintf(under, sizeof(under), "root%s/bin/app.dbg", top);
	put(under, "under-root");
	cr_assert_str_eq(found_text(&q, DEBUG_BY_LINK), "under-root");
	q.crc = crc_of("in .debug, another build");
	cr_assert_str_eq(found_text(&q, DEBUG_BY_LINK), "in .debug, another build");
	q.link = "../etc/x";
	cr_assert_str_eq(found_text(&q, DEBUG_BY_LINK), "", "a link naming a path is refused");
}
