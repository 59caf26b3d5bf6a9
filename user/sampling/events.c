// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* perf's event names -> perf_event_attr; tracepoint ids from tracefs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "sampling/events.h"

#define TRACEFS		"/sys/kernel/tracing"

struct named {
	const char *name;
	__u32 type;
	__u64 config;
	bool clock;
};

/* perf's names (and perf list's aliases) for what the kernel counts. */
static const struct named names[] = {
	{ "cpu-clock",        PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true },
	{ "task-clock",       PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, true },
	{ "page-faults",      PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false },
	{ "faults",           PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false },
	{ "minor-faults",     PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, false },
	{ "major-faults",     PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, false },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cs",               PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cpu-migrations",   PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "migrations",       PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, false },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, false },
	{ "cycles",           PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false },
	{ "cpu-cycles",       PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false },
	{ "instructions",     PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, false },
	{ "cache-misses",     PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, false },
	{ "branches",         PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false },
	{ "branch-misses",    PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, false },
	{ "bus-cycles",       PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, false },
	{ "ref-cycles",       PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, false },
};

#define NNAMES	(sizeof(names) / sizeof(names[0]))

static const struct named *find_name(const char *s, size_t len)
{
	for (size_t i = 0; i < NNAMES; i++)
		if (strlen(names[i].name) == len && !strncmp(names[i].name, s, len))
			return &names[i];
	return NULL;
}

/* "u:PATH:SYMBOL" / "uprobe:PATH:SYMBOL"; the symbol follows the last ':'. */
static int parse_uprobe(const char *s, struct event *ev)
{
	const char *body = strchr(s, ':') + 1, *colon = strrchr(body, ':');

	if (!colon || colon == body || !colon[1] || (size_t)(colon - body) >= sizeof(ev->path) ||
	    strlen(colon + 1) >= sizeof(ev->sym))
		return -EINVAL;
	ev->kind = EVENT_UPROBE;
	memcpy(ev->path, body, colon - body);
	ev->path[colon - body] = '\0';
	strcpy(ev->sym, colon + 1);
	return 0;
}

static bool valid_tp_part(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(s[i] == '_' || s[i] == '-' || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

static int parse_one(const char *s, struct event *ev)
{
	const char *colon = strchr(s, ':');
	const struct named *nm;
	size_t len = colon ? (size_t)(colon - s) : strlen(s);

	memset(ev, 0, sizeof(*ev));
	if (!strncmp(s, "u:", 2) || !strncmp(s, "uprobe:", 7))
		return parse_uprobe(s, ev);
	nm = find_name(s, len);
	if (nm) {	/* a counter, maybe with perf's :u / :k modifier */
		if (colon && strcmp(colon, ":u") && strcmp(colon, ":k"))
			return -EINVAL;
		ev->kind = nm->type == PERF_TYPE_HARDWARE ? EVENT_HARDWARE : EVENT_SOFTWARE;
		ev->type = nm->type;
		ev->config = nm->config;
		ev->clock = nm->clock;
		ev->exclude_kernel = colon && colon[1] == 'u';
		ev->exclude_user = colon && colon[1] == 'k';
		snprintf(ev->name, sizeof(ev->name), "%s", nm->name);
		return 0;
	}
	if (!colon || strchr(colon + 1, ':') || !valid_tp_part(s, len) ||
	    !valid_tp_part(colon + 1, strlen(colon + 1)) || len >= sizeof(ev->sys) ||
	    strlen(colon + 1) >= sizeof(ev->tp))
		return -EINVAL;
	ev->kind = EVENT_TRACEPOINT;
	memcpy(ev->sys, s, len);
	strcpy(ev->tp, colon + 1);
	return 0;
}

int events__parse(const char *list, struct event *evs, int max, int *n, char *err, size_t errlen)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	*n = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == max) {
			snprintf(err, errlen, "too many events (at most %d)", max);
			ret = -EINVAL;
			break;
		}
		if (parse_one(tok, &evs[*n])) {
			snprintf(err, errlen, "unknown event '%s'", tok);
			ret = -EINVAL;
			break;
		}
		if (!evs[*n].name[0])
			snprintf(evs[*n].name, sizeof(evs[*n].name), "%s", tok);
		(*n)++;
	}
	if (!ret && !*n) {
		snprintf(err, errlen, "no event named");
		ret = -EINVAL;
	}
	free(copy);
	return ret;
}

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

/* tracefs is not always mounted (this kernel's boot leaves it out): mount it
 * where it belongs when we may. */
