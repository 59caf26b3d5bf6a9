// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A JavaScript function's name from the process's heap (v8_name.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <linux/types.h>
#include "bpf/profile.h"	/* V8_FINGER */
#include "v8/v8_name.h"

#define MAX_READS	128	/* per function: a hostile heap's loops end here */
#define MAX_DEPTH	8	/* cons and thin strings followed */
#define SCOPE_SLOTS	16	/* a ScopeInfo's slots searched for the name */
#define MAX_LINES	(1u << 22)	/* a script's line_ends read */
#define CHUNK		128	/* characters read at once */

struct heap {
	const struct v8_layout *l;
	v8_read_fn read;
	void *arg;
	unsigned int reads;	/* left */
	int err;		/* the first read's error */
};

/* An escaped copy being built: at most cap - 1 bytes and a NUL. */
struct text {
	char *s;
	size_t len, cap;
	bool cut;
};

/* What was read is not what V8's layout says: the name is refused. */
static bool bad(struct heap *h)
{
	if (!h->err)
		h->err = -EINVAL;
	return false;
}

static bool get(struct heap *h, uint64_t addr, void *buf, size_t len)
{
	int err;

	if (!h->reads)
		return bad(h);
	h->reads--;
	err = h->read(h->arg, addr, buf, len);
	if (err && !h->err)
		h->err = err == -ESRCH ? -ESRCH : -EFAULT;
	return !err;
}

static bool is_heap(const struct heap *h, uint64_t v)
{
	return (v & h->l->heap_mask) == h->l->heap_tag;
}

static bool is_smi(const struct heap *h, uint64_t v)
{
	return (v & h->l->smi_mask) == h->l->smi_tag;
}

static int64_t smi(const struct heap *h, uint64_t v)
{
	return (int64_t)v >> h->l->smi_shift;
}

/* The tagged object obj's 8-byte field at off. */
static bool field(struct heap *h, uint64_t obj, uint32_t off, uint64_t *v)
{
	return get(h, obj - h->l->heap_tag + off, v, sizeof(*v));
}

/* obj's instance type; false when it is no readable heap object. */
static bool type_of(struct heap *h, uint64_t obj, uint16_t *type)
{
	uint64_t map;

	return is_heap(h, obj) && field(h, obj, h->l->obj_map, &map) && is_heap(h, map) &&
	       get(h, map - h->l->heap_tag + h->l->map_type, type, sizeof(*type));
}

/* One character as UTF-8; a control character, a lone surrogate or a
 * NUL as '?' (the writers escape the rest as they do any name). */
static void put_char(struct text *t, uint32_t c)
{
	size_t need = c < 0x80 ? 1 : c < 0x800 ? 2 : 3;

	if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || (c >= 0xd800 && c < 0xe000))
		c = '?', need = 1;
	if (t->len + need >= t->cap) {
		t->cut = true;
		return;
	}
	if (need == 1) {
		t->s[t->len++] = (char)c;
	} else if (need == 2) {
		t->s[t->len++] = (char)(0xc0 | c >> 6);
		t->s[t->len++] = (char)(0x80 | (c & 0x3f));
	} else {
		t->s[t->len++] = (char)(0xe0 | c >> 12);
		t->s[t->len++] = (char)(0x80 | ((c >> 6) & 0x3f));
		t->s[t->len++] = (char)(0x80 | (c & 0x3f));
	}
}

/* A sequential string's n characters (one or two bytes each), in chunks. */
static bool read_seq(struct heap *h, uint64_t str, uint32_t off, size_t width, uint32_t n,
		     struct text *t)
{
	uint8_t buf[CHUNK * 2];
	uint64_t at = str - h->l->heap_tag + off;

	for (uint32_t i = 0; i < n && !t->cut; i += CHUNK) {
		uint32_t k = n - i < CHUNK ? n - i : CHUNK;

		if (!get(h, at + (uint64_t)i * width, buf, k * width))
			return false;
		for (uint32_t j = 0; j < k; j++)
			put_char(t, width == 1 ? buf[j] : (uint32_t)(buf[2 * j] | buf[2 * j + 1] << 8));
	}
	return true;
}

/* The string at str into t: sequential, cons (both halves) and thin
 * strings, depth levels deep at most; false on anything else. */
