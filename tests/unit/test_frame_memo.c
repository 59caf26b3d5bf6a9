// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of frame_memo.c (an address's resolved frames, kept) and of
 * profile__intern() (the profile's own copies, which memo frames point at). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "profile/aggregate.h"
#include "symbols/frame_memo.h"
#include "leak_check.h"
#include "profile/unnamed.h"

TestSuite(frame_memo, .fini = check_leaks);

/* Past several growths of the table and the pool, every address gives
 * back exactly its own frames (count, order, reason), and one never added
 * is not found. */
Test(frame_memo, each_address_its_own_frames_across_growth)
{
	struct frame_memo *m = frame_memo__new();
	struct pframe f[3];
	struct memo_hit hit;

	cr_assert_not_null(m);
	for (uint64_t a = 0; a < 20000; a++) {
		uint32_t n = 1 + a % 3;

		for (uint32_t i = 0; i < n; i++)
			f[i] = (struct pframe){ .addr = a, .line = i, .inlined = i > 0 };
		cr_assert_eq(frame_memo__add(m, a * 16 + 0x400000, f, n,
					     a % 5 ? UNNAMED_NONE : UNNAMED_NO_SYMBOL, &hit), 0);
		cr_assert_eq(hit.n, n);
	}
	for (uint64_t a = 0; a < 20000; a++) {
		cr_assert(frame_memo__find(m, a * 16 + 0x400000, &hit), "address %lu lost", a);
		cr_assert_eq(hit.n, 1 + a % 3);
		cr_assert_eq(hit.why, a % 5 ? UNNAMED_NONE : UNNAMED_NO_SYMBOL);
		for (uint32_t i = 0; i < hit.n; i++) {
			cr_assert_eq(hit.frames[i].addr, a);
			cr_assert_eq(hit.frames[i].line, i);
		}
	}
	cr_assert_not(frame_memo__find(m, 0x400008, &hit));
	frame_memo__free(m);
}

/* A forget drops every address (the next process's same address is
 * another function), and what is added after it is found again; the first
 * answer for an address stays. */
Test(frame_memo, forget_drops_everything_first_answer_stays)
{
	struct frame_memo *m = frame_memo__new();
	struct pframe a = { .name = "a" }, b = { .name = "b" };
	struct memo_hit hit;

	cr_assert_not_null(m);
	for (int round = 0; round < 3; round++) {
		for (uint64_t addr = 1; addr <= 3000; addr++)
			cr_assert_eq(frame_memo__add(m, addr, round % 2 ? &b : &a, 1, UNNAMED_NONE, &hit), 0);
		cr_assert_eq(frame_memo__add(m, 7, round % 2 ? &a : &b, 1, UNNAMED_NO_MAPPING, &hit), 0);
		cr_assert_str_eq(hit.frames[0].name, round % 2 ? "b" : "a");
		cr_assert_eq(hit.why, UNNAMED_NONE);
		frame_memo__forget(m);
		for (uint64_t addr = 1; addr <= 3000; addr++)
			cr_assert_not(frame_memo__find(m, addr, &hit), "round %d: %lu kept", round, addr);
	}
	frame_memo__free(m);
}

/* The profile's copies: equal strings give one copy, whatever buffer they
 * came in; a copy handed back in is itself (the fast path frames from the
 * memo take) and stays equal to the string it copies. */
Test(frame_memo, profile_intern_copies_once)
{
	struct profile *p = profile__new();
	char buf[32];
	const char *copy, *again;

	cr_assert_not_null(p);
	for (int i = 0; i < 3000; i++) {
		snprintf(buf, sizeof(buf), "fn_%d", i);
		copy = profile__intern(p, buf);
		cr_assert_not_null(copy);
		cr_assert_neq(copy, buf);
		cr_assert_str_eq(copy, buf);
		cr_assert_eq(profile__intern(p, copy), copy);
	}
	snprintf(buf, sizeof(buf), "fn_%d", 17);
	again = profile__intern(p, buf);
	cr_assert_str_eq(again, "fn_17");
	cr_assert_eq(profile__intern(p, again), again);
	cr_assert_str_eq(profile__intern(p, NULL), "");
	cr_assert_eq(p->names.n, 3001);
	profile__free(p);
}
