// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of user/python: the offsets table against every CPython's
 * headers present, line tables against CPython's own co_lines(), names of
 * CPython files, and code objects and strings read from a fake memory. */
#include <criterion/criterion.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leak_check.h"
#include "python/py_code.h"
#include "python/py_find.h"
#include "python/py_lines.h"
#include "python/py_versions.h"

TestSuite(python, .fini = check_leaks);

/*
 * One function's line table and the line of each instruction offset (code
 * units), as CPython itself gives them: printed by tests/unit/gen_py_lines.py
 * run by that version's interpreter (co_linetable, and co_lines()'s ranges).
 */
/* CPython 3.10 (pyenv 3.10.13): co_firstlineno 2 */
static const uint8_t lt_310[] = { 0x08, 0x01, 0x08, 0x01, 0x06, 0x01, 0x06, 0x01, 0x06, 0xff, 0x02, 0x05, 0x02, 0x01, 0x04, 0xff, 0x04, 0xfe, 0x02, 0x02, 0x02, 0x01, 0x04, 0xff };
static const int lines_310[][2] = { {0, 3}, {1, 3}, {2, 3}, {3, 3}, {4, 4}, {5, 4}, {6, 4}, {7, 4}, {8, 5}, {9, 5}, {10, 5}, {11, 6}, {12, 6}, {13, 6}, {14, 5}, {15, 5}, {16, 5}, {17, 10}, {18, 11}, {19, 10}, {20, 10}, {21, 8}, {22, 8}, {23, 10}, {24, 11}, {25, 10}, {26, 10} };
/* CPython 3.11 (Debian 12's 3.11.2): co_firstlineno 2 */
static const uint8_t lt_311[] = { 0x80, 0x00, 0xd8, 0x08, 0x09, 0x88, 0x41, 0x89, 0x05, 0x80, 0x41, 0xd8, 0x07, 0x08, 0x88, 0x31, 0x82, 0x75, 0x80, 0x75, 0xf0, 0x02, 0x01, 0x0d, 0x20, 0xf0, 0x00, 0x01, 0x0d, 0x20, 0xdd, 0x16, 0x1b, 0x98, 0x41, 0x91, 0x68, 0x94, 0x68, 0xf0, 0x03, 0x01, 0x0d, 0x20, 0xf1, 0x00, 0x01, 0x0d, 0x20, 0xf4, 0x00, 0x01, 0x0d, 0x20, 0x88, 0x01, 0x88, 0x01, 0xf0, 0x06, 0x00, 0x0d, 0x11, 0x88, 0x01, 0xe0, 0x0c, 0x0d, 0xd8, 0x0c, 0x0d, 0xf0, 0x03, 0x01, 0x0c, 0x0f, 0xf0, 0x00, 0x01, 0x05, 0x0f };
static const int lines_311[][2] = { {0, 2}, {1, 3}, {2, 3}, {3, 3}, {4, 3}, {5, 3}, {6, 4}, {7, 4}, {8, 4}, {9, 4}, {10, 4}, {11, 4}, {12, 5}, {13, 5}, {14, 6}, {15, 6}, {16, 6}, {17, 6}, {18, 6}, {19, 6}, {20, 6}, {21, 6}, {22, 6}, {23, 6}, {24, 6}, {25, 6}, {26, 6}, {27, 6}, {28, 5}, {29, 5}, {30, 5}, {31, 5}, {32, 5}, {33, 5}, {34, 5}, {35, 5}, {36, 5}, {37, 5}, {38, 8}, {39, 8}, {40, 10}, {41, 11}, {42, 10}, {43, 10} };
/* CPython 3.13 (pyenv 3.13.0): co_firstlineno 2 */
static const uint8_t lt_313[] = { 0x80, 0x00, 0xd8, 0x08, 0x09, 0x89, 0x05, 0x80, 0x41, 0xd8, 0x07, 0x08, 0x88, 0x31, 0x83, 0x75, 0xe4, 0x16, 0x1b, 0x98, 0x41, 0x94, 0x68, 0xf3, 0x03, 0x01, 0x0d, 0x20, 0xd9, 0x16, 0x1e, 0x90, 0x11, 0xf0, 0x03, 0x00, 0x0e, 0x0f, 0x90, 0x11, 0x8c, 0x55, 0xd9, 0x16, 0x1e, 0xf0, 0x03, 0x00, 0x09, 0x0a, 0xf0, 0x00, 0x01, 0x0d, 0x20, 0xf0, 0x0a, 0x00, 0x0d, 0x0e, 0xd8, 0x0c, 0x0d, 0xf0, 0x03, 0x01, 0x0c, 0x0f, 0xf0, 0x00, 0x01, 0x05, 0x0f, 0xf0, 0x05, 0x00, 0x0d, 0x11, 0x88, 0x01, 0xe0, 0x0c, 0x0d, 0xd8, 0x0c, 0x0d, 0xf0, 0x03, 0x01, 0x0c, 0x0f, 0xf0, 0x00, 0x01, 0x05, 0x0f, 0xf9, 0xf2, 0x0b, 0x01, 0x0d, 0x20 };
static const int lines_313[][2] = { {0, 2}, {1, 3}, {2, 3}, {3, 3}, {4, 3}, {5, 4}, {6, 4}, {7, 4}, {8, 4}, {9, 4}, {10, 4}, {11, 6}, {12, 6}, {13, 6}, {14, 6}, {15, 6}, {16, 6}, {17, 6}, {18, 6}, {19, 6}, {20, 6}, {21, 6}, {22, 5}, {23, 5}, {24, 5}, {25, 5}, {26, 6}, {27, 6}, {28, 6}, {29, 5}, {30, 5}, {31, 5}, {32, 5}, {33, 5}, {34, 5}, {35, 5}, {36, 6}, {37, 6}, {38, 5}, {39, 5}, {40, 10}, {41, 11}, {42, 10}, {43, 10}, {44, 8}, {45, 8}, {46, 10}, {47, 11}, {48, 10}, {49, 10}, {50, -1}, {51, -1}, {52, 5}, {53, 5}, {54, 5} };

