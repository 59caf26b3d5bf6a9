// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bpfprof symbolize IN -o OUT [--debug-dir DIR]...: names the addresses a
 * pprof profile holds without names (written with --symbolize none on a
 * machine whose binaries are stripped) on another machine, from the debug
 * files there: each mapping's file is looked for in the debug directories,
 * then /usr/lib/debug's build-id tree (debug_file.h's order), then on the
 * servers of DEBUGINFOD_URLS within --debuginfod-timeout, and taken only
 * when its build-id is the mapping's. Names come as a direct run gives them:
 * the symbol table's function, demangled, the inline frames and lines of
 * its DWARF, "FILE+0xOFFSET" where nothing names the address.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/dirfiles.h"
#include "base/errors.h"
#include "cli/cli_values.h"
#include "elf/debug_file.h"
#include "elf/debuginfod.h"
#include "elf/demangle.h"
#include "elf/dwarf_lines.h"
#include "elf/elf_syms.h"
#include "offline/symbolize.h"
#include "output/gzip.h"
#include "render/read_pprof.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Line Line;

#define MAX_DEBUG_DIRS	8
#define MAX_INLINED	32	/* inline frames of one address kept (as resolve.c) */

/* One mapping's file, looked for once: borrowed from its identity's. */
struct sym_file {
	bool tried;
	struct elf_syms *syms;
	struct dwarf_lines *dl;
	char *path;
};

/* A file identity (its build-id: all a profile from elsewhere says of
 * it), opened once for every mapping of it: a profile with thousands of
 * mappings of one library reads its symbols and DWARF once. */
struct sym_ident {
	char *build_id;		/* the key */
	struct sym_file file;	/* owned: what the mappings borrow */
};

/* A function of the output, by name and source file. */
struct fn_key {
	const char *name, *file;
	uint64_t id;
};

struct symbolize {
	Profile *pr;
	const char *dirs[MAX_DEBUG_DIRS];	/* --debug-dir, in order */
	int ndirs;
	struct demangler *dm;
	struct sym_file *files;		/* per mapping, by its index */
	void *idents;			/* tsearch tree of struct sym_ident */
	void *functions;		/* tsearch tree of struct fn_key */
	void *strings;			/* tsearch tree of struct str_key */
	size_t cap_strings, cap_functions;
	size_t indexed;			/* strings in the tree so far */
	uint64_t next_function_id;
	/* what it did, said at the end */
	uint64_t named, unnamed, already, files_found, files_missing;
	int err;
};

/* A string of the output's table, by its text. */
struct str_key {
	const char *s;
	int64_t index;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(((const struct str_key *)a)->s, ((const struct str_key *)b)->s);
}

static int cmp_fn(const void *a, const void *b)
{
	const struct fn_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->file, y->file);
}

/* ---- finding a mapping's file -------------------------------------------- */

/* A candidate and what was read of it. */
struct candidate {
	const char *want;		/* the mapping's build-id, hex */
	struct elf_syms *syms;		/* the taken one's */
};

/* debug_query.accept: fd's symbols read, taken when its build-id is the
 * mapping's. */
static bool same_build_id(int fd, void *arg)
{
	struct candidate *c = arg;
	char have[2 * BUILD_ID_MAX + 1];
	struct elf_syms *es = elf_syms__open_fd(fd);

	elf_syms__build_id_hex(es, have);
	if (!es || strcmp(have, c->want)) {
		elf_syms__free(es);
		return false;
	}
	c->syms = es;
	return true;
}

/* The debug directories, /usr/lib/debug's build-id tree, then the servers
 * of DEBUGINFOD_URLS. Returns the file's fd (its path in *path), or -1. */
static int open_mapped_file(const struct symbolize *s, const char *id, const char *file,
			    struct candidate *c, char **path)
{
	const struct debug_query q = {
		.build_id = id, .path = file, .dirs = s->dirs, .ndirs = s->ndirs,
		.accept = same_build_id, .arg = c,
	};

	return debug_file__open(&q, DEBUG_IN_DIRS | DEBUG_BY_ID | DEBUG_BY_SERVER, path);
}

/* A build-id as a profile from elsewhere may hold one: lowercase hex of an
 * even length a build-id has. Anything else never becomes part of a path
 * or a server's URL. */
static bool is_build_id(const char *id)
{
	size_t n = strspn(id, "0123456789abcdef");

	return !id[n] && n >= 4 && n % 2 == 0 && n <= 2 * BUILD_ID_MAX;
}

