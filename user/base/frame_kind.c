// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The frame kinds' table (base/frame_kind.h). */
#include <string.h>

#include "base/frame_kind.h"

/* user warm, kernel blue, inline aqua, Python green, JIT purple, roots grey,
 * JavaScript a lighter purple (the JIT's, named), Java orange-brown */
const struct frame_kind_row frame_kinds[FK_MAX] = {
	[FK_USER] = { "user", true, "", "[.]", NULL, NULL, false, 10, 45, 90, 55, 8 },
	[FK_KERNEL] = { "kernel", true, "_[k]", "[k]", "kernel", NULL, false, 205, 20, 60, 62, 10 },
	[FK_INLINE] = { "inline", true, "_[i]", "[i]", NULL, NULL, false, 170, 15, 55, 55, 10 },
	[FK_PYTHON] = { "Python", true, "_[py]", "[p]", "cpython", "[python]", true, 95, 30, 50, 52, 10 },
	[FK_JIT] = { "JIT", true, "_[j]", "[j]", NULL, NULL, false, 265, 20, 45, 65, 10 },
	[FK_ROOT] = { "root", false, "", "[.]", NULL, NULL, false, 0, 0, 0, 72, 8 },
	[FK_V8JS] = { "JavaScript", true, "_[j]", "[j]", "v8js", "[v8js]", true, 280, 25, 50, 62, 10 },
	[FK_JAVA] = { "Java", true, "_[j]", "[j]", "jvm", "[jvm]", false, 30, 25, 75, 50, 10 },
};

const struct frame_kind_row *frame_kind__row(enum frame_kind kind)
{
	return &frame_kinds[(unsigned)kind < FK_MAX ? kind : FK_USER];
}

size_t frame_kind__from_suffix(const char *name, size_t len, enum frame_kind *kind)
{
	for (int k = 0; k < FK_MAX; k++) {
		size_t n = strlen(frame_kinds[k].suffix);

		if (n && len > n && !memcmp(name + len - n, frame_kinds[k].suffix, n)) {
			*kind = (enum frame_kind)k;
			return len - n;
		}
	}
	*kind = FK_USER;
	return len;
}

enum frame_kind frame_kind__from_mapping(const char *mapping)
{
	for (int k = 0; k < FK_MAX; k++)
		if (frame_kinds[k].mapping && !strcmp(mapping, frame_kinds[k].mapping))
			return (enum frame_kind)k;
	return FK_USER;
}