void events__ensure_tracefs(void)
{
	struct stat st;

	if (stat(TRACEFS "/events", &st) == 0)
		return;
	mount("nodev", TRACEFS, "tracefs", 0, NULL);	/* failure shows at the id */
}

static int tracepoint_id(const struct event *ev)
{
	char path[512], buf[32];
	int fd;
	ssize_t n;

	events__ensure_tracefs();
	snprintf(path, sizeof(path), TRACEFS "/events/%s/%s/id", ev->sys, ev->tp);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	return atoi(buf);
}

int events__open(const struct event *ev, unsigned int freq, unsigned long long period, int cpu)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int id;

	if (ev->kind == EVENT_TRACEPOINT) {
		id = tracepoint_id(ev);
		if (id < 0)
			return id;
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = (__u64)id;
		attr.sample_period = 1;		/* every hit */
	} else {
		attr.type = ev->type;
		attr.config = ev->config;
		attr.exclude_user = ev->exclude_user;
		attr.exclude_kernel = ev->exclude_kernel;
		if (period) {
			attr.sample_period = period;
		} else {
			attr.freq = 1;
			attr.sample_freq = freq;
		}
	}
	return perf_event_open(&attr, -1, cpu);
}

void events_tracking_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->size = sizeof(*attr);
	attr->mmap = 1;		/* executable mappings only: no mmap_data */
	attr->mmap2 = 1;	/* with device, inode and flags */
	attr->comm = 1;
	attr->comm_exec = 1;	/* flag the comm records that are exec()s */
	attr->task = 1;		/* fork and exit */
	/* Records of one process can land in different CPUs' buffers (it
	 * migrates); a timestamp on each lets the reader order them. */
	attr->sample_id_all = 1;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->watermark = 1;
	attr->wakeup_watermark = 1;
}

const char *events__strerror(const struct event *ev, int err)
{
	switch (err) {
	case -EACCES:
	case -EPERM:
		return "permission denied: profiling needs root (or CAP_PERFMON and CAP_BPF)";
	case -ENOENT:
		if (ev && ev->kind == EVENT_HARDWARE)
			return "no hardware PMU for it here (a VM without a virtual PMU?)";
		if (ev && ev->kind == EVENT_TRACEPOINT)
			return "no such tracepoint (see " TRACEFS "/events, or tracefs could not be mounted)";
		return "not supported by this kernel";
	case -EOPNOTSUPP:
		return "not supported by this kernel or hardware";
	case -EINVAL:
		return "invalid event settings (frequency above kernel.perf_event_max_sample_rate?)";
	case -EMFILE:
		return "too many open files (raise ulimit -n)";
	default:
		return strerror(-err);
	}
}

static bool probe(const struct event *ev)
{
	int fd = events__open(ev, 99, 0, 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int count_tracepoints(void)
{
	DIR *top, *sub;
	struct dirent *de, *te;
	char path[512];
	int n = 0;

	events__ensure_tracefs();
	top = opendir(TRACEFS "/events");
	if (!top)
		return -errno;
	while ((de = readdir(top))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		snprintf(path, sizeof(path), TRACEFS "/events/%s", de->d_name);
		sub = opendir(path);
		while (sub && (te = readdir(sub)))
			n += te->d_type == DT_DIR && te->d_name[0] != '.';
		if (sub)
			closedir(sub);
	}
	closedir(top);
	return n;
}

void events__list(FILE *out)
{
	struct event ev;
	int tps;

	fprintf(out, "Events this machine can open (probed now):\n");
	for (size_t i = 0; i < NNAMES; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.kind = names[i].type == PERF_TYPE_HARDWARE ? EVENT_HARDWARE : EVENT_SOFTWARE;
		ev.type = names[i].type;
		ev.config = names[i].config;
		if (probe(&ev))
			fprintf(out, "  %-24s [%s event]\n", names[i].name,
				ev.kind == EVENT_HARDWARE ? "Hardware" : "Software");
	}
	tps = count_tracepoints();
	if (tps > 0)
		fprintf(out, "  %-24s [Tracepoint event] (%d in %s/events)\n", "subsystem:name",
			tps, TRACEFS);
	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK) == 0)
		fprintf(out, "  %-24s [Uprobe event] (uprobe:PATH:SYMBOL too)\n", "u:PATH:SYMBOL");
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)	/* tp_btf needs it */
		fprintf(out, "  %-24s [Off-CPU time] (--off-cpu)\n", "offcpu");
}
