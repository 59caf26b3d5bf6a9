// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The output formats' table (formats.h) and its lookups. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/formats.h"

#define FORMAT_UNPAREN(...) __VA_ARGS__
#define FORMAT_ROW(id, name, suffixes, words, content_type, writer, carried)	\
	[FORMAT_##id] = { name, { FORMAT_UNPAREN suffixes }, words, content_type, carried },

static const struct format_row rows[FORMAT_END] = {
	OUT_FORMATS(FORMAT_ROW)
};

const struct format_row *formats__row(enum out_format fmt)
{
	return fmt >= FORMAT_FIRST_ROW && fmt < FORMAT_END ? &rows[fmt] : NULL;
}

enum out_format formats__by_name(const char *name)
{
	if (!strcmp(name, "both"))
		return FORMAT_BOTH;
	for (int f = FORMAT_FIRST_ROW; f < FORMAT_END; f++)
		if (!strcmp(name, rows[f].name))
			return (enum out_format)f;
	return FORMAT_AUTO;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

enum out_format formats__by_suffix(const char *file)
{
	for (int f = FORMAT_FIRST_ROW; f < FORMAT_END; f++)
		for (int i = 0; i < FORMAT_MAX_SUFFIXES && rows[f].suffixes[i]; i++)
			if (ends_with(file, rows[f].suffixes[i]))
				return (enum out_format)f;
	return FORMAT_AUTO;
}

const char *formats__extension(enum out_format fmt)
{
	const struct format_row *r = formats__row(fmt);

	return r ? r->suffixes[0] + 1 : "";
}

const char *formats__words(enum out_format fmt)
{
	const struct format_row *r = formats__row(fmt);

	return r ? r->words : fmt == FORMAT_BOTH ? "folded and pprof" : "folded stacks";
}

bool formats__carries(enum out_format fmt, unsigned int carried)
{
	const struct format_row *r = formats__row(fmt);

	if (fmt == FORMAT_BOTH)
		return !(carried & ~(FORMAT_TO_FLEET | FORMAT_TO_PUSH));
	return r && (r->carried & carried) == carried;
}

void formats__list(char *buf, size_t size, unsigned int carried, const char *last)
{
	const char *names[FORMAT_END];
	size_t n = 0;
	int k = 0;

	for (int f = FORMAT_FIRST_ROW; f < FORMAT_END; f++)
		if ((rows[f].carried & carried) == carried)
			names[k++] = rows[f].name;
	if (formats__carries(FORMAT_BOTH, carried))
		names[k++] = "both";
	buf[0] = '\0';
	for (int i = 0; i < k && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s",
				      !i ? "" : i == k - 1 ? last : ", ", names[i]);
}
