// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The control FIFOs: commands in, acks out, nothing ever waits on them. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "control.h"
#include "errors.h"

#define LINE_MAX_LEN	64	/* longer lines are no command: dropped up to their end */

struct control {
	int ctl_fd, ack_fd;
	char buf[LINE_MAX_LEN];
	size_t len;
	bool overlong;		/* the line being read no longer fits: skip to its end */
	unsigned long acks_dropped;
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

int control__open(const char *ctl, const char *ack, struct control **out)
{
	struct control *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->ack_fd = -1;
	c->ctl_fd = open_fifo(ctl, "control FIFO");
	if (c->ctl_fd >= 0 && ack)
		c->ack_fd = open_fifo(ack, "ack FIFO");
	if (c->ctl_fd < 0 || (ack && c->ack_fd < 0)) {
		int err = c->ctl_fd < 0 ? c->ctl_fd : c->ack_fd;

		control__close(c);
		return err;
	}
	*out = c;
	return 0;
}

int control__fd(const struct control *c)
{
	return c->ctl_fd;
}

/* A whole line from what was read, if one is there. */
static enum control_cmd take_line(struct control *c, char *line, size_t size)
{
	char *nl = memchr(c->buf, '\n', c->len);
	size_t n;
	enum control_cmd cmd;

	if (!nl)
		return CONTROL_NONE;
	n = (size_t)(nl - c->buf);
	cmd = c->overlong ? CONTROL_UNKNOWN : control__parse(c->buf, n);
	snprintf(line, size, "%s%.*s", c->overlong ? "..." : "", (int)n, c->buf);
	c->overlong = false;
	c->len -= n + 1;
	memmove(c->buf, nl + 1, c->len);
	return cmd;
}

enum control_cmd control__next(struct control *c, char *line, size_t size)
{
	enum control_cmd cmd = take_line(c, line, size);
	ssize_t n;

	while (cmd == CONTROL_NONE) {
		if (c->len == sizeof(c->buf)) {	/* no newline in a full buffer */
			c->overlong = true;
			c->len = 0;
		}
		n = read(c->ctl_fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n <= 0)
			return CONTROL_NONE;	/* EAGAIN: nothing more now */
		c->len += (size_t)n;
		cmd = take_line(c, line, size);
	}
	return cmd;
}

void control__ack(struct control *c)
{
	static const char ack[] = "ack\n";

	if (c->ack_fd >= 0 && write(c->ack_fd, ack, sizeof(ack) - 1) != (ssize_t)sizeof(ack) - 1)
		c->acks_dropped++;
}

unsigned long control__acks_dropped(const struct control *c)
{
	return c->acks_dropped;
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
