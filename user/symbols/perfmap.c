// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* JIT maps (/tmp/perf-PID.map): opened only if they are the process's,
 * parsed as they grow within one byte budget for all maps and a share of it
 * per map, looked up by a
 * binary search over disjoint address ranges. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/addr_ranges.h"
#include "base/open_regular.h"
#include "base/parse_hex.h"
#include "symbols/perfmap.h"

struct pm_entry {
	uint64_t start, end;	/* [start, end) */
	uint32_t name;		/* offset of its name in names */
	uint32_t seq;		/* order in the file: a later line wins */
};

/* From at up to the next bound, addresses are entry who's (NO_ENTRY: no
 * entry's). Each entry starts or ends at most one bound: at most 2n. */
struct pm_bound {
	uint64_t at;
	uint32_t who;
};

#define NO_ENTRY	UINT32_MAX
/* What an entry holds once indexed, set aside when its slot is made: the
 * entry, its two bounds at most, its heap slot while the index is built. */
#define ENTRY_COST	(sizeof(struct pm_entry) + 2 * sizeof(struct pm_bound) + sizeof(uint32_t))

struct perfmap {
	struct perfmap_budget *budget;
	size_t held;		/* of the budget: entry slots (ENTRY_COST), names */
	struct pm_entry *entries;	/* line order, sorted by start once indexed */
	size_t n, cap;
	bool sorted;		/* entries by (start, seq) */
	char *names;		/* NUL-ended names, back to back */
	size_t names_len, names_cap;
	struct pm_bound *bounds;	/* the index: sorted by at */
	size_t nbounds;
	size_t indexed;		/* entries the index covers: n when up to date */
	bool cut;		/* the budget ran out: nothing more is kept */
	bool cut_by_share;	/* ... this map's share of it, not all maps' cap */
	bool share_bound;	/* the last room asked was bound by the share */
	char line[PERFMAP_LINE_MAX + 1];	/* an incomplete last line */
	size_t line_len;
	bool line_too_long;	/* the current line is skipped to its end */
	off_t read_to;		/* bytes of the file fed so far */
	size_t malformed;
	size_t over_cap;	/* well-formed lines skipped: the budget was spent */
};

struct perfmap *perfmap__new(struct perfmap_budget *budget)
{
	struct perfmap *pm = calloc(1, sizeof(struct perfmap));

	if (pm) {
		pm->budget = budget;
		pm->sorted = true;
	}
	return pm;
}

void perfmap__free(struct perfmap *pm)
{
	if (!pm)
		return;
	pm->budget->held -= pm->held;
	free(pm->entries);
	free(pm->names);
	free(pm->bounds);
	free(pm);
}

size_t perfmap__count(const struct perfmap *pm)
{
	return pm->n;
}

size_t perfmap__malformed(const struct perfmap *pm)
{
	return pm->malformed;
}

size_t perfmap__over_cap(const struct perfmap *pm)
{
	return pm->over_cap;
}

bool perfmap__cut_by_share(const struct perfmap *pm)
{
	return pm->cut_by_share;
}

/* How many units of unit bytes an array may grow by: want, at most half
 * the room (what is left stays for the other arrays and maps), but need if
 * there is room for that. The room is the budget's, or less, what is left
 * of this map's share (which of the two bound it: share_bound). */
static size_t budget_room(struct perfmap *pm, size_t unit, size_t need, size_t want)
{
	const struct perfmap_budget *b = pm->budget;
	size_t room, own;

	if (!b->cap)
		return want;
	room = b->held < b->cap ? (b->cap - b->held) / unit : 0;
	own = b->share && pm->held < b->share ? (b->share - pm->held) / unit : 0;
	pm->share_bound = b->share && own <= room;
	if (pm->share_bound)
		room = own;
	if (want > room / 2)
		want = room / 2;
	return want >= need ? want : room >= need ? need : 0;
}

static void charge(struct perfmap *pm, size_t bytes)
{
	pm->budget->held += bytes;
	pm->held += bytes;
}

