// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unwind tables from an ELF file's call frame information, for the BPF
 * unwinder (--call-graph dwarf).
 *
 * The FDEs are enumerated, their ranges decoded and their instructions
 * checked by cfi_check.c; cfi_rows.c runs each FDE's program once and gives
 * its rows, keeping what the BPF side can follow: CFA = rsp or rbp +
 * offset, the return address at CFA - 8, the caller's rbp unchanged or
 * saved at CFA + N, and the lazy PLT expression; an undefined return
 * address marks the outermost frame (CFA_END). Here the rows of all FDEs
 * are sorted and merged.
 *
 * libdw stays as the reference (unwind_limits.reference_libdw, for tests;
 * cfi_libdw.c).
 *
 * The files are untrusted: every read is bounded, the row count and each
 * FDE's size are capped, and the build has a time budget and can be
 * cancelled from another thread. Nothing is bounded by the file's size: a
 * sparse 2 GiB file is free to make.
 * libdw itself trusts what it runs: cfi_check.c checks every FDE, its CIE
 * and .eh_frame_hdr before it runs any; a file that fails is refused.
 * Which files keep frame pointers: keeps_fp.c.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/addr_ranges.h"
#include "base/grow.h"
#include "unwind/cfi_check.h"
#include "unwind/cfi_libdw.h"
#include "unwind/cfi_rows.h"
#include "elf/elf_read.h"
#include "unwind/keeps_fp.h"
#include "unwind/row_merge.h"
#include "unwind/unwind_table.h"

/* Rows accepted before merging, at most: 4M rows are 64 MiB of table, four
 * times the largest real file's (libLLVM-15.so: 980k; libc.so.6: 28k). */
#define UNWIND_MAX_ROWS		(4u << 20)

/* The bytes of one FDE, at most: the largest of Debian 12's files is 20 KB
 * (lto-dump's), libc's 1.3 KB. The reference path replays an FDE for each
 * of its rows: this bounds the cost of such a row (~0.6 ms at libdw's
 * ~400 MB/s). */
#define MAX_FDE_BYTES		(256u << 10)

/* Wall time a build may take: the largest real table (libLLVM-14, 950k
 * rows) built in under 2 s by the reference path; a crafted one stops
 * here. */
#define UNWIND_MAX_SECONDS	10.0

/* A raw row's seq: its FDE's index in section order, then its place in
 * the FDE, in this many bits (an FDE's rows are at most its bytes + 2). */
#define ROW_SEQ_BITS		20
_Static_assert(MAX_FDE_BYTES + 2 < (1u << ROW_SEQ_BITS), "an FDE's rows overflow seq");
_Static_assert(((uint64_t)UNWIND_MAX_ROWS << ROW_SEQ_BITS) < RAW_FDE_END, "seq overflows");

/* How often (rows or FDEs) the clock is read. */
#define CLOCK_EVERY		64

