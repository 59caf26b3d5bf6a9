/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Each process's share of the unwinder's work (inside user/unwind/): the
 * new tables it may start a second, the build time its tables may take a
 * second, and the rows its tables may hold of --unwind-rows. A process
 * that maps thousands of distinct files (a plugin host, a test runner, a
 * user trying to hurt the agent) spends its own share and no one else's;
 * what is refused is counted, with the limit and the process that hit it.
 */
#ifndef BPFPROF_SHARE_H
#define BPFPROF_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* New tables a process may start: a burst, then a rate. */
#define SHARE_TABLES_BURST	128.0
#define SHARE_TABLES_PER_S	32.0
/* Seconds of the builder's thread its tables may take: a burst (libLLVM
 * builds in about 0.3 s here), then a rate (a quarter of a core). */
#define SHARE_BUILD_BURST_S	2.0
#define SHARE_BUILD_PER_S	0.25
/* Syncs of its entry for mappings it made (an exec is synced at once):
 * the burst covers a program's start (ld.so maps its libraries one by
 * one), the rate a process that maps a file a millisecond (each sync reads
 * every mapping it ever made). */
#define SHARE_SYNCS_BURST	16.0
#define SHARE_SYNCS_PER_S	4.0
/* The rows its tables may hold: three quarters of the budget (a clang
 * takes 2.5M rows of the 4M default). */
#define SHARE_ROWS_NUM		3
#define SHARE_ROWS_DEN		4

/* Why a table was not built or loaded for its process. */
enum share_limit {
	SHARE_OK = 0,
	SHARE_TABLES,		/* new tables a second */
	SHARE_BUILD_TIME,	/* build time a second */
	SHARE_ROWS,		/* rows held */
	SHARE_LIMITS
};

/* One process's account. */
struct share {
	double tables;		/* new tables it may start now */
	double build_s;		/* build seconds it may spend now (< 0: overspent) */
	double syncs;		/* syncs for new mappings it may have now */
	uint64_t at_ns;		/* CLOCK_MONOTONIC ns of the last refill */
	size_t rows;		/* rows of the tables it started, loaded now */
	size_t refused;		/* tables refused it, all limits */
};

void share__init(struct share *s, uint64_t now);

/* The process's exec stamp at its sync (the BPF side's exec_times; 0:
 * none seen) against the one its share was last kept for: an exec since
 * starts a fresh share (the new program is not held to what the old one
 * spent: a shell loop that mapped files, then execs the real work), rows
 * kept (the old image's tables hold theirs until they are released). */
void share__sync_exec(struct share *s, uint64_t *stamp, uint64_t exec_stamp, uint64_t now);

/* Whether the process may start one more table now (SHARE_OK, taken) or
 * which limit says no. */
enum share_limit share__admit(struct share *s, uint64_t now);

/* Whether its entry may be synced now for mappings it made (taken). */
bool share__admit_sync(struct share *s, uint64_t now);

/* A table it started took this long to build. */
void share__charge(struct share *s, double seconds);

/* Whether nrows more rows keep it within its share of budget rows. */
bool share__rows_fit(const struct share *s, size_t nrows, size_t budget);

/* The limit's name, for the summary: "new tables a second". */
const char *share__limit_name(enum share_limit lim);

#endif