/* Room for one more entry: 0, -ENOSPC (the budget is spent) or -ENOMEM. */
static int grow_entries(struct perfmap *pm)
{
	size_t more = budget_room(pm, ENTRY_COST, 1, pm->cap ? pm->cap : 64);
	struct pm_entry *grown;

	if (pm->n < pm->cap)
		return 0;
	if (!more || pm->cap + more >= NO_ENTRY)
		return -ENOSPC;
	grown = realloc(pm->entries, (pm->cap + more) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	pm->entries = grown;
	pm->cap += more;
	charge(pm, more * ENTRY_COST);
	return 0;
}

/* Room for len more bytes of names: 0, -ENOSPC or -ENOMEM. */
static int grow_names(struct perfmap *pm, size_t len)
{
	size_t need = len - (pm->names_cap - pm->names_len), more;
	char *grown;

	if (pm->names_cap - pm->names_len >= len)
		return 0;
	more = budget_room(pm, 1, need, pm->names_cap > need ? pm->names_cap : need);
	if (!more || pm->names_cap + more > UINT32_MAX)
		return -ENOSPC;
	grown = realloc(pm->names, pm->names_cap + more);
	if (!grown)
		return -ENOMEM;
	pm->names = grown;
	pm->names_cap += more;
	charge(pm, more);
	return 0;
}

/* A hex number, optionally 0x-prefixed, then one or more blanks. */
static bool parse_hex_field(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (!parse_hex(&p, NULL, 16, &v) || (*p != ' ' && *p != '\t'))
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	*pp = p;
	*out = v;
	return true;
}

/* Keeps entry [start, start + size) named name: 0, -ENOSPC or -ENOMEM. */
static int keep(struct perfmap *pm, uint64_t start, uint64_t size, const char *name)
{
	size_t len = strlen(name) + 1;
	struct pm_entry *e;
	int err;

	if (pm->cut)
		return -ENOSPC;
	err = grow_entries(pm);
	if (!err)
		err = grow_names(pm, len);
	if (err)
		return err;
	e = &pm->entries[pm->n];
	*e = (struct pm_entry){ .start = start, .end = start + size,
				.name = (uint32_t)pm->names_len, .seq = (uint32_t)pm->n };
	memcpy(pm->names + pm->names_len, name, len);
	pm->names_len += len;
	if (pm->n && start < pm->entries[pm->n - 1].start)
		pm->sorted = false;
	pm->n++;
	return 0;
}

/* One complete line, NUL-terminated, without its '\n'. */
static int add_line(struct perfmap *pm, char *line)
{
	const char *p = line;
	uint64_t start, size;
	size_t len = strlen(line);
	int err;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		line[--len] = '\0';
	if (!len)
		return 0;	/* blank lines are not errors */
	if (!parse_hex_field(&p, &start) || !parse_hex_field(&p, &size) || !size || !*p ||
	    start + size < start) {
		pm->malformed++;
		return 0;
	}
	/* a JIT that never stops generating (or a hostile file) must not
	 * take all memory: past the budget, lines are counted, not kept */
	err = keep(pm, start, size, p);
	if (err == -ENOSPC) {
		if (!pm->cut)
			pm->cut_by_share = pm->share_bound;
		pm->cut = true;
		pm->over_cap++;
		return 0;
	}
	return err;
}

int perfmap__feed(struct perfmap *pm, const char *buf, size_t len)
{
	const char *end = buf + len, *nl;
	size_t take;
	int err;

	while (buf < end) {
		nl = memchr(buf, '\n', (size_t)(end - buf));
		take = (size_t)((nl ? nl : end) - buf);
		if (pm->line_len + take > PERFMAP_LINE_MAX)
			pm->line_too_long = true;
		if (!pm->line_too_long) {
			memcpy(pm->line + pm->line_len, buf, take);
			pm->line_len += take;
		}
		buf += take;
		if (!nl)
			break;
		buf++;
		pm->line[pm->line_len] = '\0';
		if (pm->line_too_long || memchr(pm->line, '\0', pm->line_len))
			pm->malformed++;
		else if ((err = add_line(pm, pm->line)))
			return err;
		pm->line_len = 0;
		pm->line_too_long = false;
	}
	return 0;
}

int perfmap__read_fd(struct perfmap *pm, int fd)
{
	char buf[65536];
	off_t budget = PERFMAP_READ_MAX;
	ssize_t got;
	int err;

	for (; budget > 0; budget -= got) {
		got = pread(fd, buf, sizeof(buf), pm->read_to);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!got)
			return 0;
		pm->read_to += got;
		err = perfmap__feed(pm, buf, (size_t)got);
		if (err)
			return err;
	}
	return 0;	/* the rest at the next call */
}