struct builder {
	struct unwind_table *t;
	Elf *elf;
	Dwarf *dw;		/* only for .debug_frame */
	Dwarf_CFI *cfi;
	struct cfi_section sec;	/* the raw section the FDEs are read from */
	const struct unwind_limits *lim;
	double deadline;	/* CLOCK_MONOTONIC seconds */
	unsigned int ticks;	/* steps since the clock was read */
	struct raw_row *raw;
	size_t nraw, cap;
	size_t seq;		/* the next raw row's */
	bool direct;		/* rows merged as they come (d), no raw rows */
	struct row_merge d;
	struct cfi_fdes fdes;	/* checked, in section order */
	struct cfi_rows rows;	/* their programs' interpreter */
	struct plt_ranges plts;
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 0 while the build may go on, else why not: cancelled by another thread,
 * or out of time. */
static int over_budget(void *ctx)
{
	struct builder *b = ctx;

	if (b->lim->cancel && atomic_load_explicit(b->lim->cancel, memory_order_relaxed))
		return -ECANCELED;
	if (++b->ticks < CLOCK_EVERY)
		return 0;
	b->ticks = 0;
	return now_seconds() > b->deadline ? -ETIME : 0;
}

static int push_raw(struct builder *b, const struct unwind_row *row, bool fde_end)
{
	if (b->direct)
		return row_merge__push(&b->d, &(struct raw_row){ .row = *row,
				       .order = (fde_end ? RAW_FDE_END : 0) | b->seq++ },
				       UNWIND_MAX_ROWS);
	/* over the cap: as if out of memory */
	if (grow__to(&b->raw, &b->cap, b->nraw + 1, sizeof(*b->raw), UNWIND_MAX_ROWS))
		return -ENOMEM;
	b->raw[b->nraw] = (struct raw_row){ .row = *row,
					    .order = (fde_end ? RAW_FDE_END : 0) | b->seq++ };
	b->nraw++;
	return 0;
}

/* ---- the rows of every FDE ----------------------------------------------- */

/* One FDE's rows being taken. */
struct fde_walk {
	struct builder *b;
	struct fp_shape shape;
};

static int take_row(void *ctx, const struct unwind_row *row)
{
	struct fde_walk *w = ctx;
	int err = over_budget(w->b);

	if (!err)
		err = push_raw(w->b, row, false);
	if (err)
		return err;
	if (row->cfa_reg == CFA_NONE)
		w->b->t->unsupported++;
	fp_shape__add(&w->shape, row);
	return 0;
}

static int walk_fde(struct builder *b, const struct fde_info *f)
{
	struct unwind_row stop = { .pc = f->end, .cfa_reg = CFA_NONE };
	struct fde_walk w = { .b = b };
	int err;

	if (b->lim->reference_libdw)
		err = cfi_libdw__rows(b->cfi, f, take_row, &w);
	else
		err = cfi_rows__fde(&b->rows, f, take_row, &w);
	if (err)
		return err;
	if (!fp_shape__keeps(&w.shape, &b->plts, f->start, f->end - f->start))
		b->t->fdes_without_fp++;
	/* No rule past the end unless the next FDE starts right there. */
	return push_raw(b, &stop, true);
}

static int cmp_fde_start(const void *pa, const void *pb)
{
	const struct fde_info *a = *(const struct fde_info *const *)pa;
	const struct fde_info *b = *(const struct fde_info *const *)pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The FDEs by address, so that their rows come nearly sorted (sort_raw). */
static const struct fde_info **fdes_by_address(const struct cfi_fdes *fdes)
{
	const struct fde_info **order = calloc(fdes->n ? fdes->n : 1, sizeof(*order));

	if (!order)
		return NULL;
	for (size_t i = 0; i < fdes->n; i++)
		order[i] = &fdes->v[i];
	qsort(order, fdes->n, sizeof(*order), cmp_fde_start);
	return order;
}

/* The rows of every FDE, once all were checked. Their seq keeps section
 * order whatever the order they are made in. */
static int walk_fdes(struct builder *b)
{
	const struct fde_info **order = fdes_by_address(&b->fdes), *f;
	int err = 0;

	if (!order)
		return -ENOMEM;
	cfi_rows__init(&b->rows, &b->sec);
	for (size_t i = 0; i < b->fdes.n && !err; i++) {
		f = order[i];
		if (!f->placed) {
			b->t->unsupported++;	/* its range is unknown: no rows */
			continue;
		}
		if (f->start == f->end)
			continue;
		b->seq = (size_t)(f - b->fdes.v) << ROW_SEQ_BITS;
		err = walk_fde(b, f);
	}
	free(order);
	return err;
}

/* ---- sorting and merging ------------------------------------------------- */

/* Sorts the raw rows. Made FDE by FDE in address order, they are sorted
 * but where an FDE's end row meets the next FDE's first at the same pc (or
 * where FDEs overlap): insertion sort while it moves few rows, else qsort
 * (raw_row__cmp is a total order: either gives the same). */
static void sort_raw(struct builder *b)
{
	struct raw_row *v = b->raw, tmp;
	size_t i, j, moves = 0;

	for (i = 1; i < b->nraw; i++) {
		if (raw_row__cmp(&v[i - 1], &v[i]) <= 0)
			continue;
		tmp = v[i];
		for (j = i; j && raw_row__cmp(&v[j - 1], &tmp) > 0 && moves <= b->nraw; j--, moves++)
			v[j] = v[j - 1];
		v[j] = tmp;
		if (moves > b->nraw) {
			qsort(v, b->nraw, sizeof(*v), raw_row__cmp);
			return;
		}
	}
}

/* Sorted, one row per pc (the first), runs of one rule as their first row;
 * leading "no rule" rows dropped, as an address before them finds nothing
 * either way. Written over the raw rows, which are larger: row n is
 * written below raw row n + 1, and raw row n is read before (a second
 * array was 16 bytes a row more at the build's peak). */
static int merge_rows(struct builder *b)
{
	struct unwind_row *out = (struct unwind_row *)b->raw, *shrunk, r;
	uint64_t last_pc = 0;
	size_t i, n = 0;

	if (!b->nraw)
		return 0;
	sort_raw(b);
	for (i = 0; i < b->nraw; i++) {
		r = b->raw[i].row;
		if (i && last_pc == r.pc)
			continue;
		last_pc = r.pc;
		if (n ? unwind_row__same_rule(&out[n - 1], &r) : r.cfa_reg == CFA_NONE)
			continue;
		out[n++] = r;
	}
	if (!n)
		return 0;
	/* the table owns the array now; merging often halves the rows:
	 * give the rest back */
	b->raw = NULL;
	b->nraw = b->cap = 0;
	shrunk = reallocarray(out, n, sizeof(*out));
	b->t->rows = shrunk ? shrunk : out;
	b->t->nrows = n;
	return 0;
}

/* The rows of every FDE into the table: merged as they come (16 bytes a
 * kept row at the build's peak: cc1's 700,000 raw rows were 16.7 MB of a
 * one-shot run's peak at 24 bytes), or, when FDEs overlap, through raw
 * rows sorted and merged after (the counters of the first try undone). */
static int make_rows(struct builder *b)
{
	size_t unsupported = b->t->unsupported, without_fp = b->t->fdes_without_fp;
	int err;

	b->direct = !b->lim->raw_rows;
	err = b->direct ? walk_fdes(b) : -EAGAIN;
	if (!err)
		err = row_merge__end(&b->d, &b->t->rows, &b->t->nrows);
	if (err != -EAGAIN)
		return err;
	row_merge__free(&b->d);
	b->direct = false;
	b->t->unsupported = unsupported;
	b->t->fdes_without_fp = without_fp;
	b->t->direct_retried = !b->lim->raw_rows;
	err = walk_fdes(b);
	return err ? err : merge_rows(b);
}

/* ---- opening ------------------------------------------------------------- */

/* The section called name, with its bytes in the file: 0, -ENOENT when
 * there is none (or it holds nothing), -EINVAL when the headers lie. */
static int find_section(Elf *elf, const char *name, uint64_t fsize, Elf_Scn **scnp)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int found = elf_read__next_named(elf, name, &scn, &sh);

	if (found < 0)
		return found;
	/* .eh_frame of a separate debuginfo file is NOBITS. */
	if (!found || sh.sh_type == SHT_NOBITS || !sh.sh_size)
		return -ENOENT;
	if (!elf_read__in_file(sh.sh_offset, sh.sh_size, fsize))
		return -EINVAL;
	*scnp = scn;
	return 0;
}

/* The section's bytes as libdw reads them (a compressed .debug_frame was
 * inflated by dwarf_begin_elf()), and its address. */
static int section_data(struct builder *b, Elf_Scn *scn)
{
	GElf_Shdr sh;

	if (!gelf_getshdr(scn, &sh) || (sh.sh_flags & SHF_COMPRESSED))
		return -EINVAL;
	b->sec.data = elf_getdata(scn, NULL);
	if (!b->sec.data || !b->sec.data->d_buf || !b->sec.data->d_size)
		return -EINVAL;
	b->sec.vaddr = sh.sh_addr;
	return 0;
}

static int open_eh_frame(struct builder *b, uint64_t fsize)
{
	Elf_Scn *scn;
	int err = find_section(b->elf, ".eh_frame", fsize, &scn);

	if (!err)
		err = section_data(b, scn);
	if (err)
		return err;
	b->cfi = dwarf_getcfi_elf(b->elf);
	if (!b->cfi)
		return -EINVAL;
	b->sec.eh = true;
	return 0;
}

static int open_debug_frame(struct builder *b, uint64_t fsize)
{
	Elf_Scn *scn;
	int err = find_section(b->elf, ".debug_frame", fsize, &scn);

	if (err)
		return err;
	b->dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
	if (!b->dw)
		return -EINVAL;
	/* Owned by b->dw, not to be given to dwarf_cfi_end(). */
	b->cfi = dwarf_getcfi(b->dw);
	if (!b->cfi)
		return -EINVAL;
	return section_data(b, scn);
}

/* .eh_frame, which is what runs (and what libdw reads through
 * .eh_frame_hdr), else .debug_frame. An unreadable .eh_frame is an error
 * only when there is no .debug_frame to use instead. */
static int open_cfi(struct builder *b, uint64_t fsize)
{
	int err = open_eh_frame(b, fsize), err2;

	if (!err)
		return 0;
	err2 = open_debug_frame(b, fsize);
	return err2 == -ENOENT ? err : err2;
}

/* Only x86-64 little-endian 64-bit files: the rows speak its registers.
 * libelf quietly drops a section header table the file cannot hold, which
 * would look like a file without CFI: compare with the ELF header. */
static int check_elf(Elf *elf, uint64_t fsize)
{
	size_t shnum;
	GElf_Ehdr eh;

	if (elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	if (!gelf_getehdr(elf, &eh))
		return -EINVAL;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != EM_X86_64)
		return -ENOEXEC;
	if (elf_getshdrnum(elf, &shnum))
		return -EINVAL;
	if (eh.e_shnum ? eh.e_shnum != shnum : eh.e_shoff && !shnum)
		return -EINVAL;
	if (shnum && (eh.e_shentsize != gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT) ||
		      !elf_read__in_file(eh.e_shoff, (uint64_t)shnum * eh.e_shentsize, fsize)))
		return -EINVAL;
	return 0;
}

