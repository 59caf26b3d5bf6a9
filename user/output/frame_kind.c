// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A frame's function and runtime, for the protobuf writers (frame_kind.h). */
#include <string.h>

#include "base/frame_kind.h"
#include "base/runtime.h"
#include "output/frame_kind.h"

size_t frame_kind__function_len(const struct pframe *f)
{
	const char *paren = frame_kind__row(f->runtime)->name_has_line ? strrchr(f->name, '(') : NULL;

	if (paren && paren > f->name && paren[-1] == ' ')
		return (size_t)(paren - 1 - f->name);
	return strlen(f->name);
}

/* exe's file name begins with word */
static int exe_is(const char *exe, const char *word)
{
	const char *base = strrchr(exe, '/');

	base = base ? base + 1 : exe;
	return !strncmp(base, word, strlen(word));
}

bool frame_kind__go_build_id(const char *build_id)
{
	return build_id && strchr(build_id, '/');
}

const char *frame_kind__otel_type(const struct pframe *f, const char *exe)
{
	if (f->kernel)
		return "kernel";
	if (f->runtime)
		return frame_kind__row(f->runtime)->otel_type;
	for (int id = 0; f->jit && id < RUNTIME_MAX; id++)	/* a JIT map's name */
		if (runtime_rows[id]->exe && exe_is(exe, runtime_rows[id]->exe))
			return frame_kind__row(runtime_rows[id]->kind)->otel_type;
	if (!f->jit && frame_kind__go_build_id(f->build_id))
		return "go";
	return "native";
}

const struct pframe *frame_kind__sample_exe(const struct psample *s)
{
	const struct pframe *best = NULL, *f;

	for (uint32_t k = 0; k < s->nframes; k++) {
		f = s->frames[k];
		if (!f->kernel && f->mapping && f->mapping[0] == '/' && f->map_limit &&
		    (!best || f->map_start < best->map_start))
			best = f;
	}
	return best;
}
