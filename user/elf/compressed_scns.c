// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A file's compressed sections, and their pages given back once inflated
 * (see compressed_scns.h). */
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/compressed_scns.h"

/* The compressed sections of the file open at fd, as its own section
 * headers give them (libelf rewrites its copy when it inflates one). */
void compressed_scns__read(int fd, struct compressed_scns *r)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	r->n = 0;
	while (elf && r->n < COMPRESSED_SCNS_MAX && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (sh.sh_flags & SHF_COMPRESSED) && sh.sh_size)
			r->r[r->n++] = (struct compressed_scn){ .off = sh.sh_offset, .len = sh.sh_size };
	elf_end(elf);
}

/* Whether a section of elf starts at r and the section headers (which
 * libelf may have written to) lie outside it: r is this file's. */
static bool is_section_data(Elf *elf, const struct compressed_scn *r)
{
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	size_t shnum;
	uint64_t shdrs_end;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &shnum))
		return false;
	shdrs_end = eh.e_shoff + (uint64_t)shnum * eh.e_shentsize;
	if (eh.e_shoff < r->off + r->len && shdrs_end > r->off)
		return false;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_offset == r->off && sh.sh_type == SHT_PROGBITS)
			return true;
	return false;
}

/* r's bytes of elf's image given back to the kernel: elfutils 0.188
 * inflates every compressed DWARF section whole into memory of its own
 * when a session first reads DWARF, and the compressed bytes it read stay
 * resident in libelf's private mapping of the file, never read again
 * (libc's debug file: 3.7 MiB beside the 9.3 it inflates to, at a one-shot
 * run's peak). Whole pages inside a section only: libelf wrote its
 * section headers (copy on write), never a compressed section's bytes. */
void compressed_scns__drop(Elf *elf, const struct compressed_scns *r)
{
	size_t size = 0;
	char *image = elf ? elf_rawfile(elf, &size) : NULL;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start, end;

	for (size_t i = 0; image && i < r->n; i++) {
		if (r->r[i].off > size || r->r[i].len > size - r->r[i].off ||
		    !is_section_data(elf, &r->r[i]))
			continue;
		start = ((uintptr_t)image + r->r[i].off + page - 1) & ~(page - 1);
		end = ((uintptr_t)image + r->r[i].off + r->r[i].len) & ~(page - 1);
		if (end > start)
			madvise((void *)start, end - start, MADV_DONTNEED);	/* advice: may fail */
	}
}

