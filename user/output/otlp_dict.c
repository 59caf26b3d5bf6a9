// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The OTLP request's shared dictionary (see otlp_dict.h): every table
 * interned through one kind of key, the bytes that make an entry what it
 * is. */
#include <errno.h>
#include <search.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/utf8_safe.h"
#include "output/frame_kind.h"
#include "output/otlp_dict.h"

#define BUILD_ID_KEY	"process.executable.build_id.gnu"
#define GO_BUILD_ID_KEY	"process.executable.build_id.go"
#define FRAME_TYPE_KEY	"profile.frame.type"

struct dkey {
	int32_t index;
	size_t len;
	unsigned char bytes[];
};

static int cmp_dkey(const void *pa, const void *pb)
{
	const struct dkey *a = pa, *b = pb;

	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return memcmp(a->bytes, b->bytes, a->len);
}

/* The entry of key in t: found, or made by make(arg) and added. */
static int32_t intern(struct enc *e, struct table *t, const void *key, size_t len,
		      void *(*make)(struct enc *, const void *), const void *arg)
{
	struct dkey *k = malloc(sizeof(*k) + len), **found;
	void *item;

	if (!k || e->err || t->n >= INT32_MAX) {
		free(k);
		e->err = e->err ? e->err : -ENOMEM;
		return 0;
	}
	k->len = len;
	memcpy(k->bytes, key, len);
	found = tfind(k, &t->tree, cmp_dkey);
	if (found) {
		free(k);
		return (*found)->index;
	}
	item = GROW(t->items, t->cap, t->n + 1) ? NULL : make(e, arg);
	k->index = (int32_t)t->n;
	if (!item || !tsearch(k, &t->tree, cmp_dkey)) {
		free(item);
		free(k);
		e->err = -ENOMEM;
		return 0;
	}
	t->items[t->n++] = item;
	return k->index;
}

static void *make_string(struct enc *e, const void *s)
{
	(void)e;
	return strdup(s);
}

/* Strings leave as well-formed UTF-8 (base/utf8_safe.h), interned by
 * what leaves: two names that differ only in invalid bytes are one entry. */
int32_t otlp_dict__str(struct enc *e, const char *s)
{
	char *safe;
	int32_t idx;

	if (utf8_safe__valid(s))
		return intern(e, &e->strings, s, strlen(s), make_string, s);
	safe = utf8_safe__dup(s);
	if (!safe) {
		e->err = -ENOMEM;
		return 0;
	}
	idx = intern(e, &e->strings, safe, strlen(safe), make_string, safe);
	free(safe);
	return idx;
}

/* The first len bytes of s, interned. */
static int32_t str_n(struct enc *e, const char *s, size_t len)
{
	char *copy = strndup(s, len);
	int32_t idx;

	if (!copy) {
		e->err = -ENOMEM;
		return 0;
	}
	idx = otlp_dict__str(e, copy);
	free(copy);
	return idx;
}

/* An attribute's identity: key, kind, value (a number, or the string's
 * bytes after it). A string value is the attribute's own (AnyValue's
 * string_value, as every receiver reads it), not an entry of the string
 * table, which would then hold it unused. */
struct attr_key {
	int32_t key;
	int32_t kind;
	int64_t num;
	char str[];
};

static void *make_attr(struct enc *e, const void *arg)
{
	const struct attr_key *k = arg;
	size_t len = k->kind == OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE ?
		     strlen(k->str) + 1 : 0;
	struct attr_block { KeyValueAndUnit kv; AnyValue v; char str[]; } *blk;

	(void)e;
	blk = calloc(1, sizeof(*blk) + len);
	if (!blk)
		return NULL;
	opentelemetry__proto__profiles__v1development__key_value_and_unit__init(&blk->kv);
	opentelemetry__proto__common__v1__any_value__init(&blk->v);
	blk->kv.key_strindex = k->key;
	blk->kv.value = &blk->v;
	if (len)
		blk->v.string_value = memcpy(blk->str, k->str, len);
	else
		blk->v.int_value = k->num;
	blk->v.value_case = k->kind;
	return blk;
}

