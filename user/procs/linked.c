// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* An executable's libraries, found as the dynamic loader finds them (see
 * linked.h): an object's DT_RPATH (when it has no DT_RUNPATH),
 * LD_LIBRARY_PATH, its DT_RUNPATH ($ORIGIN: the object's directory), then
 * the system's directories, libc's own first. ld.so.cache is not read: a
 * library only it knows is built when the program maps it, as before. */
#include <dlfcn.h>
#include <errno.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procs/linked.h"
#include "base/open_regular.h"

#define MAX_DYN		4096	/* dynamic entries read of one object */

static const char *const system_dirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
};

/* What one object's dynamic section says. */
struct dynamic {
	char *needed[LINKED_MAX];
	size_t nneeded;
	char *rpath, *runpath;
};

static void dynamic_free(struct dynamic *d)
{
	for (size_t i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->rpath);
	free(d->runpath);
}

static void take_entry(Elf *elf, size_t strtab, const GElf_Dyn *dyn, struct dynamic *d)
{
	const char *s = elf_strptr(elf, strtab, dyn->d_un.d_val);

	if (!s)
		return;
	if (dyn->d_tag == DT_NEEDED && d->nneeded < LINKED_MAX) {
		d->needed[d->nneeded] = strdup(s);
		if (d->needed[d->nneeded])
			d->nneeded++;
	} else if (dyn->d_tag == DT_RPATH && !d->rpath)
		d->rpath = strdup(s);
	else if (dyn->d_tag == DT_RUNPATH && !d->runpath)
		d->runpath = strdup(s);
}

static int read_dynamic(Elf *elf, struct dynamic *d)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Dyn dyn;
	Elf_Data *data;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			return -ENOEXEC;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && i < MAX_DYN; i++) {
			if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			take_entry(elf, sh.sh_link, &dyn, d);
		}
		return 0;
	}
	return 0;	/* static: links nothing */
}

static int object_dynamic(const char *path, struct dynamic *d)
{
	int fd = file_open_regular(path), err;
	Elf *elf;

	if (fd < 0)
		return fd;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		close(fd);
		return -ENOSYS;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = elf && elf_kind(elf) == ELF_K_ELF ? read_dynamic(elf, d) : -ENOEXEC;
	elf_end(elf);
	close(fd);
	return err;
}

bool linked__find(const char *dirs, const char *origin, const char *name, int mode,
		  char out[PATH_MAX])
{
	while (dirs && *dirs) {
		size_t len = strcspn(dirs, ":");
		const char *rest = NULL;

		if (origin && !strncmp(dirs, "$ORIGIN", 7))
			rest = dirs + 7;
		else if (origin && !strncmp(dirs, "${ORIGIN}", 9))
			rest = dirs + 9;
		if (rest && rest <= dirs + len)
			snprintf(out, PATH_MAX, "%s%.*s/%s", origin, (int)(dirs + len - rest), rest, name);
		else if (len)
			snprintf(out, PATH_MAX, "%.*s/%s", (int)len, dirs, name);
		else	/* an empty one: the current directory, for both */
			snprintf(out, PATH_MAX, "%s", name);
		if (!access(out, mode))
			return true;
		dirs += len + (dirs[len] == ':');
	}
	return false;
}

/* The directory our own libc was loaded from: the system's first one. */
static const char *our_libc_dir(char buf[PATH_MAX])
{
	Dl_info info;
	char *slash;

	if (!dladdr((void *)snprintf, &info) || !info.dli_fname)
		return NULL;
	snprintf(buf, PATH_MAX, "%s", info.dli_fname);
	slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return buf;
}

static bool find_lib(const char *name, const struct dynamic *d, const char *origin,
		     const char *libc_dir, char out[PATH_MAX])
{
	if (strchr(name, '/')) {
		snprintf(out, PATH_MAX, "%s", name);
		return !access(out, R_OK);
	}
	if (!d->runpath && linked__find(d->rpath, origin, name, R_OK, out))
		return true;
	if (linked__find(getenv("LD_LIBRARY_PATH"), origin, name, R_OK, out) ||
	    linked__find(d->runpath, origin, name, R_OK, out) ||
	    linked__find(libc_dir, NULL, name, R_OK, out))
		return true;
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (linked__find(system_dirs[i], NULL, name, R_OK, out))
			return true;
	return false;
}

static bool listed(char **paths, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(paths[i], path))
			return true;
	return false;
}

/* The libraries path links that are not listed yet, appended. */
static int visit(const char *path, const char *libc_dir, char **paths, size_t *n)
{
	struct dynamic d = { 0 };
	char *real = realpath(path, NULL), *slash, found[PATH_MAX], *abs;
	int err = real ? object_dynamic(real, &d) : -errno;

	slash = real ? strrchr(real, '/') : NULL;
	if (slash)
		*slash = '\0';	/* real is now $ORIGIN */
	for (size_t i = 0; !err && i < d.nneeded && *n < LINKED_MAX; i++) {
		if (!find_lib(d.needed[i], &d, real, libc_dir, found))
			continue;
		abs = realpath(found, NULL);
		if (abs && !listed(paths, *n, abs))
			paths[(*n)++] = abs;
		else
			free(abs);
	}
	dynamic_free(&d);
	free(real);
	return err;
}

int linked__libs(const char *exe, char ***out)
{
	char **paths = calloc(LINKED_MAX, sizeof(*paths)), libc[PATH_MAX];
	const char *libc_dir = our_libc_dir(libc);
	size_t n = 0;
	int err;

	if (!paths)
		return -ENOMEM;
	err = visit(exe, libc_dir, paths, &n);
	for (size_t i = 0; !err && i < n && n < LINKED_MAX; i++)
		visit(paths[i], libc_dir, paths, &n);	/* a library it cannot read: skipped */
	if (err) {
		for (size_t i = 0; i < n; i++)
			free(paths[i]);
		free(paths);
		return err;
	}
	*out = paths;
	return (int)n;
}
