// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of cgroup_name.c: the container, pod and unit of each runtime's
 * and driver's cgroup paths, hostile names, cgroup2's mount point. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "base/cgroup_name.h"

#define ID	"0123456789abcdef" "fedcba9876543210" "00112233445566778899aabbccddeeff"
#define ID2	"ffeeddccbbaa99887766554433221100" "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
#define UID	"8b2f5c1e-3d4a-4e6f-9a7b-1c2d3e4f5a6b"
#define UID_	"8b2f5c1e_3d4a_4e6f_9a7b_1c2d3e4f5a6b"	/* in a systemd slice */
#define STATIC	"d41d8cd98f00b204e9800998ecf8427e"	/* a static pod's: its manifest's hash */
#define BURST	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice"
#define ROOTLESS "/user.slice/user-1000.slice/user@1000.service"

struct want {
	const char *path, *container, *pod, *unit, *runtime;
};

/* Parses a heap copy of exactly its size, so that ASan sees any read past
 * its NUL, and checks every field. */
static void expect_named(const struct want *w)
{
	char *copy = strdup(w->path);
	struct cgroup_name n;

	cr_assert_not_null(copy);
	memset(&n, 0x5a, sizeof(n));
	cgroup_name__parse(copy, &n);
	cr_expect_str_eq(n.container, w->container, "%s: container %s", w->path, n.container);
	cr_expect_str_eq(n.pod, w->pod, "%s: pod %s", w->path, n.pod);
	cr_expect_str_eq(n.unit, w->unit, "%s: unit %s", w->path, n.unit);
	cr_expect_str_eq(n.runtime, w->runtime, "%s: runtime %s", w->path, n.runtime);
	free(copy);
}

static void expect_table(const struct want *table, size_t n)
{
	for (size_t i = 0; i < n; i++)
		expect_named(&table[i]);
}

Test(cgroup_name, docker_containerd_and_podman)
{
	static const struct want table[] = {
		{ "/docker/" ID, ID, "", "", "docker" },
		{ "/system.slice/docker-" ID ".scope", ID, "", "", "docker" },
		{ "/system.slice/nerdctl-" ID ".scope", ID, "", "", "containerd" },
		{ "/default/" ID, ID, "", "", "containerd" },
		{ "/k8s.io/" ID, ID, "", "", "containerd" },
		{ "/machine.slice/libpod-" ID ".scope", ID, "", "", "podman" },
		{ "/libpod_parent/libpod-" ID, ID, "", "", "podman" },
		/* rootless: in its user's delegated subtree, whose names are the user's */
		{ ROOTLESS "/user.slice/libpod-" ID ".scope", "", "", "user@1000.service", "" },
		/* podman's systemd mode: the container's own cgroups below its scope */
		{ "/machine.slice/libpod-" ID ".scope/container", ID, "", "", "podman" },
		{ "/machine.slice/libpod-" ID ".scope/container/system.slice/nginx.service", ID, "",
		  "nginx.service", "podman" },
		/* a monitor, not the container */
		{ "/machine.slice/libpod-conmon-" ID ".scope", "", "", "", "" },
		/* docker in docker: the outer container, the one the host made */
		{ "/docker/" ID "/docker/" ID2, ID, "", "", "docker" },
		{ "/system.slice/docker-" ID ".scope/system.slice/docker-" ID2 ".scope", ID, "", "",
		  "docker" },
	};

	expect_table(table, sizeof(table) / sizeof(table[0]));
}

/* What a user with a delegated subtree (user@1001.service, a service's
 * Delegate=yes) or a cgroup of its own below the root names as the
 * runtimes do: no container, no pod; its unit stays. */