int32_t otlp_dict__attr_str(struct enc *e, const char *key, const char *value)
{
	char *safe = utf8_safe__dup(value);
	size_t len = safe ? strlen(safe) + 1 : 0;
	struct attr_key *k = safe ? malloc(sizeof(*k) + len) : NULL;
	int32_t idx;

	if (!k) {
		free(safe);
		e->err = -ENOMEM;
		return 0;
	}
	k->key = otlp_dict__str(e, key);
	k->kind = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
	k->num = 0;
	memcpy(k->str, safe, len);
	idx = intern(e, &e->attrs, k, sizeof(*k) + len, make_attr, k);
	free(k);
	free(safe);
	return idx;
}

int32_t otlp_dict__attr_int(struct enc *e, const char *key, int64_t value)
{
	struct attr_key k = { otlp_dict__str(e, key),
			      OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE, value };

	return intern(e, &e->attrs, &k, sizeof(k), make_attr, &k);
}

static void *make_function(struct enc *e, const void *arg)
{
	const int64_t *k = arg;		/* name, file, start line */
	Function *fn = calloc(1, sizeof(*fn));

	(void)e;
	if (!fn)
		return NULL;
	opentelemetry__proto__profiles__v1development__function__init(fn);
	fn->name_strindex = (int32_t)k[0];
	fn->filename_strindex = (int32_t)k[1];
	fn->start_line = k[2];
	return fn;
}

/* A function is its name (a Python frame's without its line) in its
 * source file from its first line: one Function whatever line runs. The
 * name is the one bpfprof shows (demangled), so no system name. */
static int32_t function(struct enc *e, const struct pframe *f)
{
	int64_t k[3] = { str_n(e, f->name, frame_kind__function_len(f)),
			 otlp_dict__str(e, f->file ? f->file : ""), f->start_line };

	return intern(e, &e->functions, k, sizeof(k), make_function, k);
}

/* A mapping's identity: where it was, the file, its build-id attribute. */
struct map_key {
	uint64_t start, limit, off;
	int32_t file, build_id;
};

static void *make_mapping(struct enc *e, const void *arg)
{
	const struct map_key *k = arg;
	struct { Mapping m; int32_t attr; } *blk = calloc(1, sizeof(*blk));

	(void)e;
	if (!blk)
		return NULL;
	opentelemetry__proto__profiles__v1development__mapping__init(&blk->m);
	blk->m.memory_start = k->start;
	blk->m.memory_limit = k->limit;
	blk->m.file_offset = k->off;
	blk->m.filename_strindex = k->file;
	blk->attr = k->build_id;
	blk->m.attribute_indices = &blk->attr;
	blk->m.n_attribute_indices = k->build_id != 0;
	return blk;
}

/* As pprof.c: the mapping as the process had it, a file's build-id beside it
 * (a Go binary's Go build ID as the conventions' .go attribute). */
static int32_t mapping(struct enc *e, const struct pframe *f)
{
	struct map_key k = { f->map_start, f->map_limit, f->map_off,
			     otlp_dict__str(e, f->mapping && f->mapping[0] ? f->mapping : "[unknown]"),
			     f->build_id && f->build_id[0] ?
			     otlp_dict__attr_str(e, frame_kind__go_build_id(f->build_id) ? GO_BUILD_ID_KEY :
						 BUILD_ID_KEY, f->build_id) : 0 };

	return intern(e, &e->mappings, &k, sizeof(k), make_mapping, &k);
}

/* A location's identity: mapping, address, frame type (its attribute),
 * then (function, line) of each Line, innermost first. */
struct loc_key {
	int64_t map, addr, type, nlines;
	int64_t lines[][2];
};

static void *make_location(struct enc *e, const void *arg)
{
	const struct loc_key *k = arg;
	size_t n = (size_t)k->nlines;
	Location *loc = calloc(1, sizeof(*loc) + sizeof(int32_t) +
				  n * (sizeof(Line *) + sizeof(Line)));
	Line *lines;

	(void)e;
	if (!loc)
		return NULL;
	/* one block: the location, its line pointers, its lines, its attribute */
	opentelemetry__proto__profiles__v1development__location__init(loc);
	loc->lines = (Line **)(loc + 1);
	lines = (Line *)(loc->lines + n);
	loc->attribute_indices = (int32_t *)(lines + n);
	loc->attribute_indices[0] = (int32_t)k->type;
	loc->n_attribute_indices = 1;
	for (size_t i = 0; i < n; i++) {
		opentelemetry__proto__profiles__v1development__line__init(&lines[i]);
		lines[i].function_index = (int32_t)k->lines[i][0];
		lines[i].line = k->lines[i][1];
		loc->lines[i] = &lines[i];
	}
	loc->n_lines = n;
	loc->mapping_index = (int32_t)k->map;
	loc->address = (uint64_t)k->addr;
	return loc;
}

