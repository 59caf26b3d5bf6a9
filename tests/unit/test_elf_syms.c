// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of elf_syms: binaries are built with gcc at run time, and what
 * elf_syms answers is checked against nm, readelf and an independent
 * loader-style reading of the program headers.
 */
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

#include "elf_syms.h"
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

static const char *const funcs[] = { "hot_leaf", "middle", "outer" };

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

static struct path path_of(const char *name)
{
	struct path p;
	int n = snprintf(p.s, sizeof(p.s), "%s/%s", tmpdir, name);

	cr_assert(n > 0 && (size_t)n < sizeof(p.s));
	return p;
}

static struct buf read_file(const char *path)
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

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
	write_file(path_of("src.c").s, test_src, strlen(test_src));
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
}

static void teardown(void)
{
	run("rm -rf '%s'", tmpdir);
	check_leaks();
}

TestSuite(elf_syms, .init = setup, .fini = teardown);

static struct path build(const char *name, const char *flags)
{
	struct path out = path_of(name);

	run("gcc -O1 %s '%s/src.c' -o '%s'", flags, tmpdir, out.s);
	return out;
}

static struct path strip_copy(const char *in, const char *name)
{
	struct path out = path_of(name);

	run("strip -o '%s' '%s'", out.s, in);
	return out;
}

/* name's address and size as nm prints them (-D: from .dynsym). */
static struct nm_sym nm_find(const char *path, bool dynamic, const char *name)
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

/* The GNU build-id readelf -n prints, as hex; "" when there is none. */
static void readelf_build_id(const char *path, char *hex, size_t len)
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
static void each_phdr(const char *path, phdr_fn fn, void *ctx)
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

static bool v2o_fn(const GElf_Phdr *ph, void *ctx)
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
static uint64_t vaddr_to_off(const char *path, uint64_t vaddr)
{
	struct v2o c = { .vaddr = vaddr };

	each_phdr(path, v2o_fn, &c);
	cr_assert(c.found, "%s: no PT_LOAD maps 0x%" PRIx64, path, vaddr);
	return c.off;
}

static bool text_end_fn(const GElf_Phdr *ph, void *ctx)
{
	uint64_t *end = ctx;

	if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
		return false;
	end[0] = ph->p_offset + ph->p_filesz;
	end[1] = ph->p_vaddr + ph->p_memsz;
	return true;
}

static bool has_symtab(const char *path)
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

static int count_fds(void)
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
static struct elf_syms *open_path(const char *path)
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

static void expect_at(const struct elf_syms *es, uint64_t off, const char *name, uint64_t want_off)
{
	uint64_t sym_off = UINT64_MAX;
	const char *got = elf_syms__lookup(es, off, &sym_off);

	cr_assert_not_null(got, "offset 0x%" PRIx64 ": no symbol, want %s", off, name);
	cr_assert_str_eq(got, name, "offset 0x%" PRIx64 ": %s, want %s", off, got, name);
	cr_assert_eq(sym_off, want_off, "%s+0x%" PRIx64 ", want +0x%" PRIx64, name, sym_off,
		     want_off);
}

