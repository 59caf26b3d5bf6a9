// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: the debug-file readers of user/elf/dwarf_lines.c, as
 * libdwfl drives them: an ELF file (the input's first part) whose
 * .gnu_debuglink may name "app.debug", the input's second part, written
 * beside it (found there and CRC-checked by dwarf_lines.c before libdwfl
 * reads it), and whose .gnu_debugdata (MiniDebugInfo, xz) libdwfl
 * decompresses for its symbols. The split is at the offset the input's
 * last 4 bytes give. Every address the input's words name is resolved, its
 * chain, lines and symbol; a chain must be the same on a second lookup.
 * Servers are never asked (debuginfod__configure(0)).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/debuginfod.h"
#include "elf/dwarf_lines.h"
#include "fuzz_check.h"

static char dir[] = "/tmp/fuzz_debug_file.XXXXXX";
static char app[sizeof(dir) + 16], dbg[sizeof(dir) + 16];

static void put(const char *path, const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	CHECK(fd >= 0);
	CHECK(write(fd, p, n) == (ssize_t)n);
	close(fd);
}

static void remove_dir(void)
{
	unlink(app);
	unlink(dbg);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	debuginfod__configure(0);
	CHECK(mkdtemp(dir));
	snprintf(app, sizeof(app), "%s/app", dir);
	snprintf(dbg, sizeof(dbg), "%s/app.debug", dir);
	atexit(remove_dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwarf_lines *dl;
	uint32_t cut = 0;
	int fd;

	if (size >= 4)
		memcpy(&cut, data + size - 4, 4);
	if (size < 4 || cut > size - 4)
		cut = size >= 4 ? (uint32_t)size - 4 : 0;
	put(app, data, cut);
	put(dbg, data + cut, size - cut - (size >= 4 ? 4 : 0));
	fd = open(app, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	dl = dwarf_lines__open(fd, app, true);
	close(fd);
	if (!dl)
		return 0;
	for (size_t i = 0; i + 8 <= cut && i < 512; i += 8) {
		uint64_t a;
		const struct src_chain *c;

		memcpy(&a, data + i, 8);
		a &= 0xffffff;	/* near the file's own addresses */
		c = dwarf_lines__at(dl, a);
		CHECK(c == dwarf_lines__at(dl, a));
		CHECK(!c || c->ninlined < 64);
		(void)dwarf_lines__symbol(dl, a);
	}
	dwarf_lines__free(dl);
	return 0;
}
