// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * map_churn: distinct ELF files, many of them, as a plugin host or a test
 * runner makes them: N copies of one ELF file in a private temp dir, each
 * with a build id of its own (a distinct file to every cache: its own
 * inode, its own id), then
 *   map_churn map ELF N [RATE]     maps each copy's executable segment
 *                                  PROT_EXEC in turn, RATE a second (0: as
 *                                  fast as it can), the last 64 kept mapped,
 *                                  until SIGTERM or SIGINT
 *   map_churn exec ELF N [ARG...]  runs each copy with ARGs, one after
 *                                  another (distinct short-lived programs)
 * It prints "ready DIR" once the copies are made. The dir goes at the end,
 * unless -k comes first: then the caller removes it (a profiler names the
 * copies' frames after they ran).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KEEP_MAPPED	64

static volatile sig_atomic_t stop;
static char dir[] = "/tmp/map_churn.XXXXXX";

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The build id's bytes in the image (a PT_NOTE's NT_GNU_BUILD_ID), or NULL. */
static unsigned char *build_id(unsigned char *img, size_t len, size_t *idlen)
{
	const Elf64_Ehdr *eh = (const void *)img;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phoff > len ||
	    (size_t)eh->e_phnum * sizeof(Elf64_Phdr) > len - eh->e_phoff)
		return NULL;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(img + eh->e_phoff + i * sizeof(Elf64_Phdr));
		size_t off = ph->p_offset, end = ph->p_offset + ph->p_filesz;

		if (ph->p_type != PT_NOTE || end > len || end < off)
			continue;
		while (off + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *nh = (const void *)(img + off);
			size_t name = off + sizeof(*nh), desc = name + ((nh->n_namesz + 3) & ~3u);

			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(img + name, "GNU", 4) && nh->n_descsz >= 4) {
				*idlen = nh->n_descsz;
				return img + desc;
			}
			off = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return NULL;
}

/* The executable segment's file range, page-aligned, into *off, *len. */
static int exec_segment(const unsigned char *img, size_t len, off_t *off, size_t *seglen)
{
	const Elf64_Ehdr *eh = (const void *)img;
	long page = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(img + eh->e_phoff + i * sizeof(Elf64_Phdr));

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || ph->p_offset >= len)
			continue;
		*off = (off_t)(ph->p_offset & ~(uint64_t)(page - 1));
		*seglen = ph->p_offset + ph->p_filesz - (uint64_t)*off;
		return 0;
	}
	return -1;
}

static unsigned char *read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char *img = NULL;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0 || st.st_size > (64 << 20))
		goto out;
	img = malloc((size_t)st.st_size);
	if (img && read(fd, img, (size_t)st.st_size) != st.st_size) {
		free(img);
		img = NULL;
	}
	*len = (size_t)st.st_size;
out:
	if (fd >= 0)
		close(fd);
	return img;
}

/* Copy i of the image: its build id's first bytes made i's. */
static int write_copy(unsigned char *img, size_t len, int i)
{
	size_t idlen = 0;
	unsigned char *id = build_id(img, len, &idlen), saved[4];
	char path[64];
	int fd, ok;

	if (id) {
		memcpy(saved, id, 4);
		for (int b = 0; b < 4; b++)
			id[b] ^= (unsigned char)((unsigned)i >> (8 * b));
	}
	snprintf(path, sizeof(path), "%s/c%d", dir, i);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	ok = fd >= 0 && write(fd, img, len) == (ssize_t)len;
	if (fd >= 0 && close(fd))
		ok = 0;
	if (id)
		memcpy(id, saved, 4);
	return ok ? 0 : -1;
}

static void remove_dir(int n)
{
	char path[64];

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/c%d", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

static void sleep_ns(long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	nanosleep(&ts, NULL);
}

static int churn_maps(const unsigned char *img, size_t len, int n, long rate)
{
	void *kept[KEEP_MAPPED] = { 0 };
	size_t seglen, keptlen[KEEP_MAPPED] = { 0 };
	char path[64];
	off_t off;
	long i;

	if (exec_segment(img, len, &off, &seglen)) {
		fprintf(stderr, "map_churn: no executable segment\n");
		return 1;
	}
	for (i = 0; !stop; i++) {
		int slot = (int)(i % KEEP_MAPPED), fd;

		snprintf(path, sizeof(path), "%s/c%ld", dir, i % n);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 1;
		if (kept[slot])
			munmap(kept[slot], keptlen[slot]);
		kept[slot] = mmap(NULL, seglen, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
		keptlen[slot] = seglen;
		close(fd);
		if (kept[slot] == MAP_FAILED)
			return 1;
		if (rate > 0)
			sleep_ns(1000000000L / rate);
	}
	return 0;
}

static int run_copies(int n, char **args, int nargs)
{
	char path[64], **argv = calloc((size_t)nargs + 2, sizeof(*argv));

	if (!argv)
		return 1;
	for (int i = 0; i < n && !stop; i++) {
		pid_t pid;
		int status;

		snprintf(path, sizeof(path), "%s/c%d", dir, i);
		argv[0] = path;
		memcpy(argv + 1, args, (size_t)nargs * sizeof(*argv));
		pid = fork();
		if (pid < 0)
			break;
		if (pid == 0) {
			execv(path, argv);
			_exit(127);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	free(argv);
	return 0;
}

int main(int argc, char **argv)
{
	bool keep = argc > 1 && !strcmp(argv[1], "-k"), maps;
	int n, made = 0, rc;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned char *img;
	size_t len = 0;

	argc -= keep;
	argv += keep;
	maps = argc >= 4 && !strcmp(argv[1], "map");
	n = argc >= 4 ? atoi(argv[3]) : 0;
	if (n <= 0 || (!maps && strcmp(argv[1], "exec"))) {
		fprintf(stderr, "usage: map_churn [-k] map ELF N [RATE] | [-k] exec ELF N [ARG...]\n");
		return 2;
	}
	img = read_all(argv[2], &len);
	if (!img || !mkdtemp(dir)) {
		fprintf(stderr, "map_churn: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (made < n && !stop && !write_copy(img, len, made))
		made++;
	if (made < n) {
		fprintf(stderr, "map_churn: copies: %s\n", strerror(errno));
		remove_dir(made);
		return 1;
	}
	printf("ready %s\n", dir);
	fflush(stdout);
	if (maps)
		rc = churn_maps(img, len, n, argc > 4 ? atol(argv[4]) : 0);
	else
		rc = run_copies(n, argv + 4, argc - 4);
	if (!keep)
		remove_dir(n);
	free(img);
	return rc;
}
