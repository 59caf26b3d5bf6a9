// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of v8_name: a JavaScript function named from a heap built
 * here by node's own layout (v8_find on /usr/bin/node), then the same heap
 * made hostile: a cons string that loops, a string of a billion
 * characters, a tree of cons strings past the read budget, a moved object,
 * control characters. Each gives a bounded number of reads and either no
 * name (counted by its error) or an escaped, capped one; never a crash or
 * a name from the wrong object.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>
#include "bpf/profile.h"	/* V8_FINGER */
#include "v8/v8_name.h"

#define NODE	"/usr/bin/node"
#define BASE	0x10000000ULL		/* the fake heap's address */
#define SIZE	(1u << 16)

static struct v8_layout L;
static uint8_t heap[SIZE];
static size_t used;
static unsigned int reads;
static uint64_t map_sfi, map_script, map_str1, map_str2, map_cons, map_thin;

static int read_heap(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	reads++;
	if (addr < BASE || addr - BASE > SIZE || SIZE - (addr - BASE) < len)
		return -EFAULT;
	memcpy(buf, heap + (addr - BASE), len);
	return 0;
}

/* A new object of size bytes: its tagged address. */
static uint64_t alloc(size_t size)
{
	uint64_t at = BASE + used;

	used += (size + 7) & ~(size_t)7;
	cr_assert(used <= SIZE);
	return at + L.heap_tag;
}

static void put64(uint64_t obj, uint32_t off, uint64_t v)
{
	memcpy(heap + (obj - L.heap_tag - BASE) + off, &v, sizeof(v));
}

static void put32(uint64_t obj, uint32_t off, int32_t v)
{
	memcpy(heap + (obj - L.heap_tag - BASE) + off, &v, sizeof(v));
}

static uint64_t new_map(uint16_t type)
{
	uint64_t m = alloc(64);

	memcpy(heap + (m - L.heap_tag - BASE) + L.map_type, &type, sizeof(type));
	return m;
}

static uint64_t new_obj(uint64_t map, size_t size)
{
	uint64_t o = alloc(size);

	put64(o, L.obj_map, map);
	return o;
}

static uint64_t one_byte(const char *s, int32_t len)
{
	uint64_t o = new_obj(map_str1, L.seq_chars + strlen(s) + 1);

	put32(o, L.str_length, len);
	memcpy(heap + (o - L.heap_tag - BASE) + L.seq_chars, s, strlen(s));
	return o;
}

static uint64_t cons(uint64_t a, uint64_t b)
{
	uint64_t o = new_obj(map_cons, L.cons_second + 8);

	put32(o, L.str_length, 8);
	put64(o, L.cons_first, a);
	put64(o, L.cons_second, b);
	return o;
}

/* A function named name (any string object) of a script named file. */
static uint64_t new_sfi(uint64_t name, const char *file, uint32_t *finger)
{
	uint64_t script = new_obj(map_script, L.script_line_ends + 8), sfi;

	put64(script, L.script_name, one_byte(file, (int32_t)strlen(file)));
	put64(script, L.script_line_ends, 0);	/* a Smi: not computed */
	sfi = new_obj(map_sfi, L.sfi_script + 8);
	put64(sfi, L.sfi_name, name);
	put64(sfi, L.sfi_script, script);
	*finger = (uint32_t)V8_FINGER(name, script);
	return sfi;
}

static void setup(void)
{
	int fd = open(NODE, O_RDONLY | O_CLOEXEC);

	cr_assert(fd >= 0);
	cr_assert_eq(v8_find__elf(fd, &L), 0);
	close(fd);
	memset(heap, 0, sizeof(heap));
	used = 0;
	reads = 0;
	map_sfi = new_map(L.type_sfi);
	map_script = new_map(L.type_script);
	map_str1 = new_map((uint16_t)(L.seq_tag | L.one_byte_tag));
	map_str2 = new_map((uint16_t)L.seq_tag);
	map_cons = new_map((uint16_t)(L.cons_tag | L.one_byte_tag));
	map_thin = new_map((uint16_t)(L.thin_tag | L.one_byte_tag));
}

TestSuite(v8_name, .init = setup);

Test(v8_name, names_a_function_and_its_script)
{
	uint32_t fg;
	uint64_t sfi = new_sfi(one_byte("leaf", 4), "/srv/app/chain.js", &fg);
	struct v8_fn_name n;

	cr_assert_eq(v8_name__sfi(&L, read_heap, NULL, sfi, fg, &n), 0);
	cr_expect_str_eq(n.func, "leaf");
	cr_expect_str_eq(n.script, "/srv/app/chain.js");
	cr_expect_eq(n.line, 0, "no line_ends: no line, not a guessed one");
}

