// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of term_safe.c, and of the views that print other users'
 * names through it (report, diff, top): no control byte and no invalid
 * UTF-8 of a name reaches the terminal, printable UTF-8 does unchanged. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "views/diff.h"
#include "render/report.h"
#include "base/term_safe.h"
#include "views/top.h"
#include "render/vprof.h"

TestSuite(term_safe, .fini = check_leaks);

/* A comm or symbol an attacker would choose: retitle the window, clear the
 * screen and draw a prompt, a C1 CSI (U+009B), a cut UTF-8 sequence. */
#define HOSTILE "\033]2;X\007a\033[2J# \001\xc2\x9b" "31m\xff\xe2\x82"
#define HOSTILE_SHOWN "\\x1b]2;X\\x07a\\x1b[2J# \\x01\\xc2\\x9b31m\\xff\\xe2\\x82"

static char *escaped(const char *s)
{
	static char buf[1024];

	term_safe__escape(buf, sizeof(buf), s, (size_t)-1, NULL);
	return buf;
}

/* No byte of s is a C0 control but the newlines between lines, DEL, or
 * the first of a C1 control's UTF-8 (0xc2 0x80-0x9f). */
static bool clean(const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f)
			return false;
		if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			return false;
	}
	return true;
}

Test(term_safe, printable_utf8_unchanged)
{
	cr_expect_str_eq(escaped("plain ascii ~!@#$%^&*()"), "plain ascii ~!@#$%^&*()");
	cr_expect_str_eq(escaped("müller"), "müller");
	cr_expect_str_eq(escaped("日本語のテスト"), "日本語のテスト");
	cr_expect_str_eq(escaped("emoji 🔥 and U+00A0\xc2\xa0."), "emoji 🔥 and U+00A0\xc2\xa0.");
	cr_expect_str_eq(escaped("a\\x1b stays"), "a\\x1b stays");	/* backslash kept */
}

