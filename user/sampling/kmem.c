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

#include "sampling/kmem.h"

int kmem__map_bytes(int fd, uint64_t *bytes)
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
		if (kmem__map_bytes((int)fd, &b) == 0)
			*bytes += b;
	}
	closedir(d);
	return 0;
}

int kmem__read(uint64_t *bytes)
{
	return held_maps(bytes);
}
