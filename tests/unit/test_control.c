// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The control FIFOs: commands parsed, lines split across reads, acks,
 * anything but a FIFO refused, nothing created; commands merged, snapshots
 * limited, CTL read a budget a turn, bad lines counted and a few quoted. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sampling/control.h"
#include "leak_check.h"

static char dir[] = "/tmp/test_control.XXXXXX";
static char ctl[64], ack[64];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(ctl, sizeof(ctl), "%s/ctl", dir);
	snprintf(ack, sizeof(ack), "%s/ack", dir);
	cr_assert_eq(mkfifo(ctl, 0600), 0);
	cr_assert_eq(mkfifo(ack, 0600), 0);
}

static void teardown(void)
{
	unlink(ctl);
	unlink(ack);
	rmdir(dir);
	strcpy(dir, "/tmp/test_control.XXXXXX");
	check_leaks();
}

TestSuite(control, .init = setup, .fini = teardown);

Test(control, parse)
{
	cr_assert_eq(control__parse("enable", 6), CONTROL_ENABLE);
	cr_assert_eq(control__parse(" disable\r", 9), CONTROL_DISABLE);
	cr_assert_eq(control__parse("snapshot", 8), CONTROL_SNAPSHOT);
	cr_assert_eq(control__parse("clear\t", 6), CONTROL_CLEAR);
	cr_assert_eq(control__parse("enabled", 7), CONTROL_UNKNOWN);
	cr_assert_eq(control__parse("enab", 4), CONTROL_UNKNOWN);
	cr_assert_eq(control__parse("", 0), CONTROL_UNKNOWN);
	cr_assert_str_eq(control__name(CONTROL_SNAPSHOT), "snapshot");
}

#define MS	1000000ull
#define T0	(1000 * MS)	/* any time: the clock is the caller's */

/* One turn at NOW: what CTL holds read, the todo taken, done in no time. */
static bool turn(struct control *c, uint64_t now, struct control_todo *t)
{
	control__read(c, now);
	if (!control__take(c, now, t))
		return false;
	control__done(c, t, now, now);
	return true;
}

Test(control, commands_split_across_writes_and_acked)
{
	struct control_todo t;
	struct control *c;
	char buf[16];
	int w, r;

	cr_assert_eq(control__open(ctl, ack, false, &c), 0);
	w = open(ctl, O_WRONLY | O_NONBLOCK);
	r = open(ack, O_RDONLY | O_NONBLOCK);
	cr_assert(w >= 0 && r >= 0);
	cr_assert_not(turn(c, T0, &t));
	cr_assert_eq(write(w, "ena", 3), 3);
	cr_assert_not(turn(c, T0, &t));
	cr_assert_eq(write(w, "ble\nbogus\nclear\n", 16), 16);
	cr_assert(turn(c, T0, &t));
	cr_assert(t.state == CONTROL_ENABLE && t.state_changes && t.state_lines == 1);
	cr_assert(t.clear_lines == 1 && !t.snapshot && t.acks == 2);
	cr_assert_eq(read(r, buf, sizeof(buf)), 8);
	cr_assert_eq(memcmp(buf, "ack\nack\n", 8), 0);
	cr_assert_not(turn(c, T0, &t));
	close(w);
	close(r);
	control__close(c);
}

Test(control, enable_disable_merged_last_one_applied)
{
	struct control_todo t;
	struct control *c;
	char lines[2000 * 15];
	int i;

	cr_assert_eq(control__open(NULL, NULL, true, &c), 0);
	for (i = 0; i < 2000; i++)
		memcpy(lines + i * 15, "enable\ndisable\n", 15);
	control__feed(c, lines, sizeof(lines), T0);
	cr_assert(control__take(c, T0, &t));
	cr_assert(t.state == CONTROL_DISABLE && t.state_changes && t.state_lines == 4000);
	control__done(c, &t, T0, T0);
	control__feed(c, "disable\n", 8, T0);
	cr_assert(control__take(c, T0, &t));
	cr_assert(t.state == CONTROL_DISABLE && !t.state_changes, "already disabled: not applied again");
	control__close(c);
}

