// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgroup v2 ids named by their paths. An id is its directory's inode
 * number in the cgroup v2 file system, and ids are not reused, so a name
 * once found stays true. Cgroup names are anyone's with a delegated
 * subtree: the walk is bounded (directories, depth, path length) and
 * follows no links. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cgroup_name.h"
#include "procs/cgroup_paths.h"

/* Bounds of one walk of the tree, and of the names kept: past them the
 * table starts over (a churn of cgroups cannot grow it for ever). */
#define WALK_MAX_DIRS	65536
#define WALK_MAX_DEPTH	32
#define PATH_MAX_LEN	1024
#define NAMES_MAX	16384

struct cg_entry {
	uint64_t id;
	char path[];
};

struct cgroup_paths {
	char mount[PATH_MAX_LEN];	/* "" none */
	bool namespaced;		/* /proc/PID/cgroup is not the machine's path */
	void *names;			/* tsearch tree of struct cg_entry */
	size_t nnames;
	bool walked;			/* this pass */
	uint64_t walks;
};

static int cmp_entry(const void *a, const void *b)
{
	uint64_t x = ((const struct cg_entry *)a)->id, y = ((const struct cg_entry *)b)->id;

	return x < y ? -1 : x > y;
}

static const struct cg_entry *find(const struct cgroup_paths *cp, uint64_t id)
{
	struct cg_entry key = { .id = id };
	void *const *node = tfind(&key, &cp->names, cmp_entry);

	return node ? *node : NULL;
}

/* Keeps id's path; a full table starts over. */
static const char *remember(struct cgroup_paths *cp, uint64_t id, const char *path)
{
	size_t len = strlen(path);
	struct cg_entry *e, **node;

	if (cp->nnames >= NAMES_MAX) {
		tdestroy(cp->names, free);
		cp->names = NULL;
		cp->nnames = 0;
	}
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	e->id = id;
	memcpy(e->path, path, len + 1);
	node = tsearch(e, &cp->names, cmp_entry);
	if (!node || *node != e) {
		free(e);
		return node ? (*node)->path : NULL;
	}
	cp->nnames++;
	return e->path;
}

/* In a cgroup namespace of its own (a container: a DaemonSet's pod), the
 * cgroup2 mount it sees is its own subtree and /proc/PID/cgroup paths are
 * relative to it; the machine's tree is init's, seen through
 * /proc/1/root (the pod has the host's pids). */
static bool own_cgroupns(void)
{
	struct stat self, init;

	return !stat("/proc/self/ns/cgroup", &self) && !stat("/proc/1/ns/cgroup", &init) &&
	       self.st_ino != init.st_ino;
}

/* The cgroup2 mount a mountinfo file names, prefixed, into cp->mount. */
static void find_mount(struct cgroup_paths *cp, const char *mountinfo, const char *prefix)
{
	char dir[PATH_MAX_LEN];
	FILE *f = fopen(mountinfo, "re");

	cp->mount[0] = '\0';
	if (!f)
		return;
	if (!cgroup_name__mount(f, dir, sizeof(dir)))
		snprintf(cp->mount, sizeof(cp->mount), "%s%s", prefix, dir);
	fclose(f);
}

struct cgroup_paths *cgroup_paths__new(void)
{
	struct cgroup_paths *cp = calloc(1, sizeof(*cp));

	if (!cp)
		return NULL;
	cp->namespaced = own_cgroupns();
	if (cp->namespaced)
		find_mount(cp, "/proc/1/mountinfo", "/proc/1/root");
	else
		find_mount(cp, "/proc/self/mountinfo", "");
	return cp;
}

void cgroup_paths__free(struct cgroup_paths *cp)
{
	if (!cp)
		return;
	tdestroy(cp->names, free);
	free(cp);
}

const char *cgroup_paths__mount(const struct cgroup_paths *cp)
{
	return cp->mount;
}

void cgroup_paths__new_pass(struct cgroup_paths *cp)
{
	cp->walked = false;
}

uint64_t cgroup_paths__walks(const struct cgroup_paths *cp)
{
	return cp->walks;
}

/* The "0::/path" line of /proc/TGID/cgroup into path (n bytes). */
static int proc_path(pid_t tgid, char *path, size_t n)
{
	char file[64], buf[PATH_MAX_LEN + 64], *line, *save = NULL;
	ssize_t len;
	int fd;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)tgid);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -ENOENT;
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "0::/", 4) && strlen(line + 3) < n) {
			strcpy(path, line + 3);
			return 0;
		}
	return -ENOENT;
}

/* tgid's cgroup, if it is id (the process may have moved since). */
static const char *name_by_process(struct cgroup_paths *cp, uint64_t id, pid_t tgid)
{
	char path[PATH_MAX_LEN], full[2 * PATH_MAX_LEN];
	struct stat st;

	if (cp->namespaced || tgid <= 0 || proc_path(tgid, path, sizeof(path)))
		return NULL;
	snprintf(full, sizeof(full), "%s%s", cp->mount, path);
	if (lstat(full, &st) || !S_ISDIR(st.st_mode) || (uint64_t)st.st_ino != id)
		return NULL;
	return remember(cp, id, path);
}

struct walk {
	struct cgroup_paths *cp;
	char path[PATH_MAX_LEN];	/* of the directory being read, "" the root */
	size_t dirs;
};

/* Every directory under dir_fd (its path w->path), depth levels down. */
static void walk_dir(struct walk *w, int dir_fd, int depth)
{
	size_t len = strlen(w->path);
	DIR *d = fdopendir(dir_fd);
	struct dirent *de;
	struct stat st;
	int fd;

	if (!d) {
		close(dir_fd);
		return;
	}
	while ((de = readdir(d)) && w->dirs < WALK_MAX_DIRS) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (len + 1 + strlen(de->d_name) >= sizeof(w->path))
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		w->dirs++;
		sprintf(w->path + len, "/%s", de->d_name);
		if (!fstat(fd, &st) && !find(w->cp, st.st_ino))
			remember(w->cp, st.st_ino, w->path);
		if (depth > 1)
			walk_dir(w, fd, depth - 1);
		else
			close(fd);
		w->path[len] = '\0';
	}
	closedir(d);
}

static void walk_tree(struct cgroup_paths *cp)
{
	struct walk w = { .cp = cp };
	struct stat st;
	int fd;

	cp->walked = true;
	fd = open(cp->mount, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	cp->walks++;
	if (!fstat(fd, &st) && !find(cp, st.st_ino))
		remember(cp, st.st_ino, "/");
	walk_dir(&w, fd, WALK_MAX_DEPTH);
}

const char *cgroup_paths__name(struct cgroup_paths *cp, uint64_t id, pid_t tgid)
{
	const struct cg_entry *e;
	const char *path;

	if (!cp->mount[0])
		return NULL;
	e = find(cp, id);
	if (e)
		return e->path;
	path = name_by_process(cp, id, tgid);
	if (path || cp->walked)
		return path;
	walk_tree(cp);
	e = find(cp, id);
	return e ? e->path : NULL;
}
