// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of debug_file.c: the one ordered search for debug files, on
 * a tree made here (the root given, so /usr/lib/debug is not touched). */
#include <criterion/criterion.h>
#include <errno.h>
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

/* ---- the trust rule (debug_trust.h) ----------------------------------------- */

#define NOBODY	65534	/* Debian's nobody: a user with no right to root's files */

static void path_of(char *out, size_t size, const char *rel)
{
	snprintf(out, size, "%s/%s", top, rel);
}

/* top/rel a symbolic link to target, made by uid. */
static void link_as(const char *rel, const char *target, uid_t uid)
{
	char path[512];

	path_of(path, sizeof(path), rel);
	cr_assert_eq(symlink(target, path), 0, "%s", path);
	cr_assert_eq(lchown(path, uid, (gid_t)-1), 0);
}

static void chown_to(const char *rel, uid_t uid, mode_t mode)
{
	char path[512];

	path_of(path, sizeof(path), rel);
	cr_assert_eq(chown(path, uid, (gid_t)-1), 0);
	cr_assert_eq(chmod(path, mode), 0);
}

/* top (searchable by all), a user's debug directory d1 (nobody's), root's
 * secret/ (0700) and pub/ (0755) with a file in each, root's tree. */
static void trust_tree(char *root, char *d1)
{
	cr_assert_eq(chmod(top, 0755), 0);
	path_of(root, 128, "root");
	path_of(d1, 128, "d1");
	put("secret/app.debug", "secret");
	chown_to("secret", 0, 0700);
	put("pub/app.debug", "public");
	chown_to("pub/app.debug", 0, 0644);
	put("root/.build-id/ab/0123456789.debug", "root");
	put("d1/.build-id/ab/keep", "");
	chown_to("d1", NOBODY, 0755);
	chown_to("d1/.build-id", NOBODY, 0755);
	chown_to("d1/.build-id/ab", NOBODY, 0755);
}

Test(debug_file, a_users_link_to_what_they_cannot_read_is_refused_and_counted)
{
	char root[128], d1[128], target[256];
	const char *dirs[] = { d1 };
	struct debug_query q = { .build_id = ID, .dirs = dirs, .ndirs = 1, .root = root };
	uint64_t before = debug_file__refused();

	trust_tree(root, d1);
	path_of(target, sizeof(target), "secret/app.debug");
	link_as("d1/.build-id/ab/0123456789.debug", target, NOBODY);
	cr_assert_str_eq(found_text(&q, DEBUG_IN_DIRS | DEBUG_BY_ID), "root",
			 "the secret refused, the next place taken");
	cr_assert_eq(debug_file__refused(), before + 1);
	cr_assert_str_eq(found_text(&q, DEBUG_IN_DIRS), "");
	cr_assert_eq(debug_file__refused(), before + 2, "each refusal counted");
}

Test(debug_file, a_users_link_to_what_they_can_read_is_taken)
{
	char root[128], d1[128], target[256];
	const char *dirs[] = { d1 };
	struct debug_query q = { .build_id = ID, .dirs = dirs, .ndirs = 1, .root = root };
	uint64_t before = debug_file__refused();

	trust_tree(root, d1);
	path_of(target, sizeof(target), "pub/app.debug");
	link_as("d1/.build-id/ab/0123456789.debug", target, NOBODY);
	cr_assert_str_eq(found_text(&q, DEBUG_IN_DIRS | DEBUG_BY_ID), "public");
	cr_assert_eq(debug_file__refused(), before);
}

Test(debug_file, a_link_the_user_put_in_roots_tree_is_held_to_the_user)
{
	char root[128], d1[128], target[256];
	struct debug_query q = { .build_id = ID, .root = root };

	trust_tree(root, d1);
	path_of(target, sizeof(target), "secret/app.debug");
	cr_assert_eq(unlink(strcat(strcpy(d1, root), "/.build-id/ab/0123456789.debug")), 0);
	link_as("root/.build-id/ab/0123456789.debug", target, NOBODY);
	cr_assert_str_eq(found_text(&q, DEBUG_BY_ID), "", "the link's maker could not read it");
	cr_assert_eq(lchown(d1, 0, (gid_t)-1), 0);
	cr_assert_str_eq(found_text(&q, DEBUG_BY_ID), "secret", "root's own link: root's file");
}

Test(debug_file, a_users_hard_to_reach_file_in_their_own_tree_is_refused)
{
	char root[128], d1[128];
	const char *dirs[] = { d1 };
	struct debug_query q = { .build_id = ID, .dirs = dirs, .ndirs = 1, .root = root };

	trust_tree(root, d1);
	/* a file root put in the user's tree that the user may not read (as
	 * a hard link to root's file would be) */
	put("d1/.build-id/ab/0123456789.debug", "root-only");
	chown_to("d1/.build-id/ab/0123456789.debug", 0, 0600);
	cr_assert_str_eq(found_text(&q, DEBUG_IN_DIRS), "");
	chown_to("d1/.build-id/ab/0123456789.debug", 0, 0644);
	cr_assert_str_eq(found_text(&q, DEBUG_IN_DIRS), "root-only");
}

