// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * many_ids procs|threads N: makes N child processes (or N threads) that
 * sleep, prints their ids as one comma-separated line (for -p or -t), and
 * sleeps until killed; the children die with it (PR_SET_PDEATHSIG).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static pid_t *ids;
static pthread_barrier_t ready;

static void *thread_main(void *arg)
{
	ids[(size_t)arg] = gettid();
	pthread_barrier_wait(&ready);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc == 3 ? atoi(argv[2]) : 0, i;
	bool threads = argc == 3 && !strcmp(argv[1], "threads");
	pthread_t t;

	if (n <= 0 || (!threads && strcmp(argv[1], "procs"))) {
		fprintf(stderr, "usage: many_ids procs|threads N\n");
		return 2;
	}
	ids = calloc((size_t)n, sizeof(*ids));
	if (!ids || pthread_barrier_init(&ready, NULL, threads ? (unsigned)n + 1 : 1))
		return 1;
	for (i = 0; i < n; i++) {
		if (threads) {
			pthread_attr_t a;

			pthread_attr_init(&a);
			pthread_attr_setstacksize(&a, 64 << 10);
			if (pthread_create(&t, &a, thread_main, (void *)(size_t)i))
				return 1;
			continue;
		}
		ids[i] = fork();
		if (ids[i] < 0)
			return 1;
		if (ids[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				pause();
		}
	}
	if (threads)
		pthread_barrier_wait(&ready);
	for (i = 0; i < n; i++)
		printf("%s%d", i ? "," : "", ids[i]);
	printf("\n");
	fflush(stdout);
	for (;;)
		pause();
}
