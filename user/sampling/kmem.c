// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Kernel bytes of our BPF maps, from the kernel's own accounting. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kmem.h"

/* The memlock line of fd's fdinfo: the bytes the kernel charges the map. */
static int fd_memlock(int fd, uint64_t *bytes)
{
	char path[64], line[128];
	FILE *f;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %" SCNu64, bytes) == 1)
			err = 0;
	fclose(f);
	return err;
}

static bool is_map_fd(int dirfd, const char *name)
{
	char target[32];
	ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);

	if (n < 0)
		return false;
	target[n] = '\0';
	return !strcmp(target, "anon_inode:bpf-map");
}

/* Every map behind a descriptor of ours (a descriptor that closes meanwhile
 * is skipped: it was not held). */
static int held_maps(uint64_t *bytes)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	uint64_t b;

	if (!d)
		return -errno;
	*bytes = 0;
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name || fd == dirfd(d) || !is_map_fd(dirfd(d), de->d_name))
			continue;
		if (fd_memlock((int)fd, &b) == 0)
			*bytes += b;
	}
	closedir(d);
	return 0;
}

/* The inner maps in files_fd's slots: a user-space lookup of an
 * array-of-maps gives the inner map's id, which opens it for its fdinfo. */
static int inner_maps(int files_fd, uint64_t *bytes, unsigned int *count)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info), slot, id;
	uint64_t b;
	int fd, err;

	if (bpf_obj_get_info_by_fd(files_fd, &info, &len))
		return -errno;
	*bytes = 0;
	*count = 0;
	for (slot = 0; slot < info.max_entries; slot++) {
		if (bpf_map_lookup_elem(files_fd, &slot, &id)) {
			if (errno == ENOENT)
				continue;	/* an empty slot */
			return -errno;
		}
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0 && errno == ENOENT)
			continue;	/* dropped meanwhile: no longer held */
		if (fd < 0)
			return -errno;
		err = fd_memlock(fd, &b);
		close(fd);
		if (err)
			return err;
		*bytes += b;
		(*count)++;
	}
	return 0;
}

int kmem__read(int files_fd, struct kmem *out)
{
	int err = held_maps(&out->maps);

	if (!err)
		err = inner_maps(files_fd, &out->rows, &out->row_maps);
	return err;
}
