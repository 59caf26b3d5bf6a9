// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of hs_find: a real OpenJDK 17 (JavaChain, started here) has
 * its libjvm found and its vmStructs read into a layout that agrees with
 * the VM's own memory (the code cache's bounds hold every code heap and
 * the interpreter's code; x86-64's interpreter frame); a process without
 * a JVM is told apart; a process that fakes the tables
 * (examples/hs_fake_jvm.c, under libjvm's name) is refused for each lie,
 * with its reason, and accepted without one.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hotspot/hs_code.h"
#include "hotspot/hs_find.h"
#include "procs/proc_mem.h"

#define JAVA		"/usr/bin/java"
#define CLASSES		"build/examples/java"		/* JavaChain.class */
#define FAKE		"build/examples/fakejvm/libjvm.so"
#define JVM_READY_S	30	/* a JVM's start on a busy 2-CPU machine */

static pid_t spawn(char *const argv[], int *out_fd)
{
	int fds[2];
	pid_t pid;

	cr_assert(!pipe(fds));
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		/* a failed assertion ends the test: the child with it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(fds[1], 1);
		close(fds[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	*out_fd = fds[0];
	return pid;
}

static void reap(pid_t pid, int fd)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(fd);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int read_tables(pid_t pid, struct hs_layout *l, enum hs_refusal *why)
{
	struct hs_syms s;
	int err = hs_find__proc(pid, &s);

	return err ? err : hs_find__tables(proc_mem__read, &pid, &s, l, why);
}

static uint64_t peek(pid_t pid, uint64_t addr)
{
	uint64_t v = 0;

	cr_assert_eq(proc_mem__read(&pid, addr, &v, sizeof(v)), 0, "read 0x%lx", addr);
	return v;
}

Test(hs_find, real_jvm)
{
	char *argv[] = { JAVA, "-Xint", "-cp", CLASSES, "JavaChain", "30", NULL };
	struct hs_layout l;
	enum hs_refusal why = HS_REFUSED_MAX;
	double until = now_s() + JVM_READY_S;
	int fd, err;
	pid_t pid = spawn(argv, &fd);
	uint64_t low, high, heaps, stubq, buf;
	int32_t n;

	/* the tables' strides are set as libjvm is loaded (refused until
	 * then), the code cache and then the interpreter as the VM starts */
	while (((err = read_tables(pid, &l, &why)) || !peek(pid, l.interp_code)) &&
	       now_s() < until)
		usleep(50 * 1000);
	cr_assert_eq(err, 0, "tables of a real JVM: %d (refused: %d)", err, why);
	cr_expect_eq(l.frame_method, -3);
	cr_expect(l.symbol_body > l.symbol_length);
	cr_expect(l.blob_code_end > l.blob_code_begin);
	low = peek(pid, l.code_low);
	high = peek(pid, l.code_high);
	cr_assert(low && low < high, "code cache [0x%lx, 0x%lx)", low, high);
	/* every code heap inside the code cache */
	heaps = peek(pid, l.code_heaps);
	cr_assert(!proc_mem__read(&pid, heaps + l.array_len, &n, sizeof(n)));
	cr_assert(n >= 1 && n <= 8, "%d code heaps", n);
	for (int i = 0; i < n; i++) {
		uint64_t heap = peek(pid, peek(pid, heaps + l.array_data) + 8 * (uint64_t)i);
		uint64_t mlow = peek(pid, heap + l.heap_memory + l.vspace_low);
		uint64_t mhigh = peek(pid, heap + l.heap_memory + l.vspace_high);

		cr_expect(low <= mlow && mlow < mhigh && mhigh <= high, "heap %d [0x%lx, 0x%lx)", i,
			  mlow, mhigh);
	}
	/* -Xint: the interpreter's code, where the JVM runs JavaChain */
	stubq = peek(pid, l.interp_code);
	buf = peek(pid, stubq + l.stubq_buffer);
	cr_expect(low <= buf && buf < high, "interpreter at 0x%lx", buf);
	reap(pid, fd);
}

Test(hs_find, not_a_jvm)
{
	struct hs_syms s;

	cr_expect_eq(hs_find__proc(getpid(), &s), -ENOENT);
}

/* The fake started with its lie, its tables read once filled. */
static int fake(const char *mode, enum hs_refusal *why)
{
	char *argv[] = { FAKE, (char *)mode, NULL };
	struct hs_layout l;
	char line[16] = "";
	int fd, err;
	pid_t pid = spawn(argv, &fd);
	double t0;
	ssize_t n = read(fd, line, sizeof(line) - 1);

	cr_assert(n > 0 && !strncmp(line, "ready", 5), "%s %s did not start", FAKE, mode);
	*why = HS_REFUSED_MAX;
	t0 = now_s();
	err = read_tables(pid, &l, why);
	cr_expect(now_s() - t0 < 5, "%s: %.1f s", mode, now_s() - t0);
	reap(pid, fd);
	return err;
}

Test(hs_find, fake_without_lie_accepted)
{
	enum hs_refusal why;

	cr_expect_eq(fake("ok", &why), 0);
}

Test(hs_find, fake_unfilled_read_again)
{
	enum hs_refusal why;

	cr_expect_eq(fake("unfilled", &why), -EAGAIN);
	cr_expect_eq(why, HS_REFUSED_MAX, "not refused");
}

Test(hs_find, fake_lies_refused)
{
	static const struct {
		const char *mode;
		enum hs_refusal why;
	} lies[] = {
		{ "unended", HS_REFUSED_UNENDED },
		{ "huge_name", HS_REFUSED_MISSING },
		{ "unreadable", HS_REFUSED_UNREADABLE },
		{ "stride", HS_REFUSED_SHAPE },
		{ "offset", HS_REFUSED_VALUE },
		{ "frame", HS_REFUSED_VALUE },
	};

	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		enum hs_refusal why;

		cr_expect_eq(fake(lies[i].mode, &why), -EPROTO, "%s", lies[i].mode);
		cr_expect_eq(why, lies[i].why, "%s: refused as %d", lies[i].mode, why);
	}
}