static void builder_end(struct builder *b)
{
	/* dwarf_getcfi()'s CFI belongs to the Dwarf handle. */
	if (b->cfi && b->sec.eh)
		dwarf_cfi_end(b->cfi);
	if (b->dw)
		dwarf_end(b->dw);
	if (b->elf)
		elf_end(b->elf);
	free(b->raw);
	row_merge__free(&b->d);
	cfi_check__free(&b->fdes);
}

static int build(struct builder *b, int fd)
{
	struct stat st;
	int err;

	if (fstat(fd, &st))
		return -errno;
	/* libelf sizes the file with fstat: only a regular file has a size. */
	if (!S_ISREG(st.st_mode) || elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	/* mapped, not read: a sparse section costs only what is touched */
	b->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!b->elf)
		return -EINVAL;
	err = check_elf(b->elf, (uint64_t)st.st_size);
	if (!err)
		err = open_cfi(b, (uint64_t)st.st_size);
	if (err)
		return err;
	b->sec.ident = (const unsigned char *)elf_getident(b->elf, NULL);
	if (!b->sec.ident)
		return -EINVAL;
	plt_ranges__find(b->elf, &b->plts);
	err = cfi_check__read_fdes(&b->sec, UNWIND_MAX_ROWS, MAX_FDE_BYTES, over_budget, b,
				   &b->fdes);
	b->t->fdes = b->fdes.n;
	if (!err && b->sec.eh)
		err = cfi_check__eh_frame_hdrs(b->elf, (uint64_t)st.st_size, &b->sec, &b->fdes);
	if (!err)
		err = make_rows(b);
	return err;
}

int unwind_table__build(int fd, struct unwind_table *t)
{
	const struct unwind_limits none = { 0 };

	return unwind_table__build_limited(fd, t, &none);
}

/* Every function keeps one (keeps_fp.c): a frame-pointer step from any of
 * its frames but the prologue's instructions is right. */
bool unwind_table__keeps_fp(const struct unwind_table *t)
{
	return t->nrows && !t->fdes_without_fp;
}

int unwind_table__build_limited(int fd, struct unwind_table *t, const struct unwind_limits *lim)
{
	struct builder b = { .t = t, .lim = lim };
	int err;

	b.deadline = now_seconds() + (lim->max_seconds > 0 ? lim->max_seconds : UNWIND_MAX_SECONDS);

	memset(t, 0, sizeof(*t));
	err = build(&b, fd);
	builder_end(&b);
	if (err)
		unwind_table__free(t);
	return err;
}

const struct unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t pc)
{
	/* each row holds up to the next one's pc (no two share one) */
	const struct addr_view v = ADDR_VIEW(t->rows, t->nrows, pc);
	size_t i = addr_view__find(&v, pc);

	return i == ADDR_NONE ? NULL : &t->rows[i];
}

void unwind_table__free(struct unwind_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
