// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of ksyms__load_for()/ksyms__parse_for(): a table of only the
 * symbols some addresses need answers each of them as the whole table does
 * (the whole one, ksyms__parse/ksyms__load, is the oracle: test_ksyms.c
 * checks it against kallsyms itself). */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leak_check.h"
#include "symbols/ksyms.h"

TestSuite(ksyms_for, .fini = check_leaks);

/* Asks addrs[n] (sorted, distinct) of a table for them and of the whole
 * table: the same symbol (address, name, module) or none for each. */
static void expect_same(const struct ksyms *whole, const struct ksyms *part,
			const uint64_t *addrs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct ksym *a = ksyms__find(whole, addrs[i]), *b = ksyms__find(part, addrs[i]);
		const char *ma, *mb;

		cr_assert_eq(!a, !b, "0x%" PRIx64 ": whole %s, part %s", addrs[i],
			     a ? ksyms__name(whole, a) : "none", b ? ksyms__name(part, b) : "none");
		if (!a)
			continue;
		cr_assert_eq(a->addr, b->addr, "0x%" PRIx64, addrs[i]);
		cr_assert_str_eq(ksyms__name(whole, a), ksyms__name(part, b), "0x%" PRIx64, addrs[i]);
		ma = ksyms__module(whole, a);
		mb = ksyms__module(part, b);
		cr_assert_eq(!ma, !mb, "0x%" PRIx64, addrs[i]);
		if (ma)
			cr_assert_str_eq(ma, mb);
	}
}

static void expect_same_span(const struct ksyms *whole, const struct ksyms *part)
{
	uint64_t s1, e1, s2, e2;

	cr_assert_eq(ksyms__span(whole, &s1, &e1), 0);
	cr_assert_eq(ksyms__span(part, &s2, &e2), 0);
	cr_expect_eq(s1, s2);
	cr_expect_eq(e1, e2);
}

/* kallsyms' shape: the image sorted, then modules (each sorted, not in
 * address order between them), aliases, and one module placed below the
 * image. */
static const char input[] =
	"ffffffff81000000 T srso_alias\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 t helper\n"
	"ffffffff81000200 D not_text\n"
	"ffffffff81000300 T do_work\n"
	"ffffffff81000300 W do_work_alias\n"
	"ffffffffc0002000 t ext4_fn\t[ext4]\n"
	"ffffffffc0002100 t ext4_fn2\t[ext4]\n"
	"ffffffffc0001000 t xfs_fn\t[xfs]\n"
	"ffffffffc0001800 t xfs_fn2\t[xfs]\n"
	"ffffffff80000000 t low_fn\t[low]\n"
	"ffffffffc0003000 T last_fn\n";

Test(ksyms_for, answers_as_the_whole_table)
{
	static const uint64_t addrs[] = {
		0xffffffff7fffffff,	/* below every symbol */
		0xffffffff80000010,	/* in the low module */
		0xffffffff81000000,	/* aliases: the first listed */
		0xffffffff81000101, 0xffffffff81000250,	/* past a data symbol */
		0xffffffff81000300, 0xffffffff81000301,
		0xffffffffc0000fff,	/* a module's gap: the image's last */
		0xffffffffc0001004, 0xffffffffc0001900, 0xffffffffc0002050, 0xffffffffc0002fff,
		0xffffffffc0003000, 0xffffffffc00fffff,
		0xffffffffc0103000,	/* 1 MiB past the last symbol: none */
	};
	size_t n = sizeof(addrs) / sizeof(addrs[0]);
	struct ksyms *whole = ksyms__parse(input, strlen(input));
	struct ksyms *part = ksyms__parse_for(input, strlen(input), addrs, n);

	cr_assert(whole && part, "errno %d", errno);
	expect_same(whole, part, addrs, n);
	expect_same_span(whole, part);
	/* one symbol an address at most */
	cr_expect_leq(ksyms__count(part), n);
	ksyms__free(whole);
	ksyms__free(part);
}

/* Each address alone: its own gap is all the table has. */
Test(ksyms_for, one_address_at_a_time)
{
	struct ksyms *whole = ksyms__parse(input, strlen(input));

	cr_assert_not_null(whole);
	for (uint64_t a = 0xffffffff80fffff0; a < 0xffffffff81000400; a += 0x11) {
		struct ksyms *part = ksyms__parse_for(input, strlen(input), &a, 1);

		cr_assert_not_null(part);
		expect_same(whole, part, &a, 1);
		cr_expect_leq(ksyms__count(part), 1);
		ksyms__free(part);
	}
	ksyms__free(whole);
}

