// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The control FIFOs: commands in, acks out, nothing ever waits on them;
 * what the commands cost is bounded whoever writes them (see control.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sampling/control.h"
#include "base/errors.h"

#define NS_PER_MS	1000000ull
#define SAY_WINDOW_NS	(60000 * NS_PER_MS)
#define QUOTE_MAX	40	/* of a bad line, in its warning */

/* Commands read and not yet carried out, merged: the last enable/disable;
 * a clear; a snapshot (the requests it answers); a clear read after it. */
struct queue {
	enum control_cmd state;
	unsigned long state_lines, clear_lines, clear_after_lines;
	bool snapshot;
	unsigned long snapshot_lines, snapshot_acks;
};

struct control {
	int ctl_fd, ack_fd;
	char line[CONTROL_LINE_MAX];	/* the line being read */
	size_t len;
	bool overlong;			/* it no longer fits: the rest up to its end dropped */
	bool enabled;			/* the state applied last */
	struct queue q;
	uint64_t last_snapshot;		/* began, ns; 0: none yet */
	uint64_t rest_until;		/* no command until then: half the time for the rest */
	uint64_t read_again;		/* CTL was not emptied: read again from then */
	uint64_t say_window;		/* the current minute of lines began */
	unsigned said, quoted;		/* lines printed in it, bad lines quoted */
	unsigned long held_bad, held_said;	/* not printed in it */
	struct control_stats st;
};

static const char *const names[] = {
	[CONTROL_ENABLE] = "enable", [CONTROL_DISABLE] = "disable",
	[CONTROL_SNAPSHOT] = "snapshot", [CONTROL_CLEAR] = "clear",
};

const char *control__name(enum control_cmd cmd)
{
	return cmd > CONTROL_NONE && cmd < CONTROL_UNKNOWN ? names[cmd] : "unknown";
}

enum control_cmd control__parse(const char *line, size_t len)
{
	int cmd;

	while (len && (line[0] == ' ' || line[0] == '\t'))
		line++, len--;
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		len--;
	for (cmd = CONTROL_ENABLE; cmd < CONTROL_UNKNOWN; cmd++)
		if (strlen(names[cmd]) == len && !memcmp(names[cmd], line, len))
			return (enum control_cmd)cmd;
	return CONTROL_UNKNOWN;
}

/* A FIFO that exists, opened without waiting for its other end: O_RDWR
 * makes us a reader and a writer of it, so opening never blocks or fails
 * for want of a peer (Linux defines this for FIFOs), and CTL never reads
 * as closed between two writers. Checked again on the open file. */
static int open_fifo(const char *path, const char *what)
{
	struct stat st;
	int fd, err;

	if (stat(path, &st)) {
		err = -errno;
		p_err("--control %s %s: %s", what, path, strerror(errno));
		return err;
	}
	if (!S_ISFIFO(st.st_mode)) {
		p_err("--control %s %s: not a FIFO (make one with mkfifo)", what, path);
		return -EINVAL;
	}
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) || !S_ISFIFO(st.st_mode)) {
		err = fd < 0 ? -errno : -EINVAL;
		p_err("--control %s %s: %s", what, path,
			fd < 0 ? strerror(errno) : "not a FIFO (replaced while opened)");
		if (fd >= 0)
			close(fd);
		return err;
	}
	return fd;
}

int control__open(const char *ctl, const char *ack, bool enabled, struct control **out)
{
	struct control *c = calloc(1, sizeof(*c));
	int err = 0;

	if (!c)
		return -ENOMEM;
	c->ctl_fd = c->ack_fd = -1;
	c->enabled = enabled;
	if (ctl && (c->ctl_fd = open_fifo(ctl, "control FIFO")) < 0)
		err = c->ctl_fd;
	if (!err && ctl && ack && (c->ack_fd = open_fifo(ack, "ack FIFO")) < 0)
		err = c->ack_fd;
	if (err) {
		control__close(c);
		return err;
	}
	*out = c;
	return 0;
}

static uint64_t resting_until(const struct control *c)
{
	return c->rest_until > c->read_again ? c->rest_until : c->read_again;
}

int control__poll_fd(const struct control *c, uint64_t now)
{
	return now < resting_until(c) ? -1 : c->ctl_fd;
}

static uint64_t snapshot_due(const struct control *c)
{
	return c->last_snapshot ? c->last_snapshot + CONTROL_SNAPSHOT_GAP_MS * NS_PER_MS : 0;
}

uint64_t control__wake(const struct control *c, uint64_t now)
{
	uint64_t due = snapshot_due(c), rest = resting_until(c);

	if (!c->q.snapshot)	/* only CTL's rest to wait for */
		return now < rest ? rest : UINT64_MAX;
	return due > rest ? due : rest;
}

/* The minute's lines not printed, said in one line when it is over. */
static void say_window(struct control *c, uint64_t now)
{
	if (c->say_window && now - c->say_window < SAY_WINDOW_NS)
		return;
	if (c->held_bad || c->held_said)
		p_warn("control: %lu more bad control lines ignored, %lu lines about commands "
		       "not printed in the last minute (at most %d lines a minute)",
		       c->held_bad, c->held_said, CONTROL_SAY_LINES);
	c->say_window = now;
	c->said = c->quoted = 0;
	c->held_bad = c->held_said = 0;
}

static bool say_slot(struct control *c, uint64_t now)
{
	say_window(c, now);
	if (c->said >= CONTROL_SAY_LINES)
		return false;
	c->said++;
	return true;
}

bool control__may_say(struct control *c, uint64_t now)
{
	if (say_slot(c, now))
		return true;
	c->held_said++;
	return false;
}

