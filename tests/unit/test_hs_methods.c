// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of hs_methods against a real BPF hash map of the walker's
 * key: the interpreted methods noted are named once each while their
 * process lives and deleted from the map; a method that cannot be read
 * stays unnamed (never another's name); the map is not walked while the
 * count noted stands; a process gone lets its names go, another's stay.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/types.h>

#include "bpf/profile.h"
#include "hotspot/hs_methods.h"

static int calls;		/* name_of's calls */

/* Method 0x1000 * i of any process is "m<i>"; an odd address cannot be read. */
static int name_of(void *ctx, pid_t tgid, uint64_t method, char *name, size_t size)
{
	(void)ctx, (void)tgid;
	calls++;
	if (method & 0x800)
		return -EPROTO;
	snprintf(name, size, "m%llu", (unsigned long long)(method / 0x1000));
	return 0;
}

static int methods_map(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, sizeof(struct hs_method_key), 1, 64, NULL);

	cr_assert_geq(fd, 0, "hs_methods map: %s", strerror(errno));
	return fd;
}

static void note(int fd, volatile uint64_t *noted, pid_t tgid, uint64_t method)
{
	struct hs_method_key k = { .tgid = (__u32)tgid, .start_time = 77, .method = method };
	__u8 one = 1;

	cr_assert_eq(bpf_map_update_elem(fd, &k, &one, BPF_NOEXIST), 0);
	(*noted)++;
}

static size_t map_count(int fd)
{
	struct hs_method_key k, next;
	size_t n = 0;

	while (!bpf_map_get_next_key(fd, n ? &k : NULL, &next)) {
		k = next;
		n++;
	}
	return n;
}

Test(hs_methods, named_once_while_alive)
{
	volatile uint64_t noted = 0;
	int fd = methods_map();
	struct hs_methods *m = hs_methods__new(fd, &noted);

	cr_assert_not_null(m);
	note(fd, &noted, 10, 0x3000);
	note(fd, &noted, 10, 0x5800);	/* unreadable */
	note(fd, &noted, 11, 0x3000);
	hs_methods__poll(m, name_of, NULL);
	cr_expect_eq(calls, 3);
	cr_expect_eq(map_count(fd), 0, "every key read is deleted");
	cr_expect_str_eq(hs_methods__find(m, 10, 77, 0x3000), "m3");
	cr_expect_str_eq(hs_methods__find(m, 11, 77, 0x3000), "m3");
	cr_expect_null(hs_methods__find(m, 10, 77, 0x5800), "unreadable: no name");
	cr_expect_null(hs_methods__find(m, 10, 78, 0x3000), "another process by that pid");
	/* noted again after the BPF side's lookup raced user space's delete:
	 * the same method is not read again */
	note(fd, &noted, 10, 0x3000);
	hs_methods__poll(m, name_of, NULL);
	cr_expect_eq(calls, 3);
	/* nothing noted since: the map is not walked */
	cr_assert_eq(bpf_map_update_elem(fd, &(struct hs_method_key){ .tgid = 10, .start_time = 77,
								     .method = 0x9000 },
					 &(__u8){ 1 }, BPF_NOEXIST), 0);
	hs_methods__poll(m, name_of, NULL);
	cr_expect_eq(map_count(fd), 1);
	cr_expect_null(hs_methods__find(m, 10, 77, 0x9000));
	hs_methods__free(m);
	close(fd);
}

Test(hs_methods, a_process_gone_lets_its_names_go)
{
	volatile uint64_t noted = 0;
	int fd = methods_map();
	struct hs_methods *m = hs_methods__new(fd, &noted);

	cr_assert_not_null(m);
	note(fd, &noted, 10, 0x1000);
	note(fd, &noted, 10, 0x2000);
	note(fd, &noted, 12, 0x1000);
	hs_methods__poll(m, name_of, NULL);
	hs_methods__forget(m, 10);
	cr_expect_null(hs_methods__find(m, 10, 77, 0x1000));
	cr_expect_null(hs_methods__find(m, 10, 77, 0x2000));
	cr_expect_str_eq(hs_methods__find(m, 12, 77, 0x1000), "m1");
	hs_methods__free(m);
	close(fd);
}