Test(cgroup_name, runtime_names_only_where_a_runtime_puts_them)
{
#define USER1001 "/user.slice/user-1001.slice/user@1001.service"
	static const struct want table[] = {
		{ USER1001 "/docker-" ID ".scope", "", "", "user@1001.service", "" },
		{ USER1001 "/app.slice/docker-" ID ".scope", "", "", "user@1001.service", "" },
		{ USER1001 "/system.slice/docker-" ID ".scope", "", "", "user@1001.service", "" },
		{ USER1001 "/docker/" ID, "", "", "user@1001.service", "" },
		{ USER1001 "/k8s.io/" ID, "", "", "user@1001.service", "" },
		{ USER1001 "/libpod_parent/libpod-" ID, "", "", "user@1001.service", "" },
		{ USER1001 "/kubepods/pod" UID "/" ID, "", "", "user@1001.service", "" },
		{ USER1001 "/kubepods/burstable/pod" UID "/crio-" ID, "", "", "user@1001.service", "" },
		{ USER1001 BURST "/cri-containerd-" ID ".scope", "", "", "user@1001.service", "" },
		{ USER1001 "/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID ".scope",
		  "", "", "user@1001.service", "" },
		{ "/system.slice/ci.service/docker-" ID ".scope", "", "", "ci.service", "" },
		{ "/system.slice/ci.service/kubepods/pod" UID "/" ID, "", "", "ci.service", "" },
		{ "/user.slice/user-1001.slice/session-2.scope/docker/" ID, "", "", "session-2.scope", "" },
		/* below the root, a directory of the root's is no runtime's */
		{ "/test/docker/" ID, "", "", "", "" },
		{ "/test/kubepods/pod" UID "/" ID, "", "", "", "" },
		{ "/test/kubepods.slice/kubepods-pod" UID_ ".slice", "", "", "", "" },
		{ "/x/libpod_parent/libpod-" ID, "", "", "", "" },
		/* slices systemd would not make: not at the root, or not nested by name */
		{ "/a.slice/system.slice/docker-" ID ".scope", "", "", "", "" },
		{ "/a-b.slice/docker-" ID ".scope", "", "", "", "" },
		{ "/kubepods.slice/x.slice/kubepods-pod" UID_ ".slice", "", "", "", "" },
		/* ... and those it would: --cgroup-parent a nested slice */
		{ "/system.slice/system-docker.slice/docker-" ID ".scope", ID, "", "", "docker" },
		/* a pod's container is its own, wherever the pod is trusted */
		{ "/kubepods/burstable/pod" UID "/libpod-" ID, ID, UID, "", "podman" },
	};
#undef USER1001

	expect_table(table, sizeof(table) / sizeof(table[0]));
}

Test(cgroup_name, kubernetes_cgroupfs_and_systemd)
{
	static const struct want table[] = {
		{ "/kubepods/burstable/pod" UID "/" ID, ID, UID, "", "" },
		{ "/kubepods/besteffort/pod" UID "/" ID, ID, UID, "", "" },
		{ "/kubepods/pod" UID "/" ID, ID, UID, "", "" },
		{ "/kubepods/burstable/pod" UID, "", UID, "", "" },
		{ "/kubepods/burstable/pod" UID "/crio-" ID, ID, UID, "", "cri-o" },
		{ "/kubepods/pod" STATIC "/" ID, ID, STATIC, "", "" },
		{ BURST "/cri-containerd-" ID ".scope", ID, UID, "", "containerd" },
		{ BURST "/crio-" ID ".scope", ID, UID, "", "cri-o" },
		{ BURST "/docker-" ID ".scope", ID, UID, "", "docker" },
		{ BURST, "", UID, "", "" },
		{ BURST "/crio-conmon-" ID ".scope", "", UID, "", "" },
		{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
		  ".slice/crio-" ID ".scope", ID, UID, "", "cri-o" },
		{ "/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID ".scope", ID, UID,
		  "", "containerd" },
		{ "/kubepods.slice/kubepods-pod" STATIC ".slice/cri-containerd-" ID ".scope", ID,
		  STATIC, "", "containerd" },
		/* the kubelet's --cgroup-root (kind's nodes) */
		{ "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
		  "kubelet-kubepods-besteffort-pod" UID_ ".slice/cri-containerd-" ID ".scope",
		  ID, UID, "", "containerd" },
		/* CRI-O's nested container cgroup */
		{ BURST "/crio-" ID ".scope/container", ID, UID, "", "cri-o" },
	};

	expect_table(table, sizeof(table) / sizeof(table[0]));
}

