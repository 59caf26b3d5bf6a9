/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the elf_syms suites share (test_elf_syms.c, test_elf_syms_bad.c): the
 * test program's source, built with gcc at run time into a temporary
 * directory, and nm's answers to check elf_syms against. */
#ifndef BPFPROF_ELF_SYMS_FIXTURE_H
#define BPFPROF_ELF_SYMS_FIXTURE_H

#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "leak_check.h"
#include "test_files.h"

/* The functions under test; aliases check the alias rule: a LOCAL `o` and a
 * WEAK `mid` lose to the (longer) GLOBAL names, `__hot_leaf_alias` loses
 * to `hot_leaf` on underscores. The assembly pair has a sizeless symbol. */
static const char test_src[] =
	"#include <stdio.h>\n"
	"__attribute__((noinline)) int hot_leaf(int x)\n"
	"{\n"
	"	volatile int acc = 0;\n"
	"	for (int i = 0; i < x * 1000; i++)\n"
	"		acc += i ^ x;\n"
	"	return acc;\n"
	"}\n"
	"__attribute__((noinline)) int middle(int x)\n"
	"{\n"
	"	return hot_leaf(x) * 3 + hot_leaf(x + 1);\n"
	"}\n"
	"__attribute__((noinline)) int outer(int x)\n"
	"{\n"
	"	return middle(x) - middle(x * 2) + 7;\n"
	"}\n"
	"int __hot_leaf_alias(int) __attribute__((alias(\"hot_leaf\")));\n"
	"int mid(int) __attribute__((weak, alias(\"middle\")));\n"
	"static int o(int) __attribute__((used, alias(\"outer\")));\n"
	"__asm__(\".text\\n.globl asm_nosize\\n.type asm_nosize, @function\\n\"\n"
	"	\"asm_nosize:\\n nop\\n nop\\n nop\\n nop\\n ret\\n\"\n"
	"	\".globl asm_after\\n.type asm_after, @function\\n\"\n"
	"	\"asm_after:\\n ret\\n.size asm_after, 1\\n\");\n"
	"#ifndef LIB\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	(void)argv;\n"
	"	printf(\"%d\\n\", outer(argc));\n"
	"	return 0;\n"
	"}\n"
	"#endif\n";

#define PIE_FLAGS	"-fPIE -pie"
#define NOPIE_FLAGS	"-fno-pie -no-pie"
#define LIB_FLAGS	"-DLIB -shared -fPIC"

static char tmpdir[] = "/tmp/test_elf_syms.XXXXXX";

struct path {
	char s[256];
};

struct nm_sym {
	uint64_t addr, size;
	bool found, sized;
};

struct buf {
	unsigned char *p;
	size_t len;
};

static inline struct path path_of(const char *name)
{
	struct path p;
	int n = snprintf(p.s, sizeof(p.s), "%s/%s", tmpdir, name);

	cr_assert(n > 0 && (size_t)n < sizeof(p.s));
	return p;
}

static inline struct buf read_file(const char *path)
{
	struct buf b = { 0 };
	struct stat st;
	FILE *f = fopen(path, "rb");

	cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
	cr_assert_eq(fstat(fileno(f), &st), 0);
	b.len = (size_t)st.st_size;
	b.p = malloc(b.len ? b.len : 1);
	cr_assert_not_null(b.p);
	cr_assert_eq(fread(b.p, 1, b.len, f), b.len);
	cr_assert_eq(fclose(f), 0);
	return b;
}

static inline void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
	write_file(path_of("src.c").s, test_src, strlen(test_src));
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
}

static inline void teardown(void)
{
	run("rm -rf '%s'", tmpdir);
	check_leaks();
}

static inline struct path build(const char *name, const char *flags)
{
	struct path out = path_of(name);

	run("gcc -O1 %s '%s/src.c' -o '%s'", flags, tmpdir, out.s);
	return out;
}