static void queue(struct control *c, enum control_cmd cmd, bool from_ctl)
{
	struct queue *q = &c->q;

	if (cmd == CONTROL_ENABLE || cmd == CONTROL_DISABLE) {
		q->state = cmd;
		q->state_lines++;
	} else if (cmd == CONTROL_SNAPSHOT) {
		q->snapshot = true;
		q->snapshot_lines++;
		q->snapshot_acks += from_ctl;
	} else if (cmd == CONTROL_CLEAR && q->snapshot) {
		q->clear_after_lines++;	/* after the snapshot asked before it */
	} else if (cmd == CONTROL_CLEAR) {
		q->clear_lines++;
	}
}

void control__request(struct control *c, enum control_cmd cmd)
{
	queue(c, cmd, false);
}

/* A bad line: counted; quoted, cut, while the minute has room. */
static void bad_line(struct control *c, uint64_t now)
{
	size_t n = c->len < QUOTE_MAX ? c->len : QUOTE_MAX;

	c->st.bad_lines++;
	c->st.long_lines += c->overlong;
	say_window(c, now);
	if (c->quoted >= CONTROL_QUOTE_LINES || !say_slot(c, now)) {
		c->held_bad++;
		return;
	}
	c->quoted++;
	if (c->overlong)
		p_warn("control: a line longer than %d bytes ('%.*s...'): ignored",
		       CONTROL_LINE_MAX, (int)n, c->line);
	else
		p_warn("control: unknown command '%.*s%s' (enable, disable, snapshot, clear): "
		       "ignored", (int)n, c->line, n < c->len ? "..." : "");
}

static void end_line(struct control *c, uint64_t now)
{
	enum control_cmd cmd = c->overlong ? CONTROL_UNKNOWN : control__parse(c->line, c->len);

	if (cmd == CONTROL_UNKNOWN)
		bad_line(c, now);
	else
		queue(c, cmd, true);
	c->len = 0;
	c->overlong = false;
}

void control__feed(struct control *c, const char *bytes, size_t n, uint64_t now)
{
	while (n) {
		const char *nl = memchr(bytes, '\n', n);
		size_t part = nl ? (size_t)(nl - bytes) : n;
		size_t room = sizeof(c->line) - c->len;

		c->overlong |= part > room;
		memcpy(c->line + c->len, bytes, part < room ? part : room);
		c->len += part < room ? part : room;
		if (!nl)
			return;
		end_line(c, now);
		bytes = nl + 1;
		n -= part + 1;
	}
}

void control__read(struct control *c, uint64_t now)
{
	char buf[CONTROL_READ_BYTES];
	ssize_t n;

	say_window(c, now);
	if (c->ctl_fd < 0 || now < resting_until(c))
		return;
	n = read(c->ctl_fd, buf, sizeof(buf));
	if (n <= 0)
		return;		/* EAGAIN: nothing waits */
	control__feed(c, buf, (size_t)n, now);
	if ((size_t)n == sizeof(buf))	/* more may wait: the next turn, not at once */
		c->read_again = now + CONTROL_REST_MS * NS_PER_MS;
}

bool control__take(struct control *c, uint64_t now, struct control_todo *t)
{
	struct queue *q = &c->q;

	*t = (struct control_todo){ 0 };
	if (now < c->rest_until)
		return false;
	t->state = q->state;
	t->state_changes = q->state != CONTROL_NONE && (q->state == CONTROL_ENABLE) != c->enabled;
	t->state_lines = q->state_lines;
	t->clear_lines = q->clear_lines;
	q->state = CONTROL_NONE;
	q->state_lines = q->clear_lines = 0;
	if (q->snapshot && now >= snapshot_due(c)) {
		t->snapshot = true;
		t->snapshot_lines = q->snapshot_lines;
		t->clear_after_lines = q->clear_after_lines;
		t->acks = q->snapshot_acks + q->clear_after_lines;
		c->st.skipped += q->snapshot_lines - 1;
		c->last_snapshot = now;
		*q = (struct queue){ 0 };
	}
	t->acks += t->state_lines + t->clear_lines;
	return t->state_lines || t->clear_lines || t->snapshot;
}

static void write_acks(struct control *c, unsigned long n)
{
	char acks[4096];	/* PIPE_BUF: each write all or nothing */
	size_t i, k;

	if (c->ack_fd < 0)
		return;
	for (i = 0; i < sizeof(acks); i += 4)
		memcpy(acks + i, "ack\n", 4);
	while (n) {
		k = n < sizeof(acks) / 4 ? n : sizeof(acks) / 4;
		if (write(c->ack_fd, acks, k * 4) != (ssize_t)(k * 4)) {
			c->st.acks_dropped += n;
			return;
		}
		n -= k;
	}
}

void control__done(struct control *c, const struct control_todo *t, uint64_t start, uint64_t end)
{
	uint64_t rest = end + (end - start);

	if (t->state_changes)
		c->enabled = t->state == CONTROL_ENABLE;
	write_acks(c, t->acks);
	if (rest > c->rest_until)
		c->rest_until = rest;
}

void control__end(struct control *c)
{
	c->st.left_at_end += c->q.snapshot_lines + c->q.clear_after_lines;
	write_acks(c, c->q.snapshot_acks + c->q.clear_after_lines);
	c->q = (struct queue){ 0 };
}

void control__stats(const struct control *c, struct control_stats *st)
{
	*st = c->st;
}

void control__close(struct control *c)
{
	if (!c)
		return;
	if (c->ctl_fd >= 0)
		close(c->ctl_fd);
	if (c->ack_fd >= 0)
		close(c->ack_fd);
	free(c);
}
