/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the protobuf writers (pprof.c, otlp_dict.c) say about a frame
 * beyond its name: the function a frame's name names, and the runtime that
 * ran it as OpenTelemetry's profile.frame.type (semantic conventions
 * v1.44.0, model/profile/registry.yaml; the values the OTel eBPF profiler
 * writes, libpf/interpretertype.go). */
#ifndef BPFPROF_FRAME_KIND_H
#define BPFPROF_FRAME_KIND_H

#include <stdbool.h>
#include <stddef.h>

#include "profile/aggregate.h"

/* The length of the function's name in f->name: a Python frame's name
 * without the " (file.py:LINE)" the folded form adds (the line goes into
 * a Line of its own, so one code object is one Function whatever line
 * runs); every other frame's whole name. */
size_t frame_kind__function_len(const struct pframe *f);

/* A sample's executable: its file frame at the lowest address (a PIE's
 * 0x55..., a static binary's 0x400000 lie below the libraries, the vDSO;
 * JIT code and Python frames are no files: no '/'). NULL: none. */
const struct pframe *frame_kind__sample_exe(const struct psample *s);

/* True when a frame's build_id is a Go build ID (elf_syms__file_id(): a
 * Go binary without a GNU build-id; its parts are joined by '/', which no
 * hex id has), not a GNU one. */
bool frame_kind__go_build_id(const char *build_id);

/* profile.frame.type of f in a process running exe (its path, "" when
 * unknown): "kernel", "cpython", "go" (code of a Go binary, known by its
 * Go build ID), "native"; JIT code is "v8js" under node, "jvm" under
 * java, else "native" (machine code of a runtime bpfprof does not know). */
const char *frame_kind__otel_type(const struct pframe *f, const char *exe);

#endif
