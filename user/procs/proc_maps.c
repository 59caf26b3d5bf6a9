// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* /proc/PID/maps lines, parsed.
 *
 * "START-END PERM PGOFF MAJ:MIN INO [PADDING PATH]", written by the kernel's
 * show_map_vma(). The fixed fields are parsed strictly, field by field, as
 * sscanf() would accept signs, blanks and overflowing numbers.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/parse_hex.h"
#include "procs/proc_maps.h"

#define DELETED_SUFFIX	" (deleted)"
#define ESCAPED_NEWLINE	"\\012"	/* how maps shows '\n' (seq_file's mangle_path) */

/* 1 to max_digits hex digits, then the separator sep. */
static bool parse_hex_sep(char **pp, int max_digits, char sep, uint64_t *val)
{
	const char *p = *pp;
	uint64_t v;

	if (!parse_hex(&p, NULL, max_digits, &v) || *p != sep)
		return false;
	*pp += p - *pp + 1;
	*val = v;
	return true;
}

/* The inode: decimal digits up to UINT64_MAX, then ' ' or the end. */
static bool parse_dec(char **pp, uint64_t *val)
{
	char *p = *pp;
	uint64_t v = 0, d;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		d = (uint64_t)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (*p != ' ' && *p != '\0')
		return false;
	*pp = p;
	*val = v;
	return true;
}

/* "rwxp": each position is its letter or '-', the last is 'p' or 's'. */
static bool parse_perms(char **pp, bool *exec)
{
	const char *p = *pp;

	if ((p[0] != 'r' && p[0] != '-') || (p[1] != 'w' && p[1] != '-') ||
	    (p[2] != 'x' && p[2] != '-') || (p[3] != 'p' && p[3] != 's') ||
	    p[4] != ' ')
		return false;
	*exec = p[2] == 'x';
	*pp += 5;
	return true;
}

/* Does name, inside pid's root, name the mapped file (dev, ino)? Only
 * looked at (lstat: nothing is opened), never when pid < 0. */
static bool names_file(const char *name, pid_t pid, uint32_t dev_major, uint32_t dev_minor,
		       uint64_t ino)
{
	char path[PATH_MAX + 32];
	struct stat st;

	if (pid < 0 || name[0] != '/' ||
	    snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, name) >= (int)sizeof(path))
		return false;
	return !lstat(path, &st) && st.st_ino == ino && major(st.st_dev) == dev_major &&
	       minor(st.st_dev) == dev_minor;
}

static void unescape_newlines(char *s)
{
	size_t n = strlen(ESCAPED_NEWLINE);
	char *w = s;

	while (*s) {
		if (!strncmp(s, ESCAPED_NEWLINE, n)) {
			*w++ = '\n';
			s += n;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

bool vma_name__decode(char *name, bool escaped, pid_t pid, uint32_t dev_major,
		      uint32_t dev_minor, uint64_t ino)
{
	size_t len, sfx = strlen(DELETED_SUFFIX);

	/* maps does not escape '\\': a file really called "a\\012b" keeps it */
	if (escaped && strstr(name, ESCAPED_NEWLINE) &&
	    !names_file(name, pid, dev_major, dev_minor, ino))
		unescape_newlines(name);
	len = strlen(name);
	if (len <= sfx || strcmp(name + len - sfx, DELETED_SUFFIX) ||
	    names_file(name, pid, dev_major, dev_minor, ino))
		return false;
	name[len - sfx] = '\0';
	return true;
}

/* The kernel pads to a column before the path, anonymous mappings have no
 * path (but may keep one trailing blank). Spaces inside the path are kept. */
static void parse_path(char *p, pid_t pid, struct maps_line *ml)
{
	while (*p == ' ')
		p++;
	ml->deleted = vma_name__decode(p, true, pid, ml->dev_major, ml->dev_minor, ml->ino);
	ml->path = p;
}

static int parse_line(char *line, pid_t pid, struct maps_line *out)
{
	struct maps_line ml = { 0 };
	uint64_t maj, min;
	size_t len;
	char *p = line;

	if (!line || !out)
		return -EINVAL;
	len = strlen(line);
	if (len && line[len - 1] == '\n')
		line[len - 1] = '\0';

	if (!parse_hex_sep(&p, 16, '-', &ml.start) ||
	    !parse_hex_sep(&p, 16, ' ', &ml.end) ||
	    !parse_perms(&p, &ml.exec) ||
	    !parse_hex_sep(&p, 16, ' ', &ml.pgoff) ||
	    !parse_hex_sep(&p, 8, ':', &maj) ||
	    !parse_hex_sep(&p, 8, ' ', &min) ||
	    !parse_dec(&p, &ml.ino))
		return -EINVAL;
	if (ml.start > ml.end)
		return -EINVAL;
	ml.dev_major = (uint32_t)maj;
	ml.dev_minor = (uint32_t)min;
	parse_path(p, pid, &ml);
	*out = ml;
	return 0;
}

int maps_parse_line(char *line, struct maps_line *out)
{
	return parse_line(line, -1, out);
}

int maps_for_each_exec(pid_t pid, int (*fn)(const struct maps_line *ml, void *ctx),
		       void *ctx)
{
	struct maps_line ml;
	char path[32], *line = NULL;
	size_t cap = 0;
	int err = 0;
	FILE *f;

	if (!fn)
		return -EINVAL;
	if (snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid) >= (int)sizeof(path))
		return -EINVAL;
	f = fopen(path, "re");
	if (!f)
		return -errno;

	while (getline(&line, &cap, f) >= 0) {
		/* Skip what we cannot parse: one odd line (a future format
		 * change) must not hide every other mapping. */
		if (parse_line(line, pid, &ml) || !ml.exec)
			continue;
		err = fn(&ml, ctx);
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	/* Nothing was written: closing a read-only stream cannot lose data. */
	fclose(f);
	return err;
}

int vdso_image(const void **base, size_t *size)
{
	uint64_t at = getauxval(AT_SYSINFO_EHDR);
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	int err = -ENOENT;

	if (!at)
		return -ENOENT;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		struct maps_line ml;

		if (maps_parse_line(line, &ml) || ml.start != at)
			continue;
		*base = (const void *)(uintptr_t)at;
		*size = ml.end - ml.start;
		err = 0;
		break;
	}
	free(line);
	fclose(f);
	return err;
}