/* Start, middle and last byte of name resolve to it, by offset and vaddr. */
static void expect_func(const struct elf_syms *es, const char *path, bool dynamic,
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
static void expect_sizeless(const struct elf_syms *es, const char *path, bool dynamic)
{
	struct nm_sym ns = nm_find(path, dynamic, "asm_nosize");
	struct nm_sym after = nm_find(path, dynamic, "asm_after");

	cr_assert(ns.found && !ns.sized && after.found && after.addr == ns.addr + 5);
	expect_at(es, vaddr_to_off(path, ns.addr + 4), "asm_nosize", 4);
	expect_at(es, vaddr_to_off(path, after.addr), "asm_after", 0);
}

/* Offsets outside any function miss: the ELF header, just past the text
 * segment, past the end of the file. */
static void expect_misses(const struct elf_syms *es, const char *path)
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

static void check_binary(const char *path, bool dynamic)
{
	struct elf_syms *es = open_path(path);

	cr_assert_gt(elf_syms__count(es), 3);
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		expect_func(es, path, dynamic, funcs[i]);
	expect_sizeless(es, path, dynamic);
	expect_misses(es, path);
	elf_syms__free(es);
}

static struct path build_stripped(const char *name, const char *flags)
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

Test(elf_syms, pie)
{
	check_binary(build("pie", PIE_FLAGS).s, false);
}

Test(elf_syms, non_pie)
{
	check_binary(build("nopie", NOPIE_FLAGS).s, false);
}

Test(elf_syms, shared_lib)
{
	check_binary(build("lib.so", LIB_FLAGS).s, false);
}

Test(elf_syms, stripped_pie_uses_dynsym)
{
	check_binary(build_stripped("pie", PIE_FLAGS " -rdynamic").s, true);
}

Test(elf_syms, stripped_non_pie_uses_dynsym)
{
	check_binary(build_stripped("nopie", NOPIE_FLAGS " -rdynamic").s, true);
}

Test(elf_syms, stripped_shared_lib_uses_dynsym)
{
	check_binary(build_stripped("lib.so", LIB_FLAGS).s, true);
}

/* alias and canonical share an address (so the test means something), and
 * the canonical name is what lookups report. */
static void expect_alias(const struct elf_syms *es, const char *path, bool dynamic,
			 const char *alias, const char *canonical)
{
	struct nm_sym a = nm_find(path, dynamic, alias), c = nm_find(path, dynamic, canonical);

	cr_assert(a.found && c.found && a.addr == c.addr, "%s: %s is no alias of %s", path,
		  alias, canonical);
	cr_assert_str_eq(elf_syms__lookup_vaddr(es, a.addr, NULL), canonical);
}

Test(elf_syms, alias_rule)
{
	struct path full = build("pie", PIE_FLAGS " -rdynamic");
	struct path stripped = strip_copy(full.s, "pie.stripped");
	struct elf_syms *es = open_path(full.s);

	expect_alias(es, full.s, false, "o", "outer");			/* LOCAL */
	expect_alias(es, full.s, false, "mid", "middle");		/* WEAK */
	expect_alias(es, full.s, false, "__hot_leaf_alias", "hot_leaf");	/* underscores */
	elf_syms__free(es);
	es = open_path(stripped.s);
	expect_alias(es, stripped.s, true, "mid", "middle");
	expect_alias(es, stripped.s, true, "__hot_leaf_alias", "hot_leaf");
	elf_syms__free(es);
}

struct map_hit {
	uint64_t addr, file_off;
	bool found;
};

/* The file offset of addr in this process, as the profiler computes it
 * from /proc/PID/maps: addr - start + pgoff. */
static uint64_t mapped_file_off(uint64_t addr)
{
	uint64_t start, end, pgoff, off = 0;
	char line[1024];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64, &start, &end, &pgoff) != 3)
			continue;
		if (addr >= start && addr < end) {
			off = addr - start + pgoff;
			found = true;
		}
	}
	cr_assert_eq(fclose(f), 0);
	cr_assert(found, "0x%" PRIx64 " is not mapped", addr);
	return off;
}

/* The real thing: the dynamic loader maps the library, the offset comes
 * from /proc/self/maps. */
Test(elf_syms, dlopen_runtime_addresses)
{
	struct path lib = build("lib.so", LIB_FLAGS);
	struct elf_syms *es = open_path(lib.s);
	void *h = dlopen(lib.s, RTLD_NOW | RTLD_LOCAL);

	cr_assert_not_null(h, "dlopen: %s", dlerror());
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		struct nm_sym s = nm_find(lib.s, false, funcs[i]);
		void *fn = dlsym(h, funcs[i]);
		uint64_t ip;

		cr_assert(fn && s.found && s.size >= 4);
		ip = (uint64_t)(uintptr_t)fn + s.size / 2;
		expect_at(es, mapped_file_off(ip), funcs[i], s.size / 2);
	}
	cr_assert_eq(dlclose(h), 0);
	elf_syms__free(es);
}

Test(elf_syms, open_mem_matches_open_fd)
{
	struct path pie = build("pie", PIE_FLAGS);
	struct elf_syms *fes = open_path(pie.s), *mes;
	struct buf b = read_file(pie.s);
	const unsigned char *fid, *mid;
	size_t len;

	mes = elf_syms__open_mem(b.p, b.len);
	memset(b.p, 0, b.len);	/* the image is copied, not kept */
	free(b.p);
	cr_assert_not_null(mes, "open_mem: %s", strerror(errno));
	cr_assert_eq(elf_syms__count(mes), elf_syms__count(fes));
	len = elf_syms__build_id(fes, &fid);
	cr_assert_eq(elf_syms__build_id(mes, &mid), len);
	cr_assert_arr_eq(fid, mid, len);
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		expect_func(mes, pie.s, false, funcs[i]);
	expect_misses(mes, pie.s);
	elf_syms__free(mes);
	elf_syms__free(fes);
}