/* No symbol at or below any address: an empty table, not an error; its
 * span is still kallsyms'. No address at all: the same. */
Test(ksyms_for, no_symbol_needed)
{
	uint64_t low = 0x1000;
	struct ksyms *whole = ksyms__parse(input, strlen(input));
	struct ksyms *part = ksyms__parse_for(input, strlen(input), &low, 1);
	struct ksyms *none = ksyms__parse_for(input, strlen(input), NULL, 0);

	cr_assert(whole && part && none, "errno %d", errno);
	cr_expect_eq(ksyms__count(part), 0);
	cr_expect_null(ksyms__find(part, low));
	cr_expect_eq(ksyms__count(none), 0);
	expect_same_span(whole, part);
	expect_same_span(whole, none);
	ksyms__free(whole);
	ksyms__free(part);
	ksyms__free(none);
}

/* Addresses hidden (kptr_restrict): ENODATA as for the whole table. */
Test(ksyms_for, hidden_addresses_give_enodata)
{
	static const char hidden[] = "0000000000000000 T _stext\n0000000000000000 t x\t[m]\n";
	uint64_t a = 0xffffffff81000000;

	errno = 0;
	cr_expect_null(ksyms__parse_for(hidden, strlen(hidden), &a, 1));
	cr_expect_eq(errno, ENODATA);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* n sorted, distinct addresses around [lo, hi), some past it. */
static size_t random_addrs(uint64_t *out, size_t n, uint64_t lo, uint64_t hi, uint64_t *seed)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		out[i] = lo - (1 << 20) + xorshift(seed) % (hi - lo + (4 << 20));
	qsort(out, n, sizeof(*out), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!i || out[i] != out[k - 1])
			out[k++] = out[i];
	return k;
}

/* A copy of /proc/kallsyms in a file of our own: two reads of the live
 * one differ where BPF programs (the [bpf] module) come and go. */
static void snapshot_kallsyms(char *path)
{
	char buf[64 << 10];
	FILE *in = fopen("/proc/kallsyms", "re");
	int fd = mkstemp(path);
	size_t n;

	cr_assert(in && fd >= 0);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		cr_assert_eq(write(fd, buf, n), (ssize_t)n);
	fclose(in);
	cr_assert_eq(close(fd), 0);
}

/* The real kallsyms (root only), as a snapshot: 4,000 random addresses
 * over the image and the modules, each named as the whole table names it,
 * from a table a small fraction of its size. */
Test(ksyms_for, real_kallsyms)
{
	enum { N = 4000 };
	char path[] = "/tmp/test_ksyms_for.XXXXXX";
	uint64_t *addrs = malloc(N * sizeof(*addrs)), seed = 0x9e3779b97f4a7c15, start, end;
	struct ksyms *whole, *part;
	size_t n;

	cr_assert_not_null(addrs);
	if (geteuid() != 0) {
		free(addrs);
		cr_skip_test("needs root: /proc/kallsyms hides addresses otherwise");
	}
	snapshot_kallsyms(path);
	whole = ksyms__load(path);
	cr_assert_not_null(whole, "ksyms__load: %s", strerror(errno));
	cr_assert_eq(ksyms__span(whole, &start, &end), 0);
	n = random_addrs(addrs, N, start, end, &seed);
	part = ksyms__load_for(path, addrs, n);
	unlink(path);
	cr_assert_not_null(part, "ksyms__load_for: %s", strerror(errno));
	expect_same(whole, part, addrs, n);
	expect_same_span(whole, part);
	cr_expect_str_eq(ksyms__build_id(part), ksyms__build_id(whole));
	cr_expect_leq(ksyms__count(part), n);
	cr_expect_lt(ksyms__count(part) * 10, ksyms__count(whole),
		     "%zu of %zu symbols kept", ksyms__count(part), ksyms__count(whole));
	ksyms__free(whole);
	ksyms__free(part);
	free(addrs);
}

Test(ksyms_for, load_missing_file)
{
	uint64_t a = 1;

	errno = 0;
	cr_expect_null(ksyms__load_for("/nonexistent/kallsyms", &a, 1));
	cr_expect_eq(errno, ENOENT);
}
