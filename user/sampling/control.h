/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* --control fifo:CTL[,ACK]: commands to a running sampler through FIFOs the
 * user made, as perf record's --control reads them: one word a line in CTL,
 * "ack\n" into ACK for each command carried out. Whoever can write CTL may
 * not be root: what they write costs the run a bounded share of its time
 * and a bounded number of lines on stderr, whatever it is. */
#ifndef BPFPROF_CONTROL_H
#define BPFPROF_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct control;

enum control_cmd {
	CONTROL_NONE = 0,	/* nothing */
	CONTROL_ENABLE,		/* count samples again */
	CONTROL_DISABLE,	/* count nothing until enable */
	CONTROL_SNAPSHOT,	/* write the profile so far now; sampling goes on */
	CONTROL_CLEAR,		/* drop what was counted so far */
	CONTROL_UNKNOWN,	/* a line that is none of these */
};

#define CONTROL_LINE_MAX	64	/* longer lines are cut there, bad, counted */
#define CONTROL_READ_BYTES	16384	/* read from CTL in one turn at most */
#define CONTROL_REST_MS		10	/* CTL left alone after a turn that did not empty it */
#define CONTROL_SNAPSHOT_GAP_MS	1000	/* at most one snapshot a second */
#define CONTROL_SAY_LINES	20	/* lines a minute about the commands ... */
#define CONTROL_QUOTE_LINES	3	/* ... of which bad lines quoted */

/* What one turn does, merged from the commands queued; each part answers
 * lines, acked when it is done. In this order: */
struct control_todo {
	enum control_cmd state;		/* the last ENABLE or DISABLE read, or NONE */
	bool state_changes;		/* it is not the state applied already */
	unsigned long state_lines;	/* the enable/disable lines it answers */
	unsigned long clear_lines;	/* a clear before the snapshot */
	bool snapshot;			/* a snapshot */
	unsigned long snapshot_lines;	/* the requests it answers (SIGUSR1's too) */
	unsigned long clear_after_lines; /* a clear read after the snapshot's request */
	unsigned long acks;		/* the lines among these read from CTL */
};

struct control_stats {
	unsigned long bad_lines;	/* neither command nor blank */
	unsigned long long_lines;	/* of which longer than CONTROL_LINE_MAX */
	unsigned long skipped;		/* snapshot requests a later snapshot answered */
	unsigned long acks_dropped;	/* acks ACK's pipe had no room for */
	unsigned long left_at_end;	/* requests the final profile answered */
};

/* The command a line names ("enable", ...; surrounding blanks ignored). */
enum control_cmd control__parse(const char *line, size_t len);

/* Opens CTL (and ACK, NULL: none): both must exist and be FIFOs (never
 * created); opened non-blocking, so no open or read waits for the other
 * end. CTL NULL: no FIFO, commands come from signals only. enabled: the
 * run's state now. Returns 0 or -errno with one line printed. */
int control__open(const char *ctl, const char *ack, bool enabled, struct control **out);

/* The descriptor to poll for input (POLLIN), -1 while CTL is left alone. */
int control__poll_fd(const struct control *c, uint64_t now);

/* When the next turn has something to do without new input (CLOCK_MONOTONIC
 * ns, as now; UINT64_MAX: never). */
uint64_t control__wake(const struct control *c, uint64_t now);

/* One turn's reading: at most CONTROL_READ_BYTES of CTL, its lines queued;
 * bad lines counted, a few a minute quoted. Nothing while resting. */
void control__read(struct control *c, uint64_t now);

/* Bytes as read from CTL: lines split (across calls too), queued. */
void control__feed(struct control *c, const char *bytes, size_t n, uint64_t now);

/* A command from elsewhere (SIGUSR1's snapshot): queued, no ack owed. */
void control__request(struct control *c, enum control_cmd cmd);

/* What to do now, false: nothing. Repeated enable/disable are one (the
 * last); a snapshot waits until CONTROL_SNAPSHOT_GAP_MS after the last,
 * answering the requests in between. */
bool control__take(struct control *c, uint64_t now, struct control_todo *t);

/* t carried out between start and end: its lines acked; CTL is left alone
 * as long again, so commands take at most half the run's time. */
void control__done(struct control *c, const struct control_todo *t, uint64_t start, uint64_t end);

/* The run ended: requests still waiting (a snapshot the final profile
 * answers) acked and counted. */
void control__end(struct control *c);

/* Whether one more line about the commands may be printed now (at most
 * CONTROL_SAY_LINES a minute; the rest counted, said in one line when the
 * minute is over). */
bool control__may_say(struct control *c, uint64_t now);

void control__stats(const struct control *c, struct control_stats *st);

void control__close(struct control *c);

/* The command's name, for messages. */
const char *control__name(enum control_cmd cmd);

#endif