Test(cgroup_name, systemd_units)
{
	static const struct want table[] = {
		{ "/system.slice/nginx.service", "", "", "nginx.service", "" },
		{ ROOTLESS "/app.slice/foo.service", "", "", "foo.service", "" },
		{ ROOTLESS "/app.slice", "", "", "user@1000.service", "" },
		{ "/user.slice/user-1000.slice/session-3.scope", "", "", "session-3.scope", "" },
		{ "/init.scope", "", "", "init.scope", "" },
		{ "/system.slice/system-systemd\\x2dfsck.slice/systemd-fsck@dev-disk-by\\x2duuid-1.service",
		  "", "", "systemd-fsck@dev-disk-by\\x2duuid-1.service", "" },
		/* a runtime's name on a service is a service */
		{ "/system.slice/docker-cleanup.service", "", "", "docker-cleanup.service", "" },
		{ "/system.slice/crio-wipe.service", "", "", "crio-wipe.service", "" },
		{ "/system.slice", "", "", "", "" },
		{ "/user.slice/user-1000.slice", "", "", "", "" },
		{ "/", "", "", "", "" },
	};

	expect_table(table, sizeof(table) / sizeof(table[0]));
}

Test(cgroup_name, malformed_ids_name_nothing)
{
	static const struct want table[] = {
		{ "/docker/" ID "0", "", "", "", "" },
		{ "/docker/" ID2 "0123456789abcdef" "fedcba9876543210" "00112233445566778899aabbccddeef",
		  "", "", "", "" },
		{ "/docker/0123456789ABCDEF" "fedcba9876543210" "00112233445566778899aabbccddeeff",
		  "", "", "", "" },
		{ "/docker/g123456789abcdef" "fedcba9876543210" "00112233445566778899aabbccddeeff",
		  "", "", "", "" },
		{ "/system.slice/docker-" ID "0.scope", "", "", "", "" },
		{ "/system.slice/docker-123.scope", "", "", "", "" },
		{ "/system.slice/docker-" ID ".service", "", "", "docker-" ID ".service", "" },
		{ "/system.slice/docker-" ID, "", "", "", "" },	/* bare: not docker's */
		{ "/system.slice/" ID, "", "", "", "" },	/* a slice is no namespace */
		{ "/a/b/" ID, "", "", "", "" },
		{ "/foo/pod" UID "/" ID, "", "", "", "" },
		{ "/kubepods/burstable/pod8B2F5C1E-3d4a-4e6f-9a7b-1c2d3e4f5a6b/" ID, "", "", "", "" },
		{ "/kubepods/burstable/pod8b2f5c1e3-d4a-4e6f-9a7b-1c2d3e4f5a6b/" ID, "", "", "", "" },
		{ "/kubepods/burstable/pod" UID_ "/" ID, "", "", "", "" },
		/* the pod's slice must sit in its parent's, dashes are underscores there */
		{ "/kubepods.slice/kubepods-burstable-pod" UID_ ".slice", "", "", "", "" },
		{ "/kubepods.slice/kubepods-pod" UID ".slice", "", "", "", "" },
		{ "/foo.slice/foo-pod" UID_ ".slice", "", "", "", "" },
		{ "/system.slice/.service", "", "", "", "" },
		{ "/system.slice/my app.service", "", "", "", "" },
		{ "/system.slice/m\xc3\xbcller.service", "", "", "", "" },
	};

	expect_table(table, sizeof(table) / sizeof(table[0]));
}

