/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The profile as the views see it: stacks of interned frames with counts,
 * read from a folded or pprof file or converted from the in-memory profile
 * after collect. Views never read BPF maps nor open ELF files. */
#ifndef BPFPROF_VPROF_H
#define BPFPROF_VPROF_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/frame_kind.h"	/* what a frame is: coloured apart, marked in report */

struct profile;

struct vframe {
	const char *name;	/* without its marker suffix; interned */
	const char *dso;	/* "" when unknown; interned */
	enum frame_kind kind;
};

struct vstack {
	uint64_t count;
	const char *comm;	/* interned; "" when the file has none */
	pid_t pid;		/* 0 when unknown */
	uint32_t depth;
	uint32_t *frames;	/* indices into vprof.frames, root (outermost) first */
};

struct vprof {
	struct vframe *frames;	/* every distinct (name, dso, kind) once */
	size_t nframes, frames_cap;
	struct vstack *stacks;
	size_t nstacks, stacks_cap;
	uint64_t total;		/* sum of the stacks' counts */
	bool has_comm;		/* the first frame of a folded line is the command */
	/* intern tables: open addressing, power-of-two sizes */
	const char **strings;
	size_t nstrings, strings_cap;
	uint32_t *frame_slots;	/* frame index + 1, 0 free */
	size_t frame_slots_cap;
	char **blocks;		/* string storage */
	size_t nblocks;
	size_t block_used, block_cap;
};

struct vprof *vprof__new(void);
void vprof__free(struct vprof *v);

/* Interns a string (a copy, freed with the vprof); NULL on ENOMEM. */
const char *vprof__intern(struct vprof *v, const char *s, size_t len);

/* The index of frame (name, dso, kind), added if new (name and dso are
 * copied); -1 on ENOMEM. */
int64_t vprof__frame(struct vprof *v, const char *name, const char *dso, enum frame_kind kind);

/* Adds one stack of frame indices (copied), root first. 0, -ENOMEM, or
 * -EOVERFLOW when the total would pass 2^64-1: then every sum the views
 * make of a profile's counts fits (each is of some of its stacks). */
int vprof__add(struct vprof *v, const char *comm, pid_t pid, const uint32_t *frames,
	       uint32_t depth, uint64_t count);

/* *sum += n; -EOVERFLOW (*sum unchanged) when it would pass 2^64-1. Every
 * sum of counts in the views goes through it. */
static inline int vprof__add_count(uint64_t *sum, uint64_t n)
{
	uint64_t r;

	if (__builtin_add_overflow(*sum, n, &r))
		return -EOVERFLOW;
	*sum = r;
	return 0;
}

/* The in-memory profile after collect (the profiling run's own view):
 * several events become root frames as in folded output. 0 or -errno. */
int vprof__from_profile(const struct profile *p, struct vprof **out);

/* Reads FILE ("-": standard input): pprof (gzip or not, recognised by its
 * bytes) or folded text. On error prints one "bpfprof: ..." line and
 * returns -errno (-EINVAL: not a profile; -EFBIG: past the 1 GiB limit, as
 * read, decompressed, decoded, or its frames; -E2BIG: a pprof sample of more
 * than 4096 frames). */
int vprof__read(const char *path, struct vprof **out);

/* The same from bytes in memory; what names the source in messages. */
int vprof__parse(const char *what, const uint8_t *buf, size_t len, struct vprof **out);

#endif
