// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The control FIFOs: commands parsed, lines split across reads, acks,
 * anything but a FIFO refused, nothing created. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "control.h"
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

Test(control, commands_split_across_writes_and_acked)
{
	struct control *c;
	char line[80], buf[16];
	int w, r;

	cr_assert_eq(control__open(ctl, ack, &c), 0);
	w = open(ctl, O_WRONLY | O_NONBLOCK);
	r = open(ack, O_RDONLY | O_NONBLOCK);
	cr_assert(w >= 0 && r >= 0);
	cr_assert_eq(control__next(c, line, sizeof(line)), CONTROL_NONE);
	cr_assert_eq(write(w, "ena", 3), 3);
	cr_assert_eq(control__next(c, line, sizeof(line)), CONTROL_NONE);
	cr_assert_eq(write(w, "ble\nbogus\nclear\n", 16), 16);
	cr_assert_eq(control__next(c, line, sizeof(line)), CONTROL_ENABLE);
	control__ack(c);
	cr_assert_eq(control__next(c, line, sizeof(line)), CONTROL_UNKNOWN);
	cr_assert_str_eq(line, "bogus");
	cr_assert_eq(control__next(c, line, sizeof(line)), CONTROL_CLEAR);
	control__ack(c);
	cr_assert_eq(control__next(c, line, sizeof(line)), CONTROL_NONE);
	cr_assert_eq(read(r, buf, sizeof(buf)), 8);
	cr_assert_eq(memcmp(buf, "ack\nack\n", 8), 0);
	cr_assert_eq(control__acks_dropped(c), 0);
	close(w);
	close(r);
	control__close(c);
}

Test(control, overlong_line_is_unknown_and_skipped)
{
	struct control *c;
	char line[16], big[200];
	int w;

	cr_assert_eq(control__open(ctl, NULL, &c), 0);
	w = open(ctl, O_WRONLY | O_NONBLOCK);
	cr_assert(w >= 0);
	memset(big, 'x', sizeof(big));
	cr_assert_eq(write(w, big, sizeof(big)), (ssize_t)sizeof(big));
	cr_assert_eq(write(w, "\nsnapshot\n", 10), 10);
	cr_assert_eq(control__next(c, line, sizeof(line)), CONTROL_UNKNOWN);
	cr_assert_eq(control__next(c, line, sizeof(line)), CONTROL_SNAPSHOT);
	control__ack(c);	/* no ACK FIFO: nothing to do */
	close(w);
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
	cr_assert_lt(control__open(file, NULL, &c), 0);
	cr_assert_lt(control__open(ctl, dir, &c), 0);
	cr_assert_lt(control__open(missing, NULL, &c), 0);
	cr_assert_eq(access(missing, F_OK), -1, "the missing path was created");
	cr_assert_null(c);
	unlink(file);
}
