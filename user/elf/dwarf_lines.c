// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Source lines and inline frames through libdwfl (see dwarf_lines.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash_bytes.h"
#include "elf/compressed_scns.h"
#include "elf/dwarf_die_name.h"
#include "elf/dwfl_debuginfo.h"
#include "elf/dwarf_lines.h"
#include "elf/dwarf_subprograms.h"
#include "elf/elf_syms.h"

#define MAX_INLINE_DEPTH	32
#define QUALIFIED_MAX		DWARF_DIE_NAME_MAX	/* a name built from its scopes */

/* Room for the names walk_scopes() builds, one per frame. */
struct name_room {
	char s[MAX_INLINE_DEPTH][QUALIFIED_MAX];
};

struct cached {
	uint64_t vaddr;		/* the cache's key */
	struct src_chain *chain;	/* NULL: nothing known there */
	char *symbol;		/* libdwfl's symbol there, once asked */
	bool symbol_asked;
};

struct dwarf_lines {
	Dwfl *dwfl;		/* the libdwfl session; NULL: closed */
	Dwfl_Module *mod;
	Dwarf_Addr base;	/* where the module was reported: vaddr + base */
	struct dwarf_subprograms *subs;	/* the session's units' functions */
	bool with_inline;
	/* libdwfl's symbols hold more than the file's own table (a debug file,
	 * .gnu_debugdata): worth asking (more_symbols()); asked once */
	bool more_syms, more_syms_known;
	/* address -> struct cached: open addressing, linear probing (a
	 * search tree was two lookups a frame, 12 % of an end of run) */
	struct cached **slots;
	size_t n, cap;
	size_t bytes;		/* what the cache holds */
	/* the compressed sections of the file and of the debug file the
	 * session opened (find_debuginfo()) */
	struct compressed_scns main_ranges, debug_ranges;
};

/* The session's end; the answers (copies) stay. */
void dwarf_lines__close(struct dwarf_lines *dl)
{
	dwarf_subprograms__free(dl->subs);	/* it holds the session's DIEs */
	dl->subs = NULL;
	if (dl->dwfl)
		dwfl_end(dl->dwfl);
	dl->dwfl = NULL;
	dl->mod = NULL;
}

/* The DWARF read now (every session is opened to ask it: it is read
 * anyway), then the compressed bytes inflated given back. */
static void shed_compressed(struct dwarf_lines *dl)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(dl->mod, &bias);
	Elf *main_elf = dwfl_module_getelf(dl->mod, &bias), *debug = dw ? dwarf_getelf(dw) : NULL;

	compressed_scns__drop(main_elf, &dl->main_ranges);
	if (debug && debug != main_elf)
		compressed_scns__drop(debug, &dl->debug_ranges);
}

int dwarf_lines__reopen(struct dwarf_lines *dl, int fd, const char *path)
{
	int dupfd;

	dwarf_lines__close(dl);
	dl->dwfl = dwfl_begin(&dwfl_debuginfo__callbacks);
	dl->subs = dwarf_subprograms__new();	/* NULL: the DIEs are walked */
	dupfd = dl->dwfl ? dup(fd) : -1;
	if (dupfd >= 0) {
		/* libdwfl owns dupfd from here, closed by dwfl_end */
		dl->mod = dwfl_report_offline(dl->dwfl, path, path, dupfd);
		if (!dl->mod)
			close(dupfd);
	}
	if (dl->mod) {
		void **userdata = NULL;

		dwfl_module_info(dl->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		if (userdata)	/* where find_debuginfo() tells of the debug file */
			*userdata = &dl->debug_ranges;
		compressed_scns__read(fd, &dl->main_ranges);
		dl->debug_ranges.n = 0;
	}
	/* offline, libdwfl places the module at its own choice of base */
	if (!dl->mod || dwfl_report_end(dl->dwfl, NULL, NULL) ||
	    !dwfl_module_getelf(dl->mod, &dl->base)) {
		dwarf_lines__close(dl);
		return -ENOEXEC;
	}
	shed_compressed(dl);
	return 0;
}

struct dwarf_lines *dwarf_lines__open(int fd, const char *path, bool with_inline)
{
	struct dwarf_lines *dl = calloc(1, sizeof(*dl));

	if (!dl)
		return NULL;
	dl->with_inline = with_inline;
	if (dwarf_lines__reopen(dl, fd, path)) {
		dwarf_lines__free(dl);
		return NULL;
	}
	return dl;
}

static void free_cached(struct cached *c)
{
	free(c->chain);
	free(c->symbol);
	free(c);
}

void dwarf_lines__free(struct dwarf_lines *dl)
{
	if (!dl)
		return;
	for (size_t i = 0; i < dl->cap; i++)
		if (dl->slots[i])
			free_cached(dl->slots[i]);
	free(dl->slots);
	dwarf_lines__close(dl);
	free(dl);
}

size_t dwarf_lines__count(const struct dwarf_lines *dl)
{
	return dl->n;
}

/* The slot of vaddr's entry, or the free one where it would go. */
static struct cached **slot_of(struct cached **slots, size_t cap, uint64_t vaddr)
{
	size_t mask = cap - 1, i = addr_slot(vaddr, mask);

	while (slots[i] && slots[i]->vaddr != vaddr)
		i = addr_slot_next(i, mask);
	return &slots[i];
}

static int grow(struct dwarf_lines *dl)
{
	size_t cap = dl->cap ? dl->cap * 2 : 256;
	struct cached **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < dl->cap; i++)
		if (dl->slots[i])
			*slot_of(slots, cap, dl->slots[i]->vaddr) = dl->slots[i];
	dl->bytes += (cap - dl->cap) * sizeof(*slots);
	free(dl->slots);
	dl->slots = slots;
	dl->cap = cap;
	return 0;
}

