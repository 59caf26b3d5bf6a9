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

#endif