Test(cgroup_name, paths_the_kernel_does_not_print_name_nothing)
{
	static const struct want table[] = {
		{ "/../docker/" ID, "", "", "", "" },	/* another cgroup namespace's view */
		{ "/docker/" ID "/..", "", "", "", "" },
		{ "/docker/./" ID, "", "", "", "" },
		{ "//docker/" ID, "", "", "", "" },
		{ "/docker/" ID "/", "", "", "", "" },
		{ "docker/" ID, "", "", "", "" },
		{ "/system.slice/nginx.service/../../docker/" ID, "", "", "", "" },
		{ "", "", "", "", "" },
	};

	expect_table(table, sizeof(table) / sizeof(table[0]));
}

Test(cgroup_name, a_hostile_name_ends_the_walk)
{
	static const struct want table[] = {
		{ "/system.slice/ngi\nnx.service", "", "", "", "" },
		{ "/system.slice/nginx.service\033[2J", "", "", "", "" },
		{ "/system.slice/\xff.service", "", "", "", "" },
		{ "/system.slice/\xc0\xae.service", "", "", "", "" },	/* overlong '.' */
		{ "/system.slice/a\xe2\x80\xae.service", "", "", "", "" },	/* right-to-left override */
		{ "/system.slice/a\xc2\x9b.service", "", "", "", "" },	/* C1 CSI */
		{ "/docker/" ID "\001", "", "", "", "" },
		/* what is above stands: a delegated cgroup cannot erase its labels */
		{ "/system.slice/nginx.service/\033]2;x\007/foo.service", "", "", "nginx.service", "" },
		{ "/docker/" ID "/\xed\xa0\x80/system.slice/x.service", ID, "", "", "docker" },
	};

	expect_table(table, sizeof(table) / sizeof(table[0]));
}

/* s with n bytes of c appended (malloc()ed). */
static char *with_run(const char *s, char c, size_t n, const char *tail)
{
	size_t len = strlen(s), tlen = strlen(tail);
	char *p = malloc(len + n + tlen + 1);

	cr_assert_not_null(p);
	memcpy(p, s, len);
	memset(p + len, c, n);
	memcpy(p + len + n, tail, tlen + 1);
	return p;
}

static void expect_long(const char *head, char c, size_t n, const char *tail,
			const char *container, const char *unit)
{
	char *path = with_run(head, c, n, tail);

	expect_named(&(struct want){ path, container, "", unit, container[0] ? "docker" : "" });
	free(path);
}

Test(cgroup_name, long_names_and_paths)
{
	expect_long("/system.slice/", 'a', 10240, ".service", "", "");
	expect_long("/docker/", 'a', 10240, "", "", "");
	expect_long("/system.slice/", 'a', 128 - 8, ".service", "", "");	/* unit[] is 128 */
	/* NAME_MAX: a name of 256 bytes ends the walk */
	expect_long("/docker/" ID "/", 'a', 255, "/nginx.service", ID, "nginx.service");
	expect_long("/docker/" ID "/", 'a', 256, "/nginx.service", ID, "");
}

Test(cgroup_name, a_unit_of_127_bytes_fits)
{
	char *path = with_run("/system.slice/", 'a', 127 - 8, ".service");

	expect_named(&(struct want){ path, "", "", path + 14, "" });
	free(path);
}

/* "/docker/ID" then "/a" components up to len bytes. */
static char *deep(size_t len)
{
	char *p = with_run("/docker/" ID, 'a', len - strlen("/docker/" ID), "");

	for (size_t i = strlen("/docker/" ID); i < len; i += 2)
		p[i] = '/';
	if (p[len - 1] == '/')
		p[len - 1] = 'b';
	return p;
}

Test(cgroup_name, paths_up_to_path_max)
{
	char *fits = deep(4095), *over = deep(4096);

	cr_assert_eq(strlen(fits), 4095);
	expect_named(&(struct want){ fits, ID, "", "", "docker" });
	expect_named(&(struct want){ over, "", "", "", "" });
	free(fits);
	free(over);
}

