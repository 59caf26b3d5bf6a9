// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The ELF header's counts, checked before libelf allocates by them. */
#include <byteswap.h>
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_limits.h"

/* len bytes at off, from the file or the image; false when short. */
static bool read_at(int fd, const void *image, size_t size, uint64_t off, void *buf, size_t len)
{
	if (fd >= 0)
		return pread(fd, buf, len, (off_t)off) == (ssize_t)len;
	if (off > size || len > size - off)
		return false;
	memcpy(buf, (const char *)image + off, len);
	return true;
}

/* An integer of the file's byte order. */
static uint64_t host(uint64_t v, int bytes, bool swap)
{
	if (!swap)
		return v;
	return bytes == 2 ? bswap_16((uint16_t)v) : bytes == 4 ? bswap_32((uint32_t)v) : bswap_64(v);
}

/* The two tables libelf allocates by their header counts. */
enum table { SECTIONS, SEGMENTS, TABLES };

static const uint64_t table_max[TABLES] = { ELF_SECTIONS_MAX, ELF_SEGMENTS_MAX };

struct table_count {
	uint64_t off, n, entsize;
};

/* Where the header says table t is, its count and its entry size. */
static void header_count(const void *ehdr, bool is64, bool swap, enum table t,
			 struct table_count *c)
{
	if (is64) {
		const Elf64_Ehdr *e = ehdr;

		c->off = host(t == SECTIONS ? e->e_shoff : e->e_phoff, 8, swap);
		c->n = host(t == SECTIONS ? e->e_shnum : e->e_phnum, 2, swap);
		c->entsize = host(t == SECTIONS ? e->e_shentsize : e->e_phentsize, 2, swap);
	} else {
		const Elf32_Ehdr *e = ehdr;

		c->off = host(t == SECTIONS ? e->e_shoff : e->e_phoff, 4, swap);
		c->n = host(t == SECTIONS ? e->e_shnum : e->e_phnum, 2, swap);
		c->entsize = host(t == SECTIONS ? e->e_shentsize : e->e_phentsize, 2, swap);
	}
}

/* e_shnum 0 / e_phnum PN_XNUM: the real counts are section 0's sh_size
 * and sh_info. An unreadable section 0 is libelf's to refuse. */
static void extended_counts(int fd, const void *image, size_t size, bool is64, bool swap,
			    struct table_count *c)
{
	struct table_count *sec = &c[SECTIONS], *seg = &c[SEGMENTS];
	Elf64_Shdr s64;
	Elf32_Shdr s32;

	if (is64 && read_at(fd, image, size, sec->off, &s64, sizeof(s64))) {
		if (!sec->n)
			sec->n = host(s64.sh_size, 8, swap);
		if (seg->n == PN_XNUM)
			seg->n = host(s64.sh_info, 4, swap);
	} else if (!is64 && read_at(fd, image, size, sec->off, &s32, sizeof(s32))) {
		if (!sec->n)
			sec->n = host(s32.sh_size, 4, swap);
		if (seg->n == PN_XNUM)
			seg->n = host(s32.sh_info, 4, swap);
	}
}

/* A table of n entries of entsize bytes at off is inside the file, but
 * beyond max entries. (One outside the file is libelf's to call invalid.) */
static bool too_many(const struct table_count *c, uint64_t max, uint64_t size)
{
	return c->n > max && c->entsize && c->off <= size && c->n <= (size - c->off) / c->entsize;
}

int elf_limits__check(int fd, const void *image, size_t size)
{
	union { Elf64_Ehdr e64; Elf32_Ehdr e32; unsigned char ident[EI_NIDENT]; } h;
	struct table_count c[TABLES];
	bool is64, swap;
	int t;

	if (!read_at(fd, image, size, 0, &h, sizeof(h.ident)) || memcmp(h.ident, ELFMAG, SELFMAG))
		return 0;
	if (h.ident[EI_CLASS] != ELFCLASS32 && h.ident[EI_CLASS] != ELFCLASS64)
		return 0;
	is64 = h.ident[EI_CLASS] == ELFCLASS64;
	if (!read_at(fd, image, size, 0, &h, is64 ? sizeof(h.e64) : sizeof(h.e32)))
		return 0;
	swap = h.ident[EI_DATA] != (BYTE_ORDER == LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB);
	for (t = 0; t < TABLES; t++)
		header_count(&h, is64, swap, t, &c[t]);
	if (c[SECTIONS].off && (!c[SECTIONS].n || c[SEGMENTS].n == PN_XNUM))
		extended_counts(fd, image, size, is64, swap, c);
	for (t = 0; t < TABLES; t++)
		if (too_many(&c[t], table_max[t], size))
			return -E2BIG;
	return 0;
}
