/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * debuginfod, held to a budget: when DEBUGINFOD_URLS is set, the debug-file
 * search (debug_file.h) asks its servers last, for a debug file it cannot
 * find on disk. Every lookup goes through debuginfod__fetch_debuginfo(),
 * which counts what the servers gave, and the client's progress callback
 * cancels a transfer
 * once the whole run has waited its budget (--debuginfod-timeout), so a slow
 * or hung server never holds a profile back longer than that (plus the
 * client's one-second poll). What a hostile server can make the run keep
 * or do is bounded: an answer over DEBUGINFOD_MAXSIZE (512 MiB when the
 * user did not set it), announced or not, is cut and leaves nothing in the
 * cache; redirects are bounded and kept to DEBUGINFOD_URLS' servers
 * (debuginfod_curl.h); each refusal is said once.
 */
#ifndef BPFPROF_DEBUGINFOD_H
#define BPFPROF_DEBUGINFOD_H

#include <stdbool.h>
#include <stdint.h>

/* Seconds the run may wait on servers, in all; 0: never ask one (the
 * variable is removed from bpfprof's environment). Call once, at start,
 * before any other thread runs. */
void debuginfod__configure(double budget);

/* The debug file of a build-id (hex) from the servers, held to the same
 * budget and counted alike: its fd, *path the client's cache copy (the
 * caller frees it); -1 when none, or no server to ask. */
int debuginfod__fetch_debuginfo(const char *build_id_hex, char **path);

struct debuginfod_stats {
	bool enabled;		/* DEBUGINFOD_URLS set and a budget */
	uint64_t fetched;	/* debug files a server (or its cache) gave */
	uint64_t failed;	/* lookups that got none */
	double waited;		/* seconds spent on them */
	bool spent;		/* the budget ran out: lookups are cut short */
};

/* Since the start. */
void debuginfod__stats(struct debuginfod_stats *st);

#endif
