// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Code objects and the strings and bytes they point to, by the offsets of
 * their version (py_versions.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "python/py_code.h"
#include "python/py_versions.h"

#define CODE_HEAD	256	/* bytes of PyCodeObject read at once: every field used is in it */

static uint64_t u64_at(const uint8_t *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* One code point as UTF-8 into out (room for 4); returns its length. */
static size_t utf8(uint32_t c, char *out)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 63));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 63));
		out[2] = (char)(0x80 | (c & 63));
		return 3;
	}
	out[0] = (char)(0xf0 | (c >> 18 & 7));
	out[1] = (char)(0x80 | (c >> 12 & 63));
	out[2] = (char)(0x80 | (c >> 6 & 63));
	out[3] = (char)(0x80 | (c & 63));
	return 4;
}

/* len characters of kind bytes each (1, 2, 4) -> UTF-8. */
static char *to_utf8(const uint8_t *data, size_t len, unsigned int kind)
{
	char *s = malloc(len * 4 + 1);
	size_t n = 0;

	if (!s)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		uint32_t c = 0;

		memcpy(&c, data + i * kind, kind);	/* little-endian: the low bytes */
		n += utf8(c, s + n);
	}
	s[n] = '\0';
	return s;
}

int py_code__str(const struct py_version *v, py_read_fn rd, void *arg, uint64_t addr, char **out)
{
	uint8_t head[128], *data;
	uint32_t state;
	unsigned int kind;
	uint64_t len;
	size_t hdr;
	int err;

	if (!addr || v->str_compact_size > sizeof(head))
		return -EINVAL;
	err = rd(arg, addr, head, v->str_compact_size);
	if (err)
		return err;
	memcpy(&state, head + v->str_state, sizeof(state));
	len = u64_at(head, v->str_length);
	/* interned:2, kind:3, compact:1, ascii:1 in every supported version */
	kind = state >> 2 & 7;
	if (!(state >> 5 & 1) || (kind != 1 && kind != 2 && kind != 4))
		return -EINVAL;
	if (len > PY_STR_MAX)
		len = PY_STR_MAX;
	hdr = state >> 6 & 1 ? v->str_ascii_size : v->str_compact_size;
	data = malloc(len * kind + 1);
	if (!data)
		return -ENOMEM;
	err = len ? rd(arg, addr + hdr, data, len * kind) : 0;
	if (!err) {
		*out = to_utf8(data, len, kind);
		err = *out ? 0 : -ENOMEM;
	}
	free(data);
	return err;
}

/* A bytes object's contents, up to PY_LINES_MAX bytes. */
static int read_bytes(const struct py_version *v, py_read_fn rd, void *arg, uint64_t addr,
		      uint8_t **out, size_t *n)
{
	uint64_t size;
	int err;

	if (!addr)
		return -EINVAL;
	err = rd(arg, addr + v->bytes_size, &size, sizeof(size));
	if (err)
		return err;
	if (size > PY_LINES_MAX)
		size = PY_LINES_MAX;
	*out = malloc(size ? size : 1);
	if (!*out)
		return -ENOMEM;
	*n = size;
	err = size ? rd(arg, addr + v->bytes_data, *out, size) : 0;
	if (err) {
		free(*out);
		*out = NULL;
	}
	return err;
}

/* The type at type_addr is named "code". */
static int check_type(const struct py_version *v, py_read_fn rd, void *arg, uint64_t type_addr,
		      uint64_t *code_type)
{
	uint64_t name_addr;
	char name[5];
	int err;

	if (*code_type)
		return type_addr == *code_type ? 0 : -EINVAL;
	err = rd(arg, type_addr + v->type_name, &name_addr, sizeof(name_addr));
	if (!err)
		err = rd(arg, name_addr, name, sizeof(name));
	if (err)
		return err;
	if (memcmp(name, "code", 5))
		return -EINVAL;
	*code_type = type_addr;
	return 0;
}

int py_code__read(const struct py_version *v, py_read_fn rd, void *arg, uint64_t addr,
		  uint64_t *code_type, struct py_code_info *out)
{
	uint8_t head[CODE_HEAD];
	int32_t first;
	int err;

	memset(out, 0, sizeof(*out));
	err = rd(arg, addr, head, sizeof(head));
	if (!err)
		err = check_type(v, rd, arg, u64_at(head, 8), code_type);
	if (err)
		return err;
	memcpy(&first, head + v->code_firstlineno, sizeof(first));
	out->firstlineno = first;
	out->lines_addr = u64_at(head, v->code_linetable);
	err = py_code__str(v, rd, arg, u64_at(head, v->code_qualname), &out->qualname);
	if (!err)
		err = py_code__str(v, rd, arg, u64_at(head, v->code_filename), &out->filename);
	if (!err)
		err = read_bytes(v, rd, arg, u64_at(head, v->code_linetable), &out->lines,
				 &out->nlines);
	if (err)
		py_code__free(out);
	return err;
}

void py_code__free(struct py_code_info *c)
{
	free(c->qualname);
	free(c->filename);
	free(c->lines);
	memset(c, 0, sizeof(*c));
}