/* The file of build-id id (named file in the profile), looked for now. */
static void open_ident(struct symbolize *s, const char *id, const char *file,
		       struct sym_file *sf)
{
	struct candidate c = { .want = id };
	int fd;

	sf->tried = true;
	fd = is_build_id(id) && file[0] ? open_mapped_file(s, id, file, &c, &sf->path) : -1;
	if (fd < 0) {
		s->files_missing++;
		return;
	}
	s->files_found++;
	sf->syms = c.syms;
	sf->dl = dwarf_lines__open(fd, sf->path, true);
	close(fd);
}

static int cmp_ident(const void *a, const void *b)
{
	return strcmp(((const struct sym_ident *)a)->build_id,
		      ((const struct sym_ident *)b)->build_id);
}

static void free_ident(void *p)
{
	struct sym_ident *ident = p;

	elf_syms__free(ident->file.syms);
	dwarf_lines__free(ident->file.dl);
	free(ident->file.path);
	free(ident->build_id);
	free(ident);
}

/* The mapping's file: its identity's, opened at the first mapping of it. */
static void find_file(struct symbolize *s, const Mapping *m, struct sym_file *sf)
{
	const char *id = (uint64_t)m->build_id < s->pr->n_string_table ?
			 s->pr->string_table[m->build_id] : "";
	const char *file = (uint64_t)m->filename < s->pr->n_string_table ?
			   s->pr->string_table[m->filename] : "";
	struct sym_ident key = { .build_id = (char *)id }, *ident, **found;

	sf->tried = true;
	if (!is_build_id(id)) {
		s->files_missing++;
		return;
	}
	found = tfind(&key, &s->idents, cmp_ident);
	if (!found) {
		ident = calloc(1, sizeof(*ident));
		if (ident && !(ident->build_id = strdup(id))) {
			free(ident);
			ident = NULL;
		}
		found = ident ? tsearch(ident, &s->idents, cmp_ident) : NULL;
		if (!found) {	/* no memory: its names stay FILE+0xOFFSET */
			if (ident)
				free_ident(ident);
			s->files_missing++;
			return;
		}
		open_ident(s, id, file, &ident->file);
	}
	*sf = (*found)->file;
}

/* ---- the output's tables -------------------------------------------------- */

/* The index of a string the table has, NULL's -1; a tree of them all made
 * at the first call. */
static int64_t index_of(struct symbolize *s, const char *str)
{
	struct str_key key = { .s = str }, *k, **found;

	for (size_t i = s->indexed; i < s->pr->n_string_table; i++) {
		k = malloc(sizeof(*k));
		if (!k)
			return -1;
		*k = (struct str_key){ .s = s->pr->string_table[i], .index = (int64_t)i };
		found = tsearch(k, &s->strings, cmp_str);
		if (!found) {
			free(k);
			return -1;
		}
		if (*found != k)	/* a string twice: its first index */
			free(k);
		s->indexed = i + 1;
	}
	found = tfind(&key, &s->strings, cmp_str);
	return found ? (*found)->index : -2;
}

static int64_t add_string(struct symbolize *s, const char *str)
{
	Profile *pr = s->pr;
	int64_t have = index_of(s, str);
	char *copy;

	if (have != -2)
		return have;
	if (pr->n_string_table == s->cap_strings) {
		size_t cap = s->cap_strings ? s->cap_strings * 2 : 64;
		char **grown = realloc(pr->string_table, cap * sizeof(*grown));

		if (!grown)
			return -1;
		pr->string_table = grown;
		s->cap_strings = cap;
	}
	copy = strdup(str);
	if (!copy)
		return -1;
	pr->string_table[pr->n_string_table] = copy;
	return (int64_t)pr->n_string_table++;
}

static uint64_t function_of(struct symbolize *s, const char *name, const char *file)
{
	struct fn_key key = { .name = name, .file = file }, *k, **found;
	Profile *pr = s->pr;
	Function *fn;

	found = tfind(&key, &s->functions, cmp_fn);
	if (found)
		return (*found)->id;
	if (pr->n_function == s->cap_functions) {
		size_t cap = s->cap_functions ? s->cap_functions * 2 : 64;
		Function **grown = realloc(pr->function, cap * sizeof(*grown));

		if (!grown)
			return 0;
		pr->function = grown;
		s->cap_functions = cap;
	}
	fn = malloc(sizeof(*fn));
	k = malloc(sizeof(*k));
	if (!fn || !k) {
		free(fn);
		free(k);
		return 0;
	}
	perftools__profiles__function__init(fn);
	fn->id = s->next_function_id++;
	fn->name = fn->system_name = add_string(s, name);
	fn->filename = add_string(s, file);
	*k = (struct fn_key){ .name = pr->string_table[fn->name],
			      .file = pr->string_table[fn->filename], .id = fn->id };
	if (fn->name < 0 || fn->filename < 0 || !tsearch(k, &s->functions, cmp_fn)) {
		free(fn);
		free(k);
		return 0;
	}
	pr->function[pr->n_function++] = fn;
	return fn->id;
}

