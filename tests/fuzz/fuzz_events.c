// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: events__parse() of user/sampling/events.c, the -e event list
 * ("cycles:u,sched:sched_switch,u:PATH:SYMBOL"). The first input byte
 * chooses how many events fit (0..8) and the size of the error buffer; the
 * rest is the list. The event array and the error buffer are exactly sized
 * heap blocks, so ASan sees a write past either.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampling/events.h"
#include "fuzz_check.h"

/* A char array field holds a NUL-terminated, non-empty string. */
#define CHECK_STR(field) CHECK(strnlen(field, sizeof(field)) < sizeof(field) && (field)[0])

static void check_event(const struct event *ev)
{
	CHECK_STR(ev->name);
	CHECK(!(ev->exclude_user && ev->exclude_kernel));
	switch (ev->kind) {
	case EVENT_SOFTWARE:
	case EVENT_HARDWARE:
		CHECK(ev->type == (ev->kind == EVENT_HARDWARE ? PERF_TYPE_HARDWARE
							      : PERF_TYPE_SOFTWARE));
		break;
	case EVENT_TRACEPOINT:
		CHECK_STR(ev->sys);
		CHECK_STR(ev->tp);
		CHECK(!strchr(ev->sys, ':') && !strchr(ev->tp, ':'));
		break;
	case EVENT_UPROBE:
		CHECK_STR(ev->path);
		CHECK_STR(ev->sym);
		CHECK(!strchr(ev->sym, ':'));
		break;
	default:
		CHECK(!"a kind events__parse does not make");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int max, n = -1, ret;
	size_t errlen;
	struct event *evs;
	char *list, *err;

	if (!size)
		return 0;
	max = data[0] % 9;
	errlen = data[0] & 0x80 ? 1 + (data[0] >> 3 & 0xf) : 256;	/* 1..16, or 256 */
	list = malloc(size);
	evs = malloc((max ? max : 1) * sizeof(*evs));
	err = malloc(errlen);
	if (!list || !evs || !err)
		abort();
	memcpy(list, data + 1, size - 1);
	list[size - 1] = '\0';
	memset(err, 0xaa, errlen);

	ret = events__parse(list, evs, max, &n, err, errlen);
	CHECK(ret == 0 || ret == -EINVAL || ret == -ENOMEM);
	if (ret != -ENOMEM)
		CHECK(n >= 0 && n <= max);
	if (ret == 0)
		CHECK(n >= 1);
	if (ret == -EINVAL)
		CHECK(strnlen(err, errlen) < errlen && (errlen == 1 || err[0]));
	for (int i = 0; ret != -ENOMEM && i < n; i++)
		check_event(&evs[i]);

	free(list);
	free(evs);
	free(err);
	return 0;
}