static void expect_build_id(const struct elf_syms *es, const char *path)
{
	char want[2 * BUILD_ID_MAX + 8], got[2 * BUILD_ID_MAX + 1] = "";
	const unsigned char *id = NULL;
	size_t len = elf_syms__build_id(es, &id);

	readelf_build_id(path, want, sizeof(want));
	cr_assert(want[0], "readelf shows no build-id in %s", path);
	cr_assert(len > 0 && len <= BUILD_ID_MAX && id);
	for (size_t i = 0; i < len; i++)
		snprintf(got + 2 * i, sizeof(got) - 2 * i, "%02x", id[i]);
	cr_assert_str_eq(got, want);
}

Test(elf_syms, build_id_matches_readelf)
{
	const char *flags[] = { PIE_FLAGS, NOPIE_FLAGS, LIB_FLAGS };
	const char *names[] = { "pie", "nopie", "lib.so" };

	for (size_t i = 0; i < 3; i++) {
		struct path p = build(names[i], flags[i]);
		struct path s = strip_copy(p.s, "stripped");
		struct elf_syms *es = open_path(p.s);

		expect_build_id(es, p.s);
		elf_syms__free(es);
		es = open_path(s.s);
		expect_build_id(es, s.s);
		elf_syms__free(es);
	}
}

Test(elf_syms, no_build_id)
{
	struct path p = build("pie", PIE_FLAGS " -Wl,--build-id=none");
	struct elf_syms *es = open_path(p.s);
	char want[64];

	readelf_build_id(p.s, want, sizeof(want));
	cr_assert_str_eq(want, "");
	cr_assert_eq(elf_syms__build_id(es, NULL), 0);
	elf_syms__free(es);
}

/* The [vdso] mapping of this process. */
static bool vdso_range(uint64_t *start, uint64_t *end)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%" SCNx64 "-%" SCNx64, start, end) == 2)
			found = true;
	cr_assert_eq(fclose(f), 0);
	return found;
}

Test(elf_syms, vdso)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR), start = 0, end = 0, off, sym_off;
	struct path dump = path_of("vdso.so");
	struct elf_syms *es;
	struct nm_sym s;
	const char *name;

	if (!base || !vdso_range(&start, &end))
		cr_skip_test("no vDSO in this process");
	cr_assert_eq(start, base);
	es = elf_syms__open_mem((const void *)(uintptr_t)base, end - start);
	cr_assert_not_null(es, "open_mem(vdso): %s", strerror(errno));
	/* A file copy for nm and readelf to read. */
	write_file(dump.s, (const void *)(uintptr_t)base, end - start);
	s = nm_find(dump.s, true, "__vdso_clock_gettime");
	if (!s.found)
		s = nm_find(dump.s, true, "clock_gettime");
	cr_assert(s.found, "nm finds no clock_gettime in the vDSO");
	off = vaddr_to_off(dump.s, s.addr);
	name = elf_syms__lookup(es, off, &sym_off);
	cr_assert_not_null(name);
	cr_assert(!strcmp(name, "__vdso_clock_gettime") || !strcmp(name, "clock_gettime"),
		  "vdso resolves %s", name);
	cr_assert_eq(sym_off, 0);
	expect_build_id(es, dump.s);
	elf_syms__free(es);
}

static void expect_fd_error(const char *path, int err1, int err2)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_syms *es;

	cr_assert(fd >= 0);
	errno = 0;
	es = elf_syms__open_fd(fd);
	cr_assert_null(es, "%s opened", path);
	cr_assert(errno == err1 || errno == err2, "%s: errno %d (%s)", path, errno,
		  strerror(errno));
	cr_assert_eq(close(fd), 0);
}

static void expect_mem_error(const void *p, size_t len, int err)
{
	struct elf_syms *es;

	errno = 0;
	es = elf_syms__open_mem(p, len);
	cr_assert_null(es);
	cr_assert_eq(errno, err, "errno %d (%s), want %d", errno, strerror(errno), err);
}

/* xorshift64: reproducible noise. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

Test(elf_syms, random_bytes_are_not_elf)
{
	struct path p = path_of("random");
	unsigned char bytes[4096];
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)rnd(&seed);
	bytes[0] = 'R';		/* never the ELF magic */
	write_file(p.s, bytes, sizeof(bytes));
	expect_fd_error(p.s, ENOEXEC, ENOEXEC);
	expect_mem_error(bytes, sizeof(bytes), ENOEXEC);
}