Test(debug_file, a_link_where_a_files_own_name_belongs_is_refused)
{
	char root[128], d1[128], bin[128];
	const char *dirs[] = { d1 };
	struct debug_query q = { .build_id = "", .path = bin, .dirs = dirs, .ndirs = 1,
				 .root = root };
	uint64_t before = debug_file__refused();

	trust_tree(root, d1);
	path_of(bin, sizeof(bin), "bin/app");
	link_as("d1/app", "/etc/shadow", 0);	/* even root's own: no link there */
	cr_assert_str_eq(found_text(&q, DEBUG_IN_DIRS), "");
	cr_assert_eq(debug_file__refused(), before + 1);
	put("d1/app.debug", "by name");
	cr_assert_str_eq(found_text(&q, DEBUG_IN_DIRS), "by name");
}

Test(debug_file, in_a_directory_anyone_writes_only_what_anyone_reads)
{
	char root[128], d1[128], bin[128];
	struct debug_query q = { .path = bin, .link = "app.dbg", .root = root };

	trust_tree(root, d1);
	path_of(bin, sizeof(bin), "tmp/app");
	put("tmp/app", "the binary");
	put("tmp/app.dbg", "planted");
	q.crc = crc_of("planted");
	chown_to("tmp", 0, 01777);
	chown_to("tmp/app.dbg", 0, 0600);
	cr_assert_str_eq(found_text(&q, DEBUG_BY_LINK), "", "0600 in a 1777 directory");
	chown_to("tmp/app.dbg", 0, 0644);
	cr_assert_str_eq(found_text(&q, DEBUG_BY_LINK), "planted");
}

Test(debug_file, the_link_is_looked_for_under_the_users_dirs_before_the_root)
{
	char root[128], d1[128], bin[128], rel[256], *path;
	const char *dirs[] = { d1 };
	struct debug_query q = { .path = bin, .link = "app.dbg", .dirs = dirs, .ndirs = 1,
				 .root = root };
	int fd;

	trust_tree(root, d1);
	path_of(bin, sizeof(bin), "bin/app");
	put("bin/app", "the binary");
	q.crc = crc_of("same");
	snprintf(rel, sizeof(rel), "root%s/bin/app.dbg", top);
	put(rel, "same");
	snprintf(rel, sizeof(rel), "d1%s/bin/app.dbg", top);
	put(rel, "same");
	fd = debug_file__open(&q, DEBUG_BY_LINK, &path);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert(!strncmp(path, d1, strlen(d1)), "the user's directory's first: %s", path);
	free(path);
	put("bin/.debug/app.dbg", "same");
	fd = debug_file__open(&q, DEBUG_BY_LINK, &path);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert(strstr(path, "/bin/.debug/app.dbg") && strncmp(path, d1, strlen(d1)),
		  "the .debug/ beside the file before the directories: %s", path);
	free(path);
}

Test(debug_file, the_debuglink_of_a_real_program)
{
	char link[256], bin[128], dbg[128], cmd[512];
	uint32_t crc = 0;
	int fd;

	path_of(bin, sizeof(bin), "app");
	path_of(dbg, sizeof(dbg), "app.debug");
	snprintf(cmd, sizeof(cmd),
		 "objcopy --only-keep-debug build/examples/inline_hot %s && "
		 "objcopy --strip-debug --add-gnu-debuglink=%s build/examples/inline_hot %s",
		 dbg, dbg, bin);
	cr_assert_eq(system(cmd), 0);
	fd = open(bin, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(debug_file__link(fd, link, sizeof(link), &crc), 0);
	close(fd);
	cr_assert_str_eq(link, "app.debug");
	fd = open(dbg, O_RDONLY);
	cr_assert_geq(fd, 0);
	{
		unsigned char buf[65536];
		uLong want = crc32(0, Z_NULL, 0);
		ssize_t n;

		while ((n = read(fd, buf, sizeof(buf))) > 0)
			want = crc32(want, buf, (uInt)n);
		cr_assert_eq(crc, (uint32_t)want, "the CRC it carries");
	}
	close(fd);
	fd = open("build/examples/inline_hot", O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(debug_file__link(fd, link, sizeof(link), &crc), -ENOENT, "none");
	close(fd);
}

Test(debug_file, a_users_directory_inside_roots_tree_holds_only_what_they_read)
{
	char root[128], d1[128];
	struct debug_query q = { .build_id = ID, .root = root };

	trust_tree(root, d1);
	/* root's file, root-only, where the user could have hard-linked it */
	chown_to("root/.build-id/ab/0123456789.debug", 0, 0600);
	chown_to("root/.build-id/ab", NOBODY, 0755);
	cr_assert_str_eq(found_text(&q, DEBUG_BY_ID), "");
	chown_to("root/.build-id/ab", 0, 0755);
	cr_assert_str_eq(found_text(&q, DEBUG_BY_ID), "root", "root's directory: root's file");
}
