/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The terminal a live view draws on, with ANSI escapes only: keys one at a
 * time without echo, the alternate screen, and everything put back. */
#ifndef BPFPROF_TERM_H
#define BPFPROF_TERM_H

#include <stdbool.h>
#include <stddef.h>

/* Standard input and output are both terminals. */
bool term__is_tty(void);

/* Keys without Enter and without echo (^C and ^Z stay signals), the
 * alternate screen, no cursor. Restored at exit() too. 0 or -errno with a
 * line printed. */
int term__start(void);

/* Puts the terminal back as it was (idempotent). Only tcsetattr() and
 * write(): safe in a signal handler. */
void term__restore(void);

/* The window's size; 24 x 80 when the terminal does not say. */
void term__size(int *rows, int *cols);

/* The next key typed, or -1 when none waits. */
int term__key(void);

/* Writes the whole of buf to the terminal. 0 or -errno. */
int term__write(const char *buf, size_t len);

#endif
