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

#include "elf_limits.h"

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

struct counts {
	uint64_t shoff, shnum, shentsize;
	uint64_t phoff, phnum, phentsize;
};

static void header_counts(const unsigned char *ident, const void *ehdr, bool swap, struct counts *c)
{
	if (ident[EI_CLASS] == ELFCLASS64) {
		const Elf64_Ehdr *e = ehdr;

		c->shoff = host(e->e_shoff, 8, swap);
		c->shnum = host(e->e_shnum, 2, swap);
		c->shentsize = host(e->e_shentsize, 2, swap);
		c->phoff = host(e->e_phoff, 8, swap);
		c->phnum = host(e->e_phnum, 2, swap);
		c->phentsize = host(e->e_phentsize, 2, swap);
	} else {
		const Elf32_Ehdr *e = ehdr;

		c->shoff = host(e->e_shoff, 4, swap);
		c->shnum = host(e->e_shnum, 2, swap);
		c->shentsize = host(e->e_shentsize, 2, swap);
		c->phoff = host(e->e_phoff, 4, swap);
		c->phnum = host(e->e_phnum, 2, swap);
		c->phentsize = host(e->e_phentsize, 2, swap);
	}
}

/* e_shnum 0 / e_phnum PN_XNUM: the real counts are section 0's sh_size
 * and sh_info. An unreadable section 0 is libelf's to refuse. */
static void extended_counts(int fd, const void *image, size_t size, bool is64, bool swap,
			    struct counts *c)
{
	Elf64_Shdr s64;
	Elf32_Shdr s32;

	if (is64 && read_at(fd, image, size, c->shoff, &s64, sizeof(s64))) {
		if (!c->shnum)
			c->shnum = host(s64.sh_size, 8, swap);
		if (c->phnum == PN_XNUM)
			c->phnum = host(s64.sh_info, 4, swap);
	} else if (!is64 && read_at(fd, image, size, c->shoff, &s32, sizeof(s32))) {
		if (!c->shnum)
			c->shnum = host(s32.sh_size, 4, swap);
		if (c->phnum == PN_XNUM)
			c->phnum = host(s32.sh_info, 4, swap);
	}
}

/* A table of n entries of entsize bytes at off is inside the file, but
 * beyond max entries. (One outside the file is libelf's to call invalid.) */
static bool too_many(uint64_t off, uint64_t n, uint64_t entsize, uint64_t max, uint64_t size)
{
	return n > max && entsize && off <= size && n <= (size - off) / entsize;
}

int elf_limits__check(int fd, const void *image, size_t size)
{
	union { Elf64_Ehdr e64; Elf32_Ehdr e32; unsigned char ident[EI_NIDENT]; } h;
	struct counts c;
	bool is64, swap;

	if (!read_at(fd, image, size, 0, &h, sizeof(h.ident)) || memcmp(h.ident, ELFMAG, SELFMAG))
		return 0;
	if (h.ident[EI_CLASS] != ELFCLASS32 && h.ident[EI_CLASS] != ELFCLASS64)
		return 0;
	is64 = h.ident[EI_CLASS] == ELFCLASS64;
	if (!read_at(fd, image, size, 0, &h, is64 ? sizeof(h.e64) : sizeof(h.e32)))
		return 0;
	swap = h.ident[EI_DATA] != (BYTE_ORDER == LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB);
	header_counts(h.ident, &h, swap, &c);
	if (c.shoff && (!c.shnum || c.phnum == PN_XNUM))
		extended_counts(fd, image, size, is64, swap, &c);
	if (too_many(c.shoff, c.shnum, c.shentsize, ELF_SECTIONS_MAX, size) ||
	    too_many(c.phoff, c.phnum, c.phentsize, ELF_SEGMENTS_MAX, size))
		return -E2BIG;
	return 0;
}
