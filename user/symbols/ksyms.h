/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Kernel symbols from /proc/kallsyms: parsed once, sorted, binary-searched. */
#ifndef BPFPROF_KSYMS_H
#define BPFPROF_KSYMS_H

#include <stddef.h>
#include <stdint.h>

/* A symbol: its names are offsets into its table's strings (16 bytes a
 * symbol, ~120k of them): ksyms__name(), ksyms__module(). */
struct ksym {
	uint64_t addr;
	uint32_t name;
	uint32_t module;	/* KSYM_NONE: the kernel image */
};

#define KSYM_NONE	UINT32_MAX

struct ksyms;
struct ksyms_loader;

/* Parses kallsyms text (the bytes of /proc/kallsyms). Only text symbols
 * (t, T, w, W) with a non-zero address are kept. Malformed lines are
 * skipped. Returns NULL with errno set on allocation failure, or ENODATA
 * when no usable symbol was found (addresses hidden by kptr_restrict). */
struct ksyms *ksyms__parse(const char *buf, size_t len);

/* Reads and parses a kallsyms file (normally "/proc/kallsyms"). */
struct ksyms *ksyms__load(const char *path);

/* The same, keeping only what the sorted, distinct addrs[n] need: each
 * one's symbol, the one the whole table would answer it with. Such a
 * table answers those addresses, ksyms__span() and ksyms__build_id() as
 * the whole one does, other addresses not reliably; it holds a symbol per
 * address at most (a one-shot run's few thousand, not kallsyms' 200,000:
 * 5 MiB). NULL with errno as ksyms__load; a table with no symbol when
 * none of the addresses has one. */
struct ksyms *ksyms__load_for(const char *path, const uint64_t *addrs, size_t n);
struct ksyms *ksyms__parse_for(const char *buf, size_t len, const uint64_t *addrs, size_t n);

/* ksyms__load on a thread of its own, started now: reading kallsyms (tens
 * of ms of CPU, mostly the kernel formatting ~100k lines) overlaps sampling
 * instead of delaying the end of the run. The thread takes no signals.
 * NULL with errno if it cannot start (then call ksyms__load). */
struct ksyms_loader *ksyms__load_start(const char *path);

/* Waits for the loader and frees it: ksyms__load's result and errno. */
struct ksyms *ksyms__load_wait(struct ksyms_loader *l);

/* The symbol covering addr: the last one at or below it. NULL below the
 * first symbol or above the last one's end (unknown end: the last symbol
 * matches at most 1 MiB past its start). */
const struct ksym *ksyms__find(const struct ksyms *ks, uint64_t addr);

/* The addresses ksyms__find() can name: [*start, *end), kernel and
 * modules. Returns 0, or -ENOENT when there is no symbol. */
int ksyms__span(const struct ksyms *ks, uint64_t *start, uint64_t *end);

const char *ksyms__name(const struct ksyms *ks, const struct ksym *sym);

/* "ext4", "bpf"...; NULL for the kernel image. */
const char *ksyms__module(const struct ksyms *ks, const struct ksym *sym);

/* The kernel image's GNU build-id in hex, read with kallsyms from
 * /sys/kernel/notes; "" when unknown. */
const char *ksyms__build_id(const struct ksyms *ks);

#define KSYMS_BUILD_ID_MAX	20	/* bytes of a build-id kept */
#define KSYMS_NOTES_MAX		4096	/* bytes of /sys/kernel/notes read */

/* The GNU build-id note of a note area (/sys/kernel/notes' bytes) into
 * out, hex; "" when there is none or the area is malformed. */
void ksyms__notes_build_id(const void *buf, size_t len, char out[2 * KSYMS_BUILD_ID_MAX + 1]);

size_t ksyms__count(const struct ksyms *ks);
void ksyms__free(struct ksyms *ks);

#endif