Test(elf_syms, empty_file_is_not_elf)
{
	struct path p = path_of("empty");

	write_file(p.s, "", 0);
	expect_fd_error(p.s, ENOEXEC, ENOEXEC);
	expect_mem_error("", 0, ENOEXEC);
}

Test(elf_syms, truncated_elf_is_invalid)
{
	struct path pie = build("pie", PIE_FLAGS), p = path_of("truncated");
	struct buf b = read_file(pie.s);

	cr_assert_gt(b.len, 100);
	write_file(p.s, b.p, 100);
	expect_fd_error(p.s, EINVAL, EINVAL);
	expect_mem_error(b.p, 100, EINVAL);
	free(b.p);
}

Test(elf_syms, object_file_is_not_loadable)
{
	struct path o = build("src.o", "-c");

	expect_fd_error(o.s, ENOEXEC, ENOEXEC);
}

Test(elf_syms, directory_is_not_elf)
{
	expect_fd_error(tmpdir, ENOEXEC, ENOEXEC);
}

/* Section header i of an ELF64 image. */
static Elf64_Shdr *shdr64(struct buf *b, size_t i)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b->p;

	cr_assert_eq(eh->e_ident[EI_CLASS], ELFCLASS64);
	cr_assert_lt(i, eh->e_shnum);
	return (Elf64_Shdr *)(b->p + eh->e_shoff + i * eh->e_shentsize);
}

static size_t symtab_index(struct buf *b)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b->p;

	for (size_t i = 0; i < eh->e_shnum; i++)
		if (shdr64(b, i)->sh_type == SHT_SYMTAB)
			return i;
	cr_assert_fail("no .symtab");
	return 0;
}

static Elf64_Phdr *first_phdr(struct buf *b, Elf64_Word type)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b->p;

	for (size_t i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(b->p + eh->e_phoff + i * eh->e_phentsize);

		if (ph->p_type == type)
			return ph;
	}
	cr_assert_fail("no program header of type %u", type);
	return NULL;
}

enum corruption {
	SHOFF_PAST_END, PHOFF_PAST_END, PHENTSIZE, PHNUM_TOO_BIG, LOAD_PAST_END,
	SYMTAB_PAST_END, SYMTAB_TOO_BIG, SYMTAB_ENTSIZE, SYMTAB_LINK_RANGE,
	SYMTAB_LINK_TYPE, STRTAB_PAST_END, NOTE_PAST_END, NR_CORRUPTIONS,
};

static void corrupt(struct buf *b, enum corruption c)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b->p;
	Elf64_Shdr *sym = shdr64(b, symtab_index(b));

	switch (c) {
	case SHOFF_PAST_END: eh->e_shoff = b->len - 8; break;
	case PHOFF_PAST_END: eh->e_phoff = b->len - 8; break;
	case PHENTSIZE: eh->e_phentsize = 40; break;
	case PHNUM_TOO_BIG: eh->e_phnum = 0xfff0; break;
	case LOAD_PAST_END:
		first_phdr(b, PT_LOAD)->p_filesz = b->len - first_phdr(b, PT_LOAD)->p_offset + 1;
		first_phdr(b, PT_LOAD)->p_memsz = first_phdr(b, PT_LOAD)->p_filesz;
		break;
	case SYMTAB_PAST_END: sym->sh_offset = b->len; break;
	case SYMTAB_TOO_BIG: sym->sh_size = b->len * 2 / 24 * 24; break;
	case SYMTAB_ENTSIZE: sym->sh_entsize = 7; break;
	case SYMTAB_LINK_RANGE: sym->sh_link = eh->e_shnum + 3; break;
	case SYMTAB_LINK_TYPE: sym->sh_link = (Elf64_Word)symtab_index(b); break;
	case STRTAB_PAST_END: shdr64(b, sym->sh_link)->sh_offset = b->len - 1; break;
	case NOTE_PAST_END: first_phdr(b, PT_NOTE)->p_offset = b->len - 4; break;
	default: cr_assert_fail();
	}
}

