/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The flame graph as a static SVG, for places that only take images. */
#ifndef BPFPROF_SVG_H
#define BPFPROF_SVG_H

#include <stdio.h>

#include "render/fgtree.h"
#include "render/vprof.h"

/* Writes s as XML text, safe in an element or a quoted attribute: < > & " '
 * as entities; a control character (C0, DEL, C1), a byte of invalid UTF-8
 * (an overlong form, a surrogate as a Python lone surrogate is written, past
 * U+10FFFF, a cut sequence) and U+FFFE/U+FFFF, which XML 1.0 forbids, as the
 * four characters \xHH, the way the terminal and folded files show them.
 * At most max_cols columns (an escape takes 4, any other character 1), whole
 * characters only; returns the bytes of s written. Every text of the SVG
 * goes through it. */
size_t svg__xml_text(const char *s, size_t max_cols, FILE *out);

/* Root at the bottom, 1200 px wide, a <title> tooltip per frame; frames
 * narrower than 0.3 px are left out. 0, or -ENOMEM (nothing written). */
int svg__write(const struct vprof *v, const struct fgtree *t, const char *title, FILE *out);

#endif