Test(control, snapshots_at_most_one_a_second_the_rest_answered_by_the_next)
{
	struct control_stats st;
	struct control_todo t;
	struct control *c;
	int i;

	cr_assert_eq(control__open(NULL, NULL, true, &c), 0);
	control__feed(c, "snapshot\n", 9, T0);
	cr_assert(control__take(c, T0, &t) && t.snapshot && t.snapshot_lines == 1);
	control__done(c, &t, T0, T0);
	for (i = 0; i < 5; i++)
		control__feed(c, "snapshot\n", 9, T0 + 100 * MS);
	control__request(c, CONTROL_SNAPSHOT);	/* SIGUSR1: no ack owed */
	control__feed(c, "clear\n", 6, T0 + 100 * MS);
	cr_assert_not(control__take(c, T0 + 100 * MS, &t), "within the second: waits");
	cr_assert_eq(control__wake(c, T0 + 100 * MS), T0 + 1000 * MS);
	cr_assert_not(control__take(c, T0 + 999 * MS, &t));
	cr_assert(control__take(c, T0 + 1000 * MS, &t));
	cr_assert(t.snapshot && t.snapshot_lines == 6 && t.clear_after_lines == 1 && !t.clear_lines,
		  "the clear read after the requests runs after their snapshot");
	cr_assert_eq(t.acks, 6);
	control__done(c, &t, T0 + 1000 * MS, T0 + 1000 * MS);
	control__stats(c, &st);
	cr_assert_eq(st.skipped, 5);
	cr_assert_eq(control__wake(c, T0 + 1000 * MS), UINT64_MAX, "nothing waits");
	control__feed(c, "snapshot\n", 9, T0 + 1100 * MS);
	control__end(c);	/* the final profile answers it */
	control__stats(c, &st);
	cr_assert_eq(st.left_at_end, 1);
	control__close(c);
}

Test(control, clear_before_a_snapshot_runs_first)
{
	struct control_todo t;
	struct control *c;

	cr_assert_eq(control__open(NULL, NULL, true, &c), 0);
	control__feed(c, "clear\nsnapshot\nclear\n", 21, T0);
	cr_assert(control__take(c, T0, &t));
	cr_assert(t.clear_lines == 1 && t.snapshot && t.clear_after_lines == 1);
	control__close(c);
}

Test(control, ctl_read_a_budget_a_turn_then_left_alone_as_long_as_commands_took)
{
	struct control_todo t;
	struct control *c;
	char lines[65536];
	size_t i;
	int w;

	cr_assert_eq(control__open(ctl, NULL, false, &c), 0);
	w = open(ctl, O_WRONLY | O_NONBLOCK);
	cr_assert(w >= 0);
	for (i = 0; i + 7 <= sizeof(lines); i += 7)
		memcpy(lines + i, "enable\n", 7);
	cr_assert_eq(write(w, lines, i), (ssize_t)i);
	cr_assert(turn(c, T0, &t));
	cr_assert_leq(t.state_lines, CONTROL_READ_BYTES / 7, "one budget read: %lu lines", t.state_lines);
	cr_assert_eq(control__poll_fd(c, T0), -1, "more waits: CTL rests");
	cr_assert_eq(control__wake(c, T0), T0 + CONTROL_REST_MS * MS);
	cr_assert_not(turn(c, T0 + MS, &t), "resting: nothing read");
	cr_assert(turn(c, T0 + CONTROL_REST_MS * MS, &t));
	control__done(c, &t, T0 + 20 * MS, T0 + 70 * MS);	/* took 50 ms */
	cr_assert_eq(control__poll_fd(c, T0 + 119 * MS), -1);
	cr_assert_geq(control__poll_fd(c, T0 + 120 * MS), 0);
	close(w);
	control__close(c);
}

Test(control, bad_lines_counted_a_few_quoted)
{
	struct control_stats st;
	struct control_todo t;
	struct control *c;
	char line[300], out[8192];
	FILE *err = tmpfile();
	int saved = dup(2), i;
	size_t n;

	cr_assert(err && saved >= 0);
	cr_assert_eq(control__open(NULL, NULL, true, &c), 0);
	fflush(stderr);
	dup2(fileno(err), 2);
	for (i = 0; i < 10000; i++)
		control__feed(c, "bogus\n", 6, T0);
	memset(line, 'x', sizeof(line));
	line[sizeof(line) - 1] = '\n';
	control__feed(c, line, sizeof(line), T0);
	control__feed(c, "snap", 4, T0);
	control__feed(c, "shot\n", 5, T0);
	control__feed(c, "bogus\n", 6, T0 + 61000 * MS);	/* a new minute */
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(err);
	n = fread(out, 1, sizeof(out) - 1, err);
	out[n] = 0;
	fclose(err);
	control__stats(c, &st);
	cr_assert_eq(st.bad_lines, 10002);
	cr_assert_eq(st.long_lines, 1);
	cr_assert(control__take(c, T0, &t) && t.snapshot, "a command after bad lines still read");
	cr_assert_lt(n, 1024, "stderr: %s", out);
	cr_assert_not_null(strstr(out, "9998 more bad control lines ignored"), "%s", out);
	cr_assert_not_null(strstr(out, "unknown command 'bogus'"), "%s", out);
	control__close(c);
}

Test(control, refuses_what_is_not_a_fifo)
{
	struct control *c = NULL;
	char file[80], missing[80];
	int fd;

	snprintf(file, sizeof(file), "%s/regular", dir);
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert_lt(control__open(file, NULL, true, &c), 0);
	cr_assert_lt(control__open(ctl, dir, true, &c), 0);
	cr_assert_lt(control__open(missing, NULL, true, &c), 0);
	cr_assert_eq(access(missing, F_OK), -1, "the missing path was created");
	cr_assert_null(c);
	unlink(file);
}