/* (start, seq) order, in place: a heap sort allocates nothing (glibc's
 * qsort may copy the array, outside the budget). */
static bool entry_before(const struct pm_entry *a, const struct pm_entry *b)
{
	return a->start != b->start ? a->start < b->start : a->seq < b->seq;
}

static void sift_entries(struct pm_entry *e, size_t root, size_t n)
{
	for (size_t child; (child = 2 * root + 1) < n; root = child) {
		struct pm_entry t;

		if (child + 1 < n && entry_before(&e[child], &e[child + 1]))
			child++;
		if (!entry_before(&e[root], &e[child]))
			return;
		t = e[root];
		e[root] = e[child];
		e[child] = t;
	}
}

static void sort_entries(struct pm_entry *e, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_entries(e, i, n);
	for (size_t end = n; end > 1; end--) {
		struct pm_entry t = e[0];

		e[0] = e[end - 1];
		e[end - 1] = t;
		sift_entries(e, 0, end - 1);
	}
}

/* The sweep's heap of entries covering the current address: the latest
 * line on top. */
struct live_heap {
	uint32_t *slot;
	size_t n;
	const struct pm_entry *e;
};

static void heap_sift_down(struct live_heap *h, size_t i)
{
	for (size_t c; (c = 2 * i + 1) < h->n; i = c) {
		uint32_t t;

		if (c + 1 < h->n && h->e[h->slot[c + 1]].seq > h->e[h->slot[c]].seq)
			c++;
		if (h->e[h->slot[i]].seq >= h->e[h->slot[c]].seq)
			return;
		t = h->slot[i];
		h->slot[i] = h->slot[c];
		h->slot[c] = t;
	}
}

