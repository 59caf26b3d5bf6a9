/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a cgroup v2 path names: the container's id and its runtime, the
 * Kubernetes pod's UID, the systemd unit; and where cgroup v2 is mounted.
 * Pure parsers: no file is opened here.
 *
 * Cgroup names are hostile (a delegated, unprivileged user makes cgroups of
 * any name), so a field is filled only from the shapes the runtimes make,
 * and only with the characters of that shape: a container's id is 64 lower
 * hex digits, a pod's UID lower hex and dashes (8-4-4-4-12, or 32 digits
 * for a static pod: the kubelet's hash of its manifest), a unit systemd's
 * characters [A-Za-z0-9:_.@\-]. A label made of them is safe anywhere.
 *
 * The walk goes from the root down:
 * - A path that is not one the kernel prints (no leading '/', an empty,
 *   "." or ".." component, a trailing '/', 4096 bytes or more) names nothing.
 * - A component whose name is not acceptable (a control byte, invalid
 *   UTF-8, longer than NAME_MAX) ends the walk: what the components above
 *   it named stands, nothing below it is read. A delegated cgroup cannot
 *   erase what its parents say.
 * - A container and a pod are named only where a runtime puts them, from
 *   the root: a name anywhere else is not one (a user with a delegated
 *   subtree, user@1001.service, makes cgroups of any name, "docker-ID.scope"
 *   among them). A subtree is delegated below a service or a scope, never a
 *   slice, and only root makes cgroups at the root or in a root's directory:
 *     PREFIX<id>.scope      in slices systemd nested from the root
 *                           (/system.slice, /machine.slice, /a.slice/a-b.slice)
 *     /docker/<id>          docker's cgroupfs driver
 *     /<namespace>/<id>     containerd's (nerdctl, ctr)
 *     /libpod_parent/libpod-<id>, /<dir>/crio-<id>   podman's, CRI-O's cgroupfs
 *     /kubepods/[burstable|besteffort/]pod<uid>      the kubelet's cgroupfs driver
 *     P-pod<uid>.slice in P.slice, slices from the root (the kubelet's systemd
 *                           driver, its --cgroup-root a slice too: kind's nodes)
 *     <id>, PREFIX<id>[.scope] directly in such a pod
 *   So rootless podman's containers (under user@UID.service) carry no
 *   container label: their names are their user's to choose.
 * - The outermost container wins. A container's cgroup may be delegated to
 *   it (podman's systemd mode, docker with a cgroup namespace): what is
 *   below it is the container's to name, so it cannot claim another
 *   container's id; a pod counts only above its container.
 * - The unit is the innermost .service or .scope that is not a runtime's:
 *   a scope named by a runtime's prefix (docker-, cri-containerd-, crio-,
 *   libpod-, nerdctl-) is a container's when its id is 64 hex, else nothing
 *   (the conmon scopes crio-conmon-ID.scope and libpod-conmon-ID.scope are
 *   the monitors of a container, neither the container nor a unit). So
 *   rootless podman's container is under unit user@1000.service, and
 *   systemd inside a container names its own services.
 */
#ifndef BPFPROF_CGROUP_NAME_H
#define BPFPROF_CGROUP_NAME_H

#include <stddef.h>
#include <stdio.h>

/* A container's id: 64 hex digits. */
#define CGROUP_NAME_ID_LEN	64
/* A pod's UID, dashed: 8-4-4-4-12. */
#define CGROUP_NAME_UID_LEN	36

struct cgroup_name {
	char container[72];	/* the container's id as its runtime names it (64 hex), "" none */
	char pod[40];		/* the pod's UID, dashed (systemd's '_' back to '-'), "" none */
	char unit[128];		/* "nginx.service", "session-3.scope"; "" none (never a slice) */
	const char *runtime;	/* static: "docker", "containerd", "cri-o", "podman", "" */
};

/* Names what a cgroup v2 path says (as /proc/PID/cgroup's "0::" line,
 * relative to the mount: "/system.slice/nginx.service"). Never fails:
 * unknown shapes leave fields empty. */
void cgroup_name__parse(const char *path, struct cgroup_name *out);

/* The cgroup v2 mount point from a mountinfo stream (/proc/self/mountinfo's
 * format): the first line whose filesystem type (the field after " - ") is
 * cgroup2, its octal escapes (\040) undone. 0 and dir filled (at most n
 * bytes with its NUL); -ENOENT when there is none, -ENAMETOOLONG when it
 * does not fit, -ENOMEM or -EIO when the stream could not be read. */
int cgroup_name__mount(FILE *mountinfo, char *dir, size_t n);

/* The cgroup path (as /proc/PID/cgroup writes it) of link, what
 * /proc/self/fd/N says of a directory opened under the cgroup v2 mount
 * mount: "/" for the mount itself. 0 and out filled (at most n bytes with
 * its NUL); -EXDEV when link is not under mount (another mount namespace's
 * view, or " (deleted)": the cgroup is gone), -ENAMETOOLONG when the path
 * does not fit. */
int cgroup_name__under_mount(const char *link, const char *mount, char *out, size_t n);

#endif