/* ---- naming one location --------------------------------------------------- */

static const char *demangled(struct symbolize *s, const char *name)
{
	const char *d = name ? demangler__name(s->dm, name) : NULL;

	return d ? d : name;
}

/* The location's Lines, innermost first: the inlined frames, then the
 * function that holds the code. */
static int set_lines(struct symbolize *s, Location *loc, const char *outer,
		     const struct src_chain *c)
{
	uint32_t ninl = c ? (c->ninlined < MAX_INLINED ? c->ninlined : MAX_INLINED) : 0;
	size_t n = ninl + 1, i;
	Line **lines = calloc(n, sizeof(*lines));
	int err = lines ? 0 : -ENOMEM;

	for (i = 0; !err && i < n; i++) {
		const struct src_frame *f = i < ninl ? &c->inlined[ninl - 1 - i] :
				      c ? &c->outer : NULL;
		const char *name = i < ninl ? demangled(s, f->name) : outer;

		lines[i] = malloc(sizeof(*lines[i]));
		if (!lines[i]) {
			err = -ENOMEM;
			break;
		}
		perftools__profiles__line__init(lines[i]);
		lines[i]->function_id = function_of(s, name ? name : "[inlined]",
						    f && f->file ? f->file : "");
		lines[i]->line = f ? f->line : 0;
		if (!lines[i]->function_id)
			err = -ENOMEM;
	}
	if (err) {
		for (i = 0; lines && i < n; i++)
			free(lines[i]);
		free(lines);
		return err;
	}
	free(loc->line);
	loc->line = lines;
	loc->n_line = n;
	return 0;
}

static int name_location(struct symbolize *s, Location *loc, const Mapping *m,
			  struct sym_file *sf)
{
	uint64_t file_off = loc->address - m->memory_start + m->file_offset, vaddr, start, sym_off;
	const char *file = s->pr->string_table[m->filename], *name = NULL;
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	const struct src_chain *c = NULL;
	char fallback[256];

	/* the mapping's first byte as the file numbers it: by the segment
	 * holding its offset, or (a debug file, offsets gone) by the
	 * executable segment of its length */
	if (sf->syms && (elf_syms__map_vaddr(sf->syms, m->file_offset, &start) == 0 ||
			 elf_syms__exec_vaddr(sf->syms, m->memory_limit - m->memory_start,
					      &start) == 0)) {
		vaddr = start + (loc->address - m->memory_start);
		name = elf_syms__lookup_vaddr(sf->syms, vaddr, &sym_off);
		c = sf->dl ? dwarf_lines__at(sf->dl, vaddr) : NULL;
		if (!name && sf->dl)
			name = dwarf_lines__symbol(sf->dl, vaddr);
	}
	name = demangled(s, name);
	if (name) {
		s->named++;
	} else {
		s->unnamed++;
		snprintf(fallback, sizeof(fallback), "%s+0x%" PRIx64, base, file_off);
		name = fallback;
		c = NULL;
	}
	return set_lines(s, loc, name, c);
}

/* Every location without lines whose mapping has a file: the mappings
 * indexed by id once, a lookup each (a scan each was quadratic). */
static int name_locations(struct symbolize *s)
{
	Profile *pr = s->pr;
	struct addr_ranges by_id = { 0 };

	s->err = READ_PPROF_IDS(&by_id, pr->mapping, pr->n_mapping);
	for (size_t i = 0; i < pr->n_location && !s->err; i++) {
		Location *loc = pr->location[i];
		size_t mi;

		if (loc->n_line) {
			s->already++;
			continue;
		}
		mi = read_pprof__at(&by_id, loc->mapping_id);
		if (mi == SIZE_MAX || (uint64_t)pr->mapping[mi]->filename >= pr->n_string_table)
			continue;
		if (!s->files[mi].tried)
			find_file(s, pr->mapping[mi], &s->files[mi]);
		s->err = name_location(s, loc, pr->mapping[mi], &s->files[mi]);
		pr->mapping[mi]->has_functions = true;
	}
	addr_ranges__free(&by_id);
	return s->err;
}