static bool read_string(struct heap *h, uint64_t str, struct text *t, int depth)
{
	const struct v8_layout *l = h->l;
	uint16_t type;
	int32_t len;
	uint64_t a, b;
	uint32_t repr;

	if (!type_of(h, str, &type) || (type & l->not_string_mask))
		return false;	/* not a string: no name here */
	/* a string past the bounds (a loop of cons strings): no name at all */
	if (depth > MAX_DEPTH || !get(h, str - l->heap_tag + l->str_length, &len, sizeof(len)) ||
	    len < 0)
		return bad(h);
	repr = type & l->repr_mask;
	if (repr == l->seq_tag) {
		bool one = (type & l->encoding_mask) == l->one_byte_tag;
		uint32_t n = (uint32_t)len < t->cap ? (uint32_t)len : (uint32_t)t->cap;
		bool read = read_seq(h, str, one ? l->seq_chars : l->seq2_chars, one ? 1 : 2, n, t);

		t->cut |= (uint32_t)len > n;	/* only what fits is read */
		return read;
	}
	if (repr == l->cons_tag)
		return field(h, str, l->cons_first, &a) && field(h, str, l->cons_second, &b) &&
		       read_string(h, a, t, depth + 1) && (t->cut || read_string(h, b, t, depth + 1));
	if (repr == l->thin_tag)
		return field(h, str, l->thin_actual, &a) && read_string(h, a, t, depth + 1);
	return bad(h);	/* sliced, external: not read */
}

static bool string_into(struct heap *h, uint64_t str, char *out, size_t cap)
{
	struct text t = { .s = out, .cap = cap };
	bool ok = read_string(h, str, &t, 0);

	if (ok && t.cut && cap > 4) {	/* a name this long: marked cut */
		t.len = t.len < cap - 4 ? t.len : cap - 4;
		while (t.len && ((unsigned char)out[t.len] & 0xc0) == 0x80)
			t.len--;	/* not inside a character */
		memcpy(out + t.len, "...", 3);
		t.len += 3;
	}
	out[ok ? t.len : 0] = '\0';
	return ok;
}

/* A compiled function's ScopeInfo: its name is the first string after the
 * context locals' two slots each, then its source positions, the first
 * two Smis in a row (V8 11's layout, as the OpenTelemetry profiler reads
 * it: V8 exports no offsets past the counts). */
static void from_scope(struct heap *h, uint64_t scope, struct v8_fn_name *out, int64_t *start)
{
	uint64_t slots[SCOPE_SLOTS], prev = 0;
	int64_t n;
	size_t i;
	bool named = false;

	if (!get(h, scope - h->l->heap_tag + h->l->obj_map + 8, slots, sizeof(slots)) ||
	    !is_smi(h, slots[h->l->scope_ncontextlocals]))
		return;
	n = smi(h, slots[h->l->scope_ncontextlocals]);
	if (n < 0 || n > SCOPE_SLOTS)
		return;
	for (i = h->l->scope_first_vars + 2 * (size_t)n; i < SCOPE_SLOTS; i++) {
		if (!named && is_heap(h, slots[i]))
			named = string_into(h, slots[i], out->func, sizeof(out->func));
		if (i > 0 && is_smi(h, slots[i]) && is_smi(h, prev) && smi(h, prev) >= 0 &&
		    smi(h, prev) < smi(h, slots[i])) {
			*start = smi(h, prev);
			return;
		}
		prev = slots[i];
	}
}

/* The line (1-based) of source position pos: the first line whose end is
 * at or past it, by a binary search of the script's line_ends. */
static uint32_t line_of(struct heap *h, uint64_t script, int64_t pos)
{
	uint64_t ends, v;
	uint32_t lo = 0, hi, mid;

	if (pos < 0 || !field(h, script, h->l->script_line_ends, &ends) || !is_heap(h, ends) ||
	    !field(h, ends, h->l->fixed_length, &v) || !is_smi(h, v) || smi(h, v) <= 0 ||
	    smi(h, v) > MAX_LINES)
		return 0;
	hi = (uint32_t)smi(h, v);
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (!field(h, ends, h->l->fixed_data + mid * 8u, &v) || !is_smi(h, v))
			return 0;
		if (smi(h, v) < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo + 1;
}

int v8_name__sfi(const struct v8_layout *l, v8_read_fn read, void *arg, uint64_t sfi,
		 uint32_t finger, struct v8_fn_name *out)
{
	struct heap h = { .l = l, .read = read, .arg = arg, .reads = MAX_READS };
	uint64_t nos = 0, sod = 0, name;
	uint16_t type = 0;
	int64_t start = -1;

	memset(out, 0, sizeof(*out));
	if (!type_of(&h, sfi, &type) || type != l->type_sfi || !field(&h, sfi, l->sfi_name, &nos) ||
	    !field(&h, sfi, l->sfi_script, &sod))
		return h.err ? h.err : -ESTALE;
	if (V8_FINGER(nos, sod) != finger)
		return -ESTALE;
	if (type_of(&h, nos, &type)) {
		if (type < l->first_nonstring)
			string_into(&h, nos, out->func, sizeof(out->func));
		else if (type == l->type_scope_info)
			from_scope(&h, nos, out, &start);
	}
	if (type_of(&h, sod, &type) && type == l->type_script) {
		if (field(&h, sod, l->script_name, &name))
			string_into(&h, name, out->script, sizeof(out->script));
		out->line = start >= 0 ? line_of(&h, sod, start) : 0;
	}
	/* gone, a fault, or past the bounds: no name rather than part of one */
	return h.err;
}