/* The compiled methods the VM lists (jcmd Compiler.codelist: "id level
 * state name(sig)ret [blob, begin - end]") of JavaChain's into ref. */
struct listed {
	char name[256];
	uint64_t begin, end;
};

static size_t codelist(pid_t pid, struct listed *ref, size_t max)
{
	char cmd[64], line[512], name[256];
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "jcmd %d Compiler.codelist 2>/dev/null", (int)pid);
	f = popen(cmd, "r");
	cr_assert(f);
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long blob, begin, end;

		if (sscanf(line, "%*d %*d %*d %255s [0x%lx, 0x%lx - 0x%lx]", name, &blob, &begin,
			   &end) != 4 || strncmp(name, "JavaChain.", 10))
			continue;
		*strchr(name, '(') = '\0';
		snprintf(ref[n].name, sizeof(ref[n].name), "%s", name);
		ref[n].begin = begin;
		ref[n].end = end;
		n++;
	}
	pclose(f);
	return n;
}

static int chain_blobs;

static void count_chain(const struct hs_blob *b, void *arg)
{
	if (!strncmp(b->name, "JavaChain.", 10) && b->method)
		(*(int *)arg)++;
}

Test(hs_find, code_blobs_named_as_the_vm_lists_them)
{
	char *argv[] = { JAVA, "-cp", CLASSES, "JavaChain", "60", NULL };
	struct listed ref[32];
	struct hs_layout l;
	struct hs_blob b;
	enum hs_refusal why;
	double until = now_s() + JVM_READY_S;
	int fd, err;
	pid_t pid = spawn(argv, &fd);
	size_t n = 0;

	while (((err = read_tables(pid, &l, &why)) || !peek(pid, l.interp_code)) &&
	       now_s() < until)
		usleep(50 * 1000);
	cr_assert_eq(err, 0);
	/* C1 then C2 compile the chain within its first seconds */
	while (n < 3 && now_s() < until + 20)
		n = codelist(pid, ref, 32);
	cr_assert(n >= 3, "%zu of JavaChain's methods compiled", n);
	for (size_t i = 0; i < n; i++) {
		uint64_t mid = ref[i].begin + (ref[i].end - ref[i].begin) / 2;

		err = hs_code__blob(&l, proc_mem__read, &pid, mid, &b);
		/* a method made not entrant may be freed since the list */
		if (err == -ENOENT)
			continue;
		cr_assert_eq(err, 0, "0x%lx (%s): %d", mid, ref[i].name, err);
		cr_expect_str_eq(b.name, ref[i].name);
		cr_expect_eq(b.begin, ref[i].begin, "%s", ref[i].name);
		cr_expect_eq(b.end, ref[i].end, "%s", ref[i].name);
		cr_expect(b.method && b.frame_size > 0, "%s: frame of %d words", ref[i].name,
			  b.frame_size);
	}
	/* the heaps walked block by block meet the chain's methods too */
	chain_blobs = 0;
	cr_expect_gt(hs_code__each_blob(&l, proc_mem__read, &pid, HS_BLOBS_MAX, count_chain,
					&chain_blobs), 100, "a JVM's stubs and adapters alone");
	cr_expect_geq(chain_blobs, n / 2, "%d of JavaChain's %zu listed", chain_blobs, n);
	/* the interpreter's code: a blob, no method */
	err = hs_code__blob(&l, proc_mem__read, &pid,
			    peek(pid, peek(pid, l.interp_code) + l.stubq_buffer) + 64, &b);
	cr_assert_eq(err, 0);
	cr_expect_str_eq(b.name, "Interpreter");
	cr_expect_eq(b.method, 0);
	reap(pid, fd);
}