/* f[0..n): the frame holding the code and those inlined into it there,
 * root first; the Lines go innermost first, as the spec orders them. */
static int32_t location(struct enc *e, const struct pframe *const *f, uint32_t n,
		       const char *exe)
{
	size_t len = sizeof(struct loc_key) + n * sizeof(int64_t[2]);
	struct loc_key *k = malloc(len);
	int32_t idx;

	if (!k) {
		e->err = -ENOMEM;
		return 0;
	}
	k->map = mapping(e, f[0]);
	k->addr = (int64_t)f[0]->addr;
	k->type = otlp_dict__attr_str(e, FRAME_TYPE_KEY, frame_kind__otel_type(f[0], exe));
	if (n == 1 && !f[0]->name[0])
		n = 0;	/* --symbolize none: an address, named later */
	k->nlines = n;
	for (uint32_t i = 0; i < n; i++) {
		k->lines[i][0] = function(e, f[n - 1 - i]);
		k->lines[i][1] = f[n - 1 - i]->line;
	}
	idx = intern(e, &e->locations, k, len, make_location, k);
	free(k);
	return idx;
}

struct stack_ref {
	size_t n;
	const int32_t *locs;
};

static void *make_stack(struct enc *e, const void *arg)
{
	const struct stack_ref *k = arg;
	Stack *st = calloc(1, sizeof(*st) + k->n * sizeof(int32_t));

	(void)e;
	if (!st)
		return NULL;
	opentelemetry__proto__profiles__v1development__stack__init(st);
	st->location_indices = (int32_t *)(st + 1);
	memcpy(st->location_indices, k->locs, k->n * sizeof(int32_t));
	st->n_location_indices = k->n;
	return st;
}

int32_t otlp_dict__stack(struct enc *e, const struct psample *ps, const char *exe)
{
	int32_t *locs = malloc((ps->nframes ? ps->nframes : 1) * sizeof(*locs)), idx;
	struct stack_ref k = { 0, locs };
	uint32_t i, first;

	if (!locs) {
		e->err = -ENOMEM;
		return 0;
	}
	for (i = ps->nframes; i > 0; i = first) {
		first = i - 1;
		while (first > 0 && ps->frames[first]->inlined)
			first--;
		locs[k.n++] = location(e, &ps->frames[first], i - first, exe);
	}
	idx = intern(e, &e->stacks, locs, k.n * sizeof(*locs), make_stack, &k);
	free(locs);
	return idx;
}

static void *make_zero(struct enc *e, const void *arg)
{
	const ProtobufCMessageDescriptor *d = arg;
	void *m = calloc(1, d->sizeof_message);

	(void)e;
	if (m)
		protobuf_c_message_init(d, m);
	return m;
}

void otlp_dict__init(struct enc *e)
{
	static const unsigned char none = 0;

	otlp_dict__str(e, "");
	intern(e, &e->attrs, &none, 1, make_zero,
	       &opentelemetry__proto__profiles__v1development__key_value_and_unit__descriptor);
	intern(e, &e->functions, &none, 1, make_zero,
	       &opentelemetry__proto__profiles__v1development__function__descriptor);
	intern(e, &e->mappings, &none, 1, make_zero,
	       &opentelemetry__proto__profiles__v1development__mapping__descriptor);
	intern(e, &e->locations, &none, 1, make_zero,
	       &opentelemetry__proto__profiles__v1development__location__descriptor);
	intern(e, &e->stacks, &none, 1, make_zero,
	       &opentelemetry__proto__profiles__v1development__stack__descriptor);
}

static void free_table(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->items[i]);
	free(t->items);
	tdestroy(t->tree, free);
}

void otlp_dict__free(struct enc *e)
{
	free_table(&e->strings);
	free_table(&e->attrs);
	free_table(&e->functions);
	free_table(&e->mappings);
	free_table(&e->locations);
	free_table(&e->stacks);
}