/* Where an inlined call sits in its caller: DW_AT_call_file / call_line. */
static void call_site(Dwarf_Die *inl, Dwarf_Die *cu, struct src_frame *caller)
{
	Dwarf_Attribute attr;
	Dwarf_Word file = 0, line = 0;
	Dwarf_Files *files;
	size_t nfiles;

	caller->file = NULL;
	caller->line = 0;
	if (!dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &attr), &line))
		caller->line = (uint32_t)line;
	if (!dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr), &file) &&
	    !dwarf_getsrcfiles(cu, &files, &nfiles) && file < nfiles)
		caller->file = dwarf_filesrc(files, file, NULL, NULL);
}

/* The scopes holding addr below parent, outermost first, appended to
 * path (*n so far): the subprogram, then the lexical blocks and inlined
 * instances nested in it, as their DIEs nest (the physical nesting, which
 * dwarf_getscopes() leaves for the abstract origin's). Descends only into
 * DIEs that hold addr, and into the namespaces and classes a subprogram may
 * sit in: one walk down, where dwarf_getscopes() and dwarf_getscopes_die()
 * each read the compile unit's DIEs from its start (a big unit's inline
 * lookup took 0.2 ms). Returns true once the subprogram is found. */
static bool find_path(Dwarf_Die *parent, Dwarf_Addr addr, Dwarf_Die *path, int *n, bool in_sub)
{
	Dwarf_Die child;
	int tag;

	if (dwarf_child(parent, &child))
		return false;
	do {
		tag = dwarf_tag(&child);
		if (!in_sub && (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
				tag == DW_TAG_structure_type || tag == DW_TAG_union_type)) {
			if (find_path(&child, addr, path, n, false))
				return true;
			continue;
		}
		if (in_sub ? tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block
			   : tag != DW_TAG_subprogram)
			continue;
		if (dwarf_haspc(&child, addr) != 1)
			continue;
		if (*n < MAX_INLINE_DEPTH * 2) {
			path[(*n)++] = child;
			find_path(&child, addr, path, n, true);
		}
		return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The path to addr from the subprogram holding it, found by the unit's
 * table of functions (the walk of its DIEs without one). */
static bool subprogram_path(struct dwarf_subprograms *subs, Dwarf_Die *cu, Dwarf_Addr addr,
			    Dwarf_Die *path, int *n)
{
	enum subprogram_found f = subs ? dwarf_subprograms__find(subs, cu, addr, &path[0])
				       : SUBPROGRAM_UNKNOWN;

	if (f == SUBPROGRAM_UNKNOWN)
		return find_path(cu, addr, path, n, false);
	if (f == SUBPROGRAM_NONE)
		return false;
	*n = 1;
	find_path(&path[0], addr, path, n, true);
	return true;
}

/* The scopes holding addr, innermost first, into scopes (room for
 * MAX_INLINE_DEPTH * 2); their count, 0 when none is known. */
static int physical_scopes(struct dwarf_subprograms *subs, Dwarf_Die *cu, Dwarf_Addr addr,
			   Dwarf_Die *scopes)
{
	Dwarf_Die path[MAX_INLINE_DEPTH * 2], *found = NULL, innermost;
	int n = 0, m;

	if (subprogram_path(subs, cu, addr, path, &n)) {
		for (int i = 0; i < n; i++)
			scopes[i] = path[n - 1 - i];
		return n;
	}
	/* not below the unit's own DIEs (a partial unit, an import):
	 * libdw's search, as eu-addr2line does it */
	n = dwarf_getscopes(cu, addr, &found);
	if (n > 0) {
		innermost = found[0];
		free(found);
		found = NULL;
		n = dwarf_getscopes_die(&innermost, &found);
	}
	m = n < MAX_INLINE_DEPTH * 2 ? n : MAX_INLINE_DEPTH * 2;
	for (int i = 0; i < m; i++)
		scopes[i] = found[i];
	free(found);
	return m > 0 ? m : 0;
}

/* Fills frames innermost first: the address's own line in the innermost
 * inlined function, each call site in the function around it. Returns the
 * count, the last one being the enclosing DW_TAG_subprogram's. */
static uint32_t walk_scopes(struct dwarf_lines *dl, Dwarf_Die *cu, Dwarf_Addr addr,
			    struct src_frame here, struct src_frame *frames, struct name_room *room)
{
	Dwarf_Die scopes[MAX_INLINE_DEPTH * 2];
	int n = dl->with_inline ? physical_scopes(dl->subs, cu, addr, scopes) : 0;
	uint32_t k = 0;

	for (int i = 0; i < n && k < MAX_INLINE_DEPTH; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		frames[k] = here;
		frames[k].name = dwarf_die_name(&scopes[i], cu, room->s[k], sizeof(room->s[k]));
		k++;
		if (tag == DW_TAG_subprogram)
			break;
		call_site(&scopes[i], cu, &here);
	}
	if (!k)
		frames[k++] = here;
	return k;
}

static size_t str_bytes(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* s into the chain's own bytes at *at: the answer outlives the session. */
static const char *put_str(char **at, const char *s)
{
	const char *copy = *at;
	size_t n = str_bytes(s);

	if (!s)
		return NULL;
	memcpy(*at, s, n);
	*at += n;
	return copy;
}

static void put_frame(char **at, struct src_frame *to, const struct src_frame *from)
{
	*to = *from;
	to->name = put_str(at, from->name);
	to->file = put_str(at, from->file);
}

/* frames[k] innermost first, as one allocation with its strings; its size
 * added to *bytes. */
static struct src_chain *copy_chain(const struct src_frame *frames, uint32_t k, size_t *bytes)
{
	size_t size = sizeof(struct src_chain) + (k - 1) * sizeof(struct src_frame), strs = 0;
	struct src_chain *chain;
	char *at;

	for (uint32_t i = 0; i < k; i++)
		strs += str_bytes(frames[i].name) + str_bytes(frames[i].file);
	chain = malloc(size + strs);
	if (!chain)
		return NULL;
	at = (char *)chain + size;
	put_frame(&at, &chain->outer, &frames[k - 1]);
	chain->ninlined = k - 1;
	for (uint32_t i = 0; i + 1 < k; i++)	/* outermost inlined first */
		put_frame(&at, &chain->inlined[i], &frames[k - 2 - i]);
	*bytes += size + strs;
	return chain;
}

/* The unit holding addr by its own ranges, when libdwfl finds none: it
 * looks units up in .debug_aranges, which Go's linker does not write
 * (elfutils 0.188 builds no table from the units themselves). */
static Dwarf_Die *unit_by_ranges(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = NULL;

	while ((cu = dwfl_module_nextcu(mod, cu, bias)))
		if (dwarf_haspc(cu, addr - *bias) > 0)
			return cu;
	return NULL;
}

/* The line of addr in its unit's line table, when libdwfl found none. */
static void unit_line(Dwarf_Die *cu, Dwarf_Addr addr, struct src_frame *here)
{
	Dwarf_Line *line = dwarf_getsrc_die(cu, addr);
	int lineno = 0;

	if (!line)
		return;
	here->file = dwarf_linesrc(line, NULL, NULL);
	if (!dwarf_lineno(line, &lineno) && lineno > 0)
		here->line = (uint32_t)lineno;
}

static struct src_chain *resolve(struct dwarf_lines *dl, uint64_t vaddr, size_t *bytes)
{
	Dwarf_Addr addr = vaddr + dl->base, bias = 0;
	struct src_frame frames[MAX_INLINE_DEPTH] = { 0 }, here = { 0 };
	struct name_room room;	/* 32 KiB, on the main thread's stack */
	Dwarf_Die *cu = dwfl_module_addrdie(dl->mod, addr, &bias);
	Dwfl_Line *line = dwfl_module_getsrc(dl->mod, addr);
	uint32_t k = 0;
	int lineno = 0;

	if (line) {
		here.file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
		here.line = lineno > 0 ? (uint32_t)lineno : 0;
	} else if (!cu && (cu = unit_by_ranges(dl->mod, addr, &bias))) {
		unit_line(cu, addr - bias, &here);
	}
	if (cu)
		k = walk_scopes(dl, cu, addr - bias, here, frames, &room);
	else if (line)
		frames[k++] = here;
	if (!k)
		return NULL;
	return copy_chain(frames, k, bytes);
}

static struct cached *find(const struct dwarf_lines *dl, uint64_t vaddr)
{
	return dl->cap ? *slot_of(dl->slots, dl->cap, vaddr) : NULL;
}

bool dwarf_lines__needs_session(const struct dwarf_lines *dl, uint64_t vaddr, bool symbol)
{
	const struct cached *c = find(dl, vaddr);

	return !c || (symbol && !c->symbol_asked);
}

bool dwarf_lines__is_open(const struct dwarf_lines *dl)
{
	return dl->dwfl != NULL;
}

size_t dwarf_lines__bytes(const struct dwarf_lines *dl)
{
	return dl->bytes;
}

/* The address's entry, its chain resolved on first sight (the session
 * open); NULL when it was never asked and the session is closed. */
static struct cached *entry(struct dwarf_lines *dl, uint64_t vaddr)
{
	struct cached *c = find(dl, vaddr);

	if (c || !dl->dwfl)
		return c;
	if (2 * (dl->n + 1) > dl->cap && grow(dl))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->vaddr = vaddr;
	c->chain = resolve(dl, vaddr, &dl->bytes);
	*slot_of(dl->slots, dl->cap, vaddr) = c;
	dl->bytes += sizeof(*c);
	dl->n++;
	return c;
}

const struct src_chain *dwarf_lines__at(struct dwarf_lines *dl, uint64_t vaddr)
{
	struct cached *c = entry(dl, vaddr);

	return c ? c->chain : NULL;
}

/* libdwfl scans a module's whole symbol table for each address: asked
 * only for what the ELF symbol tables did not name (a copy: the answer
 * outlives the session). */
/* The entries of the symbol table libdwfl reads in the file itself:
 * .symtab, else .dynsym (index 0 included, as libdwfl counts them). */
static size_t own_symbols(Elf *elf)
{
	size_t dyn = 0, full = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			full = sh.sh_size / sh.sh_entsize;
		else if (sh.sh_type == SHT_DYNSYM)
			dyn = sh.sh_size / sh.sh_entsize;
	}
	return full ? full : dyn;
}

/* Whether libdwfl's symbols are more than the file's own, which the
 * caller searched already (elf_syms): a debug file's, or .gnu_debugdata's
 * beside them. When they are not, each lookup would be a linear search of
 * the same table again: 0.4 s at the end of a make -j2, over cc1's 28,898
 * .dynsym entries, for nothing. */
static bool more_symbols(struct dwarf_lines *dl)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(dl->mod, &bias);
	int n = dwfl_module_getsymtab(dl->mod);

	return elf && n > 0 && (size_t)n > own_symbols(elf);
}

const char *dwarf_lines__symbol(struct dwarf_lines *dl, uint64_t vaddr)
{
	struct cached *c = entry(dl, vaddr);
	const char *name;

	if (dl->dwfl && !dl->more_syms_known) {
		dl->more_syms = more_symbols(dl);
		dl->more_syms_known = true;
	}
	if (c && !c->symbol_asked && dl->dwfl) {
		name = dl->more_syms ? dwfl_module_addrname(dl->mod, vaddr + dl->base) : NULL;
		c->symbol = name ? strdup(name) : NULL;
		c->symbol_asked = true;
		dl->bytes += str_bytes(c->symbol);
	}
	return c ? c->symbol : NULL;
}
