/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The flame graph as a static SVG, for places that only take images. */
#ifndef BPFPROF_SVG_H
#define BPFPROF_SVG_H

#include <stdio.h>

#include "fgtree.h"
#include "vprof.h"

/* Root at the bottom, 1200 px wide, a <title> tooltip per frame; frames
 * narrower than 0.3 px are left out. Returns 0. */
int svg__write(const struct vprof *v, const struct fgtree *t, const char *title, FILE *out);

#endif