/* name's address and size as nm prints them (-D: from .dynsym). */
static inline struct nm_sym nm_find(const char *path, bool dynamic, const char *name)
{
	struct nm_sym s = { 0 };
	char cmd[512], line[512], nm_name[256], type;
	uint64_t a, b;
	FILE *p;
	int n;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s '%s'", dynamic ? "-D" : "", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		n = sscanf(line, "%" SCNx64 " %" SCNx64 " %c %255s", &a, &b, &type, nm_name);
		if (n != 4) {
			n = sscanf(line, "%" SCNx64 " %c %255s", &a, &type, nm_name);
			if (n != 3)
				continue;
			b = 0;
		}
		nm_name[strcspn(nm_name, "@")] = '\0';	/* symbol versions */
		if (strcmp(nm_name, name) || s.found)
			continue;
		s = (struct nm_sym){ .addr = a, .size = b, .found = true, .sized = n == 4 };
	}
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
	return s;
}


/* ---- what test_elf_syms.c and test_elf_syms_layout.c share ------------- */

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "elf/elf_syms.h"

static const char *const funcs[] __attribute__((unused)) = { "hot_leaf", "middle", "outer" };

static inline struct path strip_copy(const char *in, const char *name)
{
	struct path out = path_of(name);

	run("strip -o '%s' '%s'", out.s, in);
	return out;
}

/* The GNU build-id readelf -n prints, as hex; "" when there is none. */
static inline void readelf_build_id(const char *path, char *hex, size_t len)
{
	char cmd[512], line[512], *at;
	FILE *p;

	hex[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		at = strstr(line, "Build ID: ");
		if (at && !hex[0])
			snprintf(hex, len, "%.*s", (int)strcspn(at + 10, " \n"), at + 10);
	}
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
}

typedef bool (*phdr_fn)(const GElf_Phdr *ph, void *ctx);

/* Calls fn on each program header until it returns true; independent of
 * elf_syms, like a loader would read them. */
static inline void each_phdr(const char *path, phdr_fn fn, void *ctx)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t phnum;
	GElf_Phdr ph;
	Elf *elf;

	cr_assert(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(elf_getphdrnum(elf, &phnum), 0);
	for (size_t i = 0; i < phnum; i++) {
		cr_assert_not_null(gelf_getphdr(elf, (int)i, &ph));
		if (fn(&ph, ctx))
			break;
	}
	elf_end(elf);
	cr_assert_eq(close(fd), 0);
}

struct v2o {
	uint64_t vaddr, off;
	bool found;
};

static inline bool v2o_fn(const GElf_Phdr *ph, void *ctx)
{
	struct v2o *c = ctx;

	if (ph->p_type != PT_LOAD || c->vaddr < ph->p_vaddr ||
	    c->vaddr >= ph->p_vaddr + ph->p_filesz)
		return false;
	c->off = c->vaddr - ph->p_vaddr + ph->p_offset;
	c->found = true;
	return true;
}

/* The file offset the loader maps at vaddr. */
static inline uint64_t vaddr_to_off(const char *path, uint64_t vaddr)
{
	struct v2o c = { .vaddr = vaddr };

	each_phdr(path, v2o_fn, &c);
	cr_assert(c.found, "%s: no PT_LOAD maps 0x%" PRIx64, path, vaddr);
	return c.off;
}

static inline bool text_end_fn(const GElf_Phdr *ph, void *ctx)
{
	uint64_t *end = ctx;

	if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
		return false;
	end[0] = ph->p_offset + ph->p_filesz;
	end[1] = ph->p_vaddr + ph->p_memsz;
	return true;
}

static inline bool has_symtab(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	bool found = false;
	GElf_Shdr sh;
	Elf *elf;

	cr_assert(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			found = true;
	elf_end(elf);
	cr_assert_eq(close(fd), 0);
	return found;
}

static inline int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	cr_assert_not_null(d);
	while (readdir(d))
		n++;
	cr_assert_eq(closedir(d), 0);
	return n;
}