Test(v8_name, cons_thin_and_two_byte_strings)
{
	uint32_t fg;
	uint64_t two = new_obj(map_str2, L.seq2_chars + 8), thin = new_obj(map_thin, 24), sfi;
	const uint16_t chars[] = { 'm', 0xfc, 'd' };	/* "müd" in UTF-16 */
	struct v8_fn_name n;

	put32(two, L.str_length, 3);
	memcpy(heap + (two - L.heap_tag - BASE) + L.seq2_chars, chars, sizeof(chars));
	put64(thin, L.thin_actual, cons(one_byte("get_", 4), two));
	sfi = new_sfi(thin, "x.js", &fg);
	cr_assert_eq(v8_name__sfi(&L, read_heap, NULL, sfi, fg, &n), 0);
	cr_expect_str_eq(n.func, "get_m\xc3\xbc" "d");
}

Test(v8_name, moved_object_is_stale_never_renamed)
{
	uint32_t fg, fg2;
	uint64_t sfi = new_sfi(one_byte("leaf", 4), "a.js", &fg);
	uint64_t other = new_sfi(one_byte("other", 5), "b.js", &fg2);
	struct v8_fn_name n;

	/* the sampled fingerprint is another object's: what is there now is
	 * not the function sampled */
	cr_expect_eq(v8_name__sfi(&L, read_heap, NULL, sfi, fg ^ 1, &n), -ESTALE);
	/* not a SharedFunctionInfo at all (a string took the address) */
	cr_expect_eq(v8_name__sfi(&L, read_heap, NULL, one_byte("leaf", 4), fg, &n), -ESTALE);
	cr_expect_eq(v8_name__sfi(&L, read_heap, NULL, other, fg2, &n), 0);
	cr_expect_str_eq(n.func, "other");
}

Test(v8_name, looping_cons_string_bounded)
{
	uint32_t fg;
	uint64_t loop = cons(0, 0), sfi;
	struct v8_fn_name n;

	put64(loop, L.cons_first, loop);	/* its first half is itself */
	sfi = new_sfi(loop, "a.js", &fg);
	cr_expect_eq(v8_name__sfi(&L, read_heap, NULL, sfi, fg, &n), -EINVAL);
	cr_expect_lt(reads, 200, "%u reads", reads);
}

Test(v8_name, cons_tree_past_the_read_budget)
{
	uint32_t fg;
	uint64_t t = one_byte("ab", 2), sfi;
	struct v8_fn_name n;

	for (int i = 0; i < 8; i++)	/* a balanced tree: 256 leaves, 4 reads each */
		t = cons(t, t);
	sfi = new_sfi(t, "a.js", &fg);
	reads = 0;
	cr_expect_eq(v8_name__sfi(&L, read_heap, NULL, sfi, fg, &n), -EINVAL);
	cr_expect_leq(reads, 129, "%u reads: the budget, then none", reads);
}

Test(v8_name, huge_string_capped_and_marked)
{
	uint32_t fg;
	char body[600];
	uint64_t sfi;
	struct v8_fn_name n;

	memset(body, 'x', sizeof(body) - 1);
	body[sizeof(body) - 1] = '\0';
	sfi = new_sfi(one_byte(body, 1 << 30), "a.js", &fg);	/* says a billion */
	reads = 0;
	cr_assert_eq(v8_name__sfi(&L, read_heap, NULL, sfi, fg, &n), 0);
	cr_expect_eq(strlen(n.func), V8_FUNC_MAX - 1, "%zu: %s", strlen(n.func), n.func);
	cr_expect_str_eq(n.func + V8_FUNC_MAX - 4, "...");
	cr_expect_lt(reads, 20, "%u reads", reads);
}

Test(v8_name, control_characters_replaced)
{
	uint32_t fg;
	uint64_t sfi = new_sfi(one_byte("a\x1b[31m\n", 7), "/tmp/\x07x.js", &fg);
	struct v8_fn_name n;

	cr_assert_eq(v8_name__sfi(&L, read_heap, NULL, sfi, fg, &n), 0);
	cr_expect_str_eq(n.func, "a?[31m?");
	cr_expect_str_eq(n.script, "/tmp/?x.js");
}

Test(v8_name, unreadable_and_gone)
{
	struct v8_fn_name n;

	cr_expect_eq(v8_name__sfi(&L, read_heap, NULL, 0x7000000001ULL, 0, &n), -EFAULT);
	cr_expect_eq(n.func[0], '\0');
}