/* ---- the command ------------------------------------------------------------ */

static int write_profile(const Profile *pr, const char *path)
{
	size_t len = perftools__profiles__profile__get_packed_size(pr);
	uint8_t *buf = malloc(len ? len : 1);
	struct atomic_file af;
	int err;

	if (!buf)
		return -ENOMEM;
	perftools__profiles__profile__pack(pr, buf);
	err = atomic_file__open(&af, path, 0644);
	if (!err)
		err = gzip__write(buf, len, af.f);
	if (!err)
		err = atomic_file__commit(&af);
	else if (af.f)
		atomic_file__discard(&af);
	free(buf);
	return err;
}

static void usage_error(const char *msg)
{
	p_err("symbolize: %s (usage: bpfprof symbolize IN.pb.gz -o OUT.pb.gz [--debug-dir DIR]... "
	      "[--debuginfod-timeout SECS])",
	      msg);
}

static const struct option opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "debug-dir", required_argument, NULL, 'D' },
	{ "debuginfod-timeout", required_argument, NULL, 'T' },
	{ NULL, 0, NULL, 0 },
};

const struct option *symbolize__options(void)
{
	return opts;
}

static int parse_args(int argc, char **argv, struct symbolize *s, const char **in,
		      const char **out)
{
	double timeout = DEFAULT_DEBUGINFOD_TIMEOUT;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (opt == 'o') {
			*out = optarg;
		} else if (opt == 'D' && s->ndirs < MAX_DEBUG_DIRS) {
			s->dirs[s->ndirs++] = optarg;
		} else if (opt == 'T' && !cli_value__seconds(optarg, true, &timeout)) {
			continue;
		} else if (opt == 'T') {
			usage_error("--debuginfod-timeout: expected seconds >= 0");
			return -EINVAL;
		} else {
			usage_error(opt == 'D' ? "at most 8 --debug-dir" : "unknown option");
			return -EINVAL;
		}
	}
	if (optind != argc - 1 || !*out) {
		usage_error(optind != argc - 1 ? "one profile to read" : "-o OUT is needed");
		return -EINVAL;
	}
	*in = argv[optind];
	debuginfod__configure(timeout);
	return 0;
}

static void free_state(struct symbolize *s)
{
	tdestroy(s->idents, free_ident);
	free(s->files);
	tdestroy(s->functions, free);
	tdestroy(s->strings, free);
	demangler__free(s->dm);
	if (s->pr)
		perftools__profiles__profile__free_unpacked(s->pr, NULL);
}

static void say_done(const struct symbolize *s)
{
	struct debuginfod_stats st;
	char servers[96] = "";

	debuginfod__stats(&st);
	if (st.enabled)
		snprintf(servers, sizeof(servers), " (debuginfod: %" PRIu64 " fetched, %" PRIu64
			 " not found%s)", st.fetched, st.failed,
			 st.spent ? ", --debuginfod-timeout spent" : "");
	p_info("symbolize: %" PRIu64 " addresses named, %" PRIu64 " left FILE+0xOFFSET, %" PRIu64
	       " named already; files: %" PRIu64 " found, %" PRIu64 " not found, %" PRIu64
	       " debug files refused%s", s->named, s->unnamed, s->already, s->files_found,
	       s->files_missing, debug_file__refused(), servers);
}

int symbolize__main(int argc, char **argv)
{
	struct symbolize s = { 0 };
	const char *in = NULL, *out = NULL;
	int err = parse_args(argc, argv, &s, &in, &out);

	if (err)
		return 2;
	err = read_pprof__load(in, &s.pr);
	if (err)
		return 1;
	s.cap_strings = s.pr->n_string_table;
	s.cap_functions = s.pr->n_function;
	for (size_t i = 0; i < s.pr->n_function; i++)
		if (s.pr->function[i]->id >= s.next_function_id)
			s.next_function_id = s.pr->function[i]->id + 1;
	if (!s.next_function_id)
		s.next_function_id = 1;
	s.files = calloc(s.pr->n_mapping ? s.pr->n_mapping : 1, sizeof(*s.files));
	s.dm = demangler__new(DEMANGLE_SHORT);
	err = s.files && s.dm ? name_locations(&s) : -ENOMEM;
	if (!err)
		err = write_profile(s.pr, out);
	if (err)
		p_err("symbolize: %s: %s", out, dirfiles__strerror(err));
	else
		say_done(&s);
	free_state(&s);
	return err ? 1 : 0;
}
