// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgroup v2 ids named by their paths. An id is its directory's inode
 * number in the cgroup v2 file system, and ids are not reused, so a name
 * once found stays true, and so does "cannot be named". Cgroup names are
 * anyone's with a delegated subtree (tens of thousands of cgroups, a path
 * of 4,000 bytes): each id costs one lookup, whatever the tree holds, and
 * a pass makes a bounded number of them before its deadline. */
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
#include "procs/procs.h"

/* Paths longer are not named (counted as unnameable); past NAMES_MAX ids
 * the table starts over (a churn of cgroups cannot grow it for ever). */
#define PATH_MAX_LEN	1024
#define NAMES_MAX	16384
/* The cgroup file system's file handle: its kernfs node id, which is the
 * cgroup id (linux/exportfs.h FILEID_KERNFS). */
#define FILEID_KERNFS	0xfe

struct cg_entry {
	uint64_t id;
	bool unnameable;
	char path[];
};

struct cgroup_paths {
	char mount[PATH_MAX_LEN];	/* "" none; what is opened */
	char mount_dir[PATH_MAX_LEN];	/* as the mount's namespace writes it */
	bool namespaced;		/* /proc/PID/cgroup is not the machine's path */
	int mount_fd;			/* for open_by_handle_at(); -1 none */
	bool no_handles;		/* no CAP_DAC_READ_SEARCH (EPERM), or no support */
	void *names;			/* tsearch tree of struct cg_entry */
	size_t nnames;
	unsigned int pass_lookups;	/* this pass's */
	uint64_t deadline_ns;		/* this pass's */
	uint64_t lookups;
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

/* Keeps what id is (path NULL: unnameable); a full table starts over. */
static const struct cg_entry *remember(struct cgroup_paths *cp, uint64_t id, const char *path)
{
	size_t len = path ? strlen(path) : 0;
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
	e->unnameable = !path;
	memcpy(e->path, path ? path : "", len + 1);
	node = tsearch(e, &cp->names, cmp_entry);
	if (!node || *node != e) {
		free(e);
		return node ? *node : NULL;
	}
	cp->nnames++;
	return e;
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
	FILE *f = fopen(mountinfo, "re");

	cp->mount[0] = '\0';
	if (!f)
		return;
	if (!cgroup_name__mount(f, cp->mount_dir, sizeof(cp->mount_dir)))
		snprintf(cp->mount, sizeof(cp->mount), "%s%s", prefix, cp->mount_dir);
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
	cp->mount_fd = cp->mount[0] ? open(cp->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	cp->no_handles = cp->mount_fd < 0;
	return cp;
}

void cgroup_paths__free(struct cgroup_paths *cp)
{
	if (!cp)
		return;
	tdestroy(cp->names, free);
	if (cp->mount_fd >= 0)
		close(cp->mount_fd);
	free(cp);
}

const char *cgroup_paths__mount(const struct cgroup_paths *cp)
{
	return cp->mount;
}

void cgroup_paths__new_pass(struct cgroup_paths *cp, uint64_t deadline_ns)
{
	cp->pass_lookups = 0;
	cp->deadline_ns = deadline_ns;
}

uint64_t cgroup_paths__lookups(const struct cgroup_paths *cp)
{
	return cp->lookups;
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
static int name_by_process(struct cgroup_paths *cp, uint64_t id, pid_t tgid, char *path)
{
	char full[2 * PATH_MAX_LEN];
	struct stat st;

	if (cp->namespaced || tgid <= 0 || proc_path(tgid, path, PATH_MAX_LEN))
		return -ENOENT;
	snprintf(full, sizeof(full), "%s%s", cp->mount, path);
	if (lstat(full, &st) || !S_ISDIR(st.st_mode) || (uint64_t)st.st_ino != id)
		return -ENOENT;
	return 0;
}

/* The directory of id opened by its handle, its path read back: no walk.
 * -ESTALE: gone; -ENAMETOOLONG: a path too long; -EPERM, -EOPNOTSUPP...:
 * handles cannot be used here. */
static int name_by_handle(struct cgroup_paths *cp, uint64_t id, char *path)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh = { .handle_bytes = sizeof(uint64_t), .handle_type = FILEID_KERNFS } };
	char link[64], target[4096 + 16];
	ssize_t len;
	int fd, err;

	memcpy(h.fh.f_handle, &id, sizeof(id));
	fd = open_by_handle_at(cp->mount_fd, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, target, sizeof(target) - 1);
	err = len < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	if ((size_t)len >= sizeof(target) - 1)
		return -ENAMETOOLONG;
	target[len] = '\0';
	err = cgroup_name__under_mount(target, cp->mount_dir, path, PATH_MAX_LEN);
	if (err == -EXDEV)	/* seen through /proc/1/root */
		err = cgroup_name__under_mount(target, cp->mount, path, PATH_MAX_LEN);
	return err;
}

/* One lookup of an id not known yet: its entry (NULL: out of memory).
 * Without handles, an id no process of it names (gone, moved, a path too
 * long) stays unnamed: no walk of the tree. */
static const struct cg_entry *look_up(struct cgroup_paths *cp, uint64_t id, pid_t tgid)
{
	char path[PATH_MAX_LEN];
	int err = -EPERM;

	cp->lookups++;
	cp->pass_lookups++;
	if (!cp->no_handles) {
		err = name_by_handle(cp, id, path);
		if (!err)
			return remember(cp, id, path);
		if (err == -ESTALE || err == -ENOENT || err == -ENAMETOOLONG || err == -EXDEV)
			return remember(cp, id, NULL);
		cp->no_handles = true;	/* EPERM (no CAP_DAC_READ_SEARCH), EOPNOTSUPP */
	}
	return remember(cp, id, name_by_process(cp, id, tgid, path) ? NULL : path);
}

enum cgroup_naming cgroup_paths__name(struct cgroup_paths *cp, uint64_t id, pid_t tgid,
				      const char **path)
{
	const struct cg_entry *e;

	*path = NULL;
	if (!cp->mount[0])
		return CGROUP_UNNAMEABLE;
	e = find(cp, id);
	if (!e && (cp->pass_lookups >= CGROUP_NAMES_PER_PASS || procs__now() >= cp->deadline_ns))
		return CGROUP_LATER;
	if (!e)
		e = look_up(cp, id, tgid);
	if (!e)
		return CGROUP_LATER;
	if (e->unnameable)
		return CGROUP_UNNAMEABLE;
	*path = e->path;
	return CGROUP_NAMED;
}
