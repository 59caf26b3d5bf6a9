// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of elf_syms: where a file lies in memory, checked against the
 * process's own mappings, readelf and objdump: runtime addresses of a
 * dlopen'd library, map_vaddr for each linker (GNU ld, gold, lld), the
 * vDSO, build-ids, the layout-only open, DWARF sizes, PLT entries.
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

#include "elf/elf_syms.h"
#include "elf_syms_fixture.h"

TestSuite(elf_syms, .init = setup, .fini = teardown);

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

/* The mapping of this process holding addr: its start and pgoff. */
static void mapping_of(uint64_t addr, uint64_t *start, uint64_t *pgoff)
{
	uint64_t s, e, off;
	char line[1024];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64, &s, &e, &off) == 3 &&
		    addr >= s && addr < e) {
			*start = s;
			*pgoff = off;
			found = true;
		}
	cr_assert_eq(fclose(f), 0);
	cr_assert(found, "0x%" PRIx64 " is not mapped", addr);
}

/* A mapping's load bias, as the unwinder takes it (start - the vaddr of its
 * first byte), against where the dynamic loader put the library's
 * functions: for GNU ld, gold and lld, whose R E segment starts mid-page
 * (the segment merely containing pgoff 0 is then the R one, 0x1000 off). */
static void check_map_vaddr(const char *name, const char *flags)
{
	struct path lib = build(name, flags);
	struct elf_syms *es = open_path(lib.s);
	void *h = dlopen(lib.s, RTLD_NOW | RTLD_LOCAL);

	cr_assert_not_null(h, "dlopen: %s", dlerror());
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		struct nm_sym s = nm_find(lib.s, false, funcs[i]);
		uint64_t fn = (uint64_t)(uintptr_t)dlsym(h, funcs[i]), start = 0, pgoff = 0, vaddr = 0;

		cr_assert(fn && s.found);
		mapping_of(fn, &start, &pgoff);
		cr_assert_eq(elf_syms__map_vaddr(es, pgoff, &vaddr), 0, "%s: %s", name, funcs[i]);
		cr_assert_eq(start - vaddr + s.addr, fn, "%s: %s at 0x%" PRIx64 ", bias says 0x%"
			     PRIx64, name, funcs[i], fn, start - vaddr + s.addr);
	}
	cr_assert_eq(dlclose(h), 0);
	elf_syms__free(es);
}

Test(elf_syms, map_vaddr_gnu_ld)
{
	check_map_vaddr("lib_bfd.so", LIB_FLAGS " -fuse-ld=bfd");
}

Test(elf_syms, map_vaddr_gold)
{
	check_map_vaddr("lib_gold.so", LIB_FLAGS " -fuse-ld=gold");
}