Test(elf_syms, inconsistent_headers_are_einval)
{
	struct path pie = build("pie", PIE_FLAGS);
	struct buf orig = read_file(pie.s);
	struct elf_syms *es;

	/* The unmodified image loads: each failure below is the corruption. */
	es = elf_syms__open_mem(orig.p, orig.len);
	cr_assert_not_null(es);
	elf_syms__free(es);
	for (int c = 0; c < NR_CORRUPTIONS; c++) {
		struct buf b = { malloc(orig.len), orig.len };
		struct path p = path_of("corrupt");

		cr_assert_not_null(b.p);
		memcpy(b.p, orig.p, b.len);
		corrupt(&b, (enum corruption)c);
		errno = 0;
		es = elf_syms__open_mem(b.p, b.len);
		cr_assert_null(es, "corruption %d loaded", c);
		cr_assert_eq(errno, EINVAL, "corruption %d: errno %d", c, errno);
		write_file(p.s, b.p, b.len);
		expect_fd_error(p.s, EINVAL, EINVAL);
		free(b.p);
	}
	free(orig.p);
}

Test(elf_syms, wrong_type_or_magic_is_enoexec)
{
	struct path pie = build("pie", PIE_FLAGS);
	struct buf b = read_file(pie.s);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b.p;

	eh->e_type = ET_REL;
	expect_mem_error(b.p, b.len, ENOEXEC);
	eh->e_type = ET_DYN;
	eh->e_ident[EI_CLASS] = 7;
	expect_mem_error(b.p, b.len, ENOEXEC);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_MAG1] = 'X';
	expect_mem_error(b.p, b.len, ENOEXEC);
	free(b.p);
}

/* Names out of the string table drop their symbols, not the file. */
Test(elf_syms, bad_name_index_drops_symbol)
{
	struct path pie = build("pie", PIE_FLAGS);
	struct buf b = read_file(pie.s);
	struct nm_sym s = nm_find(pie.s, false, "outer");
	Elf64_Shdr *sh = shdr64(&b, symtab_index(&b));
	Elf64_Sym *syms = (Elf64_Sym *)(b.p + sh->sh_offset);
	struct elf_syms *es;
	size_t patched = 0;

	cr_assert(s.found);
	for (size_t i = 0; i < sh->sh_size / sizeof(*syms); i++) {
		if (syms[i].st_value == s.addr) {
			syms[i].st_name = 0x7fffffff;
			patched++;
		}
	}
	cr_assert_eq(patched, 2, "outer and o");
	es = elf_syms__open_mem(b.p, b.len);
	cr_assert_not_null(es, "%s", strerror(errno));
	cr_assert_null(elf_syms__lookup_vaddr(es, s.addr, NULL));
	cr_assert_str_eq(elf_syms__lookup_vaddr(es, nm_find(pie.s, false, "middle").addr, NULL),
			 "middle");
	elf_syms__free(es);
	free(b.p);
}

/* Flipped bytes, mostly in the headers and the tables at the end: whatever
 * comes back must be usable, ASan watches the reads. */
Test(elf_syms, mutated_images_do_not_crash)
{
	struct path pie = build("pie", PIE_FLAGS);
	struct buf orig = read_file(pie.s);
	uint64_t seed = 42;
	unsigned char *b = malloc(orig.len);
	size_t loaded = 0;

	cr_assert_not_null(b);
	for (int iter = 0; iter < 3000; iter++) {
		struct elf_syms *es;
		const unsigned char *id;

		memcpy(b, orig.p, orig.len);
		for (int k = 1 + (int)(rnd(&seed) % 8); k > 0; k--) {
			uint64_t r = rnd(&seed);
			size_t pos = r % 3 == 0 ? r % 1024 :
				     r % 3 == 1 ? orig.len - 1 - r % 4096 : r % orig.len;

			b[pos % orig.len] ^= (unsigned char)(1u << (r >> 32) % 8);
		}
		es = elf_syms__open_mem(b, orig.len);
		if (!es) {
			cr_assert(errno == EINVAL || errno == ENOEXEC || errno == E2BIG, "errno %d", errno);
			continue;
		}
		loaded++;
		for (uint64_t off = 0; off < orig.len; off += 61)
			elf_syms__lookup(es, off, NULL);
		cr_assert_leq(elf_syms__build_id(es, &id), BUILD_ID_MAX);
		elf_syms__free(es);
	}
	cr_assert_gt(loaded, 0);
	free(b);
	free(orig.p);
}

Test(elf_syms, null_and_empty_handles)
{
	cr_assert_null(elf_syms__lookup(NULL, 0x1000, NULL));
	cr_assert_eq(elf_syms__count(NULL), 0);
	elf_syms__free(NULL);
	expect_mem_error(NULL, 16, EINVAL);
}
