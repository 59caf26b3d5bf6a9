/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A file's compressed sections (SHF_COMPRESSED: a distribution's debug
 * files), and the pages libelf's mapping of the file holds of them given
 * back once they have been inflated. elfutils 0.188 inflates every
 * compressed DWARF section whole when a session first reads DWARF; the
 * compressed bytes stay resident in libelf's private mapping, never read
 * again: libc's debug file, 3.7 MiB of a one-shot run's peak.
 */
#ifndef BPFPROF_COMPRESSED_SCNS_H
#define BPFPROF_COMPRESSED_SCNS_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#define COMPRESSED_SCNS_MAX	16	/* DWARF has fewer kinds of section */

struct compressed_scn {
	uint64_t off, len;	/* in the file */
};

struct compressed_scns {
	struct compressed_scn r[COMPRESSED_SCNS_MAX];
	size_t n;
};

/* The compressed sections of the ELF file open at fd, as the file's own
 * section headers give them (libelf rewrites its copy when it inflates
 * one): none when it is not ELF. */
void compressed_scns__read(int fd, struct compressed_scns *r);

/* The pages of r's sections in elf's image (elf_rawfile: libelf's mapping
 * of the same file) dropped from memory: whole pages inside a section that
 * starts there in elf and away from its section headers, which libelf may
 * have written (copy on write). Call it only once the sections have been
 * inflated: their bytes read again would be the file's. */
void compressed_scns__drop(Elf *elf, const struct compressed_scns *r);

#endif