/* Opens path and closes the fd at once: elf_syms must not need it later. */
static inline struct elf_syms *open_path(const char *path)
{
	int before = count_fds();
	struct elf_syms *es;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	es = elf_syms__open_fd(fd);
	cr_assert_not_null(es, "open %s: %s", path, strerror(errno));
	cr_assert_eq(close(fd), 0);
	cr_assert_eq(count_fds(), before, "elf_syms kept a file descriptor");
	return es;
}

static inline void expect_at(const struct elf_syms *es, uint64_t off, const char *name, uint64_t want_off)
{
	uint64_t sym_off = UINT64_MAX;
	const char *got = elf_syms__lookup(es, off, &sym_off);

	cr_assert_not_null(got, "offset 0x%" PRIx64 ": no symbol, want %s", off, name);
	cr_assert_str_eq(got, name, "offset 0x%" PRIx64 ": %s, want %s", off, got, name);
	cr_assert_eq(sym_off, want_off, "%s+0x%" PRIx64 ", want +0x%" PRIx64, name, sym_off,
		     want_off);
}

/* Start, middle and last byte of name resolve to it, by offset and vaddr. */
static inline void expect_func(const struct elf_syms *es, const char *path, bool dynamic,
			const char *name)
{
	struct nm_sym s = nm_find(path, dynamic, name);
	uint64_t probes[3], sym_off;

	cr_assert(s.found && s.size >= 4, "%s: nm has no sized %s", path, name);
	probes[0] = 0;
	probes[1] = s.size / 2;
	probes[2] = s.size - 1;
	for (size_t i = 0; i < 3; i++)
		expect_at(es, vaddr_to_off(path, s.addr + probes[i]), name, probes[i]);
	cr_assert_str_eq(elf_syms__lookup_vaddr(es, s.addr, &sym_off), name);
	cr_assert_eq(sym_off, 0);
}

/* The sizeless asm_nosize spans up to asm_after, which nm places 5 bytes on. */
static inline void expect_sizeless(const struct elf_syms *es, const char *path, bool dynamic)
{
	struct nm_sym ns = nm_find(path, dynamic, "asm_nosize");
	struct nm_sym after = nm_find(path, dynamic, "asm_after");

	cr_assert(ns.found && !ns.sized && after.found && after.addr == ns.addr + 5);
	expect_at(es, vaddr_to_off(path, ns.addr + 4), "asm_nosize", 4);
	expect_at(es, vaddr_to_off(path, after.addr), "asm_after", 0);
}

/* Offsets outside any function miss: the ELF header, just past the text
 * segment, past the end of the file. */
static inline void expect_misses(const struct elf_syms *es, const char *path)
{
	struct stat st;
	uint64_t end[2] = { 0, 0 };

	cr_assert_eq(stat(path, &st), 0);
	each_phdr(path, text_end_fn, end);
	cr_assert(end[0], "%s: no executable PT_LOAD", path);
	cr_assert_null(elf_syms__lookup(es, 0, NULL));
	cr_assert_null(elf_syms__lookup(es, end[0], NULL));
	cr_assert_null(elf_syms__lookup(es, (uint64_t)st.st_size + 0x100000, NULL));
	cr_assert_null(elf_syms__lookup_vaddr(es, end[1] + 0x100000, NULL));
	cr_assert_null(elf_syms__lookup_vaddr(es, 0, NULL));
}

static inline void check_binary(const char *path, bool dynamic)
{
	struct elf_syms *es = open_path(path);

	cr_assert_gt(elf_syms__count(es), 3);
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		expect_func(es, path, dynamic, funcs[i]);
	expect_sizeless(es, path, dynamic);
	expect_misses(es, path);
	elf_syms__free(es);
}

static inline struct path build_stripped(const char *name, const char *flags)
{
	char unstripped[64];
	struct path in, out;

	snprintf(unstripped, sizeof(unstripped), "%s.full", name);
	in = build(unstripped, flags);
	out = strip_copy(in.s, name);
	cr_assert(has_symtab(in.s));
	cr_assert(!has_symtab(out.s), "strip left a .symtab");
	return out;
}

#endif