static void heap_push(struct live_heap *h, uint32_t who)
{
	size_t i = h->n++;

	h->slot[i] = who;
	while (i && h->e[h->slot[(i - 1) / 2]].seq < h->e[h->slot[i]].seq) {
		uint32_t t = h->slot[i];

		h->slot[i] = h->slot[(i - 1) / 2];
		h->slot[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void heap_pop(struct live_heap *h)
{
	h->slot[0] = h->slot[--h->n];
	heap_sift_down(h, 0);
}

/* From at on, addresses are who's: one bound, merged with the last. */
static void add_bound(struct perfmap *pm, uint64_t at, uint32_t who)
{
	struct pm_bound *last = pm->nbounds ? &pm->bounds[pm->nbounds - 1] : NULL;

	if (last && last->at == at) {
		last->who = who;
		if (pm->nbounds > 1 && last[-1].who == who)
			pm->nbounds--;
		return;
	}
	if (last ? last->who == who : who == NO_ENTRY)
		return;
	pm->bounds[pm->nbounds++] = (struct pm_bound){ .at = at, .who = who };
}

/* The index: a sweep by address over the entries sorted by start, the
 * latest line among those covering an address owns it. O(n log n), within
 * what each entry set aside (ENTRY_COST). Returns 0 or -ENOMEM. */
static int build_index(struct perfmap *pm)
{
	struct live_heap h = { .e = pm->entries };
	const struct pm_entry *e = pm->entries;
	uint64_t pos = 0;
	size_t i = 0;

	if (!pm->sorted)
		sort_entries(pm->entries, pm->n);
	pm->sorted = true;
	free(pm->bounds);
	pm->nbounds = 0;
	pm->bounds = malloc(2 * pm->n * sizeof(*pm->bounds));
	h.slot = malloc(pm->n * sizeof(*h.slot));
	if (!pm->bounds || !h.slot) {
		free(h.slot);
		return -ENOMEM;
	}
	while (i < pm->n || h.n) {
		uint64_t next;

		if (!h.n && e[i].start > pos)
			pos = e[i].start;
		while (i < pm->n && e[i].start <= pos)
			heap_push(&h, (uint32_t)i++);
		while (h.n && e[h.slot[0]].end <= pos)
			heap_pop(&h);
		if (!h.n) {
			add_bound(pm, pos, NO_ENTRY);
			continue;
		}
		add_bound(pm, pos, h.slot[0]);
		next = e[h.slot[0]].end;
		if (i < pm->n && e[i].start < next)
			next = e[i].start;
		pos = next;
	}
	free(h.slot);
	pm->indexed = pm->n;
	return 0;
}

const char *perfmap__lookup(struct perfmap *pm, uint64_t addr)
{
	struct addr_view v;
	size_t i;

	if (pm->indexed != pm->n && build_index(pm)) {
		free(pm->bounds);	/* no index: nothing named until it is built */
		pm->bounds = NULL;
		pm->nbounds = 0;
		return NULL;
	}
	/* each bound runs to the next: disjoint, no two at one address */
	v = ADDR_VIEW(pm->bounds, pm->nbounds, at);
	i = addr_view__find(&v, addr);
	if (i == ADDR_NONE || pm->bounds[i].who == NO_ENTRY)
		return NULL;
	return pm->names + pm->entries[pm->bounds[i].who].name;
}

void perfmap__refusal(const struct stat *st, const struct proc_owner *owner, char *why,
		      size_t size)
{
	why[0] = '\0';
	if (!S_ISREG(st->st_mode))
		snprintf(why, size, "not a regular file");
	else if (!owner->known)
		snprintf(why, size, "owner unknown");
	else if (st->st_uid != owner->ruid && st->st_uid != owner->euid)
		snprintf(why, size, "owned by uid %u, not the process's %u",
			 (unsigned int)st->st_uid, (unsigned int)owner->euid);
	else if (st->st_nlink != 1)
		snprintf(why, size, "%ju links to it (a hard link)", (uintmax_t)st->st_nlink);
}

/* Opens path, the map of a process owner says whose, unless refused: it
 * is checked before it is opened (a device node may act on open). */
static int open_checked(const char *path, const struct proc_owner *owner, char *why,
			size_t size)
{
	struct stat st;
	int fd = file_open_path(path, O_NOFOLLOW, &st);

	why[0] = '\0';
	if (fd == -ELOOP)
		snprintf(why, size, "a symbolic link");
	else if (fd == -EINVAL)
		snprintf(why, size, "not a regular file");
	if (fd < 0)
		return why[0] ? -EPERM : fd;
	perfmap__refusal(&st, owner, why, size);
	if (!why[0])
		return file_reopen(fd, &st);
	close(fd);
	return -EPERM;
}

int perfmap__open(pid_t tgid, uint64_t start_time, bool alive, const struct proc_owner *known,
		  char *path, size_t path_size, char *why, size_t why_size)
{
	struct proc_owner owner = *known, now;
	char proc_path[96];
	pid_t nspid = tgid;
	int fd;

	/* its pid still its own (the start time learnt, or it started by its
	 * samples' start): its user now, its own root */
	if (alive && !proc_owner__read(tgid, start_time, &now, &nspid) &&
	    (!known->known || now.start_ticks == known->start_ticks)) {
		owner = now;
		snprintf(path, path_size, "/tmp/perf-%d.map", (int)nspid);
		snprintf(proc_path, sizeof(proc_path), "/proc/%d/root%s", (int)tgid, path);
		fd = open_checked(proc_path, &owner, why, why_size);
		if (fd >= 0 || fd == -EPERM)
			return fd;
	}
	/* gone (or unreadable): by its host pid, against its user as learnt
	 * while it ran ("owner unknown" if never) */
	snprintf(path, path_size, "/tmp/perf-%d.map", (int)tgid);
	return open_checked(path, &owner, why, why_size);
}
