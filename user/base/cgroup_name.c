// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The container, pod and unit a cgroup v2 path names; cgroup2's mount point (cgroup_name.h). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/cgroup_name.h"
#include "base/term_safe.h"

/* One component of a path: [s, s + len), no '/' in it. */
struct comp {
	const char *s;
	size_t len;
};

/* What the walk down a path has seen so far. */
struct walk {
	struct comp parent, grandparent;	/* len 0 above the root */
	size_t depth;				/* the component's, the first is 1 */
	bool slices_from_root;			/* every component above is a slice
						 * systemd nested by its name */
	bool parent_is_pod;
	bool have_container;
	struct comp unit;			/* the innermost so far */
};

/* The runtimes that name a container's cgroup PREFIX<id>.scope (systemd
 * driver); bare: also PREFIX<id> (cgroupfs driver: CRI-O, podman). */
static const struct {
	const char *prefix;
	const char *runtime;
	bool bare;
} scope_runtimes[] = {
	{ "docker-", "docker", false },
	{ "cri-containerd-", "containerd", false },
	{ "crio-", "cri-o", true },
	{ "libpod-", "podman", true },
	{ "nerdctl-", "containerd", false },
};

#define N_SCOPE_RUNTIMES (sizeof(scope_runtimes) / sizeof(scope_runtimes[0]))

static bool comp_is(struct comp c, const char *s)
{
	return c.len == strlen(s) && !memcmp(c.s, s, c.len);
}

static bool has_prefix(struct comp c, const char *prefix)
{
	size_t n = strlen(prefix);

	return c.len >= n && !memcmp(c.s, prefix, n);
}

static bool has_suffix(struct comp c, const char *suffix)
{
	size_t n = strlen(suffix);

	return c.len >= n && !memcmp(c.s + c.len - n, suffix, n);
}

/* Hex as the runtimes and the kubelet write it: lower case only. */
static bool is_lower_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool is_id(const char *s, size_t len)
{
	return len == CGROUP_NAME_ID_LEN && is_lower_hex(s, len);
}

/*
 * A cgroup path as the kernel prints it: "/", or '/' before each of its
 * components, none empty, "." or "..", shorter than PATH_MAX (the kernel's
 * own bound on what /proc/PID/cgroup shows).
 */
static bool path_is_canonical(const char *path)
{
	size_t len = strnlen(path, PATH_MAX);
	const char *c, *end;

	if (len == PATH_MAX || path[0] != '/')
		return false;
	if (len == 1)
		return true;
	for (c = path + 1; c <= path + len; c = end + 1) {
		end = c + strcspn(c, "/");
		if (end == c || (end - c == 1 && c[0] == '.') ||
		    (end - c == 2 && c[0] == '.' && c[1] == '.'))
			return false;
	}
	return true;
}

/* A name a delegated user may have chosen: at most NAME_MAX bytes of
 * printable UTF-8 (no control byte, no mark that reorders text). */
