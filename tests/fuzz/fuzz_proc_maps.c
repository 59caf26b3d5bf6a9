// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: user/procs/proc_maps.c, one /proc/PID/maps line at a time. The
 * input is split into lines (each keeps its '\n', as getline() gives it);
 * each is parsed from an exactly sized heap copy, so ASan sees any read past
 * the NUL. A parsed line is printed back in the kernel's format (a newline
 * in the path as \012) and parsed again: both parses must agree.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procs/proc_maps.h"
#include "fuzz_check.h"

static void check_parsed(const char *line, size_t len, const struct maps_line *ml)
{
	CHECK(ml->start <= ml->end);
	CHECK(ml->path >= line && ml->path <= line + len);
	CHECK(!strstr(ml->path, "\\012"));	/* decoded: maps' escaped newline */
	CHECK(ml->path[0] != ' ');
}

/* The path as the kernel's mangle_path writes it in maps: '\n' as \012. */
static char *escaped(const char *path)
{
	char *out = malloc(strlen(path) * 4 + 1), *w = out;

	if (!out)
		abort();
	for (; *path; path++) {
		if (*path == '\n')
			w += sprintf(w, "\\012");
		else
			*w++ = *path;
	}
	*w = '\0';
	return out;
}

static void round_trip(const struct maps_line *ml)
{
	struct maps_line again;
	char *text = NULL, *path = escaped(ml->path);
	int n;

	n = asprintf(&text, "%" PRIx64 "-%" PRIx64 " r-%cp %08" PRIx64 " %02x:%02x %" PRIu64
		     "                   %s%s\n",
		     ml->start, ml->end, ml->exec ? 'x' : '-', ml->pgoff,
		     ml->dev_major, ml->dev_minor, ml->ino, path,
		     ml->deleted ? " (deleted)" : "");
	free(path);
	if (n < 0)
		abort();
	CHECK(maps_parse_line(text, &again) == 0);
	CHECK(again.start == ml->start && again.end == ml->end && again.pgoff == ml->pgoff);
	CHECK(again.dev_major == ml->dev_major && again.dev_minor == ml->dev_minor);
	CHECK(again.ino == ml->ino && again.exec == ml->exec);
	CHECK(again.deleted == ml->deleted && !strcmp(again.path, ml->path));
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size, *nl;
	struct maps_line ml;
	size_t len;
	char *line;
	int err;

	if (!size)
		return 0;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		line = malloc(len + 1);
		if (!line)
			abort();
		memcpy(line, p, len);
		line[len] = '\0';
		err = maps_parse_line(line, &ml);
		if (err == 0) {
			check_parsed(line, len, &ml);
			round_trip(&ml);
		} else {
			CHECK(err == -EINVAL);
		}
		free(line);
		p += len;
	}
	return 0;
}
