// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Function symbols of one ELF file, read with libelf (elf_syms_read.c),
 * its PLT entries named (elf_syms_plt.c), one name per address
 * (elf_syms_aliases.c), and looked up by file offset
 * through the PT_LOAD program headers.
 *
 * The file is read through libelf's mmap: the symbol and string tables are
 * not copied, only the kept functions' names are.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/addr_ranges.h"
#include "elf/elf_limits.h"
#include "elf/elf_read.h"
#include "elf/elf_syms_layout.h"

/* Which error a file libelf refused deserves: EINVAL if it claims to be an
 * ELF (its headers are then inconsistent), else ENOEXEC. */
static int begin_fail(const void *head, size_t len)
{
	if (errno == ENOMEM)
		return ENOMEM;
	if (len >= SELFMAG && !memcmp(head, ELFMAG, SELFMAG))
		return EINVAL;
	return ENOEXEC;
}

/* Everything from an open Elf (the symbols only if with_syms); NULL with
 * errno set on failure. */
static struct elf_syms *load(Elf *elf, uint64_t fsize, bool with_syms)
{
	struct elf_syms *es;
	size_t phnum;
	int err;

	err = elf_syms_read__check_ehdr(elf, fsize, &phnum);
	if (err) {
		errno = -err;
		return NULL;
	}
	es = calloc(1, sizeof(*es));
	if (!es) {
		errno = ENOMEM;
		return NULL;
	}
	err = elf_syms_read__segs(es, elf, phnum, fsize);
	if (!err)
		err = elf_read__build_id(elf, phnum, fsize, es->build_id, &es->build_id_len,
					 es->go_build_id);
	if (!err && with_syms)
		err = elf_syms_read__syms(es, elf, fsize);
	if (!err && with_syms)
		err = elf_syms_plt__add(es, elf, fsize);
	if (err) {
		elf_syms__free(es);
		errno = -err;
		return NULL;
	}
	elf_syms_aliases__finish(es);
	return es;
}

/* Runs load() and releases the Elf, keeping load()'s errno. */
static struct elf_syms *load_and_end(Elf *elf, uint64_t fsize, bool with_syms)
{
	struct elf_syms *es = load(elf, fsize, with_syms);
	int err = errno;

	elf_end(elf);
	errno = err;
	return es;
}

static struct elf_syms *open_fd(int fd, bool with_syms)
{
	unsigned char magic[SELFMAG];
	struct stat st;
	ssize_t got;
	Elf *elf;

	if (fstat(fd, &st))
		return NULL;
	/* libelf sizes the file with fstat: only a regular file has a size. */
	if (!S_ISREG(st.st_mode) || elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOEXEC;
		return NULL;
	}
	if (elf_limits__check(fd, NULL, (size_t)st.st_size)) {
		errno = E2BIG;
		return NULL;
	}
	errno = 0;
	/* mapped, not read: the tables are used in place, never copied */
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		got = pread(fd, magic, sizeof(magic), 0);
		errno = begin_fail(magic, got > 0 ? (size_t)got : 0);
		return NULL;
	}
	return load_and_end(elf, (uint64_t)st.st_size, with_syms);
}

struct elf_syms *elf_syms__open_fd(int fd)
{
	return open_fd(fd, true);
}

struct elf_syms *elf_syms__open_layout_fd(int fd)
{
	return open_fd(fd, false);
}

struct elf_syms *elf_syms__open_mem(const void *image, size_t size)
{
	struct elf_syms *es;
	char *copy;
	Elf *elf;
	int err;

	if (!image && size) {
		errno = EINVAL;
		return NULL;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOEXEC;
		return NULL;
	}
	if (elf_limits__check(-1, image, size)) {
		errno = E2BIG;
		return NULL;
	}
	/* libelf may convert the image in place: give it a private copy. */
	copy = malloc(size ? size : 1);
	if (!copy) {
		errno = ENOMEM;
		return NULL;
	}
	if (size)
		memcpy(copy, image, size);
	errno = 0;
	elf = elf_memory(copy, size);
	if (!elf) {
		errno = begin_fail(copy, size);
		free(copy);
		return NULL;
	}
	es = load_and_end(elf, size, true);
	err = errno;
	free(copy);
	errno = err;
	return es;
}

