/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The output formats: one row each, and all the run knows of a format
 * (--format's word, -o's name endings, the start line's words, the
 * content type it is sent as, its writer, where it may go). Adding a
 * format is a row here plus its writer in output/emit.c; --help, the
 * start line, -o, fleet files, the spool and the checks at start all read
 * the row. */
#ifndef BPFPROF_FORMATS_H
#define BPFPROF_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

/* Where a format may go besides -o: the columns "carried by". */
#define FORMAT_TO_FLEET		(1u << 0)	/* --interval --output-dir: a file per interval */
#define FORMAT_TO_PUSH		(1u << 1)	/* --push: Pyroscope takes it */
#define FORMAT_ADDRESSES	(1u << 2)	/* --symbolize none: keeps user frames' addresses */

#define FORMAT_MAX_SUFFIXES	3

/* The rows: ROW(id, name, (suffixes...), start-line words, content type,
 * writer, carried by). The suffixes pick the format for -o FILE; the first
 * also names fleet and spool files. The writer is the name of a function
 * of output/emit.c (the room that writes; only it expands that column). */
#define OUT_FORMATS(ROW)									\
	ROW(FOLDED, "folded", (".folded"), "folded stacks", "text/plain",			\
	    write_folded, FORMAT_TO_FLEET | FORMAT_TO_PUSH)					\
	ROW(PPROF, "pprof", (".pb.gz", ".pb", ".pprof"), "pprof", "application/octet-stream",	\
	    write_pprof, FORMAT_TO_FLEET | FORMAT_TO_PUSH | FORMAT_ADDRESSES)			\
	ROW(OTLP, "otlp", (".otlp"), "OTLP profiles", "application/x-protobuf",			\
	    write_otlp, FORMAT_TO_FLEET | FORMAT_ADDRESSES)					\
	ROW(HTML, "html", (".html", ".htm"), "a flame graph page", "text/html; charset=utf-8",	\
	    write_html, 0)									\
	ROW(SVG, "svg", (".svg"), "a flame graph image", "image/svg+xml", write_svg, 0)

#define FORMAT_ENUM_ENTRY(id, ...) FORMAT_##id,

enum out_format {
	FORMAT_AUTO = 0,	/* by -o's name (formats__by_suffix), else folded */
	FORMAT_BOTH,		/* fleet mode: folded and pprof, a file of each per interval */
	OUT_FORMATS(FORMAT_ENUM_ENTRY)
	FORMAT_END,
};

#define FORMAT_FIRST_ROW	(FORMAT_BOTH + 1)

struct format_row {
	const char *name;			/* --format's word; the spool header's */
	const char *suffixes[FORMAT_MAX_SUFFIXES];	/* ".pb.gz"...; NULL after the last */
	const char *words;			/* the start line's: "pprof to out.pb.gz" */
	const char *content_type;		/* as a request's body */
	unsigned int carried;			/* FORMAT_TO_* and FORMAT_ADDRESSES */
};

/* The row of a format; NULL for FORMAT_AUTO, FORMAT_BOTH or out of range. */
const struct format_row *formats__row(enum out_format fmt);

/* The format of --format's word ("both" too); FORMAT_AUTO if none. */
enum out_format formats__by_name(const char *name);

/* The format whose suffix file's name ends with; FORMAT_AUTO if none. */
enum out_format formats__by_suffix(const char *file);

/* A file name's extension for fmt, its first suffix without the dot
 * ("pb.gz"); "" for FORMAT_AUTO or FORMAT_BOTH. */
const char *formats__extension(enum out_format fmt);

/* The start line's words; FORMAT_BOTH: "folded and pprof". */
const char *formats__words(enum out_format fmt);

/* Whether fmt can go where `carried` (FORMAT_TO_* bits) says; FORMAT_BOTH
 * goes to fleet files and to a push (pprof alone). */
bool formats__carries(enum out_format fmt, unsigned int carried);

/* --format's words of the formats that go where `carried` says (0: all),
 * in the table's order, then "both" where it goes too, joined by ", ",
 * the last by `last` (" or ", ", or "): "folded, pprof, ..., svg or both". */
void formats__list(char *buf, size_t size, unsigned int carried, const char *last);

#endif
