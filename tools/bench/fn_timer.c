// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fn_timer: how long a running process spends in some of its functions.
 * Attaches fn_timer.bpf.c's uprobe/uretprobe pair to each FUNC of BINARY in
 * process PID, prints "ready" when attached, waits until PID exits (or
 * SIGINT/SIGTERM), then prints one line per function:
 *
 *   resolve__drained calls=1 ns=412345678
 *   folded__write absent            (no such function in BINARY)
 *
 * Usage: fn_timer -p PID -b BINARY FUNC [FUNC...]   (at most 16 functions)
 * Exit status 0, 1 on an error (one line on stderr), 2 on bad usage.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fn_timer.skel.h"

#define MAX_FUNCS 16

struct fn_total {
	__u64 ns;
	__u64 calls;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level; (void)fmt; (void)ap;
	return 0;
}

static int attach_one(struct fn_timer_bpf *skel, pid_t pid, const char *binary, const char *func,
		      int idx, struct bpf_link **enter, struct bpf_link **exit_)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .func_name = func, .bpf_cookie = (__u64)idx);
	long err;

	*enter = bpf_program__attach_uprobe_opts(skel->progs.fn_enter, pid, binary, 0, &opts);
	err = libbpf_get_error(*enter);
	if (err) {
		*enter = NULL;
		return (int)err;
	}
	opts.retprobe = true;
	*exit_ = bpf_program__attach_uprobe_opts(skel->progs.fn_exit, pid, binary, 0, &opts);
	err = libbpf_get_error(*exit_);
	if (err) {
		*exit_ = NULL;
		return (int)err;
	}
	return 0;
}

/* Waits until the process exits or a signal asks to stop. */
static int wait_exit(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret = 0;

	if (fd < 0) {
		if (errno == ESRCH)	/* already gone */
			return 0;
		fprintf(stderr, "fn_timer: pidfd_open %d: %s\n", pid, strerror(errno));
		return -1;
	}
	while (!stop) {
		int n = poll(&pfd, 1, 200);

		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "fn_timer: poll: %s\n", strerror(errno));
			ret = -1;
			break;
		}
		if (n > 0)
			break;
	}
	if (close(fd)) {
		fprintf(stderr, "fn_timer: close: %s\n", strerror(errno));
		ret = -1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct bpf_link *enter[MAX_FUNCS] = { 0 }, *exit_[MAX_FUNCS] = { 0 };
	bool present[MAX_FUNCS] = { 0 };
	struct fn_timer_bpf *skel = NULL;
	const char *binary = NULL;
	struct sigaction sa;
	pid_t pid = 0;
	int opt, i, nfuncs, ret = 1;

	while ((opt = getopt(argc, argv, "p:b:")) != -1) {
		if (opt == 'p') {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v <= 0 || v > 0x7fffffff)
				goto usage;
			pid = (pid_t)v;
		} else if (opt == 'b') {
			binary = optarg;
		} else {
			goto usage;
		}
	}
	nfuncs = argc - optind;
	if (!pid || !binary || nfuncs < 1 || nfuncs > MAX_FUNCS)
		goto usage;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL)) {
		fprintf(stderr, "fn_timer: sigaction: %s\n", strerror(errno));
		return 1;
	}
	libbpf_set_print(quiet);
	skel = fn_timer_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "fn_timer: cannot load the BPF programs: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < nfuncs; i++) {
		int err = attach_one(skel, pid, binary, argv[optind + i], i, &enter[i], &exit_[i]);

		present[i] = !err;
		if (err && err != -ENOENT) {
			fprintf(stderr, "fn_timer: cannot attach to %s in %s: %s\n", argv[optind + i],
				binary, strerror(-err));
			goto out;
		}
	}
	if (printf("ready\n") < 0 || fflush(stdout)) {
		fprintf(stderr, "fn_timer: writing: %s\n", strerror(errno));
		goto out;
	}
	if (wait_exit(pid))
		goto out;

	ret = 0;
	for (i = 0; i < nfuncs; i++) {
		struct fn_total t = { 0 };
		__u32 key = (__u32)i;

		if (!present[i]) {
			printf("%s absent\n", argv[optind + i]);
			continue;
		}
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.fn_totals), &key, &t)) {
			fprintf(stderr, "fn_timer: reading the totals: %s\n", strerror(errno));
			ret = 1;
			break;
		}
		printf("%s calls=%llu ns=%llu\n", argv[optind + i], (unsigned long long)t.calls,
		       (unsigned long long)t.ns);
	}
	if (fflush(stdout)) {
		fprintf(stderr, "fn_timer: writing: %s\n", strerror(errno));
		ret = 1;
	}
out:
	for (i = 0; i < nfuncs; i++) {
		if (enter[i] && bpf_link__destroy(enter[i]))
			fprintf(stderr, "fn_timer: detach failed\n");
		if (exit_[i] && bpf_link__destroy(exit_[i]))
			fprintf(stderr, "fn_timer: detach failed\n");
	}
	fn_timer_bpf__destroy(skel);
	return ret;
usage:
	fprintf(stderr, "usage: %s -p PID -b BINARY FUNC [FUNC...]  (1..%d functions)\n",
		argv[0], MAX_FUNCS);
	return 2;
}