Test(elf_syms, map_vaddr_lld)
{
	check_map_vaddr("lib_lld.so", LIB_FLAGS " -fuse-ld=lld");
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

/* A note file: "Go" note of type 4 with desc, as cmd/internal/buildid
 * writes .note.go.buildid; added to a copy of in as that section. */
static struct path with_go_note(const char *in, const char *name, const char *desc)
{
	struct path note = path_of("go.note"), out = path_of(name);
	uint32_t hdr[3] = { 4, (uint32_t)strlen(desc), 4 };
	static const char zeros[4];
	FILE *f = fopen(note.s, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(hdr, sizeof(hdr), 1, f), 1);
	cr_assert_eq(fwrite("Go\0\0", 4, 1, f), 1);
	cr_assert_eq(fwrite(desc, strlen(desc), 1, f), 1);
	cr_assert_eq(fwrite(zeros, (4 - strlen(desc) % 4) % 4, 1, f) <= 1, true);
	cr_assert_eq(fclose(f), 0);
	run("objcopy --add-section .note.go.buildid='%s' --set-section-flags .note.go.buildid=contents,readonly '%s' '%s'",
	    note.s, in, out.s);
	return out;
}

/* A Go binary has no GNU build-id: its file id is the Go build ID note's
 * string; a GNU build-id, when there is one, wins; a note of other bytes
 * than a Go build ID's alphabet is no id. */
Test(elf_syms, go_build_id_is_the_file_id_without_a_gnu_one)
{
	static const char id[] = "F4anmDyp-GUZpzwxByxt/DfFzMQRKMOgyIx-wj5_n/0DMHa3Gc_u7c4ZjlBSFw/Tn9zANMlRRslIVKtqT0x";
	struct path none = build("noid", PIE_FLAGS " -Wl,--build-id=none");
	struct path gnu = build("gnuid", PIE_FLAGS);
	struct path go = with_go_note(none.s, "go", id);
	struct path both = with_go_note(gnu.s, "both", id);
	struct path bad = with_go_note(none.s, "bad", "../../etc/x\x1b[2J");
	char out[FILE_ID_MAX + 1], hex[2 * BUILD_ID_MAX + 1];
	struct elf_syms *es;

	es = open_path(go.s);
	elf_syms__file_id(es, out);
	cr_expect_str_eq(out, id);
	cr_expect_eq(elf_syms__build_id(es, NULL), 0);
	elf_syms__free(es);
	es = open_path(both.s);
	elf_syms__file_id(es, out);
	elf_syms__build_id_hex(es, hex);
	cr_expect(hex[0]);
	cr_expect_str_eq(out, hex);
	elf_syms__free(es);
	es = open_path(bad.s);
	elf_syms__file_id(es, out);
	cr_expect_str_eq(out, "");
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

/* The unwinder's open: the same segments (file offset -> vaddr) and
 * build-id as a full open, no symbols, a fraction of the memory. */
Test(elf_syms, layout_only_open_has_segments_and_build_id_not_symbols)
{
	struct path p = build("lib.so", LIB_FLAGS);
	struct elf_syms *full = open_path(p.s), *lay;
	struct nm_sym s = nm_find(p.s, false, "asm_nosize");
	uint64_t off = vaddr_to_off(p.s, s.addr), v_full, v_lay, sym_off;
	int fd = open(p.s, O_RDONLY | O_CLOEXEC);

	cr_assert(fd >= 0 && s.found);
	lay = elf_syms__open_layout_fd(fd);
	cr_assert_not_null(lay, "%s", strerror(errno));
	cr_assert_eq(close(fd), 0);
	cr_assert_eq(elf_syms__vaddr(full, off, &v_full), 0);
	cr_assert_eq(elf_syms__vaddr(lay, off, &v_lay), 0);
	cr_expect_eq(v_lay, v_full);
	cr_expect_eq(v_lay, s.addr);
	expect_build_id(lay, p.s);
	cr_expect_gt(elf_syms__count(full), 0);
	cr_expect_eq(elf_syms__count(lay), 0);
	cr_expect_null(elf_syms__lookup(lay, off, &sym_off));
	cr_expect_lt(elf_syms__bytes(lay), elf_syms__bytes(full));
	elf_syms__free(full);
	elf_syms__free(lay);
}

static uint64_t dwarf_bytes_of(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_syms *es;
	uint64_t n;

	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	es = elf_syms__open_fd(fd);
	close(fd);
	cr_assert_not_null(es, "%s: %s", path, strerror(errno));
	n = elf_syms__dwarf_bytes(es);
	elf_syms__free(es);
	return n;
}

/* A file's DWARF is counted as libdw holds it: compressed sections at
 * their decompressed size, the same as the file they were compressed
 * from; a file without DWARF holds none. */
Test(elf_syms, dwarf_bytes_as_decompressed)
{
	struct path plain = build("dwarf", PIE_FLAGS " -g"), zlib = path_of("dwarf.z");
	struct path none = strip_copy(plain.s, "dwarf.nodebug");
	uint64_t n = dwarf_bytes_of(plain.s);

	run("objcopy --compress-debug-sections=zlib '%s' '%s'", plain.s, zlib.s);
	cr_assert_gt(n, 1000, "%" PRIu64 " bytes of DWARF in a -g build", n);
	cr_expect_eq(dwarf_bytes_of(zlib.s), n);
	cr_expect_eq(dwarf_bytes_of(none.s), 0);
}

/* Calls through the PLT (strlen, printf), one through .plt.got (free,
 * whose address is taken), and __cxa_finalize's .plt.got entry. */
static const char plt_src[] =
	"#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	void (*f)(void *) = free;\n"
	"	char *p = malloc((size_t)argc);\n"
	"	f(p);\n"
	"	printf(\"%d\\n\", (int)strlen(argv[0]));\n"
	"	return 0;\n"
	"}\n";

/* Checks every PLT entry objdump -d names "NAME@plt" (binutils' own
 * synthesis, from the same relocations) against elf_syms, at its first
 * byte; and the header before the first entry is not _init's,
 * whose size is 0 (.init comes just before .plt). Returns the entries. */
static int expect_plt_as_objdump(const char *path)
{
	struct elf_syms *es = open_path(path);
	char cmd[512], line[512], name[256];
	const char *got;
	uint64_t addr;
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec -j .plt.got '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%" SCNx64 " <%255[^>]>:", &addr, name) != 2)
			continue;
		got = elf_syms__lookup_vaddr(es, addr, NULL);
		if (!strstr(name, "@plt") || strstr(name, "@plt-")) {	/* the header */
			cr_expect(!got || strcmp(got, "_init"), "%s: %s is named _init", path, name);
			continue;
		}
		cr_expect(got && !strcmp(got, name), "%s: 0x%" PRIx64 " %s, elf_syms: %s", path,
			  addr, name, got ? got : "(none)");
		n++;
	}
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
	elf_syms__free(es);
	return n;
}

/* Each way the linker lays the PLT out: lazy (.plt with a header), bound
 * at load (-z now), IBT (.plt.sec holds the entries callers reach), a
 * shared library, non-PIE, stripped (the relocations and .dynsym stay). */
Test(elf_syms, plt_entries_named_as_objdump_names_them)
{
	static const struct { const char *name, *flags; } builds[] = {
		{ "plt_pie", PIE_FLAGS }, { "plt_nopie", NOPIE_FLAGS },
		{ "plt_now", PIE_FLAGS " -Wl,-z,now" },
		{ "plt_ibt", PIE_FLAGS " -fcf-protection=full -Wl,-z,ibtplt" },
		{ "plt_lib.so", "-shared -fPIC" },
	};
	struct path src = path_of("plt.c"), out, stripped;

	write_file(src.s, plt_src, strlen(plt_src));
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
		out = path_of(builds[i].name);
		run("gcc -O1 %s '%s' -o '%s'", builds[i].flags, src.s, out.s);
		/* strlen and printf at least (PIEs: __cxa_finalize too) */
		cr_expect_geq(expect_plt_as_objdump(out.s), 2, "%s", out.s);
	}
	stripped = strip_copy(path_of("plt_ibt").s, "plt_ibt.stripped");
	cr_expect_geq(expect_plt_as_objdump(stripped.s), 3);
}

