// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of spool.c (items with bpfprof's header, checked before they
 * are sent) and push_reply.c (a bounded reply and its excerpt; its verdict:
 * test_push_retry.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "leak_check.h"
#include "output/push_auth.h"
#include "output/push_reply.h"
#include "output/spool.h"

TestSuite(push, .fini = check_leaks);

static char dir[64];

static struct spool *new_spool(unsigned int max)
{
	struct spool *sp;

	snprintf(dir, sizeof(dir), "/tmp/bpfprof-test-spool.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(spool__open(dir, max, &sp), 0);
	return sp;
}

static void remove_spool(struct spool *sp)
{
	char cmd[128];

	spool__free(sp);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

/* Writes bytes as dir/name, as a stranger would plant them. */
static void plant(const char *name, const void *bytes, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(bytes, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

static int read_only_item(struct spool *sp, char **body, size_t *len)
{
	struct spool_item *items;
	size_t n;
	int err;

	cr_assert_eq(spool__list(sp, &items, &n), 0);
	cr_assert_eq(n, 1);
	err = spool__read(sp, &items[0], body, len);
	spool__free_items(items, n);
	return err;
}

Test(push, spooled_items_read_back_oldest_first)
{
	struct spool *sp = new_spool(8);
	struct spool_item *items;
	const char *bodies[] = { "a;b 1\n", "c;d 2\n", "" };
	char *body;
	size_t n, len, dropped;

	for (int i = 0; i < 3; i++)
		cr_assert_eq(spool__add(sp, bodies[i], strlen(bodies[i]), FORMAT_FOLDED, 100 + i,
					101 + i, NULL, &dropped), 0);
	cr_assert_eq(spool__list(sp, &items, &n), 0);
	cr_assert_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(items[i].seq, i);
		cr_expect_eq(items[i].from, 100 + (int64_t)i);
		cr_assert_eq(spool__read(sp, &items[i], &body, &len), 0);
		cr_expect_eq(len, strlen(bodies[i]));
		cr_expect_eq(memcmp(body, bodies[i], len), 0);
		free(body);
	}
	spool__free_items(items, n);
	remove_spool(sp);
}

Test(push, the_bound_drops_the_oldest_but_not_the_one_being_sent)
{
	struct spool *sp = new_spool(2);
	struct spool_item *items;
	char keep[96];
	size_t n, dropped, total = 0;

	cr_assert_eq(spool__add(sp, "x 1\n", 4, FORMAT_FOLDED, 1, 2, NULL, &dropped), 0);
	cr_assert_eq(spool__list(sp, &items, &n), 0);
	snprintf(keep, sizeof(keep), "%s", items[0].name);
	spool__free_items(items, n);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(spool__add(sp, "x 1\n", 4, FORMAT_PPROF, 3 + i, 4 + i, keep, &dropped), 0);
		total += dropped;
	}
	cr_assert_eq(spool__list(sp, &items, &n), 0);
	cr_expect_eq(n, 2);
	cr_expect_eq(total, 2);
	cr_expect_str_eq(items[0].name, keep);
	cr_expect_eq(items[1].from, 5);
	cr_expect_eq(items[1].fmt, FORMAT_PPROF);
	spool__free_items(items, n);
	remove_spool(sp);
}

Test(push, an_item_without_our_header_is_refused)
{
	struct spool *sp = new_spool(8);
	char *body;
	size_t len;

	plant("00000000000000000000-1-2.folded", "planted;stack 1\n", 16);
	cr_expect_eq(read_only_item(sp, &body, &len), -SPOOL_EHEADER);
	remove_spool(sp);
}

/* Each byte of a good item changed in turn: every change is refused. */
Test(push, any_changed_byte_is_refused)
{
	const char *name = "00000000000000000000-7-8.folded", *text = "main;work 3\n";
	char header[SPOOL_HEADER_MAX], file[256], *body;
	struct spool *sp = new_spool(8);
	size_t hlen = spool__header(header, text, strlen(text), FORMAT_FOLDED, 7, 8), len, i;

	cr_assert_gt(hlen, 0);
	len = (size_t)snprintf(file, sizeof(file), "%.*s%s", (int)hlen, header, text);
	plant(name, file, len);
	cr_assert_eq(read_only_item(sp, &body, &len), 0);
	free(body);
	for (i = 0; i < hlen + strlen(text); i++) {
		file[i] ^= 0x01;
		plant(name, file, hlen + strlen(text));
		cr_expect_eq(read_only_item(sp, &body, &len), -SPOOL_EHEADER, "byte %zu", i);
		file[i] ^= 0x01;
	}
	remove_spool(sp);
}

Test(push, a_header_for_another_name_is_refused)
{
	const char *text = "main 1\n";
	char header[SPOOL_HEADER_MAX], file[256], *body;
	struct spool *sp = new_spool(8);
	size_t hlen = spool__header(header, text, strlen(text), FORMAT_FOLDED, 7, 8), len;

	len = (size_t)snprintf(file, sizeof(file), "%.*s%s", (int)hlen, header, text);
	plant("00000000000000000000-7-9.folded", file, len);	/* until differs */
	cr_expect_eq(read_only_item(sp, &body, &len), -SPOOL_EHEADER);
	remove_spool(sp);
}

Test(push, an_oversized_sparse_item_is_refused_unread)
{
	struct spool *sp = new_spool(8);
	char path[256], *body;
	size_t len;
	int fd;

	snprintf(path, sizeof(path), "%s/00000000000000000000-1-2.pb.gz", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 4ll << 30), 0);	/* 4 GiB, sparse */
	close(fd);
	cr_expect_eq(read_only_item(sp, &body, &len), -SPOOL_EBIG);
	remove_spool(sp);
}

/* The items listed and the names of files not ours left out. */
static void expect_listed(struct spool *sp, size_t items, size_t others)
{
	struct spool_item *list;
	size_t n;

	cr_assert_eq(spool__list(sp, &list, &n), 0);
	spool__free_items(list, n);
	cr_expect_eq(n, items, "%zu items listed, want %zu", n, items);
	cr_expect_eq(spool__others(sp), others, "%zu others, want %zu", spool__others(sp), others);
}

/* dir/name opened and read as an item, whatever the listing says. */
static int read_planted(const char *name, char **body, size_t *len)
{
	struct spool_item it;
	char path[256];
	int fd, err;

	cr_assert_eq(spool__parse_name(name, &it), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	cr_assert(fd >= 0);
	err = spool__read_fd(fd, &it, body, len);
	close(fd);
	return err;
}

/* Not ours: never listed (so never sent, dropped or removed), and refused
 * by the reader if it comes to it. */
Test(push, an_item_of_another_owner_or_with_two_links_is_not_listed)
{
	const char *text = "main 1\n", *name = "00000000000000000000-7-8.folded";
	char header[SPOOL_HEADER_MAX], file[256], path[256], other[256], *body;
	struct spool *sp = new_spool(8);
	size_t hlen = spool__header(header, text, strlen(text), FORMAT_FOLDED, 7, 8), len;

	len = (size_t)snprintf(file, sizeof(file), "%.*s%s", (int)hlen, header, text);
	plant(name, file, len);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(other, sizeof(other), "%s/elsewhere", dir);
	expect_listed(sp, 1, 0);
	cr_assert_eq(link(path, other), 0);
	expect_listed(sp, 0, 1);
	cr_expect_eq(read_planted(name, &body, &len), -SPOOL_ENOTOURS);
	cr_assert_eq(unlink(other), 0);
	if (geteuid() == 0) {	/* chown needs root */
		cr_assert_eq(chown(path, 65534, 65534), 0);
		expect_listed(sp, 0, 1);
		cr_expect_eq(read_planted(name, &body, &len), -SPOOL_ENOTOURS);
	}
	remove_spool(sp);
}

/* A spool full of another user's items with later numbers: bpfprof's own
 * are numbered after its own, and only its own are dropped. */
Test(push, another_users_items_are_never_dropped)
{
	struct spool *sp = new_spool(2);
	struct spool_item *list;
	char name[64], file_path[256];
	size_t dropped, n;

	if (geteuid() != 0)
		return;	/* chown needs root */
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "%020d-1-2.folded", 900 + i);
		plant(name, "x 1\n", 4);
		snprintf(file_path, sizeof(file_path), "%s/%s", dir, name);
		cr_assert_eq(chown(file_path, 65534, 65534), 0);
	}
	for (int i = 0; i < 4; i++)
		cr_assert_eq(spool__add(sp, "y 1\n", 4, FORMAT_FOLDED, 10 + i, 11 + i, NULL,
					&dropped), 0);
	cr_assert_eq(spool__list(sp, &list, &n), 0);
	cr_expect_eq(n, 2);
	cr_expect_eq(list[0].seq, 2, "ours numbered from 0: %" PRIu64, list[0].seq);
	cr_expect_eq(list[1].from, 13);
	spool__free_items(list, n);
	cr_expect_eq(spool__others(sp), 5);
	for (int i = 0; i < 5; i++) {
		snprintf(file_path, sizeof(file_path), "%s/%020d-1-2.folded", dir, 900 + i);
		cr_expect_eq(access(file_path, F_OK), 0, "%s dropped", file_path);
	}
	remove_spool(sp);
}

Test(push, names_are_parsed_strictly)
{
	struct spool_item it;

	cr_expect_eq(spool__parse_name("00000000000000000003-10-11.folded", &it), 0);
	cr_expect_eq(it.seq, 3);
	cr_expect_eq(spool__parse_name("00000000000000000003-10-11.pb.gz", &it), 0);
	cr_expect_eq(it.fmt, FORMAT_PPROF);
	cr_expect_eq(spool__parse_name("3-10-11.folded", &it), -EINVAL);
	cr_expect_eq(spool__parse_name("00000000000000000003-+10-11.folded", &it), -EINVAL);
	cr_expect_eq(spool__parse_name("00000000000000000003-10-11.pbx", &it), -EINVAL);
	cr_expect_eq(spool__parse_name(".00000000000000000003-10-11.folded.1234.tmp", &it), -EINVAL);
}

Test(push, a_too_large_profile_is_not_spooled)
{
	struct spool *sp = new_spool(8);
	size_t dropped;

	cr_expect_eq(spool__add(sp, "", (size_t)SPOOL_ITEM_MAX + 1, FORMAT_FOLDED, 1, 2, NULL,
				&dropped), -EFBIG);
	remove_spool(sp);
}

Test(push, the_reply_is_bounded)
{
	struct push_reply *r = malloc(sizeof(*r));
	char chunk[16384];

	cr_assert_not_null(r);
	memset(chunk, 'x', sizeof(chunk));
	push_reply__reset(r);
	for (size_t i = 0; i < PUSH_REPLY_MAX / sizeof(chunk); i++)
		cr_assert_eq(push_reply__write(chunk, 1, sizeof(chunk), r), sizeof(chunk));
	cr_expect_eq(push_reply__write(chunk, 1, 1, r), 0);	/* ends the transfer */
	cr_expect(r->cut);
	cr_expect_eq(r->len, PUSH_REPLY_MAX);
	free(r);
}

Test(push, the_excerpt_is_one_printable_line)
{
	struct push_reply *r = malloc(sizeof(*r));
	char buf[PUSH_REPLY_EXCERPT + 4], small[6];
	const char *text = "bad \033[31mlabel\t\xff\nsecond line";

	cr_assert_not_null(r);
	push_reply__reset(r);
	push_reply__write((char *)text, 1, strlen(text), r);
	push_reply__excerpt(r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "bad ?[31mlabel??");
	push_reply__excerpt(r, small, sizeof(small));
	cr_expect_str_eq(small, "ba...");
	push_reply__reset(r);
	push_reply__excerpt(r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "");
	free(r);
}

Test(push, urls_are_printed_without_their_userinfo)
{
	static const char *const cases[][2] = {
		{ "http://u:pw@h:4040/x?a=b", "http://***@h:4040/x?a=b" },
		{ "https://token@h", "https://***@h" },
		{ "u:p@a@h/p@q", "***@h/p@q" },		/* no scheme: curl's guess */
		{ "http://h:4040/a@b", "http://h:4040/a@b" },	/* '@' in the path only */
		{ "http://h?x=@", "http://h?x=@" },
		/* "://" in the query is not a scheme's (review item 5) */
		{ "u:secret@h:4040/ingest?from=http://x", "***@h:4040/ingest?from=http://x" },
		{ "u:secret@h:4040", "***@h:4040" },
		{ "u:secret@[::1]:4040/x", "***@[::1]:4040/x" },
		{ "http://u:secret@[::1]:4040/x", "http://***@[::1]:4040/x" },
		{ "u:secret@h?to=a@b&u=http://c", "***@h?to=a@b&u=http://c" },
		{ "u:s3cr@t@h#http://x", "***@h#http://x" },
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		push_url__redact(cases[i][0], buf, sizeof(buf));
		cr_expect_str_eq(buf, cases[i][1]);
		cr_expect_null(strstr(buf, "secret"), "%s printed as %s", cases[i][0], buf);
		cr_expect_eq(push_url__has_userinfo(cases[i][0]), strcmp(cases[i][0], cases[i][1]) != 0);
	}
}

Test(push, credentials_are_one_line_basic_or_bearer)
{
	struct push_auth a;
	const char *why = NULL;

	cr_assert_eq(push_auth__parse("u:p w\n", 6, &a, &why), 0);
	cr_expect_eq(a.kind, PUSH_AUTH_BASIC);
	cr_expect_str_eq(a.secret, "u:p w");
	push_auth__free(&a);
	cr_assert_eq(push_auth__parse("bearer abc\r\n", 12, &a, &why), 0);
	cr_expect_eq(a.kind, PUSH_AUTH_BEARER);
	cr_expect_str_eq(a.secret, "abc");
	push_auth__free(&a);
	cr_expect_eq(push_auth__parse("Bearer a\r\nX: 1\n", 16, &a, &why), -EINVAL);
	cr_expect_eq(push_auth__parse("token-alone", 11, &a, &why), -EINVAL);
	cr_expect_eq(push_auth__parse("Bearer \n", 8, &a, &why), -EINVAL);
	cr_expect_eq(push_auth__parse("", 0, &a, &why), -EINVAL);
	cr_expect_null(a.secret);
	cr_expect_not_null(why);
}
