/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What one run is asked to do: the types every room shares. The CLI fills
 * a struct config; session, output, emit and push read it without
 * depending on how it was parsed. */
#ifndef BPFPROF_CONFIG_H
#define BPFPROF_CONFIG_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/event.h"
#include "base/formats.h"	/* enum out_format */
#include "base/label_key.h"
#include <linux/types.h>
#include "bpf/profile.h"	/* MAX_EVENTS */

#define CLI_MAX_FREQ	100000	/* perf's default kernel.perf_event_max_sample_rate */
#define CLI_MAX_STACKS	(1u << 22)

enum stack_sides {
	SIDES_BOTH = 0,
	SIDES_USER_ONLY,	/* -U */
	SIDES_KERNEL_ONLY,	/* -K */
};

#define DEFAULT_KILL_AFTER	2.0	/* seconds between the command's SIGTERM and SIGKILL */
#define DEFAULT_DEBUGINFOD_TIMEOUT 2.0	/* seconds a run may wait on debuginfod servers */
/* mmap and exec records applied per process and second (procs/track_budget.h) */
#define TRACK_BUDGET_PER_SEC	256
/* A running process's mappings procs holds at most (procs/prune.c): one
 * that maps and unmaps files in a loop keeps its newest. Those no drained
 * sample can name go at each reap uncounted; past this the oldest go,
 * counted and named. Over ten times a browser's executable mappings. */
#define PROCS_MAX_VMAS		4096
#define DEFAULT_JIT_MAP_MEM	(64ull << 20)	/* bytes all /tmp/perf-PID.map hold */
#define FLEET_DEFAULT_FREQ	19	/* Hz: cheap enough to leave on all day */
/* DWARF (lines, inline frames) fleet mode holds at once (--dwarf-mem):
 * a Go net/http service's 6.2 MiB (decompressed) and libc6-dbg's 9.5 MiB
 * fit together, twice; 4 MiB gave neither any line. What it costs is what
 * the sampled files' DWARF holds: that service, 20.2 -> 28.0 MiB peak RSS
 * (doc/names.md). */
#define FLEET_DEFAULT_DWARF_MEM	(8ull << 20)

/* Where user frames get their names beyond the symbol table; each source
 * is on by default and has a switch to turn it off. */
struct name_sources {
	bool demangle;			/* C++ and Rust names readable (--no-demangle) */
	bool demangle_full;		/* with parameters and return type (--demangle=full) */
	bool inlines;			/* inlined functions as frames (--no-inline) */
	/* the runtimes whose frames user stacks leave out: bit 1 << id
	 * (bpf/runtimes.h), each by its row's option (--no-python) */
	unsigned int runtimes_off;
	double debuginfod_timeout;	/* s a run may wait on debuginfod in all; 0: never ask */
	unsigned long long dwarf_mem;	/* DWARF bytes held at once; 0: no bound */
	bool dwarf_mem_set;		/* --dwarf-mem given (else fleet mode bounds it) */
	unsigned long long jit_map_mem;	/* bytes all JIT maps hold at once; 0: no bound */
	bool addresses_only;		/* --symbolize none: user frames keep their file,
					 * build-id and address, no name (named later:
					 * bpfprof symbolize) */
};

struct config {
	unsigned int freq;		/* samples per second per CPU */
	bool freq_set;			/* -F given (else fleet mode has its own default) */
	double duration;		/* seconds; 0: until Ctrl-C or the command exits */
	pid_t *pids;			/* -p: profile only these processes */
	int npids;
	pid_t *tids;			/* -t: only these threads */
	int ntids;
	const char *comm;		/* --comm: only tasks of this name */
	const char *cgroup;		/* --cgroup: only tasks in this cgroup v2 (or below) */
	enum group_by group_by;		/* --group-by: a label's value as each stack's root */
	unsigned int max_cgroups;	/* --max-cgroups: distinct cgroups a profile labels (0: 1024) */
	unsigned int labels;		/* --labels: enum label_bit, those pprof samples carry */
	bool labels_set;		/* --labels given (else the mode's default) */
	struct event events[MAX_EVENTS];	/* -e, plus off-CPU last */
	int nevents;
	unsigned long long period;	/* -c: sample every PERIOD events (0: -F) */
	bool offcpu;			/* --off-cpu */
	unsigned long min_block_us;	/* --min-block */
	bool list;			/* --list */
	enum unwind_mode call_graph;	/* --call-graph: auto (default), fp, dwarf */
	unsigned int unwind_rows;	/* --unwind-rows: the rows' budget */
	enum stack_sides sides;
	const char *output;		/* NULL: stdout */
	const char *btf_path;		/* --btf: kernel BTF to use instead of the running kernel's */
	unsigned int max_stacks;	/* --max-stacks: stack and counts map entries */
	char **cmd;			/* argv after "--", NULL-terminated; NULL if none */
	enum out_format format;
	bool report;			/* --report: the report table on stdout after the run */
	int verbose;			/* -v: the summary's details; -vv: and libbpf's log */
	const char *stats_file;		/* --stats: the summary as JSON (NULL: none) */
	struct name_sources names;
	bool quiet;			/* -q: errors and warnings only on stderr */
	bool no_progress;		/* --no-progress */
	double kill_after;		/* --kill-after: SIGTERM, then SIGKILL this much later */

	/* --control fifo:CTL[,ACK] (perf's syntax): commands while running */
	char *control_ctl;		/* NULL: no control FIFO */
	char *control_ack;		/* NULL: no acks */
	bool start_disabled;		/* --start-disabled: count nothing until enable */

	/* bpfprof top: a live table instead of a profile written */
	bool top;
	double refresh;			/* top's --interval: seconds between screens */

	/* fleet mode: a profile every interval, to files and/or a server */
	double interval;		/* seconds; 0: one-shot */
	const char *output_dir;		/* --output-dir */
	unsigned int max_files;		/* keep at most this many profiles there */
	unsigned long long max_bytes;	/* ... and at most this many bytes */
	const char *push_url;		/* --push: Pyroscope server */
	const char *push_auth_file;	/* --push-auth-file: its credentials */
	const char *otlp_url;		/* --otlp: OTLP/HTTP endpoint, or "env" */
	const char *app_name;		/* --app: Pyroscope application name */
	const char *spool_dir;		/* profiles waiting for the server */
	unsigned int spool_max;		/* at most this many waiting */
};

#endif
