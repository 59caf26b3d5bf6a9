// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Who could read a debug file (see debug_trust.h). */
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "elf/debug_trust.h"

#define MAX_GROUPS	256	/* more: the rest are not counted (fewer rights) */

struct principal {
	uid_t uid;
	int ngroups;
	gid_t groups[MAX_GROUPS];
};

/* uid and its groups; a uid the passwd database does not know has none. */
static void principal_of(uid_t uid, struct principal *p)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int n = MAX_GROUPS;

	p->uid = uid;
	p->ngroups = 0;
	if (uid == TRUST_ANYONE || getpwuid_r(uid, &pw, buf, sizeof(buf), &res) || !res)
		return;
	if (getgrouplist(res->pw_name, res->pw_gid, p->groups, &n) >= 0)
		p->ngroups = n;
	else
		p->groups[p->ngroups++] = res->pw_gid;	/* too many: the primary */
}

static bool in_groups(const struct principal *p, gid_t gid)
{
	for (int i = 0; i < p->ngroups; i++)
		if (p->groups[i] == gid)
			return true;
	return false;
}

static bool has_acl(const char *path)
{
	return lgetxattr(path, "system.posix_acl_access", NULL, 0) > 0;
}

/* The mode bits that apply to p, as the kernel picks them. */
static bool may(const struct principal *p, const char *path, const struct stat *st,
		mode_t want)
{
	mode_t bits;

	if (p->uid != TRUST_ANYONE && st->st_uid == p->uid)
		return (((st->st_mode >> 6) & 7) & want) == want;
	if (has_acl(path))
		return false;
	if (p->uid != TRUST_ANYONE && in_groups(p, st->st_gid))
		bits = (st->st_mode >> 3) & 7;
	else
		bits = st->st_mode & 7;
	return (bits & want) == want;
}

static bool dir_searchable(const struct principal *p, const char *dir)
{
	struct stat st;

	return !lstat(dir, &st) && S_ISDIR(st.st_mode) && may(p, dir, &st, 1);
}

/* Each directory of real (absolute; lstat: a link put in its way since
 * fails) searchable, the file itself (the one file describes) readable. */
static bool walk(const struct principal *p, char *real, const struct stat *file)
{
	bool ok = dir_searchable(p, "/");
	struct stat st;

	for (char *slash = strchr(real + 1, '/'); ok && slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		ok = dir_searchable(p, real);
		*slash = '/';
	}
	return ok && !lstat(real, &st) && S_ISREG(st.st_mode) && st.st_dev == file->st_dev &&
	       st.st_ino == file->st_ino && may(p, real, &st, 4);
}

bool debug_trust__readable_by(uid_t uid, int path_fd)
{
	struct principal p;
	char self[64], real[PATH_MAX];
	struct stat file;
	ssize_t n;

	if (uid == 0)
		return true;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", path_fd);
	n = readlink(self, real, sizeof(real) - 1);
	if (n <= 1 || real[0] != '/' || fstat(path_fd, &file))
		return false;
	real[n] = '\0';
	principal_of(uid, &p);
	return walk(&p, real, &file);
}

int debug_trust__placers(const char *given, const char *path, uid_t who[DEBUG_PLACERS])
{
	char parent[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;
	int n = 0;

	/* a directory that is not there places nothing: its files fail to open */
	who[n++] = stat(given, &st) ? TRUST_ANYONE : st.st_uid;
	if (!lstat(path, &st) && S_ISLNK(st.st_mode))
		who[n++] = st.st_uid;
	if (slash && (size_t)(slash - path) < sizeof(parent)) {
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
		if (stat(parent[0] ? parent : "/", &st))
			return n;
		who[n++] = st.st_mode & S_IWOTH ? TRUST_ANYONE : st.st_uid;
	}
	return n;
}