#define N(a)	(sizeof(a) / sizeof((a)[0]))

Test(python, lines_310_as_cpython)
{
	for (size_t i = 0; i < N(lines_310); i++)
		cr_expect_eq(py_lines__310(lt_310, sizeof(lt_310), 2, (uint32_t)lines_310[i][0]),
			     lines_310[i][1], "3.10 offset %d", lines_310[i][0]);
	/* past the table: no line, not the last one */
	cr_expect_eq(py_lines__310(lt_310, sizeof(lt_310), 2, 1000), -1);
}

Test(python, lines_311_as_cpython)
{
	for (size_t i = 0; i < N(lines_311); i++)
		cr_expect_eq(py_lines__311(lt_311, sizeof(lt_311), 2, (uint32_t)lines_311[i][0]),
			     lines_311[i][1], "3.11 offset %d", lines_311[i][0]);
	for (size_t i = 0; i < N(lines_313); i++)
		cr_expect_eq(py_lines__311(lt_313, sizeof(lt_313), 2, (uint32_t)lines_313[i][0]),
			     lines_313[i][1], "3.13 offset %d", lines_313[i][0]);
	cr_expect_eq(py_lines__311(lt_311, sizeof(lt_311), 2, 1000), -1);
}

Test(python, lines_bad_tables)
{
	const uint8_t not_entry[] = { 0x05, 0x01 }, cut[] = { 0xf0 }, none[] = { 0xf8 };

	cr_expect_eq(py_lines__311(not_entry, sizeof(not_entry), 1, 0), -1);
	cr_expect_eq(py_lines__311(cut, sizeof(cut), 1, 0), -1);	/* varints past the end */
	cr_expect_eq(py_lines__311(none, sizeof(none), 1, 0), -1);	/* code 15: no location */
	cr_expect_eq(py_lines__311(NULL, 0, 1, 0), -1);
	cr_expect_eq(py_lines__310(cut, sizeof(cut), 1, 0), -1);	/* half a pair */
}

Test(python, version_from_name)
{
	int major = 0;

	cr_expect_eq(py_find__version("/usr/bin/python3.11", &major), 11);
	cr_expect_eq(major, 3);
	cr_expect_eq(py_find__version("/x/lib/libpython3.12.so.1.0", &major), 12);
	cr_expect_eq(py_find__version("libpython3.7m.so.1.0", &major), 7);
	cr_expect_eq(py_find__version("/usr/bin/python3.11d", &major), 11);
	cr_expect_eq(py_find__version("/usr/bin/python2.7", &major), 7);
	cr_expect_eq(major, 2);
	cr_expect_eq(py_find__version("/usr/bin/python3", &major), -1);
	cr_expect_eq(py_find__version("/usr/lib/python3.11/lib-dynload/_ssl.so", &major), -1);
	cr_expect_eq(py_find__version("/usr/bin/pythonx.1", &major), -1);
	cr_expect_eq(py_find__version("/usr/bin/python3.11-config", &major), -1);
	cr_expect_eq(py_find__version("/opt/mypython3.11", &major), -1);
}

Test(python, versions_table)
{
	for (int minor = 10; minor <= 13; minor++)
		cr_expect_not_null(py_version__find(minor), "3.%d", minor);
	cr_expect_null(py_version__find(9));
	cr_expect_null(py_version__find(14));
}

