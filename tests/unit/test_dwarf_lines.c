// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of dwarf_lines.c against eu-addr2line -i on a real -O2 binary
 * (build/examples/inline_hot, built by make examples before the units). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf/dwarf_lines.h"
#include "leak_check.h"

TestSuite(dwarf_lines, .fini = check_leaks);

#define INLINE_HOT	"build/examples/inline_hot"

/* The address of a symbol, from nm. */
static uint64_t sym_addr(const char *file, const char *sym)
{
	char cmd[256];
	unsigned long long a = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s | awk '$3 == \"%s\" { print $1 }'", file, sym);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%llx", &a), 1, "%s in %s", sym, file);
	pclose(p);
	return a;
}

static struct dwarf_lines *open_file(const char *path, bool with_inline)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct dwarf_lines *dl;

	cr_assert(fd >= 0, "%s (make examples first)", path);
	dl = dwarf_lines__open(fd, path, with_inline);
	close(fd);
	cr_assert_not_null(dl, "%s", path);
	return dl;
}

/* Some address in mix_rounds is inside the inlined mix_step: the loop. */
Test(dwarf_lines, inline_frame_with_call_site)
{
	struct dwarf_lines *dl = open_file(INLINE_HOT, true);
	uint64_t start = sym_addr(INLINE_HOT, "mix_rounds");
	const struct src_chain *c, *hit = NULL;
	uint64_t a;

	for (a = start; a < start + 0x40 && !hit; a++) {
		c = dwarf_lines__at(dl, a);
		if (c && c->ninlined)
			hit = c;
	}
	cr_assert_not_null(hit, "no inline frame in mix_rounds");
	cr_expect_str_eq(hit->outer.name, "mix_rounds");
	/* its own .symtab names it: elf_syms' to give, not asked again here */
	cr_expect_null(dwarf_lines__symbol(dl, a - 1));
	cr_assert_eq(hit->ninlined, 1);
	cr_expect_str_eq(hit->inlined[0].name, "mix_step");
	cr_assert_not_null(hit->outer.file);
	cr_expect(strstr(hit->outer.file, "examples/inline_hot.c") != NULL, "%s", hit->outer.file);
	cr_expect_eq(hit->outer.line, 27, "the call site in mix_rounds");
	cr_expect(hit->inlined[0].line >= 16 && hit->inlined[0].line <= 19, "line %u in mix_step",
		  hit->inlined[0].line);
	cr_expect_eq(dwarf_lines__at(dl, start + 0x13), dwarf_lines__at(dl, start + 0x13),
		     "cached: the same answer object");
	dwarf_lines__free(dl);
}

/* Each address is resolved once and its answer kept: across the cache's
 * growth (1000 addresses, past its first 256 slots) and after the session
 * closes (answers stay; a new address then has none). */
Test(dwarf_lines, every_address_once_across_growth_and_close)
{
	struct dwarf_lines *dl = open_file(INLINE_HOT, true);
	uint64_t start = sym_addr(INLINE_HOT, "main");
	const struct src_chain *first[1000];
	size_t i;

	for (i = 0; i < 1000; i++)
		first[i] = dwarf_lines__at(dl, start + i);
	cr_assert_not_null(first[0], "main has a line");
	cr_expect_eq(dwarf_lines__count(dl), 1000);
	dwarf_lines__close(dl);
	for (i = 0; i < 1000; i++)
		cr_assert_eq(dwarf_lines__at(dl, start + i), first[i], "address +%zu", i);
	cr_expect_eq(dwarf_lines__count(dl), 1000);
	cr_expect_null(dwarf_lines__at(dl, start + 1000), "closed: nothing new is resolved");
	cr_expect_eq(dwarf_lines__count(dl), 1000);
	dwarf_lines__free(dl);
}

Test(dwarf_lines, no_inline_keeps_lines)
{
	struct dwarf_lines *dl = open_file(INLINE_HOT, false);
	uint64_t start = sym_addr(INLINE_HOT, "mix_rounds");

	for (uint64_t a = start; a < start + 0x30; a++) {
		const struct src_chain *c = dwarf_lines__at(dl, a);

		cr_assert_not_null(c);
		cr_expect_eq(c->ninlined, 0);
		cr_expect(c->outer.line > 0);
	}
	dwarf_lines__free(dl);
}

Test(dwarf_lines, not_elf)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	cr_assert(fd >= 0);
	cr_expect_null(dwarf_lines__open(fd, "/proc/self/cmdline", true));
	close(fd);
}

/* ---- the debug-file readers: .gnu_debuglink with its CRC, MiniDebugInfo */

/* A scratch directory with a stripped copy of inline_hot ("app") and what
 * the shell command cmd (run there) makes of it. */
