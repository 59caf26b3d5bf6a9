// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* JIT maps (/tmp/perf-PID.map): parsed as they grow, looked up by address. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "mapped_file.h"
#include "parse_hex.h"
#include "perfmap.h"

struct pm_sym {
	uint64_t start, end;	/* [start, end) */
	uint64_t seq;		/* order in the file: a later line wins */
	char *name;
};

struct perfmap {
	struct pm_sym *syms;	/* sorted by start when !unsorted */
	size_t n, cap;
	bool unsorted;
	uint64_t max_len;	/* longest entry: how far back a lookup looks */
	char line[PERFMAP_LINE_MAX + 1];	/* an incomplete last line */
	size_t line_len;
	bool line_too_long;	/* the current line is skipped to its end */
	off_t read_to;		/* bytes of the file fed so far */
	size_t bytes;		/* held: entries and names */
	size_t malformed;
	size_t over_cap;	/* well-formed lines skipped: PERFMAP_MAX_BYTES held */
};

struct perfmap *perfmap__new(void)
{
	return calloc(1, sizeof(struct perfmap));
}

void perfmap__free(struct perfmap *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < pm->n; i++)
		free(pm->syms[i].name);
	free(pm->syms);
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

/* One complete line, NUL-terminated, without its '\n'. */
static int add_line(struct perfmap *pm, char *line)
{
	const char *p = line;
	uint64_t start, size;
	size_t len = strlen(line);
	struct pm_sym *s;
	size_t need;

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
	 * take all memory: past the cap, lines are counted, not kept */
	need = sizeof(*s) + strlen(p) + 1;
	if (pm->bytes + need > PERFMAP_MAX_BYTES) {
		pm->over_cap++;
		return 0;
	}
	if (pm->n == pm->cap) {
		size_t cap = pm->cap ? pm->cap * 2 : 64;
		struct pm_sym *grown = realloc(pm->syms, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		pm->syms = grown;
		pm->cap = cap;
	}
	s = &pm->syms[pm->n];
	s->name = strdup(p);
	if (!s->name)
		return -ENOMEM;
	s->start = start;
	s->end = start + size;
	s->seq = pm->n;
	if (pm->n && start < pm->syms[pm->n - 1].start)
		pm->unsorted = true;
	if (size > pm->max_len)
		pm->max_len = size;
	pm->bytes += need;
	pm->n++;
	return 0;
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

static int cmp_sym(const void *pa, const void *pb)
{
	const struct pm_sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

const char *perfmap__lookup(struct perfmap *pm, uint64_t addr)
{
	const struct pm_sym *best = NULL;
	size_t lo = 0, hi;

	if (pm->unsorted) {
		qsort(pm->syms, pm->n, sizeof(*pm->syms), cmp_sym);
		pm->unsorted = false;
	}
	hi = pm->n;
	while (lo < hi) {	/* lo: the first entry starting after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (pm->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* every entry covering addr starts within max_len before it */
	while (lo-- > 0 && addr - pm->syms[lo].start < pm->max_len) {
		const struct pm_sym *s = &pm->syms[lo];

		if (addr < s->end && (!best || s->seq > best->seq))
			best = s;
	}
	return best ? best->name : NULL;
}

/* The pid tgid has in its own pid namespace: the last field of NSpid. */
static pid_t ns_pid(pid_t tgid)
{
	char path[64], *line = NULL, *last;
	size_t cap = 0;
	pid_t pid = tgid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tgid);
	f = fopen(path, "re");
	if (!f)
		return tgid;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		last = strrchr(line, '\t');
		if (last && atoi(last + 1) > 0)
			pid = (pid_t)atoi(last + 1);
		break;
	}
	free(line);
	fclose(f);
	return pid;
}

int perfmap__open(pid_t tgid, bool alive)
{
	char path[96];
	int fd;

	if (alive) {
		snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", (int)tgid,
			 (int)ns_pid(tgid));
		fd = file_open_regular(path);
		if (fd >= 0)
			return fd;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)tgid);
	return file_open_regular(path);
}
