// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: user/base/cgroup_name.c. The input is both a cgroup path (up
 * to its first NUL, in a buffer of exactly its size) and a mountinfo stream
 * (all of it). The path's fields hold only their shapes' characters and come
 * from the path; the same path with a hostile name appended names the same
 * (the walk stops there). The mount point is read into a 4096-byte buffer
 * and one of the last byte's size (below 48): both agree, the point is
 * absolute and NUL-terminated, the errors only the documented ones.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cgroup_name.h"
#include "fuzz_check.h"

#define UNIT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.@\\-"
#define HEX "0123456789abcdef"

static bool ends_with(const char *s, const char *suffix)
{
	size_t len = strlen(s), n = strlen(suffix);

	return len >= n && !strcmp(s + len - n, suffix);
}

static void check_pod(const char *pod)
{
	size_t len = strlen(pod);

	CHECK(len == 0 || len == 32 || len == CGROUP_NAME_UID_LEN);
	if (len == 32)
		CHECK(strspn(pod, HEX) == 32);
	if (len == CGROUP_NAME_UID_LEN)
		CHECK(strspn(pod, HEX) == 8 && pod[8] == '-' && pod[13] == '-' && pod[18] == '-' &&
		      pod[23] == '-' && strspn(pod + 24, HEX) == 12);
}

/* Every field of n holds its shape, and the container and unit are in path. */
static void check_fields(const char *path, const struct cgroup_name *n)
{
	size_t unit = strlen(n->unit);

	CHECK(n->runtime);
	CHECK(!n->container[0] || (strlen(n->container) == CGROUP_NAME_ID_LEN &&
				   strspn(n->container, HEX) == CGROUP_NAME_ID_LEN &&
				   strstr(path, n->container)));
	CHECK(!n->runtime[0] || n->container[0]);
	check_pod(n->pod);
	CHECK(unit < sizeof(n->unit) && strspn(n->unit, UNIT_CHARS) == unit);
	CHECK(!unit || (strstr(path, n->unit) && (ends_with(n->unit, ".service") ||
						   ends_with(n->unit, ".scope"))));
}

static void check_same(const struct cgroup_name *a, const struct cgroup_name *b)
{
	CHECK(!strcmp(a->container, b->container) && !strcmp(a->pod, b->pod) &&
	      !strcmp(a->unit, b->unit) && !strcmp(a->runtime, b->runtime));
}

static void fuzz_parse(const uint8_t *data, size_t size)
{
	size_t len = strnlen((const char *)data, size);
	char *path = malloc(len + 1), *longer = malloc(len + 3);
	struct cgroup_name n, m;

	CHECK(path && longer);
	memcpy(path, data, len);
	path[len] = '\0';
	cgroup_name__parse(path, &n);
	check_fields(path, &n);
	/* a hostile name below: the walk stops at it, what is above stands */
	memcpy(longer, path, len);
	memcpy(longer + len, "/\033", 3);
	if (strcmp(path, "/") && len + 2 < 4096) {
		cgroup_name__parse(longer, &m);
		check_same(&n, &m);
	}
	free(path);
	free(longer);
}

static int mount_point(const uint8_t *data, size_t size, char *dir, size_t n)
{
	FILE *f = fmemopen((void *)data, size, "r");
	int err;

	CHECK(f);
	err = cgroup_name__mount(f, dir, n);
	fclose(f);
	CHECK(err == 0 || err == -ENOENT || err == -ENAMETOOLONG);
	if (!err)
		CHECK(dir[0] == '/' && strlen(dir) < n);
	else if (n)
		CHECK(!dir[0]);
	return err;
}

static void fuzz_mount(const uint8_t *data, size_t size)
{
	static char big[4096];
	size_t n = data[size - 1] % 48;
	char *small = malloc(n ? n : 1);
	int err_big, err_small;

	CHECK(small);
	err_big = mount_point(data, size, big, sizeof(big));
	err_small = mount_point(data, size, small, n);
	if (err_big)	/* none, or longer than 4095: never fits in n < 48 */
		CHECK(err_small == err_big);
	else if (strlen(big) < n)
		CHECK(!err_small && !strcmp(small, big));
	else
		CHECK(err_small == -ENAMETOOLONG);
	free(small);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_parse(data, size);
	if (size)	/* fmemopen wants a buffer */
		fuzz_mount(data, size);
	return 0;
}