static bool name_is_acceptable(struct comp c)
{
	size_t i = 0, n;

	if (c.len > NAME_MAX)
		return false;
	while (i < c.len) {
		n = term_safe__char(c.s + i, NULL);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

static bool is_unit_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       (ch && strchr(":_.@\\-", ch));
}

/* NAME.service or NAME.scope, of systemd's characters, that fits unit[]. */
static bool is_unit(struct comp c, size_t size)
{
	size_t suffix = has_suffix(c, ".service") ? 8 : has_suffix(c, ".scope") ? 6 : 0;

	if (!suffix || c.len == suffix || c.len >= size)
		return false;
	for (size_t i = 0; i < c.len; i++)
		if (!is_unit_char(c.s[i]))
			return false;
	return true;
}

/* A containerd namespace ([A-Za-z0-9]+ joined by single '.', '_' or '-',
 * its limit of 76) that is not a systemd unit or slice. */
static bool is_namespace(struct comp c)
{
	bool after_sep = true;

	if (!c.len || c.len > 76 || has_suffix(c, ".slice") || has_suffix(c, ".service") ||
	    has_suffix(c, ".scope"))
		return false;
	for (size_t i = 0; i < c.len; i++) {
		bool sep = c.s[i] == '.' || c.s[i] == '_' || c.s[i] == '-';

		if (!sep && !((c.s[i] >= 'a' && c.s[i] <= 'z') || (c.s[i] >= 'A' && c.s[i] <= 'Z') ||
			      (c.s[i] >= '0' && c.s[i] <= '9')))
			return false;
		if (sep && after_sep)
			return false;
		after_sep = sep;
	}
	return !after_sep;
}

static void set_container(struct cgroup_name *out, const char *id, const char *runtime)
{
	memcpy(out->container, id, CGROUP_NAME_ID_LEN);
	out->container[CGROUP_NAME_ID_LEN] = '\0';
	out->runtime = runtime;
}

/* A scope a runtime names (PREFIX...scope), whether or not what follows
 * the prefix is an id (crio-conmon-ID.scope): never a unit. */
static bool is_runtime_scope(struct comp c)
{
	for (size_t i = 0; i < N_SCOPE_RUNTIMES; i++)
		if (has_prefix(c, scope_runtimes[i].prefix) && has_suffix(c, ".scope"))
			return true;
	return false;
}

/* PREFIX<id>.scope in a slice systemd made (its driver, --cgroup-parent
 * a slice) or a pod's, or PREFIX<id> for the runtimes that name it so,
 * in a pod or a directory of the root's (podman's /libpod_parent). */
static bool prefixed_container(const struct walk *w, struct comp c, struct cgroup_name *out)
{
	bool scope_here = w->parent_is_pod || w->slices_from_root;
	bool bare_here = w->parent_is_pod || w->depth == 2;

	for (size_t i = 0; i < N_SCOPE_RUNTIMES; i++) {
		size_t n = strlen(scope_runtimes[i].prefix);
		const char *id = c.s + n;

		if (!has_prefix(c, scope_runtimes[i].prefix))
			continue;
		if ((scope_here && c.len == n + CGROUP_NAME_ID_LEN + 6 && has_suffix(c, ".scope") &&
		     is_id(id, CGROUP_NAME_ID_LEN)) ||
		    (bare_here && scope_runtimes[i].bare && is_id(id, c.len - n))) {
			set_container(out, id, scope_runtimes[i].runtime);
			return true;
		}
	}
	return false;
}

/* A bare id: a pod's container (cgroupfs driver, the runtime unknown),
 * docker's /docker/<id>, containerd's /<namespace>/<id> (nerdctl, ctr). */
static bool bare_container(const struct walk *w, struct comp c, struct cgroup_name *out)
{
	if (!is_id(c.s, c.len))
		return false;
	if (w->parent_is_pod)
		set_container(out, c.s, "");
	else if (w->depth == 2 && comp_is(w->parent, "docker"))
		set_container(out, c.s, "docker");
	else if (w->depth == 2 && is_namespace(w->parent))
		set_container(out, c.s, "containerd");
	else
		return false;
	return true;
}

/* A pod's UID as the kubelet writes it, sep for its dashes ('_' in a
 * systemd slice): 8-4-4-4-12 lower hex, or a static pod's 32 hex digits. */
static bool is_uid(const char *s, size_t len, char sep)
{
	if (len == 32)
		return is_lower_hex(s, len);
	if (len != CGROUP_NAME_UID_LEN || s[8] != sep || s[13] != sep || s[18] != sep || s[23] != sep)
		return false;
	return is_lower_hex(s, 8) && is_lower_hex(s + 9, 4) && is_lower_hex(s + 14, 4) &&
	       is_lower_hex(s + 19, 4) && is_lower_hex(s + 24, 12);
}

static void set_pod(struct cgroup_name *out, const char *uid, size_t len)
{
	for (size_t i = 0; i < len; i++)
		out->pod[i] = uid[i] == '_' ? '-' : uid[i];
	out->pod[len] = '\0';
}

/* cgroupfs: pod<uid> in /kubepods/, /kubepods/burstable/ or
 * /kubepods/besteffort/, from the root. */
static bool cgroupfs_pod(const struct walk *w, struct comp c, struct cgroup_name *out)
{
	bool in_qos = comp_is(w->parent, "burstable") || comp_is(w->parent, "besteffort");

	if (!has_prefix(c, "pod") || !is_uid(c.s + 3, c.len - 3, '-'))
		return false;
	if (!(w->depth == 2 && comp_is(w->parent, "kubepods")) &&
	    !(w->depth == 3 && in_qos && comp_is(w->grandparent, "kubepods")))
		return false;
	set_pod(out, c.s + 3, c.len - 3);
	return true;
}

/* "kubepods" is one of the dash-separated words of s[0, len). */
static bool names_kubepods(const char *s, size_t len)
{
	for (size_t i = 0; i + 8 <= len; i++)
		if (!memcmp(s + i, "kubepods", 8) && (i == 0 || s[i - 1] == '-') &&
		    (i + 8 == len || s[i + 8] == '-'))
			return true;
	return false;
}

/* systemd: P-pod<uid with '_'>.slice inside P.slice, as systemd nests
 * slices by name, with P a kubepods slice ("kubepods-burstable"), all
 * slices from the root. */
static bool systemd_pod(const struct walk *w, struct comp c, struct cgroup_name *out)
{
	static const size_t uid_lens[] = { CGROUP_NAME_UID_LEN, 32 };
	size_t stem, p;

	if (!w->slices_from_root || !has_suffix(c, ".slice"))
		return false;
	stem = c.len - 6;
	for (size_t i = 0; i < 2; i++) {
		if (stem < uid_lens[i] + 5)
			continue;
		p = stem - uid_lens[i] - 4;	/* P's length, before "-pod" */
		if (memcmp(c.s + p, "-pod", 4) || !is_uid(c.s + p + 4, uid_lens[i], '_'))
			continue;
		if (w->parent.len != p + 6 || memcmp(w->parent.s, c.s, p) || !has_suffix(w->parent, ".slice") ||
		    !names_kubepods(c.s, p))
			continue;
		set_pod(out, c.s + p + 4, uid_lens[i]);
		return true;
	}
	return false;
}

/* A slice where systemd puts it: NAME.slice at the root (NAME without a
 * dash), P-NAME.slice inside P.slice. Slices are never delegated: a
 * user's subtree hangs below a service or scope (user@UID.service). */
static bool nested_slice(const struct walk *w, struct comp c)
{
	size_t stem = c.len - 6, pstem = w->parent.len - 6;

	if (!has_suffix(c, ".slice") || c.len == 6)
		return false;
	if (w->depth == 1)
		return !memchr(c.s, '-', stem);
	return has_suffix(w->parent, ".slice") && stem > pstem + 1 &&
	       !memcmp(c.s, w->parent.s, pstem) && c.s[pstem] == '-';
}

/* One component, below those the walk has seen. */
static void visit(struct walk *w, struct comp c, struct cgroup_name *out)
{
	bool is_pod = false;

	if (!w->have_container) {
		w->have_container = prefixed_container(w, c, out) || bare_container(w, c, out);
		if (!w->have_container && !out->pod[0])
			is_pod = cgroupfs_pod(w, c, out) || systemd_pod(w, c, out);
	}
	if (!is_runtime_scope(c) && is_unit(c, sizeof(out->unit)))
		w->unit = c;
	w->slices_from_root = w->slices_from_root && nested_slice(w, c);
	w->grandparent = w->parent;
	w->parent = c;
	w->parent_is_pod = is_pod;
}

void cgroup_name__parse(const char *path, struct cgroup_name *out)
{
	struct walk w = { .depth = 0, .slices_from_root = true };
	struct comp c;

	memset(out, 0, sizeof(*out));
	out->runtime = "";
	if (!path_is_canonical(path) || !path[1])
		return;
	for (const char *s = path + 1;; s += c.len + 1) {
		c.s = s;
		c.len = strcspn(s, "/");
		if (!name_is_acceptable(c))
			break;
		w.depth++;
		visit(&w, c, out);
		if (!s[c.len])
			break;
	}
	memcpy(out->unit, w.unit.s ? w.unit.s : "", w.unit.len);
	out->unit[w.unit.len] = '\0';
}

static int octal_digit(char c)
{
	return c >= '0' && c <= '7' ? c - '0' : -1;
}

/* The byte a kernel escape \ooo at s stands for (1 to 0377), else -1. */
static int escaped_byte(const char *s)
{
	int a, b, c, v;

	if (s[0] != '\\' || (a = octal_digit(s[1])) < 0 || (b = octal_digit(s[2])) < 0 ||
	    (c = octal_digit(s[3])) < 0)
		return -1;
	v = a << 6 | b << 3 | c;
	return v >= 1 && v <= 0377 ? v : -1;
}

/* field with its escapes undone into dir (n bytes, NUL included). */
static int unescape(const char *field, char *dir, size_t n)
{
	size_t len = 0;
	int byte;

	for (const char *s = field; *s; len++) {
		if (len + 1 >= n)
			return -ENAMETOOLONG;
		byte = escaped_byte(s);
		dir[len] = byte < 0 ? *s : (char)byte;
		s += byte < 0 ? 1 : 4;
	}
	dir[len] = '\0';
	return 0;
}

/* One mountinfo line: its mount point (the fifth field) into dir when its
 * filesystem type (after the optional fields' "-") is cgroup2. */
static int mount_line(char *line, char *dir, size_t n)
{
	char *save = NULL, *field, *mount_point = NULL;
	bool after_dash = false;

	field = strtok_r(line, " \n", &save);
	for (int i = 0; field; i++, field = strtok_r(NULL, " \n", &save)) {
		if (i == 4)
			mount_point = field;
		else if (after_dash)
			break;
		else if (i > 5 && !strcmp(field, "-"))
			after_dash = true;
	}
	if (!field || strcmp(field, "cgroup2") || !mount_point || mount_point[0] != '/')
		return -ENOENT;
	return unescape(mount_point, dir, n);
}

int cgroup_name__mount(FILE *mountinfo, char *dir, size_t n)
{
	char *line = NULL;
	size_t cap = 0;
	int err = -ENOENT;

	errno = 0;
	while (err == -ENOENT && getline(&line, &cap, mountinfo) >= 0)
		err = mount_line(line, dir, n);
	if (err == -ENOENT && (errno == ENOMEM || ferror(mountinfo)))
		err = errno == ENOMEM ? -ENOMEM : -EIO;
	free(line);
	if (err && n)
		dir[0] = '\0';
	return err;
}

int cgroup_name__under_mount(const char *link, const char *mount, char *out, size_t n)
{
	static const char deleted[] = " (deleted)";
	size_t mlen = strlen(mount), llen = strlen(link), d = sizeof(deleted) - 1;
	const char *rest;

	while (mlen > 1 && mount[mlen - 1] == '/')
		mlen--;
	if (mount[0] != '/' || strncmp(link, mount, mlen) ||
	    (llen >= d && !strcmp(link + llen - d, deleted)))
		return -EXDEV;
	rest = link + (mlen == 1 ? 0 : mlen);
	if (!rest[0])
		rest = "/";
	if (rest[0] != '/')
		return -EXDEV;	/* /sys/fs/cgroupX beside /sys/fs/cgroup */
	if (strlen(rest) >= n)
		return -ENAMETOOLONG;
	strcpy(out, rest);
	return 0;
}
