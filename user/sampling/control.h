/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* --control fifo:CTL[,ACK]: commands to a running sampler through FIFOs the
 * user made, as perf record's --control reads them: one word a line in CTL,
 * "ack\n" into ACK for each command carried out. */
#ifndef BPFPROF_CONTROL_H
#define BPFPROF_CONTROL_H

#include <stddef.h>

struct control;

enum control_cmd {
	CONTROL_NONE = 0,	/* no complete line waiting */
	CONTROL_ENABLE,		/* count samples again */
	CONTROL_DISABLE,	/* count nothing until enable */
	CONTROL_SNAPSHOT,	/* write the profile so far now; sampling goes on */
	CONTROL_CLEAR,		/* drop what was counted so far */
	CONTROL_UNKNOWN,	/* a line that is none of these */
};

/* The command a line names ("enable", ...; surrounding blanks ignored). */
enum control_cmd control__parse(const char *line, size_t len);

/* Opens CTL (and ACK, NULL: none): both must exist and be FIFOs (never
 * created); opened non-blocking, so no open or read waits for the other
 * end. Returns 0 or -errno with one line printed. */
int control__open(const char *ctl, const char *ack, struct control **out);

/* The descriptor to poll for input (POLLIN). */
int control__fd(const struct control *c);

/* The next command read from CTL, CONTROL_NONE when no whole line waits;
 * reads what is there without blocking. line gets the line (cut to size)
 * for messages. */
enum control_cmd control__next(struct control *c, char *line, size_t size);

/* "ack\n" into ACK, if there is one and its reader keeps up (a full pipe
 * drops it, counted). */
void control__ack(struct control *c);

/* Acks ACK's pipe had no room for. */
unsigned long control__acks_dropped(const struct control *c);

void control__close(struct control *c);

/* The command's name, for messages. */
const char *control__name(enum control_cmd cmd);

#endif