static void scratch(char *dir, const char *cmd)
{
	char line[1024];

	cr_assert_not_null(mkdtemp(dir));
	snprintf(line, sizeof(line),
		 "cd %s && cp %s/%s full && objcopy --only-keep-debug full app.debug && "
		 "strip -s -o app full && %s", dir, getenv("PWD"), INLINE_HOT, cmd);
	cr_assert_eq(system(line), 0, "%s", line);
}

static void rm_dir(const char *dir)
{
	char line[256];

	snprintf(line, sizeof(line), "rm -rf %s", dir);
	cr_expect_eq(system(line), 0);
}

/* The source line of mix_rounds in dir/name, through dwarf_lines, and its
 * symbol into sym ("" when none). */
static uint32_t lookup(const char *dir, const char *name, char sym[64])
{
	uint64_t a = sym_addr(INLINE_HOT, "mix_rounds") + 4;
	const struct src_chain *c;
	struct dwarf_lines *dl;
	char path[256];
	uint32_t line;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	dl = open_file(path, true);
	c = dwarf_lines__at(dl, a);
	line = c ? c->outer.line : 0;
	snprintf(sym, 64, "%s", dwarf_lines__symbol(dl, a) ? dwarf_lines__symbol(dl, a) : "");
	dwarf_lines__free(dl);
	return line;
}

Test(dwarf_lines, debuglink_crc_checked)
{
	char dir[] = "/tmp/test_dwarf_lines.XXXXXX", other[64], sym[64];

	/* linked to app.debug; then a second copy linked to it, whose
	 * app.debug has a section more: the same DWARF, another CRC */
	scratch(dir, "echo x >keep && objcopy --add-gnu-debuglink=app.debug app linked && mkdir other && "
		     "cp linked other/linked && "
		     "objcopy --add-section .note.more=keep app.debug other/app.debug");
	cr_expect_gt(lookup(dir, "linked", sym), 0, "the debug file beside it gives lines");
	cr_expect_str_eq(sym, "mix_rounds");
	snprintf(other, sizeof(other), "%s/other", dir);
	cr_expect_eq(lookup(other, "linked", sym), 0, "a debug file of another CRC is not read");
	cr_expect_str_eq(sym, "");
	rm_dir(dir);
}

/* MiniDebugInfo as Fedora makes it: the function symbols .dynsym lacks,
 * xz'd into .gnu_debugdata; symbols, no lines. */
Test(dwarf_lines, minidebuginfo_names_functions)
{
	char dir[] = "/tmp/test_dwarf_lines.XXXXXX", sym[64];

	scratch(dir, "nm full --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ { print $1 }' >keep && "
		     "objcopy -S --keep-symbols=keep app.debug mini && xz mini && "
		     "objcopy --add-section .gnu_debugdata=mini.xz app minidebug");
	cr_expect_eq(lookup(dir, "minidebug", sym), 0);
	cr_expect_str_eq(sym, "mix_rounds");
	rm_dir(dir);
}

/* A C++ function of internal linkage has no linkage name in gcc's DWARF:
 * its inline frames are named from its scopes, "scoring::weigh" as its
 * symbol demangles, not the bare "weigh" (build/examples/cxx_sort). */
Test(dwarf_lines, cxx_inline_frame_qualified_by_its_namespace)
{
	const char *path = "build/examples/cxx_sort";
	struct dwarf_lines *dl = open_file(path, true);
	uint64_t start = sym_addr(path, "_ZL12weigh_inlineRKSt6vectorIdSaIdEE");
	const struct src_chain *c, *hit = NULL;

	for (uint64_t a = start; a < start + 0x80 && !hit; a++) {
		c = dwarf_lines__at(dl, a);
		for (uint32_t i = 0; c && i < c->ninlined && !hit; i++)
			if (c->inlined[i].name && strstr(c->inlined[i].name, "weigh"))
				hit = c;
	}
	cr_assert_not_null(hit, "no inline frame of weigh in weigh_inline");
	cr_expect_str_eq(hit->inlined[hit->ninlined - 1].name, "scoring::weigh");
	dwarf_lines__free(dl);
}

/* The resident and mapped KiB of this process's mappings of files under
 * prefix, from /proc/self/smaps. */
static void mapped_kib(const char *prefix, unsigned long *rss, unsigned long *size)
{
	char line[512], path[400];
	bool in = false;
	unsigned long kib;
	FILE *f = fopen("/proc/self/smaps", "re");

	cr_assert_not_null(f);
	*rss = *size = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*x-%*x %*s %*s %*s %*s %399s", path) == 1)
			in = !strncmp(path, prefix, strlen(prefix));
		else if (strchr(line, '-') && strstr(line, " 00:00 "))
			in = false;		/* an anonymous mapping */
		if (in && sscanf(line, "Rss: %lu kB", &kib) == 1)
			*rss += kib;
		if (in && sscanf(line, "Size: %lu kB", &kib) == 1)
			*size += kib;
	}
	fclose(f);
}

