/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Unwind tables built on a worker thread, off the sampling loop: the loop
 * submits a file (an open fd) and later collects what is done. A crafted
 * file costs the worker its time budget, never the loop; freeing the
 * builder cancels the build under way (it stops within milliseconds) so a
 * signal ends the run at once.
 */
#ifndef BPFPROF_BUILDER_H
#define BPFPROF_BUILDER_H

#include <stdbool.h>
#include "unwind/unwind_table.h"

struct builder;
struct elf_syms;

/* A finished job: the file's table (err 0) and its symbols (for file
 * offsets -> virtual addresses), both now the caller's. */
struct built {
	void *tag;			/* what the caller submitted with it */
	int err;			/* of unwind_table__build_limited() */
	struct unwind_table table;
	struct elf_syms *es;		/* NULL when not an ELF file we can read */
	double seconds;			/* the build's wall time */
};

int builder__new(struct builder **out);

/* Queues the file open at fd (the builder closes it); urgent: after the
 * urgent ones queued, before the others (a new process's tables before a
 * churner's next ones). */
int builder__submit(struct builder *b, int fd, void *tag, bool urgent);

/* The queued job of tag, if it is not urgent yet, made urgent (after the
 * urgent ones): a sample waits for it. */
void builder__hurry(struct builder *b, const void *tag);

/* Calls done() for every finished job (the callee owns its table and
 * symbols); returns how many. */
size_t builder__collect(struct builder *b, void (*done)(struct built *r, void *arg), void *arg);

/* Readable (poll) while finished jobs wait to be collected. */
int builder__fd(const struct builder *b);

/* True while jobs are queued or under way. */
bool builder__busy(struct builder *b);

/* Cancels what is under way, drops the queue, joins the thread. */
void builder__free(struct builder *b);

#endif
