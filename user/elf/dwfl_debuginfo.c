// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libdwfl finds a module's debug file through debug_file (see
 * dwfl_debuginfo.h). */
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/open_regular.h"
#include "elf/compressed_scns.h"
#include "elf/debug_file.h"
#include "elf/dwfl_debuginfo.h"

/* libdwfl's own searches are not asked (find_debuginfo()): the path is
 * given for its callbacks' sake. */
static char root_debug_dir[] = DEBUG_ROOT;
static char *debuginfo_path = root_debug_dir;

/* The module's build-id as hex into hex (2 * BUILD_ID_MAX + 1). */
static void module_build_id(Dwfl_Module *mod, char *hex)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);

	hex[0] = '\0';
	for (int i = 0; i < len && len <= BUILD_ID_MAX; i++)	/* longer: no path */
		sprintf(hex + 2 * i, "%02x", bits[i]);
}

/* The build-id of the dwz alternate file that the file holding the DWARF
 * (file_name: libdwfl's name of it, a path debug_file found or the one
 * the module was reported with) links to. */
static void alt_build_id(const char *file_name, char *id)
{
	int fd = file_name ? file_open_regular(file_name) : -1;

	id[0] = '\0';
	if (fd >= 0) {
		debug_file__altlink(fd, id);
		close(fd);
	}
}

/* The module's debug file by debug_file's one search, the servers last;
 * its compressed sections into the module's userdata, when it is set.
 * libdwfl calls this again for a dwz file's alternate debug file (its
 * .gnu_debugaltlink: a path, no CRC): found by its own build-id alike. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *link,
			  GElf_Word crc, char **found)
{
	char id[2 * BUILD_ID_MAX + 1];
	struct debug_query q = { .build_id = id, .path = file_name, .link = link, .crc = crc };
	struct compressed_scns *scns = *userdata;	/* NULL: not wanted */
	int fd;

	(void)modname;
	(void)base;
	if (link && strchr(link, '/')) {
		alt_build_id(file_name, id);
		q = (struct debug_query){ .build_id = id };
		return debug_file__open(&q, DEBUG_BY_ID | DEBUG_BY_SERVER, found);
	}
	module_build_id(mod, id);
	fd = debug_file__open(&q, DEBUG_BY_ID | DEBUG_BY_LINK | DEBUG_BY_SERVER, found);
	if (fd >= 0 && scns)
		compressed_scns__read(fd, scns);
	return fd;
}

const Dwfl_Callbacks dwfl_debuginfo__callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

