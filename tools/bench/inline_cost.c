// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * inline_cost FILE STEP: the cost of source lines and inline frames as
 * bpfprof resolves them (user/elf/dwarf_lines.c, libdwfl), on every
 * STEP-th byte of FILE's .text, each address once, from a cold handle:
 * once with inline frames, once without (--no-inline). Prints
 *   inline_cost ADDRESSES WITH_INLINE_PER_S WITHOUT_PER_S ADDRESSES_WITH_INLINE_FRAMES
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elf/dwarf_lines.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* .text's [start, end), as the file's headers number addresses. */
static int text_range(int fd, uint64_t *start, uint64_t *end)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	int err = -1;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		elf_end(elf);
		return -1;
	}
	while (err && (scn = elf_nextscn(elf, scn)) && gelf_getshdr(scn, &sh)) {
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);

		if (name && !strcmp(name, ".text")) {
			*start = sh.sh_addr;
			*end = sh.sh_addr + sh.sh_size;
			err = 0;
		}
	}
	elf_end(elf);
	return err;
}

/* Addresses per second over the range, and how many had inline frames. */
static double run(int fd, const char *path, bool with_inline, uint64_t start, uint64_t end,
		  uint64_t step, size_t *n, size_t *inl)
{
	double t0 = now();
	struct dwarf_lines *dl = dwarf_lines__open(fd, path, with_inline);
	const struct src_chain *c;

	*n = *inl = 0;
	if (!dl)
		return 0;
	for (uint64_t a = start; a < end; a += step, (*n)++) {
		c = dwarf_lines__at(dl, a);
		*inl += c && c->ninlined;
	}
	dwarf_lines__free(dl);
	return *n / (now() - t0);
}

int main(int argc, char **argv)
{
	uint64_t start, end, step = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
	size_t n, inl, n0, inl0;
	double with, without;
	int fd;

	if (argc != 3 || !step) {
		fprintf(stderr, "usage: inline_cost FILE STEP\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || text_range(fd, &start, &end)) {
		fprintf(stderr, "inline_cost: %s: no .text\n", argv[1]);
		return 1;
	}
	with = run(fd, argv[1], true, start, end, step, &n, &inl);
	without = run(fd, argv[1], false, start, end, step, &n0, &inl0);
	close(fd);
	if (!with || !without) {
		fprintf(stderr, "inline_cost: %s: libdwfl cannot read it\n", argv[1]);
		return 1;
	}
	printf("inline_cost %zu %.0f %.0f %zu\n", n, with, without, inl);
	return 0;
}