/* libc's debug file (libc6-dbg: its DWARF compressed, 3.9 MiB mapped):
 * once a session has read the DWARF (elfutils 0.188 inflates it whole),
 * the compressed pages it read are no longer resident, and the answers
 * are those of the DWARF all the same. */
Test(dwarf_lines, compressed_debug_file_pages_given_back)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	uint64_t addr = 0;
	unsigned long rss, size;
	struct dwarf_lines *dl;
	const struct src_chain *c;
	char cmd[256];
	FILE *p;

	if (geteuid() != 0)
		cr_skip_test("needs root: only a file's owner or writer may page it out");
	snprintf(cmd, sizeof(cmd), "nm -D %s | awk '$3 ~ /^malloc@@/ { print $1 }'", libc);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%" SCNx64, &addr), 1);
	pclose(p);
	dl = open_file(libc, true);
	c = dwarf_lines__at(dl, addr + 4);
	cr_assert_not_null(c, "malloc has DWARF (libc6-dbg, make deps)");
	cr_assert_not_null(c->outer.file);
	cr_expect(c->outer.line > 0);
	mapped_kib("/usr/lib/debug/", &rss, &size);
	cr_assert_gt(size, 2048, "the debug file is mapped: %lu KiB", size);
	cr_expect_lt(rss, 1024, "%lu of %lu KiB of the debug file resident", rss, size);
	dwarf_lines__free(dl);
}

/* The middles of a program's sized functions (nm -S), at most max. */
static size_t function_middles(const char *file, uint64_t *out, size_t max)
{
	char cmd[256], type;
	unsigned long long start, size;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", file);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (n < max && fscanf(p, "%llx %llx %c %*s", &start, &size, &type) == 3)
		if ((type == 't' || type == 'T') && size)
			out[n++] = start + size / 2;
	pclose(p);
	return n;
}

/* Our frame name is theirs, or theirs qualified by its scopes (a C++
 * function of internal linkage: see the test above). */
static bool same_name(const char *ours, const char *theirs)
{
	size_t lo = strlen(ours), lt = strlen(theirs);

	return !strcmp(ours, theirs) || (lo > lt + 2 && !strcmp(ours + lo - lt, theirs) &&
					 !strncmp(ours + lo - lt - 2, "::", 2));
}

/* The frame innermost-first index i of chain c. */
static const struct src_frame *frame_at(const struct src_chain *c, uint32_t i)
{
	return i < c->ninlined ? &c->inlined[c->ninlined - 1 - i] : &c->outer;
}

/* Each function is found by its unit's table of functions as libdw's own
 * search of the unit finds it: the whole inline chain in the middle of
 * every function of a C++ program (namespaces, classes, std:: templates
 * inlined 6 deep) names the frames and lines eu-addr2line -i does. */
Test(dwarf_lines, every_function_chain_as_eu_addr2line)
{
	const char *path = "build/examples/cxx_sort";
	struct dwarf_lines *dl = open_file(path, true);
	uint64_t addrs[256];
	size_t n = function_middles(path, addrs, 256), checked = 0, deep = 0;
	char cmd[8192], line[4096], name[4096];
	int len = snprintf(cmd, sizeof(cmd), "eu-addr2line -a -f -i -e %s", path);
	const struct src_chain *c = NULL;
	unsigned long long at;
	uint32_t k = 0;
	FILE *p;

	cr_assert_gt(n, 10);
	for (size_t i = 0; i < n; i++)
		len += snprintf(cmd + len, sizeof(cmd) - (size_t)len, " 0x%llx",
				(unsigned long long)addrs[i]);
	cr_assert_lt((size_t)len, sizeof(cmd));
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {	/* 0xADDR, then name / file:line pairs */
		if (sscanf(line, "0x%llx", &at) == 1) {
			cr_expect(!c || !c->outer.name || k == c->ninlined + 1,
				  "before 0x%llx: %u frames of %u", at, k, c ? c->ninlined + 1 : 0);
			c = dwarf_lines__at(dl, at);
			k = 0;
			continue;
		}
		sscanf(line, "%4095s", name);	/* "NAME inlined at ..." */
		cr_assert_not_null(fgets(line, sizeof(line), p));
		if (!c || !frame_at(c, k)->name)	/* no DWARF function: elf_syms names it */
			continue;
		cr_assert_leq(k, c->ninlined, "0x%llx: eu-addr2line has more frames", at);
		cr_expect(same_name(frame_at(c, k)->name, name), "0x%llx frame %u: %s vs %s", at, k,
			  frame_at(c, k)->name, name);
		cr_expect_eq(frame_at(c, k)->line, strtoul(strchr(line, ':') + 1, NULL, 10),
			     "0x%llx frame %u: %s", at, k, line);
		checked++;
		deep += k == 5;
		k++;
	}
	pclose(p);
	cr_expect_gt(checked, n, "every function named, with inline frames");
	cr_expect_gt(deep, 0, "some chain 6 frames deep");
	dwarf_lines__free(dl);
}
