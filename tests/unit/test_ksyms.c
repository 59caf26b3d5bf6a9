// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of ksyms.c: parsing, lookup, and the real /proc/kallsyms. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leak_check.h"
#include "symbols/ksyms.h"

TestSuite(ksyms, .fini = check_leaks);

static struct ksyms *parse_str(const char *s)
{
	return ksyms__parse(s, strlen(s));
}

static void expect_sym(const struct ksyms *ks, uint64_t addr, const char *name,
		       const char *module)
{
	const struct ksym *sym = ksyms__find(ks, addr);

	cr_assert_not_null(sym, "no symbol for 0x%" PRIx64, addr);
	cr_expect_str_eq(ksyms__name(ks, sym), name, "0x%" PRIx64, addr);
	if (module) {
		cr_assert_not_null(ksyms__module(ks, sym), "%s has no module", name);
		cr_expect_str_eq(ksyms__module(ks, sym), module);
	} else {
		cr_expect_null(ksyms__module(ks, sym), "%s has module %s", name,
			       ksyms__module(ks, sym));
	}
}

static const char sorted_input[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 t helper\n"
	"ffffffff81000200 T do_work\n"
	"ffffffff81000400 W weak_fn\n"
	"ffffffff81000500 w weak_local\n";

/* The same lines in another order, the last one without its newline. */
static const char unsorted_input[] =
	"ffffffff81000400 W weak_fn\n"
	"ffffffff81000100 t helper\n"
	"ffffffff81000500 w weak_local\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000200 T do_work";

static void check_small_table(const struct ksyms *ks)
{
	cr_assert_eq(ksyms__count(ks), 5);
	/* Exact starts. */
	expect_sym(ks, 0xffffffff81000000, "_stext", NULL);
	expect_sym(ks, 0xffffffff81000100, "helper", NULL);
	expect_sym(ks, 0xffffffff81000200, "do_work", NULL);
	expect_sym(ks, 0xffffffff81000400, "weak_fn", NULL);
	expect_sym(ks, 0xffffffff81000500, "weak_local", NULL);
	/* Inside functions, up to the byte before the next one. */
	expect_sym(ks, 0xffffffff81000001, "_stext", NULL);
	expect_sym(ks, 0xffffffff810000ff, "_stext", NULL);
	expect_sym(ks, 0xffffffff81000234, "do_work", NULL);
	expect_sym(ks, 0xffffffff810003ff, "do_work", NULL);
	/* Below the first symbol. */
	cr_expect_null(ksyms__find(ks, 0xffffffff80ffffff));
	cr_expect_null(ksyms__find(ks, 0));
	/* Past the last one: up to 1 MiB from its start, then nothing. */
	expect_sym(ks, 0xffffffff81000500 + 0xfffff, "weak_local", NULL);
	cr_expect_null(ksyms__find(ks, 0xffffffff81000500 + 0x100000));
	cr_expect_null(ksyms__find(ks, UINT64_MAX));
}

Test(ksyms, sorted_input)
{
	struct ksyms *ks = parse_str(sorted_input);

	cr_assert_not_null(ks, "errno %d", errno);
	check_small_table(ks);
	ksyms__free(ks);
}

Test(ksyms, unsorted_input)
{
	struct ksyms *ks = parse_str(unsorted_input);

	cr_assert_not_null(ks, "errno %d", errno);
	check_small_table(ks);
	ksyms__free(ks);
}

Test(ksyms, module_symbols)
{
	static const char in[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81001000 T core_fn\n"
		"ffffffffc0001000 t ext4_read\t[ext4]\n"
		"ffffffffc0001800 T ext4_write\t[ext4]\n"
		"ffffffffc0003000 t xfs_read\t[xfs]\n"
		"ffffffffc0004000 t bpf_prog_0123456789abcdef_prog\t[bpf]\n";
	const struct ksym *a, *b;
	struct ksyms *ks = parse_str(in);

	cr_assert_not_null(ks, "errno %d", errno);
	cr_assert_eq(ksyms__count(ks), 6);
	expect_sym(ks, 0xffffffff81001010, "core_fn", NULL);
	expect_sym(ks, 0xffffffffc0001000, "ext4_read", "ext4");
	expect_sym(ks, 0xffffffffc0001900, "ext4_write", "ext4");
	expect_sym(ks, 0xffffffffc0003fff, "xfs_read", "xfs");
	expect_sym(ks, 0xffffffffc0004004, "bpf_prog_0123456789abcdef_prog", "bpf");

	/* Each module name is stored once. */
	a = ksyms__find(ks, 0xffffffffc0001000);
	b = ksyms__find(ks, 0xffffffffc0001800);
	cr_assert(a && b);
	cr_expect_eq(a->module, b->module);
	ksyms__free(ks);
}

Test(ksyms, non_text_symbols_skipped)
{
	static const char in[] =
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000800 D some_data\n"
		"ffffffff81000900 d local_data\n"
		"ffffffff81000a00 b bss_var\n"
		"ffffffff81000b00 B global_bss\n"
		"ffffffff81000c00 R rodata\n"
		"ffffffff81000d00 r local_rodata\n"
		"ffffffff81000e00 U undefined\n"
		"ffffffff82000000 T next_fn\n";
	struct ksyms *ks = parse_str(in);

	cr_assert_not_null(ks, "errno %d", errno);
	cr_assert_eq(ksyms__count(ks), 2);
	/* Data symbols do not split the text symbol that precedes them. */
	expect_sym(ks, 0xffffffff81000800, "_stext", NULL);
	expect_sym(ks, 0xffffffff81000b10, "_stext", NULL);
	expect_sym(ks, 0xffffffff82000000, "next_fn", NULL);
	ksyms__free(ks);
}

Test(ksyms, hidden_addresses_give_enodata)
{
	/* What an unprivileged reader sees with kptr_restrict. */
	static const char in[] =
		"0000000000000000 T _stext\n"
		"0000000000000000 t helper\n"
		"0000000000000000 T ext4_read\t[ext4]\n";

	errno = 0;
	cr_expect_null(parse_str(in));
	cr_expect_eq(errno, ENODATA);
	errno = 0;
	cr_expect_null(ksyms__parse("", 0));
	cr_expect_eq(errno, ENODATA);
	errno = 0;
	cr_expect_null(ksyms__parse(NULL, 0));
	cr_expect_eq(errno, ENODATA);
	errno = 0;
	cr_expect_null(parse_str("ffffffff81000000 D only_data\n"));
	cr_expect_eq(errno, ENODATA);
}

Test(ksyms, malformed_lines_skipped)
{
	static const char in[] =
		"ffffffff81000000 T good_one\n"
		"\n"
		"zzzzffff81000100 T bad_hex\n"
		"fffffffff81000200 T seventeen_digits\n"
		" ffffffff81000300 T leading_blank\n"
		"ffffffff81000400  T two_blanks\n"
		"ffffffff81000500 T\n"
		"ffffffff81000600 T \n"
		"ffffffff81000700\n"
		"ffffffff81000800 TT no_blank\n"
		"ffffffff81000900 T unterminated\t[ext4\n"
		"ffffffff81000a00 T empty_module\t[]\n"
		"ffffffff81000b00 T no_bracket\text4\n"
		"ffffffff81000c00 T trailing\t[ext4] x\n"
		"-fffffff81000d00 T minus\n"
		"ffffffff81001000 T good_two\n";
	struct ksyms *ks = parse_str(in);

	cr_assert_not_null(ks, "errno %d", errno);
	cr_expect_eq(ksyms__count(ks), 2);
	expect_sym(ks, 0xffffffff81000c00, "good_one", NULL);
	expect_sym(ks, 0xffffffff81001000, "good_two", NULL);
	ksyms__free(ks);
}

Test(ksyms, nul_bytes)
{
	/* A NUL inside a name or a module drops the line, not the table. */
	static const char in[] =
		"ffffffff81000000 T good_one\n"
		"ffffffff81000100 T bad\0name\n"
		"ffffffff81000200 T mod_nul\t[ex\0t4]\n"
		"\0\0\0\n"
		"ffffffff81000300 T good_two";
	struct ksyms *ks = ksyms__parse(in, sizeof(in) - 1);

	cr_assert_not_null(ks, "errno %d", errno);
	cr_expect_eq(ksyms__count(ks), 2);
	expect_sym(ks, 0xffffffff81000200, "good_one", NULL);
	expect_sym(ks, 0xffffffff81000300, "good_two", NULL);
	ksyms__free(ks);
}

Test(ksyms, length_bounds_the_input)
{
	/* The parser must stop at len even in the middle of a line. */
	static const char in[] = "ffffffff81000000 T first\nffffffff81000100 T second\n";
	size_t len = strlen("ffffffff81000000 T first\nffffffff81000100 T sec");
	struct ksyms *ks = ksyms__parse(in, len);

	cr_assert_not_null(ks, "errno %d", errno);
	cr_assert_eq(ksyms__count(ks), 2);
	expect_sym(ks, 0xffffffff81000100, "sec", NULL);
	ksyms__free(ks);
}

/* A line kallsyms could not write (a name of 64 KiB) is dropped, from
 * memory as from a file; a long one that fits is kept whole. */
Test(ksyms, huge_line)
{
	size_t pre = strlen("ffffffff81000000 T "), huge = 4 << 20, longish = 60000;
	char *buf = malloc(pre + huge + 1);
	struct ksyms *ks;

	cr_assert_not_null(buf);
	memcpy(buf, "ffffffff81000000 T ", pre);
	memset(buf + pre, 'x', huge);
	buf[pre + huge] = '\n';
	cr_expect_null(ksyms__parse(buf, pre + huge + 1));
	cr_expect_eq(errno, ENODATA);
	buf[pre + longish] = '\n';
	ks = ksyms__parse(buf, pre + longish + 1);
	free(buf);
	cr_assert_not_null(ks, "errno %d", errno);
	cr_assert_eq(ksyms__count(ks), 1);
	cr_expect_eq(strlen(ksyms__name(ks, ksyms__find(ks, 0xffffffff81000000))), longish);
	ksyms__free(ks);
}

/* A file read in chunks gives what its bytes parsed at once give: lines
 * across chunk ends, an over-long line between two good ones, modules. */
Test(ksyms, load_in_chunks_as_parse)
{
	char path[] = "/tmp/test_ksyms.XXXXXX";
	size_t len = 0, cap = 8 << 20;
	char *text = malloc(cap), *name;
	struct ksyms *parsed, *loaded;
	FILE *f;
	int fd;

	cr_assert_not_null(text);
	for (int i = 0; i < 40000; i++) {
		len += snprintf(text + len, cap - len, "ffffffff%08x %c fn_%d%s\n",
				0x81000000 + i * 16, i % 3 ? 't' : 'T', i,
				i > 39000 ? "\t[mod_a]" : "");
		if (i == 20000) {	/* a 100 KiB name */
			len += snprintf(text + len, cap - len, "ffffffffa0000000 T ");
			memset(text + len, 'y', 100 << 10);
			len += 100 << 10;
			text[len++] = '\n';
		}
	}
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	parsed = ksyms__parse(text, len);
	loaded = ksyms__load(path);
	unlink(path);
	free(text);
	cr_assert(parsed && loaded, "errno %d", errno);
	cr_assert_eq(ksyms__count(parsed), 40000);
	cr_assert_eq(ksyms__count(loaded), 40000);
	cr_expect_null(ksyms__find(loaded, 0xffffffffa0000000 + 0x100));	/* past 1 MiB */
	for (int i = 0; i < 40000; i += 7) {
		uint64_t addr = 0xffffffff81000000 + i * 16 + 3;
		const struct ksym *a = ksyms__find(parsed, addr), *b = ksyms__find(loaded, addr);

		cr_assert(a && b);
		name = (char *)ksyms__name(loaded, b);
		cr_assert_str_eq(ksyms__name(parsed, a), name);
		cr_assert_eq(atoi(name + 3), i);
		cr_assert_eq(!ksyms__module(loaded, b), i <= 39000);
	}
	ksyms__free(parsed);
	ksyms__free(loaded);
}

Test(ksyms, aliases_answer_first_listed)
{
	static const char in[] =
		"ffffffff81000100 T after\n"
		"ffffffff81000000 T srso_alias_untrain_ret\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T _text\n";
	struct ksyms *ks = parse_str(in);

	cr_assert_not_null(ks, "errno %d", errno);
	cr_expect_eq(ksyms__count(ks), 4);
	expect_sym(ks, 0xffffffff81000000, "srso_alias_untrain_ret", NULL);
	expect_sym(ks, 0xffffffff810000ff, "srso_alias_untrain_ret", NULL);
	expect_sym(ks, 0xffffffff81000100, "after", NULL);
	ksyms__free(ks);
}

Test(ksyms, null_safe)
{
	cr_expect_null(ksyms__find(NULL, 0xffffffff81000000));
	cr_expect_eq(ksyms__count(NULL), 0);
	ksyms__free(NULL);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static size_t put_hex(char *p, uint64_t *seed)
{
	size_t n = xorshift(seed) % 18;	/* 0 and 17 digits are malformed */

	for (size_t i = 0; i < n; i++)
		p[i] = "0123456789abcdef"[xorshift(seed) % 16];
	return n;
}

/* Near-valid kallsyms lines, each maybe mutated by a random byte. */
static size_t random_kallsyms(char *buf, size_t size, uint64_t *seed)
{
	static const char name_chars[] = "abcxyz_.0123 	[]";
	size_t len = 0, n;

	while (size - len > 64) {
		char *p = buf + len;

		n = put_hex(p, seed);
		p[n++] = ' ';
		p[n++] = "tTwWDbAr"[xorshift(seed) % 8];
		p[n++] = ' ';
		for (size_t k = xorshift(seed) % 20; k; k--)
			p[n++] = name_chars[xorshift(seed) % (sizeof(name_chars) - 1)];
		if (xorshift(seed) % 3 == 0) {
			memcpy(p + n, "	[mod", 5);
			n += 5;
			p[n++] = "abc]"[xorshift(seed) % 4];
			p[n++] = ']';
		}
		p[n++] = '\n';
		if (xorshift(seed) % 4 == 0)
			p[xorshift(seed) % n] = (char)xorshift(seed);
		len += n;
	}
	/* Sometimes cut the last line, newline included. */
	return len - xorshift(seed) % 8 % (len + 1);
}

/* Checks only what must hold for any input: no crash, no overread (ASan),
 * and coherent lookups. */
Test(ksyms, random_input)
{
	uint64_t seed = 0x9e3779b97f4a7c15;
	int parsed = 0;
	char buf[1024];
	struct ksyms *ks;

	for (int iter = 0; iter < 20000; iter++) {
		size_t len = random_kallsyms(buf, xorshift(&seed) % sizeof(buf), &seed);

		ks = ksyms__parse(buf, len);
		if (!ks) {
			cr_assert(errno == ENODATA, "errno %d", errno);
			continue;
		}
		parsed++;
		cr_assert_gt(ksyms__count(ks), 0);
		for (int q = 0; q < 8; q++) {
			uint64_t addr = xorshift(&seed) >> (xorshift(&seed) % 64);
			const struct ksym *sym = ksyms__find(ks, addr);

			if (!sym)
				continue;
			cr_assert_leq(sym->addr, addr);
			cr_assert_gt(strlen(ksyms__name(ks, sym)), 0);
			cr_assert_null(strchr(ksyms__name(ks, sym), '\t'));
			cr_assert_eq(ksyms__find(ks, sym->addr), sym);
		}
		ksyms__free(ks);
	}
	/* The generator must reach the success path too. */
	cr_expect_gt(parsed, 1000, "only %d inputs parsed", parsed);
}

Test(ksyms, load_missing_file)
{
	errno = 0;
	cr_expect_null(ksyms__load("/nonexistent/kallsyms"));
	cr_expect_eq(errno, ENOENT);
}

Test(ksyms, loader_thread_missing_file)
{
	struct ksyms_loader *l = ksyms__load_start("/nonexistent/kallsyms");

	cr_assert_not_null(l, "ksyms__load_start: %s", strerror(errno));
	errno = 0;
	cr_expect_null(ksyms__load_wait(l));
	cr_expect_eq(errno, ENOENT);
}

/* The thread's answer is ksyms__load's; signals stay with the caller. */
Test(ksyms, loader_thread_as_load)
{
	static const char text[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81000100 t helper\n"
				   "ffffffffc0000000 t mod_fn\t[ext4]\n";
	char path[] = "/tmp/test_ksyms.XXXXXX";
	int fd = mkstemp(path);
	struct ksyms_loader *l;
	struct ksyms *ks;
	sigset_t mask;

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	cr_assert_eq(close(fd), 0);
	sigemptyset(&mask);
	cr_assert_eq(pthread_sigmask(SIG_SETMASK, &mask, NULL), 0);
	l = ksyms__load_start(path);
	cr_assert_not_null(l);
	ks = ksyms__load_wait(l);
	cr_assert_not_null(ks, "ksyms__load_wait: %s", strerror(errno));
	cr_expect_eq(ksyms__count(ks), 3);
	cr_expect_str_eq(ksyms__name(ks, ksyms__find(ks, 0xffffffff81000104)), "helper");
	cr_expect_str_eq(ksyms__module(ks, ksyms__find(ks, 0xffffffffc0000001)), "ext4");
	/* the caller's mask is its own again */
	cr_assert_eq(pthread_sigmask(SIG_SETMASK, NULL, &mask), 0);
	cr_expect_eq(sigismember(&mask, SIGINT), 0);
	ksyms__free(ks);
	cr_assert_eq(unlink(path), 0);
}

/* An oracle independent of ksyms.c: the address of the text symbol name in
 * the kernel image, and the first text symbol listed at that address (the
 * one ksyms__find() answers for aliases). */
static bool kallsyms_lookup(const char *name, uint64_t *addr, char *first, size_t size)
{
	char *line = NULL, sym[512], type;
	unsigned long long a;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	for (int pass = 0; pass < 2; pass++) {
		f = fopen("/proc/kallsyms", "re");
		cr_assert_not_null(f);
		while (getline(&line, &cap, f) > 0) {
			/* Module lines have a tab before "[mod]": %511s stops there. */
			if (sscanf(line, "%llx %c %511s", &a, &type, sym) != 3 ||
			    !type || !strchr("tTwW", type) || strchr(line, '['))
				continue;
			if (pass == 0 && !strcmp(sym, name)) {
				*addr = a;
				found = true;
				break;
			}
			if (pass == 1 && a == *addr) {
				snprintf(first, size, "%s", sym);
				break;
			}
		}
		fclose(f);
		if (!found)
			break;
	}
	free(line);
	return found;
}

static void check_kernel_symbol(const struct ksyms *ks, const char *name)
{
	char first[512] = "";
	const struct ksym *sym;
	uint64_t addr;

	cr_assert(kallsyms_lookup(name, &addr, first, sizeof(first)),
		  "%s not in /proc/kallsyms", name);
	cr_assert_neq(addr, 0);
	sym = ksyms__find(ks, addr);
	cr_assert_not_null(sym, "%s at 0x%" PRIx64 " not found", name, addr);
	cr_expect_eq(sym->addr, addr);
	cr_expect_str_eq(ksyms__name(ks, sym), first);
	cr_expect_null(ksyms__module(ks, sym));
	/* One byte in: still the same function. */
	sym = ksyms__find(ks, addr + 1);
	cr_assert_not_null(sym);
	cr_expect_eq(sym->addr, addr);
}

Test(ksyms, real_kallsyms)
{
	struct ksyms *ks;

	if (geteuid() != 0)
		cr_skip_test("needs root: /proc/kallsyms hides addresses otherwise");
	ks = ksyms__load("/proc/kallsyms");
	cr_assert_not_null(ks, "ksyms__load: %s", strerror(errno));
	cr_expect_gt(ksyms__count(ks), 1000);
	check_kernel_symbol(ks, "schedule");
	check_kernel_symbol(ks, "do_syscall_64");
	ksyms__free(ks);
}

/* The span is what ksyms__find() names: from the first symbol to 1 MiB past
 * the last one's start (its end unknown). */
Test(ksyms, span_is_what_find_names)
{
	struct ksyms *ks = parse_str(sorted_input);
	uint64_t start, end;

	cr_assert_not_null(ks);
	cr_assert_eq(ksyms__span(ks, &start, &end), 0);
	cr_expect_not_null(ksyms__find(ks, start));
	cr_expect_null(ksyms__find(ks, start - 1));
	cr_expect_not_null(ksyms__find(ks, end - 1));
	cr_expect_null(ksyms__find(ks, end));
	ksyms__free(ks);
}

/* /sys/kernel/notes' shape: notes of 4-byte words, each name and desc
 * padded to 4; the GNU build-id one (type 3) is the kernel's id, any other
 * is skipped, and a note that runs past the area ends the search. */
Test(ksyms, notes_build_id)
{
	unsigned char buf[128] = { 0 };
	char out[2 * KSYMS_BUILD_ID_MAX + 1];
	uint32_t xen[3] = { 4, 5, 6 }, gnu[3] = { 4, 20, 3 };
	size_t n = 0;

	memcpy(buf + n, xen, sizeof(xen));
	memcpy(buf + n + 12, "Xen", 4);
	n += 12 + 4 + 8;		/* desc of 5, padded to 8 */
	memcpy(buf + n, gnu, sizeof(gnu));
	memcpy(buf + n + 12, "GNU", 4);
	for (int i = 0; i < 20; i++)
		buf[n + 16 + i] = (unsigned char)(0xa0 + i);
	n += 12 + 4 + 20;
	ksyms__notes_build_id(buf, n, out);
	cr_expect_str_eq(out, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
	ksyms__notes_build_id(buf, n - 1, out);	/* the id cut short */
	cr_expect_str_eq(out, "");
	ksyms__notes_build_id(buf, 24, out);		/* the Xen note alone */
	cr_expect_str_eq(out, "");
	xen[0] = 0xfffffff0u;				/* a name past the end */
	memcpy(buf, xen, sizeof(xen));
	ksyms__notes_build_id(buf, n, out);
	cr_expect_str_eq(out, "");
}