/* readelf's "Entry point address" of path. */
static uint64_t readelf_entry(const char *path)
{
	char cmd[512], line[256];
	uint64_t entry = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -h '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " Entry point address: 0x%" SCNx64, &entry) == 1)
			break;
	pclose(p);
	return entry;
}

/* A program's entry point (its _start, which a stripped file no longer
 * names) is known, PIE or not, stripped or not; a library has none, even
 * where its e_entry is set. (A library that asks for a loader, as libc.so.6
 * does, is a program when run: its e_entry then is where it starts.) */
Test(elf_syms, entry_point_of_programs_only)
{
	const struct path progs[] = { build_stripped("pie", PIE_FLAGS), build("nopie", NOPIE_FLAGS) };
	/* a library whose e_entry is set, but asks for no loader */
	struct path lib = build("lib.so", LIB_FLAGS " -Wl,-e,hot_leaf");
	struct nm_sym start = nm_find(progs[1].s, false, "_start");
	struct elf_syms *es;

	cr_assert(start.found, "nm: no _start in %s", progs[1].s);
	cr_assert_eq(readelf_entry(progs[1].s), start.addr);
	for (size_t i = 0; i < 2; i++) {
		uint64_t entry = readelf_entry(progs[i].s);

		es = open_path(progs[i].s);
		cr_assert_neq(entry, 0);
		cr_expect(elf_syms__is_entry(es, entry), "%s: 0x%" PRIx64, progs[i].s, entry);
		cr_expect(!elf_syms__is_entry(es, entry + 1) && !elf_syms__is_entry(es, 0));
		elf_syms__free(es);
	}
	es = open_path(lib.s);
	cr_assert_neq(readelf_entry(lib.s), 0);
	cr_expect(!elf_syms__is_entry(es, readelf_entry(lib.s)), "lib.so: e_entry 0x%" PRIx64,
		  readelf_entry(lib.s));
	elf_syms__free(es);
}
