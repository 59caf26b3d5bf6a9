/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Command line -> one struct config. Parses only: opens nothing. */
#ifndef BPFPROF_CLI_H
#define BPFPROF_CLI_H

#include <stdbool.h>
#include <sys/types.h>

#define CLI_MAX_FREQ	100000	/* perf's default kernel.perf_event_max_sample_rate */
#define CLI_MAX_STACKS	(1u << 22)

enum stack_sides {
	SIDES_BOTH = 0,
	SIDES_USER_ONLY,	/* -U */
	SIDES_KERNEL_ONLY,	/* -K */
};

struct config {
	unsigned int freq;		/* samples per second per CPU */
	double duration;		/* seconds; 0: until Ctrl-C or the command exits */
	pid_t *pids;			/* -p: profile only these processes */
	int npids;
	enum stack_sides sides;
	const char *output;		/* NULL: stdout */
	const char *btf_path;		/* --btf: kernel BTF to use instead of the running kernel's */
	unsigned int max_stacks;	/* --max-stacks: stack and counts map entries */
	char **cmd;			/* argv after "--", NULL-terminated; NULL if none */
	bool verbose;
};

enum cli_result {
	CLI_RUN = 0,	/* profile with the config */
	CLI_EXIT_OK,	/* --help, --version: printed, exit 0 */
	CLI_EXIT_USAGE,	/* bad usage: message printed, exit 2 */
};

/* Fills cfg from argv. Messages go to stderr (usage errors) or stdout
 * (--help, --version). cfg must be released with cli_free(). */
enum cli_result cli_parse(int argc, char **argv, struct config *cfg);
void cli_free(struct config *cfg);

#endif