/* One version's field by the name tools/python_offsets.c prints. */
static long field(const struct py_version *v, const char *name)
{
	const struct { const char *name; long value; } f[] = {
		{ "minor", v->minor }, { "runtime_interp_head", v->runtime_interp_head },
		{ "interp_threads", v->interp_threads }, { "tstate_next", v->tstate_next },
		{ "tstate_thread_id", v->tstate_thread_id }, { "tstate_frame", v->tstate_frame },
		{ "cframe_frame", v->cframe_frame }, { "frame_previous", v->frame_previous },
		{ "frame_code", v->frame_code }, { "frame_instr", v->frame_instr },
		{ "frame_owner", v->frame_owner }, { "frame_is_entry", v->frame_is_entry },
		{ "owned_by_cstack", v->owned_by_cstack }, { "code_adaptive", v->code_adaptive },
		{ "code_qualname", v->code_qualname }, { "code_filename", v->code_filename },
		{ "code_firstlineno", v->code_firstlineno }, { "code_linetable", v->code_linetable },
		{ "str_state", v->str_state }, { "str_ascii_size", v->str_ascii_size },
		{ "str_compact_size", v->str_compact_size }, { "str_length", v->str_length },
		{ "bytes_size", v->bytes_size }, { "bytes_data", v->bytes_data },
		{ "type_name", v->type_name },
	};

	for (size_t i = 0; i < N(f); i++)
		if (!strcmp(f[i].name, name))
			return f[i].value;
	cr_assert_fail("no field %s in the table", name);
	return -1;
}

/* Compiles tools/python_offsets.c against the headers in inc and checks
 * every number it prints against the table; returns how many. */
static int compare_headers(const char *inc)
{
	char cmd[1024], name[64], exe[] = "/tmp/bpfprof-pyoff.XXXXXX";
	const struct py_version *v = NULL;
	long value;
	int fd = mkstemp(exe), n = 0;
	FILE *p;

	cr_assert(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cc -DPy_BUILD_CORE -I%s -I%s/internal tools/python_offsets.c "
		 "-o %s 2>&1 && %s", inc, inc, exe, exe);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fscanf(p, "%63s %ld", name, &value) == 2) {
		if (!strcmp(name, "minor")) {
			v = py_version__find((int)value);
			cr_assert_not_null(v, "%s: 3.%ld is not in the table", inc, value);
		}
		cr_assert_not_null(v, "%s: no version printed first", inc);
		cr_expect_eq(field(v, name), value, "%s: %s is %ld in the headers, %ld in the table",
			     inc, name, value, field(v, name));
		n++;
	}
	cr_expect_eq(pclose(p), 0, "%s: the offsets tool failed", inc);
	unlink(exe);
	return n;
}

Test(python, offsets_match_every_version_headers)
{
	const char *pats[] = { "/usr/include/python3.1[0-3]",
			       "/root/.pyenv/versions/3.1[0-3].*/include/python3.1[0-3]" };
	int versions = 0;

	for (size_t k = 0; k < N(pats); k++) {
		glob_t g;

		if (glob(pats[k], 0, NULL, &g))
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			char internal[512];

			snprintf(internal, sizeof(internal), "%s/internal", g.gl_pathv[i]);
			if (access(internal, R_OK))
				continue;
			cr_expect_gt(compare_headers(g.gl_pathv[i]), 15, "%s", g.gl_pathv[i]);
			versions++;
		}
		globfree(&g);
	}
	if (!versions)
		cr_skip_test("NO CPython 3.10-3.13 headers on this machine: the table is unchecked");
	cr_log_info("offsets table checked against %d header sets", versions);
}

/* A fake process memory: one buffer at a base address. */
struct fake {
	uint64_t base;
	uint8_t mem[4096];
	int err;		/* returned for every read when set */
};

static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct fake *f = arg;

	if (f->err)
		return f->err;
	if (addr < f->base || addr + len > f->base + sizeof(f->mem))
		return -EFAULT;
	memcpy(buf, f->mem + (addr - f->base), len);
	return 0;
}

static void put64(struct fake *f, uint64_t addr, uint64_t v)
{
	memcpy(f->mem + (addr - f->base), &v, sizeof(v));
}

static void put32(struct fake *f, uint64_t addr, uint32_t v)
{
	memcpy(f->mem + (addr - f->base), &v, sizeof(v));
}

/* A compact str at addr of version v: kind 1, 2 or 4, ascii or not. */
static void put_str(struct fake *f, const struct py_version *v, uint64_t addr, const void *data,
		    uint64_t len, unsigned int kind, bool ascii)
{
	put64(f, addr + v->str_length, len);
	put32(f, addr + v->str_state, kind << 2 | 1u << 5 | (ascii ? 1u << 6 : 0));
	memcpy(f->mem + (addr - f->base) + (ascii ? v->str_ascii_size : v->str_compact_size), data,
	       len * kind);
}

