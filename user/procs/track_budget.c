// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The process tracking budget (see track_budget.h). */
#include <string.h>

#include "procs/track_budget.h"

#define NSEC_PER_SEC	1000000000ull
#define PROBES		16	/* slots tried for a pid before it goes uncounted */

void track_budget__init(struct track_budget *b, uint32_t per_sec)
{
	memset(b, 0, sizeof(*b));
	b->per_sec = per_sec;
}

/* The processes held back in the second that ends are due for a read. */
static void roll(struct track_budget *b, uint64_t second)
{
	for (size_t i = 0; i < b->nover; i++) {
		if (b->ndue < sizeof(b->due) / sizeof(b->due[0]))
			b->due[b->ndue++] = b->over[i];
		else
			b->due_all = true;
	}
	b->nover = 0;
	memset(b->slot, 0, sizeof(b->slot));
	b->second = second;
}

/* pid's count in the current second (rolled to time's if later), or NULL
 * when the table has no slot for it: counted nowhere, held to nothing. */
static struct track_sender *sender(struct track_budget *b, pid_t pid, uint64_t time)
{
	uint64_t second = time / NSEC_PER_SEC;
	uint32_t h = (uint32_t)pid * 2654435761u;

	/* records come per CPU, a little out of order: an earlier second's
	 * is counted in the current one */
	if (second > b->second)
		roll(b, second);
	for (uint32_t i = 0; i < PROBES; i++) {
		struct track_sender *s = &b->slot[(h + i) & (TRACK_SLOTS - 1)];

		if (s->pid == pid || !s->n) {
			s->pid = pid;
			return s;
		}
	}
	return NULL;
}

static struct track_sender *count(struct track_budget *b, pid_t pid, uint64_t time)
{
	struct track_sender *s = sender(b, pid, time);

	if (s && ++s->n > b->busiest.n)
		b->busiest = *s;
	return s;
}

void track_budget__count(struct track_budget *b, pid_t pid, uint64_t time)
{
	count(b, pid, time);
}

bool track_budget__take(struct track_budget *b, pid_t pid, uint64_t time)
{
	struct track_sender *s = count(b, pid, time);

	if (!s || s->n <= b->per_sec)
		return true;
	if (s->n == b->per_sec + 1) {
		if (b->nover == TRACK_OVER_MAX) {
			s->n--;	/* no room to read it again: applied */
			return true;
		}
		b->over[b->nover++] = pid;
	}
	b->skipped++;
	return false;
}

int track_budget__due(struct track_budget *b, uint64_t now, pid_t *out)
{
	int n;

	if (now / NSEC_PER_SEC > b->second)
		roll(b, now / NSEC_PER_SEC);
	n = (int)b->ndue;
	if (b->due_all)
		n = -1;
	else
		memcpy(out, b->due, b->ndue * sizeof(*out));
	b->ndue = 0;
	b->due_all = false;
	return n;
}
