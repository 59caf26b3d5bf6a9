// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Kernel symbols from /proc/kallsyms.
 *
 * One pass over the text, line by line, whether it comes from memory or
 * from the file in chunks: /proc/kallsyms is ~5 MiB, and reading it whole
 * before parsing tripled what loading it held at its peak (fleet mode's
 * RSS starts there). A symbol is 16 bytes: its address and two offsets
 * into one string arena (names, and each module's name once).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/addr_ranges.h"
#include "base/grow.h"
#include "symbols/ksyms.h"
#include "base/parse_hex.h"

/* kallsyms gives no symbol sizes: past the last symbol, assume at most this. */
#define LAST_SYM_MAX_SIZE	(1ULL << 20)
#define READ_CHUNK		(64 * 1024)
#define MAX_LINE		(READ_CHUNK - 1)	/* longer lines are malformed */
#define ARENA_MAX		UINT32_MAX	/* offsets are 32-bit; KSYM_NONE is the last */

struct ksyms {
	struct ksym *syms;	/* sorted by address, then by input order */
	size_t nr, cap;
	char *strs;		/* arena: NUL-terminated names and modules */
	size_t bytes, strs_cap;
	uint32_t prev_mod;	/* the module of the last kept symbol */
	bool failed;		/* out of memory, or the arena past 4 GiB */
	/* every text symbol of the input, kept or not: what ksyms__span()
	 * and the last symbol's end are of */
	size_t seen;
	uint64_t first, last;
	struct ksyms_want *want;	/* a load for some addresses only; or NULL */
	char build_id[2 * KSYMS_BUILD_ID_MAX + 1];	/* the kernel image's, hex */
};

/* A load for the sorted, distinct addresses addrs[n] only. kallsyms is not
 * sorted (modules follow the image), so each address keeps the greatest
 * symbol seen so far in its gap, (addrs[j - 1], addrs[j]]: an address's
 * answer is its own gap's, or the nearest earlier gap's that has one. What
 * this holds is two pointers and one name per address, whatever kallsyms'
 * size. */
struct ksym_gap {
	uint64_t addr;
	char *names;	/* "NAME\0" then 'k' (the image) or 'm' and "MODULE\0"; NULL: none */
};

struct ksyms_want {
	const uint64_t *addrs;
	size_t n;
	struct ksym_gap *gaps;
};

/* One kallsyms line, pointing into the input (not NUL-terminated). */
struct raw_sym {
	uint64_t addr;
	const char *name, *mod;
	size_t name_len, mod_len;	/* mod_len 0: kernel image */
};

static bool is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* Parses "ADDR TYPE NAME[\t[MODULE]]" in [p, eol). False for malformed
 * lines and for the symbols we do not keep. */
static bool parse_line(const char *p, const char *eol, struct raw_sym *rs)
{
	const char *tab;

	if (!parse_hex(&p, eol, 16, &rs->addr) || !rs->addr)
		return false;
	if (eol - p < 3 || p[0] != ' ' || !is_text_type(p[1]) || p[2] != ' ')
		return false;
	p += 3;

	tab = memchr(p, '\t', eol - p);
	rs->name = p;
	rs->name_len = (tab ? tab : eol) - p;
	/* An embedded NUL would silently truncate the stored name. */
	if (!rs->name_len || memchr(rs->name, '\0', rs->name_len))
		return false;

	rs->mod = NULL;
	rs->mod_len = 0;
	if (!tab)
		return true;

	/* "\t[module]" must end the line. */
	p = tab + 1;
	if (eol - p < 3 || p[0] != '[' || eol[-1] != ']')
		return false;
	rs->mod = p + 1;
	rs->mod_len = eol - 1 - rs->mod;
	return !memchr(rs->mod, '\0', rs->mod_len) &&
	       !memchr(rs->mod, ']', rs->mod_len);
}

/* s (len bytes) into the arena: its offset, or KSYM_NONE on failure. */
static uint32_t arena_put(struct ksyms *ks, const char *s, size_t len)
{
	size_t at = ks->bytes;

	if (len >= ARENA_MAX - at || GROW(ks->strs, ks->strs_cap, at + len + 1)) {
		ks->failed = true;
		return KSYM_NONE;
	}
	memcpy(ks->strs + at, s, len);
	ks->strs[at + len] = '\0';
	ks->bytes = at + len + 1;
	return (uint32_t)at;
}

/* A module's symbols are contiguous in kallsyms, so comparing with the
 * previous module is enough to store each module name once. */
static uint32_t module_of(struct ksyms *ks, const struct raw_sym *rs)
{
	const char *prev = ks->prev_mod == KSYM_NONE ? NULL : ks->strs + ks->prev_mod;

	if (!rs->mod)
		return KSYM_NONE;
	if (!prev || strlen(prev) != rs->mod_len || memcmp(prev, rs->mod, rs->mod_len))
		ks->prev_mod = arena_put(ks, rs->mod, rs->mod_len);
	return ks->prev_mod;
}

/* A symbol into the table. */
static void add_sym(struct ksyms *ks, const struct raw_sym *rs)
{
	struct ksym *sym;

	if (GROW(ks->syms, ks->cap, ks->nr + 1)) {
		ks->failed = true;
		return;
	}
	sym = &ks->syms[ks->nr];
	sym->addr = rs->addr;
	sym->module = module_of(ks, rs);
	sym->name = arena_put(ks, rs->name, rs->name_len);
	if (!ks->failed)
		ks->nr++;
}

/* The first of the n sorted addrs at or above x (n if none). */
static size_t first_at_or_above(const uint64_t *addrs, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addrs[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A symbol of a load for some addresses: kept if it is the greatest so far
 * of its gap (of aliases, the first listed, as the whole table answers). */
static void want_sym(struct ksyms *ks, const struct raw_sym *rs)
{
	struct ksyms_want *w = ks->want;
	size_t j = first_at_or_above(w->addrs, w->n, rs->addr);
	struct ksym_gap *g = &w->gaps[j];
	char *names;

	if (j == w->n || (g->names && g->addr >= rs->addr))
		return;
	names = malloc(rs->name_len + rs->mod_len + 3);
	if (!names) {
		ks->failed = true;
		return;
	}
	memcpy(names, rs->name, rs->name_len);
	names[rs->name_len] = '\0';
	names[rs->name_len + 1] = rs->mod ? 'm' : 'k';
	memcpy(names + rs->name_len + 2, rs->mod ? rs->mod : "", rs->mod_len);
	names[rs->name_len + 2 + rs->mod_len] = '\0';
	free(g->names);
	*g = (struct ksym_gap){ .addr = rs->addr, .names = names };
}

/* One line [p, eol) of the input: kept if it is a text symbol (and, in a
 * load for some addresses, one of theirs). */
static void add_line(struct ksyms *ks, const char *p, const char *eol)
{
	struct raw_sym rs;

	if (ks->failed || !parse_line(p, eol, &rs))
		return;
	if (!ks->seen || rs.addr < ks->first)
		ks->first = rs.addr;
	if (!ks->seen || rs.addr > ks->last)
		ks->last = rs.addr;
	ks->seen++;
	if (ks->want)
		want_sym(ks, &rs);
	else
		add_sym(ks, &rs);
}

/* The complete lines of [buf, buf + len): how many bytes they took. A last
 * line without its '\n' is taken only when final. */
static size_t add_lines(struct ksyms *ks, const char *buf, size_t len, bool final)
{
	const char *p = buf, *end = buf + len, *eol;

	while (p < end) {
		eol = memchr(p, '\n', end - p);
		if (!eol && !final)
			break;
		if (!eol)
			eol = end;
		/* the same lines from memory as from the file (read_lines) */
		if ((size_t)(eol - p) < MAX_LINE)
			add_line(ks, p, eol);
		p = eol < end ? eol + 1 : end;
	}
	return p - buf;
}

/* A table to fill; w: for w's addresses only (w->gaps allocated here). */
static struct ksyms *ksyms_begin(struct ksyms_want *w)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	ks->prev_mod = KSYM_NONE;
	if (w) {
		w->gaps = calloc(w->n ? w->n : 1, sizeof(*w->gaps));
		if (!w->gaps) {
			free(ks);
			return NULL;
		}
		ks->want = w;
	}
	return ks;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Names are in the arena in input order: keeps aliases in input order. */
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return 0;
}

/* A load for some addresses: each gap's symbol into the table, in address
 * order (the gaps are), and the gaps freed. */
static void want_end(struct ksyms *ks)
{
	struct ksyms_want *w = ks->want;
	struct raw_sym rs;

	ks->want = NULL;
	for (size_t j = 0; j < w->n; j++) {
		char *names = w->gaps[j].names;

		if (!names)
			continue;
		rs.addr = w->gaps[j].addr;
		rs.name = names;
		rs.name_len = strlen(names);
		rs.mod = names[rs.name_len + 1] == 'm' ? names + rs.name_len + 2 : NULL;
		rs.mod_len = rs.mod ? strlen(rs.mod) : 0;
		if (!ks->failed)
			add_sym(ks, &rs);
		free(names);
	}
	free(w->gaps);
}

/* Sorts what was kept and gives back the slack; NULL (freed) with errno
 * on failure or when the input had no symbol. */
static struct ksyms *ksyms_end(struct ksyms *ks)
{
	void *p;

	if (ks->want)
		want_end(ks);
	if (ks->failed || !ks->seen) {
		errno = ks->failed ? ENOMEM : ENODATA;
		ksyms__free(ks);
		return NULL;
	}
	p = ks->nr ? realloc(ks->syms, ks->nr * sizeof(*ks->syms)) : NULL;
	if (p)
		ks->syms = p;
	p = ks->bytes ? realloc(ks->strs, ks->bytes) : NULL;
	if (p)
		ks->strs = p;
	if (ks->nr)
		qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_ksym);
	return ks;
}

static struct ksyms *parse(const char *buf, size_t len, struct ksyms_want *w)
{
	struct ksyms *ks;

	if (!buf || !len) {
		errno = buf || !len ? ENODATA : EINVAL;
		return NULL;
	}
	ks = ksyms_begin(w);
	if (!ks)
		return NULL;
	add_lines(ks, buf, len, true);
	return ksyms_end(ks);
}

struct ksyms *ksyms__parse(const char *buf, size_t len)
{
	return parse(buf, len, NULL);
}

struct ksyms *ksyms__parse_for(const char *buf, size_t len, const uint64_t *addrs, size_t n)
{
	struct ksyms_want w = { .addrs = addrs, .n = n };

	return parse(buf, len, &w);
}

/* Reads fd in chunks into ks: /proc files report size 0, so until EOF.
 * A line that does not fit the buffer is dropped whole (as add_lines()
 * drops it from memory). Returns 0 or errno. */
static int read_lines(struct ksyms *ks, int fd)
{
	char *buf = malloc(READ_CHUNK), *nl;
	size_t have = 0, used;
	bool skipping = false;	/* inside a line too long to keep */
	ssize_t n;
	int err = 0;

	if (!buf)
		return ENOMEM;
	for (;;) {
		n = read(fd, buf + have, READ_CHUNK - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			break;
		}
		have += n;
		if (skipping) {
			nl = memchr(buf, '\n', have);
			used = nl ? (size_t)(nl + 1 - buf) : have;
			memmove(buf, buf + used, have - used);
			have -= used;
			skipping = !nl;
		}
		used = add_lines(ks, buf, have, !n);
		memmove(buf, buf + used, have - used);
		have -= used;
		if (!n)
			break;
		if (have == READ_CHUNK) {
			have = 0;
			skipping = true;
		}
	}
	free(buf);
	return err;
}

/* 4-byte words of an ELF note header: namesz, descsz, type (the same in
 * Elf32_Nhdr and Elf64_Nhdr); name and desc each padded to 4 bytes. */
void ksyms__notes_build_id(const void *buf, size_t len, char out[2 * KSYMS_BUILD_ID_MAX + 1])
{
	const unsigned char *p = buf;
	size_t off = 0, name, desc;
	uint32_t w[3];

	out[0] = '\0';
	while (len - off >= sizeof(w)) {
		memcpy(w, p + off, sizeof(w));
		off += sizeof(w);
		name = ((size_t)w[0] + 3) & ~(size_t)3;
		desc = ((size_t)w[1] + 3) & ~(size_t)3;
		if (name > len - off || desc > len - off - name)
			return;
		if (w[2] == 3 /* NT_GNU_BUILD_ID */ && w[0] == 4 && !memcmp(p + off, "GNU", 4) &&
		    w[1] > 0 && w[1] <= KSYMS_BUILD_ID_MAX) {
			for (uint32_t i = 0; i < w[1]; i++)
				sprintf(out + 2 * i, "%02x", p[off + name + i]);
			return;
		}
		off += name + desc;
	}
}

/* The running kernel's build-id, from the notes it exports (readable by
 * root): what pprof's and OTLP's kernel mapping name it by. */
static void kernel_build_id(struct ksyms *ks)
{
	unsigned char buf[KSYMS_NOTES_MAX];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

	if (fd >= 0)
		close(fd);
	if (n > 0)
		ksyms__notes_build_id(buf, (size_t)n, ks->build_id);
}

static struct ksyms *load(const char *path, struct ksyms_want *w)
{
	struct ksyms *ks;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ks = ksyms_begin(w);
	err = ks ? read_lines(ks, fd) : ENOMEM;
	close(fd);
	if (err) {
		ksyms__free(ks);
		errno = err;
		return NULL;
	}
	kernel_build_id(ks);
	return ksyms_end(ks);
}

struct ksyms *ksyms__load(const char *path)
{
	return load(path, NULL);
}

struct ksyms *ksyms__load_for(const char *path, const uint64_t *addrs, size_t n)
{
	struct ksyms_want w = { .addrs = addrs, .n = n };

	return load(path, &w);
}

const char *ksyms__build_id(const struct ksyms *ks)
{
	return ks ? ks->build_id : "";
}

struct ksyms_loader {
	pthread_t thread;
	char *path;
	struct ksyms *ks;
	int err;		/* ksyms__load's errno when ks is NULL */
};

static void *load_thread(void *arg)
{
	struct ksyms_loader *l = arg;

	l->ks = ksyms__load(l->path);
	l->err = l->ks ? 0 : errno;
	return NULL;
}

struct ksyms_loader *ksyms__load_start(const char *path)
{
	struct ksyms_loader *l = calloc(1, sizeof(*l));
	sigset_t all, old;
	int err;

	if (!l)
		return NULL;
	l->path = strdup(path);
	if (!l->path) {
		free(l);
		return NULL;
	}
	/* The thread inherits a full mask: signals stay the main thread's. */
	sigfillset(&all);
	err = pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!err) {
		err = pthread_create(&l->thread, NULL, load_thread, l);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (err) {
		free(l->path);
		free(l);
		errno = err;
		return NULL;
	}
	return l;
}

struct ksyms *ksyms__load_wait(struct ksyms_loader *l)
{
	struct ksyms *ks;
	int err;

	err = pthread_join(l->thread, NULL);
	ks = l->ks;
	if (!err && !ks)
		err = l->err;
	free(l->path);
	free(l);
	errno = err;
	return ks;
}

const struct ksym *ksyms__find(const struct ksyms *ks, uint64_t addr)
{
	const struct addr_view v = ADDR_VIEW(ks ? ks->syms : NULL, ks ? ks->nr : 0, addr);
	/* each symbol runs to the next address; aliases share an address:
	 * the table's rule answers the first one listed */
	size_t i = addr_view__find(&v, addr);

	if (i == ADDR_NONE)
		return NULL;
	if (ks->syms[i].addr == ks->last && addr - ks->syms[i].addr >= LAST_SYM_MAX_SIZE)
		return NULL;
	return &ks->syms[i];
}

int ksyms__span(const struct ksyms *ks, uint64_t *start, uint64_t *end)
{
	if (!ks->seen)
		return -ENOENT;
	*start = ks->first;
	*end = ks->last + LAST_SYM_MAX_SIZE;
	return 0;
}

const char *ksyms__name(const struct ksyms *ks, const struct ksym *sym)
{
	return ks->strs + sym->name;
}

const char *ksyms__module(const struct ksyms *ks, const struct ksym *sym)
{
	return sym->module == KSYM_NONE ? NULL : ks->strs + sym->module;
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks ? ks->nr : 0;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	if (ks->want) {		/* a load that failed on its way */
		for (size_t j = 0; j < ks->want->n; j++)
			free(ks->want->gaps[j].names);
		free(ks->want->gaps);
	}
	free(ks->syms);
	free(ks->strs);
	free(ks);
}