Test(python, strings_of_each_kind)
{
	const struct py_version *v = py_version__find(12);
	struct fake f = { .base = 0x10000 };
	const uint16_t ucs2[] = { 'h', 0x00e9, 0x4e2d };
	const uint32_t ucs4[] = { 'x', 0x1f600 };
	char *s = NULL;

	put_str(&f, v, 0x10000, "outer", 5, 1, true);
	put_str(&f, v, 0x10100, "caf\xe9", 4, 1, false);	/* latin-1 */
	put_str(&f, v, 0x10200, ucs2, 3, 2, false);
	put_str(&f, v, 0x10300, ucs4, 2, 4, false);
	cr_assert_eq(py_code__str(v, fake_read, &f, 0x10000, &s), 0);
	cr_expect_str_eq(s, "outer");
	free(s);
	cr_assert_eq(py_code__str(v, fake_read, &f, 0x10100, &s), 0);
	cr_expect_str_eq(s, "caf\xc3\xa9");
	free(s);
	cr_assert_eq(py_code__str(v, fake_read, &f, 0x10200, &s), 0);
	cr_expect_str_eq(s, "h\xc3\xa9\xe4\xb8\xad");
	free(s);
	cr_assert_eq(py_code__str(v, fake_read, &f, 0x10300, &s), 0);
	cr_expect_str_eq(s, "x\xf0\x9f\x98\x80");
	free(s);
	/* not compact, a bad kind, NULL, unmapped: refused */
	put32(&f, 0x10400 + v->str_state, 1u << 2);
	cr_expect_eq(py_code__str(v, fake_read, &f, 0x10400, &s), -EINVAL);
	put32(&f, 0x10500 + v->str_state, 3u << 2 | 1u << 5);
	cr_expect_eq(py_code__str(v, fake_read, &f, 0x10500, &s), -EINVAL);
	cr_expect_eq(py_code__str(v, fake_read, &f, 0, &s), -EINVAL);
	cr_expect_eq(py_code__str(v, fake_read, &f, 0x90000, &s), -EFAULT);
}

/* A code object of version v at 0x10000 with its type, names and table. */
static void put_code(struct fake *f, const struct py_version *v, const char *type_name)
{
	const uint64_t code = 0x10000, type = 0x10400, tname = 0x10480;
	const uint64_t qual = 0x10500, file = 0x10600, table = 0x10700;

	put64(f, code + 8, type);				/* ob_type */
	put64(f, type + v->type_name, tname);
	memcpy(f->mem + (tname - f->base), type_name, strlen(type_name) + 1);
	put64(f, code + v->code_qualname, qual);
	put64(f, code + v->code_filename, file);
	put64(f, code + v->code_linetable, table);
	put32(f, code + v->code_firstlineno, 2);
	put_str(f, v, qual, "Klass.method", 12, 1, true);
	put_str(f, v, file, "/srv/app.py", 11, 1, true);
	put64(f, table + v->bytes_size, sizeof(lt_311));
	memcpy(f->mem + (table + v->bytes_data - f->base), lt_311, sizeof(lt_311));
}

Test(python, code_object_read)
{
	const struct py_version *v = py_version__find(11);
	struct fake f = { .base = 0x10000 };
	struct py_code_info ci;
	uint64_t code_type = 0;

	put_code(&f, v, "code");
	cr_assert_eq(py_code__read(v, fake_read, &f, 0x10000, &code_type, &ci), 0);
	cr_expect_str_eq(ci.qualname, "Klass.method");
	cr_expect_str_eq(ci.filename, "/srv/app.py");
	cr_expect_eq(ci.firstlineno, 2);
	cr_expect_eq(ci.nlines, sizeof(lt_311));
	cr_expect_eq(py_lines__311(ci.lines, ci.nlines, ci.firstlineno, 41), 11);
	cr_expect_eq(code_type, 0x10400, "the checked type is remembered");
	cr_expect_eq(ci.lines_addr, 0x10700, "co_linetable's address: the fingerprint");
	py_code__free(&ci);
}

Test(python, not_a_code_object)
{
	const struct py_version *v = py_version__find(13);
	struct fake f = { .base = 0x10000 };
	struct py_code_info ci;
	uint64_t code_type = 0;

	put_code(&f, v, "function");
	cr_expect_eq(py_code__read(v, fake_read, &f, 0x10000, &code_type, &ci), -EINVAL);
	cr_expect_null(ci.qualname);
	cr_expect_eq(code_type, 0);
	/* a known code type: another type is refused without reading names */
	code_type = 0x99999;
	cr_expect_eq(py_code__read(v, fake_read, &f, 0x10000, &code_type, &ci), -EINVAL);
	/* the process is gone */
	f.err = -ESRCH;
	cr_expect_eq(py_code__read(v, fake_read, &f, 0x10000, &code_type, &ci), -ESRCH);
}
