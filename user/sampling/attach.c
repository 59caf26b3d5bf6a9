// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Events -> perf fds and BPF links. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "base/errors.h"
#include "base/grow.h"
#include "sampling/attach.h"

struct attachments {
	struct bpf_link **links;
	size_t nlinks, cap_links;
	int *fds;
	size_t nfds, cap_fds;
};

int attach__link(struct attachments *a, struct bpf_link *link)
{
	if (GROW(a->links, a->cap_links, a->nlinks + 1)) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	a->links[a->nlinks++] = link;
	return 0;
}

static int keep_fd(struct attachments *a, int fd)
{
	if (GROW(a->fds, a->cap_fds, a->nfds + 1)) {
		close(fd);
		return -ENOMEM;
	}
	a->fds[a->nfds++] = fd;
	return 0;
}

static int fail(const struct event *ev, int err)
{
	p_err("event '%s': %s", ev->name, events__strerror(ev, err));
	return err;
}

/* One perf event per CPU, the program attached to each with the cookie. */
static int attach_per_cpu(struct attachments *a, struct bpf_program *prog, const struct event *ev,
			  __u64 cookie, unsigned int freq, unsigned long long period)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = cookie);
	int ncpus = libbpf_num_possible_cpus(), cpu, fd, opened = 0, err;
	struct bpf_link *link;

	if (ncpus <= 0)
		return ncpus ? ncpus : -ENODEV;
	for (cpu = 0; cpu < ncpus; cpu++) {
		fd = events__open(ev, freq, period, cpu);
		if (fd == -ENODEV)	/* possible but offline */
			continue;
		if (fd < 0)
			return fail(ev, fd);
		err = keep_fd(a, fd);
		if (err)
			return err;
		link = bpf_program__attach_perf_event_opts(prog, fd, &opts);
		if (!link)
			return fail(ev, -errno);
		err = attach__link(a, link);
		if (err)
			return err;
		opened++;
	}
	return opened ? 0 : fail(ev, -ENODEV);
}

/* A tracepoint's programs run on every hit, whatever CPU: one attachment
 * (libbpf opens the perf event from the id in tracefs). */
static int attach_tracepoint(struct attachments *a, struct bpf_program *prog,
			     const struct event *ev, __u64 cookie)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, opts, .bpf_cookie = cookie);
	struct bpf_link *link;

	events__ensure_tracefs();
	link = bpf_program__attach_tracepoint_opts(prog, ev->sys, ev->tp, &opts);
	if (!link)
		return fail(ev, -errno);
	return attach__link(a, link);
}

static int attach_uprobe(struct attachments *a, struct bpf_program *prog, const struct event *ev,
			 __u64 cookie)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .func_name = ev->sym, .bpf_cookie = cookie);
	struct bpf_link *link;
	int err;

	if (access(ev->path, R_OK)) {
		err = -errno;
		p_err("event '%s': %s: %s", ev->name, ev->path, strerror(-err));
		return err;
	}
	/* libbpf finds the symbol's offset in the file (.symtab or .dynsym) */
	link = bpf_program__attach_uprobe_opts(prog, -1, ev->path, 0, &opts);
	if (!link) {
		err = -errno;
		p_err("event '%s': cannot attach (%s; is %s a function of %s?)", ev->name,
		      strerror(-err), ev->sym, ev->path);
		return err;
	}
	return attach__link(a, link);
}

static int attach_one(struct attachments *a, const struct attach_progs *progs,
		      const struct event *ev, __u64 cookie, unsigned int freq,
		      unsigned long long period)
{
	struct bpf_link *link;

	switch (ev->kind) {
	case EVENT_SOFTWARE:
	case EVENT_HARDWARE:
		return attach_per_cpu(a, progs->perf, ev, cookie, freq, period);
	case EVENT_TRACEPOINT:
		return attach_tracepoint(a, progs->tp, ev, cookie);
	case EVENT_UPROBE:
		return attach_uprobe(a, progs->uprobe, ev, cookie);
	default:	/* EVENT_OFFCPU: the sched_switch program, cookie unused */
		link = bpf_program__attach(progs->offcpu);
		if (!link)
			return fail(ev, -errno);
		return attach__link(a, link);
	}
}

int attach__events(const struct attach_progs *progs, const struct event *evs, int n,
		   unsigned int freq, unsigned long long period, struct attachments **out)
{
	struct attachments *a = calloc(1, sizeof(*a));
	int i, err = 0;

	if (!a)
		return -ENOMEM;
	for (i = 0; !err && i < n; i++)
		err = attach_one(a, progs, &evs[i], (__u64)i, freq, period);
	if (err) {
		attach__free(a);
		return err;
	}
	*out = a;
	return 0;
}

void attach__free(struct attachments *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nlinks; i++)
		bpf_link__destroy(a->links[i]);
	for (i = 0; i < a->nfds; i++)
		close(a->fds[i]);
	free(a->links);
	free(a->fds);
	free(a);
}
