// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Kernel symbols from /proc/kallsyms.
 *
 * The input is parsed twice by the same scanner: the first pass counts the
 * kept symbols and the bytes their strings need, the second fills arrays of
 * exactly that size. So there is no realloc, and no pointer into a buffer
 * that could move. Every name and module name lives in one string arena.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksyms.h"
#include "parse_hex.h"

/* kallsyms gives no symbol sizes: past the last symbol, assume at most this. */
#define LAST_SYM_MAX_SIZE	(1ULL << 20)
#define READ_CHUNK		(64 * 1024)

struct ksyms {
	struct ksym *syms;	/* sorted by address, then by input order */
	size_t nr;
	char *strs;		/* arena: NUL-terminated names and modules */
};

/* One kallsyms line, pointing into the input (not NUL-terminated). */
struct raw_sym {
	uint64_t addr;
	const char *name, *mod;
	size_t name_len, mod_len;	/* mod_len 0: kernel image */
};

/* Scanner state shared by both passes so that they take the same decisions. */
struct scan {
	size_t nr;		/* symbols kept so far */
	size_t bytes;		/* arena bytes used so far */
	const char *prev_mod;	/* previous kept module, in the input */
	size_t prev_mod_len;
	const char *prev_mod_str;	/* its copy in the arena (2nd pass) */
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

static char *arena_put(char *arena, size_t *pos, const char *s, size_t len)
{
	char *dst = arena + *pos;

	memcpy(dst, s, len);
	dst[len] = '\0';
	*pos += len + 1;
	return dst;
}

/* A module's symbols are contiguous in kallsyms, so comparing with the
 * previous module is enough to store each module name once. */
static bool same_mod(const struct scan *sc, const struct raw_sym *rs)
{
	return sc->prev_mod && sc->prev_mod_len == rs->mod_len &&
	       !memcmp(sc->prev_mod, rs->mod, rs->mod_len);
}

/* Accounts for one kept symbol; with ks, also stores it. */
static void keep_sym(struct scan *sc, const struct raw_sym *rs, struct ksyms *ks)
{
	struct ksym *sym = ks ? &ks->syms[sc->nr] : NULL;
	bool new_mod = rs->mod && !same_mod(sc, rs);

	if (sym) {
		sym->addr = rs->addr;
		sym->name = arena_put(ks->strs, &sc->bytes, rs->name, rs->name_len);
		if (new_mod)
			sc->prev_mod_str = arena_put(ks->strs, &sc->bytes,
						     rs->mod, rs->mod_len);
		sym->module = rs->mod ? sc->prev_mod_str : NULL;
	} else {
		sc->bytes += rs->name_len + 1;
		if (new_mod)
			sc->bytes += rs->mod_len + 1;
	}
	if (new_mod) {
		sc->prev_mod = rs->mod;
		sc->prev_mod_len = rs->mod_len;
	}
	sc->nr++;
}

/* Walks every line; the last one may lack its '\n'. */
static void scan(const char *buf, size_t len, struct scan *sc, struct ksyms *ks)
{
	const char *p = buf, *end = buf + len, *eol;
	struct raw_sym rs;

	memset(sc, 0, sizeof(*sc));
	while (p < end) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		if (parse_line(p, eol, &rs))
			keep_sym(sc, &rs, ks);
		p = eol < end ? eol + 1 : end;
	}
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

struct ksyms *ksyms__parse(const char *buf, size_t len)
{
	struct ksyms *ks;
	struct scan sc;

	if (!buf && len) {
		errno = EINVAL;
		return NULL;
	}
	/* len 0 would make scan() compute NULL + 0 for a NULL buf. */
	if (len)
		scan(buf, len, &sc, NULL);
	if (!len || !sc.nr) {
		errno = ENODATA;
		return NULL;
	}

	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return NULL;
	ks->syms = calloc(sc.nr, sizeof(*ks->syms));
	ks->strs = malloc(sc.bytes);
	if (!ks->syms || !ks->strs) {
		ksyms__free(ks);
		errno = ENOMEM;
		return NULL;
	}
	scan(buf, len, &sc, ks);
	ks->nr = sc.nr;
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_ksym);
	return ks;
}

/* Reads a whole file: /proc files report size 0, so read until EOF. */
static char *read_file(int fd, size_t *lenp)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *tmp;
	ssize_t n;

	for (;;) {
		if (cap - len < READ_CHUNK) {
			if (cap > SIZE_MAX / 2 - READ_CHUNK) {
				errno = EFBIG;
				goto err;
			}
			cap = cap * 2 + READ_CHUNK;
			tmp = realloc(buf, cap);
			if (!tmp)
				goto err;
			buf = tmp;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto err;
		if (!n)
			break;
		len += n;
	}
	*lenp = len;
	return buf;
err:
	free(buf);
	return NULL;
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms *ks = NULL;
	size_t len;
	char *buf;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = read_file(fd, &len);
	err = errno;
	close(fd);
	if (buf) {
		ks = ksyms__parse(buf, len);
		err = errno;
		free(buf);
	}
	/* close() and free() must not clobber the reason of the failure. */
	errno = err;
	return ks;
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

/* Index of the first symbol with address >= addr. */
static size_t lower_bound(const struct ksyms *ks, size_t hi, uint64_t addr)
{
	size_t lo = 0, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ks->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the first symbol with address > addr. */
static size_t upper_bound(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct ksym *ksyms__find(const struct ksyms *ks, uint64_t addr)
{
	const struct ksym *sym;
	size_t i;

	if (!ks || !ks->nr)
		return NULL;
	i = upper_bound(ks, addr);
	if (!i)
		return NULL;
	sym = &ks->syms[i - 1];
	if (i == ks->nr && addr - sym->addr >= LAST_SYM_MAX_SIZE)
		return NULL;
	/* Aliases share an address: always answer the first one listed. */
	return &ks->syms[lower_bound(ks, i - 1, sym->addr)];
}

int ksyms__span(const struct ksyms *ks, uint64_t *start, uint64_t *end)
{
	if (!ks->nr)
		return -ENOENT;
	*start = ks->syms[0].addr;
	*end = ks->syms[ks->nr - 1].addr + LAST_SYM_MAX_SIZE;
	return 0;
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks ? ks->nr : 0;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->strs);
	free(ks);
}