Test(term_safe, controls_and_invalid_utf8_escaped)
{
	cr_expect_str_eq(escaped("a\nb\rc\td\x7f"), "a\\nb\\rc\\x09d\\x7f");
	cr_expect_str_eq(escaped("\033]2;X\007"), "\\x1b]2;X\\x07");
	cr_expect_str_eq(escaped("c1 \xc2\x80 \xc2\x9b \xc2\x9f"),
			 "c1 \\xc2\\x80 \\xc2\\x9b \\xc2\\x9f");
	cr_expect_str_eq(escaped("\xc0\xaf"), "\\xc0\\xaf");			/* overlong '/' */
	cr_expect_str_eq(escaped("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");		/* overlong */
	cr_expect_str_eq(escaped("\xed\xa0\x80"), "\\xed\\xa0\\x80");		/* a surrogate */
	cr_expect_str_eq(escaped("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");	/* past U+10FFFF */
	cr_expect_str_eq(escaped("\xf5\xfe\xff"), "\\xf5\\xfe\\xff");
	cr_expect_str_eq(escaped("cut \xe6\x97"), "cut \\xe6\\x97");
	cr_expect_str_eq(escaped("\xe6\x97x\xe6\x97\xa5"), "\\xe6\\x97x日");	/* resyncs */
	/* a right-to-left override, an isolate, a line separator: reorder or break the line */
	cr_expect_str_eq(escaped("a\xe2\x80\xae" "cba"), "a\\xe2\\x80\\xaecba");
	cr_expect_str_eq(escaped("\xe2\x81\xa6x\xe2\x80\xa8"), "\\xe2\\x81\\xa6x\\xe2\\x80\\xa8");
	cr_expect_str_eq(escaped("\xd8\x9c" "ab"), "\\xd8\\x9cab");	/* ARABIC LETTER MARK */
	cr_expect_str_eq(escaped("zero\xe2\x80\x8bwidth"), "zero\xe2\x80\x8bwidth");	/* ZWSP kept */
}

Test(term_safe, escaping_is_idempotent)
{
	char once[1024];

	snprintf(once, sizeof(once), "%s", escaped(HOSTILE));
	cr_expect_str_eq(once, "\\x1b]2;X\\x07a\\x1b[2J# \\x01\\xc2\\x9b31m\\xff\\xe2\\x82");
	cr_expect_str_eq(escaped(once), once);
}

Test(term_safe, width_counts_columns)
{
	cr_expect_eq(term_safe__width("abc"), 3);
	cr_expect_eq(term_safe__width("müller"), 6);
	cr_expect_eq(term_safe__width("日本"), 4);
	cr_expect_eq(term_safe__width("e\xcc\x81"), 1);		/* e + combining acute */
	cr_expect_eq(term_safe__width("\033x"), 5);		/* \x1b x */
	cr_expect_eq(term_safe__width("\n"), 2);
	cr_expect_eq(term_safe__width(""), 0);
}

Test(term_safe, cut_on_whole_characters_and_escapes)
{
	char buf[64];
	size_t cols, took;

	took = term_safe__escape(buf, sizeof(buf), "日本語", 5, &cols);
	cr_expect_str_eq(buf, "日本");
	cr_expect_eq(cols, 4);
	cr_expect_eq(took, 6);
	took = term_safe__escape(buf, sizeof(buf), "ab\033cd", 5, &cols);
	cr_expect_str_eq(buf, "ab");	/* \x1b is 4 columns: not half of it */
	cr_expect_eq(took, 2);
	took = term_safe__escape(buf, 5, "ab日cd", (size_t)-1, &cols);
	cr_expect_str_eq(buf, "ab");	/* 3 bytes of 日 and the NUL do not fit in 5 - 2 */
	cr_expect_eq(took, 2);
	took = term_safe__escape(buf, 1, "abc", (size_t)-1, &cols);
	cr_expect_str_eq(buf, "");
	cr_expect_eq(took, 0);
}

Test(term_safe, fputs_pads_by_columns)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	cr_assert_not_null(f);
	term_safe__fputs("日本", 6, f);
	fputc('|', f);
	term_safe__fputs("\001", 2, f);
	fputc('|', f);
	fclose(f);
	cr_expect_str_eq(out, "日本  |\\x01|");
	free(out);
}

/* comm HOSTILE, file /tmp/HOSTILE.so, functions HOSTILE and müller */
static struct vprof *hostile_profile(void)
{
	struct vprof *v = vprof__new();
	uint32_t fr[2];

	cr_assert_not_null(v);
	fr[0] = (uint32_t)vprof__frame(v, "müller", "/tmp/" HOSTILE ".so", FK_USER);
	fr[1] = (uint32_t)vprof__frame(v, HOSTILE, "/tmp/" HOSTILE ".so", FK_USER);
	cr_assert_eq(vprof__add(v, HOSTILE, 1, fr, 2, 7), 0);
	return v;
}

static char *render_report(const struct vprof *v)
{
	struct report_opts o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	report__defaults(&o);
	o.children = true;	/* both functions' rows */
	cr_assert_eq(report__write(v, &o, f), 0);
	fclose(f);
	return buf;
}

Test(term_safe, report_escapes_comm_file_and_symbol)
{
	struct vprof *v = hostile_profile();
	char *out = render_report(v);

	cr_expect(clean(out), "%s", out);
	cr_expect(strstr(out, "[.] " HOSTILE_SHOWN "\n"), "%s", out);
	cr_expect(strstr(out, "[.] müller\n"), "%s", out);
	cr_expect(strstr(out, "  " HOSTILE_SHOWN "  /tmp/" HOSTILE_SHOWN ".so  [.]"), "%s", out);
	free(out);
	vprof__free(v);
}

Test(term_safe, diff_escapes_symbols)
{
	struct vprof *a = hostile_profile(), *b = hostile_profile();
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	cr_assert_not_null(f);
	cr_assert_eq(diff__write_table(a, b, 10, f), 0);
	fclose(f);
	cr_expect(clean(out), "%s", out);
	cr_expect(strstr(out, "[.] " HOSTILE_SHOWN "\n"), "%s", out);
	free(out);
	vprof__free(a);
	vprof__free(b);
}

Test(term_safe, top_escapes_then_cuts_by_columns)
{
	struct top_status st = { .what = "cpu-clock at 99 Hz, command \033]2;T\007", .refresh = 1 };
	struct top_view view = { 0 };
	struct vprof *v = vprof__new();
	char *out = NULL, *p;
	size_t len = 0;
	FILE *f;
	uint32_t fr[1];
	int cols = 80;

	cr_assert_not_null(v);
	fr[0] = (uint32_t)vprof__frame(v, "日本語の関数" HOSTILE HOSTILE, "/tmp/日本語" HOSTILE,
				       FK_USER);
	cr_assert_eq(vprof__add(v, "x", 1, fr, 1, 3), 0);
	f = open_memstream(&out, &len);
	cr_assert_not_null(f);
	cr_assert_eq(top__render(v, &view, &st, 10, cols, f), 0);
	fclose(f);
	/* the only ESC are top's own: ESC [ H, ESC [ K, ESC [ 7m, ESC [ 0m, ESC [ J */
	for (p = strchr(out, '\033'); p; p = strchr(p + 1, '\033'))
		cr_expect(!strncmp(p, "\033[H", 3) || !strncmp(p, "\033[K", 3) ||
			  !strncmp(p, "\033[7m", 4) || !strncmp(p, "\033[0m", 4) ||
			  !strncmp(p, "\033[J", 3), "raw ESC at '%.8s'", p + 1);
	cr_expect_null(strchr(out, '\007'));
	cr_expect(strstr(out, "command \\x1b]2;T\\x07"), "%s", out);
	/* the row: the file's base name cut to 20 columns (日本語 is 6 of them,
	 * the next \x1b would make 23) and padded; the symbol cut at 80 columns,
	 * before an escape that would not fit whole; no line wider than that */
	cr_expect(strstr(out, "  日本語\\x1b]2;X\\x07a   [.] 日本語の関数\\x1b]2;X\\x07a\033[K"),
		  "%s", out);
	for (p = strtok(out, "\n"); p; p = strtok(NULL, "\n")) {
		char *e;

		while ((e = strchr(p, '\033'))) {	/* drop top's escapes */
			size_t n = strspn(e + 2, "0123456789") + 3;

			memmove(e, e + n, strlen(e + n) + 1);
		}
		cr_expect_leq(term_safe__width(p), (size_t)cols, "'%s'", p);
	}
	free(out);
	vprof__free(v);
}

/* Well-formed UTF-8 by Unicode's table 3-7, checked the slow way. */
static bool valid_utf8(const unsigned char *s)
{
	while (*s) {
		uint32_t cp;
		size_t n = *s < 0x80 ? 1 : (*s & 0xe0) == 0xc0 ? 2 : (*s & 0xf0) == 0xe0 ? 3 :
			   (*s & 0xf8) == 0xf0 ? 4 : 0;
		size_t i;

		if (!n)
			return false;
		cp = n == 1 ? *s : *s & (0xff >> (n + 1));
		for (i = 1; i < n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		s += n;
	}
	return true;
}

/* Random bytes, biased to UTF-8's lead and continuation bytes: the escaped
 * form is valid UTF-8 without controls, escapes to itself, its width is
 * what term_safe__width says, and a cut is a prefix of the whole. */
Test(term_safe, random_bytes_come_out_safe)
{
	static const unsigned char pick[] = { 0x01, 0x1b, 0x7f, 0x80, 0x9b, 0xbf, 0xc2, 0xc0,
					      0xe0, 0xe6, 0xed, 0xf0, 0xf4, 0xf5, 0xff, '\n' };
	char in[64], out[512], again[512], cut[512];
	unsigned seed = 23;
	size_t cols, cut_cols;
	int i, j;

	for (i = 0; i < 100000; i++) {
		int len = rand_r(&seed) % 24;

		for (j = 0; j < len; j++) {
			int r = rand_r(&seed);

			in[j] = (char)(r % 3 ? pick[(r >> 4) % sizeof(pick)] : 0x20 + (r >> 4) % 0x60);
		}
		in[len] = '\0';
		cr_assert_eq(term_safe__escape(out, sizeof(out), in, (size_t)-1, &cols), (size_t)len);
		cr_assert(valid_utf8((const unsigned char *)out) && clean(out) && !strchr(out, '\n'),
			  "input %d: '%s'", i, out);
		term_safe__escape(again, sizeof(again), out, (size_t)-1, NULL);
		cr_assert_str_eq(again, out);
		cr_assert_eq(term_safe__width(in), cols);
		term_safe__escape(cut, sizeof(cut), in, cols / 2, &cut_cols);
		cr_assert(cut_cols <= cols / 2 && !strncmp(cut, out, strlen(cut)));
	}
}