/* The executable segment wins should crafted segments overlap in the file:
 * that is where samples land. */
static const struct elf_load *seg_of_off(const struct elf_syms *es, uint64_t off)
{
	const struct elf_load *found = NULL;

	for (size_t i = 0; i < es->nr_segs; i++) {
		const struct elf_load *seg = &es->segs[i];

		if (off < seg->off || off - seg->off >= seg->filesz)
			continue;
		if (seg->exec)
			return seg;
		if (!found)
			found = seg;
	}
	return found;
}

int elf_syms__vaddr(const struct elf_syms *es, uint64_t file_off, uint64_t *vaddr)
{
	const struct elf_load *seg = es ? seg_of_off(es, file_off) : NULL;

	if (!seg)
		return -ENOENT;
	*vaddr = file_off - seg->off + seg->vaddr;
	return 0;
}

bool elf_syms__is_entry(const struct elf_syms *es, uint64_t vaddr)
{
	return es && es->entry && vaddr == es->entry;
}

int elf_syms__map_vaddr(const struct elf_syms *es, uint64_t pgoff, uint64_t *vaddr)
{
	return es ? elf_load__map_vaddr(es->segs, es->nr_segs, pgoff, vaddr) : -ENOENT;
}

int elf_syms__exec_vaddr(const struct elf_syms *es, uint64_t span, uint64_t *vaddr)
{
	return es ? elf_load__exec_vaddr(es->segs, es->nr_segs, span, vaddr) : -ENOENT;
}

const char *elf_syms__lookup(const struct elf_syms *es, uint64_t file_off, uint64_t *sym_off)
{
	uint64_t vaddr;

	if (elf_syms__vaddr(es, file_off, &vaddr))
		return NULL;
	return elf_syms__lookup_vaddr(es, vaddr, sym_off);
}

bool elf_syms__full_symtab(const struct elf_syms *es)
{
	return es && es->full_symtab;
}

const char *elf_syms__lookup_vaddr(const struct elf_syms *es, uint64_t vaddr, uint64_t *sym_off)
{
	struct addr_view v;
	const struct esym *s;
	size_t i;

	if (!es)
		return NULL;
	/* one symbol an address (aliases merged), each end past its start */
	v = ADDR_VIEW_ENDS(es->syms, es->nr_syms, start, end);
	i = addr_view__find(&v, vaddr);
	if (i == ADDR_NONE)
		return NULL;
	s = &es->syms[i];
	if (sym_off)
		*sym_off = vaddr - s->start;
	return es->names + s->name;
}

size_t elf_syms__build_id(const struct elf_syms *es, const unsigned char **id)
{
	if (!es)
		return 0;
	if (id)
		*id = es->build_id;
	return es->build_id_len;
}

void elf_syms__build_id_hex(const struct elf_syms *es, char *out)
{
	const unsigned char *id;
	size_t len = elf_syms__build_id(es, &id), i;

	for (i = 0; i < len; i++)
		sprintf(&out[2 * i], "%02x", id[i]);
	out[2 * len] = '\0';
}

void elf_syms__file_id(const struct elf_syms *es, char *out)
{
	elf_syms__build_id_hex(es, out);
	if (!out[0] && es)
		snprintf(out, FILE_ID_MAX + 1, "%s", es->go_build_id);
}

uint64_t elf_syms__dwarf_bytes(const struct elf_syms *es)
{
	return es ? es->dwarf_bytes : 0;
}

size_t elf_syms__bytes(const struct elf_syms *es)
{
	return es ? sizeof(*es) + es->nr_segs * sizeof(*es->segs) +
		    held_bytes(es->nr_syms, es->names_cap) : 0;
}

void elf_syms__drop_symbols(struct elf_syms *es)
{
	if (!es)
		return;
	free(es->syms);
	free(es->names);
	es->syms = NULL;
	es->names = NULL;
	es->nr_syms = es->names_len = es->names_cap = 0;
}

size_t elf_syms__count(const struct elf_syms *es)
{
	return es ? es->nr_syms : 0;
}

void elf_syms__free(struct elf_syms *es)
{
	if (!es)
		return;
	free(es->syms);
	free(es->segs);
	free(es->names);
	free(es);
}
