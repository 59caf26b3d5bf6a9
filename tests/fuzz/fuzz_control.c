// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: the --control FIFO's reader (user/sampling/control.c), what
 * another user may write into CTL. The input is chunks, each a header byte
 * (its length 0..63, and 0..3 times 400 ms that pass before it) then its
 * bytes, fed as reads would hand them over, a turn taken after each. Checked
 * against a plain reference reading of the same bytes: every command line
 * is answered exactly once (by a turn or at the end), every bad line
 * counted (and the long ones), the state applied is the last one asked,
 * snapshots are a second apart.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sampling/control.h"
#include "fuzz_check.h"

#define MS	1000000ull

struct reference {
	unsigned long commands, bad, long_lines;
	enum control_cmd last_state;
	size_t len;		/* of the line being read */
	char line[CONTROL_LINE_MAX];
};

static void reference_feed(struct reference *r, const uint8_t *b, size_t n)
{
	enum control_cmd cmd;
	size_t i;

	for (i = 0; i < n; i++) {
		if (b[i] != '\n') {
			if (r->len < sizeof(r->line))
				r->line[r->len] = (char)b[i];
			r->len++;
			continue;
		}
		cmd = r->len > sizeof(r->line) ? CONTROL_UNKNOWN : control__parse(r->line, r->len);
		r->long_lines += r->len > sizeof(r->line);
		if (cmd == CONTROL_UNKNOWN)
			r->bad++;
		else
			r->commands++;
		if (cmd == CONTROL_ENABLE || cmd == CONTROL_DISABLE)
			r->last_state = cmd;
		r->len = 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reference ref = { .last_state = CONTROL_NONE };
	enum control_cmd applied = CONTROL_ENABLE;
	unsigned long answered = 0;
	uint64_t now = 1000 * MS, last_snapshot = 0;
	struct control_stats st;
	struct control_todo t;
	struct control *c;
	size_t n;

	CHECK(!control__open(NULL, NULL, true, &c));
	while (size) {
		n = data[0] & 63;
		now += (data[0] >> 6) * 400 * MS;
		data++, size--;
		n = n < size ? n : size;
		control__feed(c, (const char *)data, n, now);
		reference_feed(&ref, data, n);
		data += n, size -= n;
		if (!control__take(c, now, &t))
			continue;
		CHECK(!t.snapshot || !last_snapshot ||
		      now >= last_snapshot + CONTROL_SNAPSHOT_GAP_MS * MS);
		if (t.snapshot)
			last_snapshot = now;
		CHECK(t.state_changes == (t.state != CONTROL_NONE && t.state != applied));
		if (t.state_changes)
			applied = t.state;
		answered += t.state_lines + t.clear_lines + t.snapshot_lines + t.clear_after_lines;
		CHECK(t.acks == t.state_lines + t.clear_lines + t.snapshot_lines + t.clear_after_lines);
		control__done(c, &t, now, now);
	}
	control__end(c);
	control__stats(c, &st);
	CHECK(answered + st.left_at_end == ref.commands);
	CHECK(st.bad_lines == ref.bad && st.long_lines == ref.long_lines);
	CHECK(ref.last_state == CONTROL_NONE || applied == ref.last_state);
	control__close(c);
	return 0;
}
