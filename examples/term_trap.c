// SPDX-License-Identifier: MIT
/*
 * term_trap: spins in term_spin until SIGTERM, then writes "SIGTERM" and,
 * once it has cleaned up, "cleaned up" to MARKER and exits 0; as a
 * well-behaved service does. With "ignore", it writes "SIGTERM" and keeps
 * spinning (until SIGKILL or SECONDS). Exits 4 when SECONDS run out.
 * Usage: term_trap MARKER [seconds=30 [ignore]]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

static volatile sig_atomic_t got_term;
static int marker_fd = -1;
volatile uint64_t sink;

static void on_term(int sig)
{
	static const char msg[] = "SIGTERM\n";

	(void)sig;
	if (write(marker_fd, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	got_term = 1;
}

NOINLINE void term_spin(uint64_t end, int ignore)
{
	FORCE_FRAME();
	while ((ignore || !got_term) && now_ns() < end) {
		/* the clock rarely: libc's has no frame pointer to walk through */
		for (int i = 0; i < 1000000 && (ignore || !got_term); i++)
			sink += sink * 31 + 7;
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	double secs = arg_seconds(argc, argv, 2, 30);
	int ignore = argc > 3 && !strcmp(argv[3], "ignore");

	if (argc < 2) {
		fprintf(stderr, "usage: term_trap MARKER [seconds=30 [ignore]]\n");
		return 2;
	}
	marker_fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (marker_fd < 0 || sigaction(SIGTERM, &sa, NULL)) {
		perror("term_trap");
		return 1;
	}
	term_spin(now_ns() + (uint64_t)(secs * 1e9), ignore);
	if (!got_term)
		return 4;
	if (write(marker_fd, "cleaned up\n", 11) != 11)
		return 3;
	close(marker_fd);
	return 0;
}
