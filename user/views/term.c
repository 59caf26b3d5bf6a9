// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Terminal modes and the alternate screen, by termios and ANSI escapes (no
 * curses: a live table needs cursor home, clear to end of line and of
 * screen, inverse video, and nothing else). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "base/errors.h"
#include "views/term.h"

#define ENTER_SCREEN	"\033[?1049h\033[?25l\033[H\033[2J"	/* alternate screen, no cursor */
#define LEAVE_SCREEN	"\033[0m\033[?25h\033[?1049l"

static struct termios saved;
static volatile sig_atomic_t active;	/* saved holds what to put back */
static bool at_exit_set;

bool term__is_tty(void)
{
	return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

int term__write(const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(STDOUT_FILENO, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

void term__restore(void)
{
	static const char leave[] = LEAVE_SCREEN;

	if (!active)
		return;
	active = 0;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
	if (write(STDOUT_FILENO, leave, sizeof(leave) - 1) < 0)
		return;	/* the terminal is gone: nothing to put back */
}

int term__start(void)
{
	struct termios t;
	int err;

	if (tcgetattr(STDIN_FILENO, &saved)) {
		err = -errno;
		p_err("top: cannot read the terminal's mode: %s", strerror(errno));
		return err;
	}
	t = saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);	/* ISIG stays: ^C is SIGINT */
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t)) {
		err = -errno;
		p_err("top: cannot set the terminal's mode: %s", strerror(errno));
		return err;
	}
	active = 1;
	if (!at_exit_set)
		at_exit_set = atexit(term__restore) == 0;
	return term__write(ENTER_SCREEN, sizeof(ENTER_SCREEN) - 1);
}

void term__size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

int term__key(void)
{
	unsigned char c;

	return read(STDIN_FILENO, &c, 1) == 1 ? c : -1;
}