/* Every field holds only its shape's characters, whatever the path. */
static void expect_safe(const struct cgroup_name *n)
{
	size_t len = strlen(n->pod);

	cr_expect(!n->container[0] || (strlen(n->container) == 64 &&
				       strspn(n->container, "0123456789abcdef") == 64));
	cr_expect(len == 0 || len == 32 || len == 36);
	cr_expect_eq(strspn(n->pod, "0123456789abcdef-"), len);
	cr_expect_eq(strspn(n->unit, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789:_.@\\-"), strlen(n->unit));
	cr_expect(!n->runtime[0] || n->container[0]);
}

Test(cgroup_name, random_paths_give_safe_fields)
{
	static const char *const pieces[] = {
		"/", "docker", "docker-", ID, ".scope", ".service", ".slice", "kubepods",
		"kubepods-burstable", "-pod", "pod", UID, UID_, "\n", "\xff", "..", "-", "_",
		"libpod-", "crio-", "conmon-", "\xc3\xbc", "a", "\\x2d", "@",
	};
	char path[512];
	struct cgroup_name n;

	srand(26);
	for (int round = 0; round < 20000; round++) {
		size_t len = 0;

		for (int k = rand() % 12; k >= 0; k--) {
			const char *p = pieces[rand() % (sizeof(pieces) / sizeof(pieces[0]))];

			if (len + strlen(p) >= sizeof(path))
				break;
			memcpy(path + len, p, strlen(p));
			len += strlen(p);
		}
		path[len] = '\0';
		cgroup_name__parse(path, &n);
		expect_safe(&n);
	}
}

/* cgroup_name__mount over text, into a buffer of size n. */
static int mount_of(const char *text, char *dir, size_t n)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int err;

	cr_assert_not_null(f);
	err = cgroup_name__mount(f, dir, n);
	fclose(f);
	return err;
}

/* This machine's: cgroup v1 controllers beside v2 at .../unified. */
static const char hybrid[] =
	"23 27 0:22 / /sys rw,relatime - sysfs sysfs rw\n"
	"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
	"42 23 0:13 / /sys/kernel/tracing rw,relatime - tracefs nodev rw\n";

/* A v2-only node's, optional fields before the " - ". */
static const char v2_only[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"25 22 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:2 - sysfs sysfs rw\n"
	"26 25 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:3 master:1 - cgroup2 "
	"cgroup2 rw,nsdelegate,memory_recursiveprot\n"
	"27 25 0:24 / /mnt/other rw - cgroup2 cgroup2 rw\n";

Test(cgroup_name, mount_points)
{
	char dir[64];

	cr_expect_eq(mount_of(hybrid, dir, sizeof(dir)), 0);
	cr_expect_str_eq(dir, "/sys/fs/cgroup/unified");
	cr_expect_eq(mount_of(v2_only, dir, sizeof(dir)), 0);
	cr_expect_str_eq(dir, "/sys/fs/cgroup");
	cr_expect_eq(mount_of("30 1 0:30 / /mnt/my\\040cgroups\\134v2 rw - cgroup2 none rw\n", dir,
			      sizeof(dir)), 0);
	cr_expect_str_eq(dir, "/mnt/my cgroups\\v2");
	/* a backslash the kernel did not write (it writes \134) stands for itself */
	cr_expect_eq(mount_of("30 1 0:30 / /mnt/a\\0b\\000 rw - cgroup2 none rw", dir, sizeof(dir)), 0);
	cr_expect_str_eq(dir, "/mnt/a\\0b\\000");
}

Test(cgroup_name, mount_point_none_or_too_long)
{
	char dir[64], small[22], exact[23];

	cr_expect_eq(mount_of("32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
			      "33 1 0:30 / /cgroup2 rw - tmpfs cgroup2 rw\n"	/* the source is no type */
			      "34 1 0:31 / /x rw cgroup2 - ext4 cgroup2 rw\n"
			      "35 1 0:32 / /y rw - \n"
			      "36 1 0:33 / cgroup2 rw - cgroup2 cgroup2 rw\n"	/* not absolute */
			      "garbage\n\n", dir, sizeof(dir)), -ENOENT);
	cr_expect_str_eq(dir, "");
	cr_expect_eq(mount_of(hybrid, small, sizeof(small)), -ENAMETOOLONG);
	cr_expect_str_eq(small, "");
	cr_expect_eq(mount_of(hybrid, exact, sizeof(exact)), 0);	/* 22 bytes and the NUL */
	cr_expect_str_eq(exact, "/sys/fs/cgroup/unified");
	cr_expect_eq(mount_of(hybrid, dir, 0), -ENAMETOOLONG);
}

Test(cgroup_name, mount_after_a_long_line)
{
	size_t n = 1 << 20;
	char *text = malloc(n + sizeof(v2_only)), dir[64];

	cr_assert_not_null(text);
	memset(text, 'x', n);
	memcpy(text + n, v2_only, sizeof(v2_only));	/* its first line ends the long one */
	cr_expect_eq(mount_of(text, dir, sizeof(dir)), 0);
	cr_expect_str_eq(dir, "/sys/fs/cgroup");
	free(text);
}

/* This machine's own, if it has one: a cgroup2 file system is mounted there. */
Test(cgroup_name, this_machines_mount)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	struct statfs st;
	char dir[4096];
	int err;

	cr_assert_not_null(f);
	err = cgroup_name__mount(f, dir, sizeof(dir));
	fclose(f);
	if (err == -ENOENT)
		return;
	cr_assert_eq(err, 0);
	cr_assert_eq(statfs(dir, &st), 0, "%s", dir);
	cr_expect_eq(st.f_type, 0x63677270, "%s", dir);	/* CGROUP2_SUPER_MAGIC */
}

/* cgroup_name__under_mount: what /proc/self/fd/N says of a cgroup's
 * directory, as /proc/PID/cgroup would write it. */
static int under(const char *link, const char *mount, char *out, size_t n)
{
	memset(out, 0x5a, n);
	return cgroup_name__under_mount(link, mount, out, n);
}

Test(cgroup_name, under_mount)
{
	char out[32];

	cr_expect_eq(under("/sys/fs/cgroup/system.slice/a.service", "/sys/fs/cgroup", out,
			   sizeof(out)), 0);
	cr_expect_str_eq(out, "/system.slice/a.service");
	cr_expect_eq(under("/sys/fs/cgroup", "/sys/fs/cgroup", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/", "the mount itself is the root cgroup");
	cr_expect_eq(under("/sys/fs/cgroup/x", "/sys/fs/cgroup/", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/x", "a trailing '/' of the mount");
	cr_expect_eq(under("/x/y", "/", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/x/y", "mounted at /");
}

Test(cgroup_name, under_mount_refuses)
{
	char out[16];

	cr_expect_eq(under("/sys/fs/cgroupX/a", "/sys/fs/cgroup", out, sizeof(out)), -EXDEV,
		     "a sibling whose name starts the same");
	cr_expect_eq(under("/other/a", "/sys/fs/cgroup", out, sizeof(out)), -EXDEV);
	cr_expect_eq(under("/sys/fs/cgroup/a (deleted)", "/sys/fs/cgroup", out, sizeof(out)),
		     -EXDEV, "removed: gone");
	cr_expect_eq(under("/sys/fs/cgroup/abcdefghijklmnop", "/sys/fs/cgroup", out, sizeof(out)),
		     -ENAMETOOLONG);
	cr_expect_eq(under("/sys/fs/cgroup/abcdefghijklmn", "/sys/fs/cgroup", out, sizeof(out)), 0,
		     "15 bytes and the NUL fit");
	cr_expect_eq(under("/sys/fs/cgroup/a", "sys/fs/cgroup", out, sizeof(out)), -EXDEV,
		     "a relative mount");
}
