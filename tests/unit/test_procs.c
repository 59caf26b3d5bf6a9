// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of procs.c and symbolizer.c: process lifetimes, mappings,
 * and user symbols of a live and of an exited process. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "base/config.h"
#include "elf/dwarf_lines.h"
#include "files/files.h"
#include "leak_check.h"
#include "procs_fixtures.h"
#include "base/open_regular.h"
#include "procs/proc_maps.h"
#include "procs/procs.h"
#include "symbols/symbolizer.h"

static const struct name_sources NAMES = { .demangle = true, .inlines = true };

TestSuite(procs, .fini = check_leaks);


Test(procs, exec_starts_a_new_image_and_keeps_the_old_one)
{
	struct procs *p = procs__new();
	struct vma before = vma_at(0x1000, 10, "/old"), after = vma_at(0x1000, 30, "/new");
	const struct vma *v;

	cr_assert_not_null(p);
	cr_assert_eq(procs__mmap(p, FAKE, &before), 0);
	cr_assert_eq(procs__exec(p, FAKE, 20), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &after), 0);
	v = procs__find(p, FAKE, 0, EXEC_LATEST, 0x1800);
	cr_assert_not_null(v);
	cr_expect_str_eq(v->path, "/new");
	/* a sample from before the exec (the BPF side saw no exec yet) */
	cr_expect_str_eq(procs__find(p, FAKE, 0, 0, 0x1800)->path, "/old");
	/* one that the BPF side stamped after the exec (its time > 20) */
	cr_expect_str_eq(procs__find(p, FAKE, 0, 25, 0x1800)->path, "/new");
	cr_expect_null(procs__find(p, FAKE, 0, EXEC_LATEST, 0x2000));
	procs__free(p);
}

Test(procs, exec_records_out_of_order)
{
	struct procs *p = procs__new();
	struct vma a = vma_at(0x1000, 15, "/a"), b = vma_at(0x1000, 45, "/b");

	/* the second exec's record arrives before the first's */
	cr_assert_eq(procs__exec(p, FAKE, 40), 0);
	cr_assert_eq(procs__exec(p, FAKE, 10), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &b), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &a), 0);
	cr_expect_str_eq(procs__find(p, FAKE, 0, 12, 0x1000)->path, "/a");
	cr_expect_str_eq(procs__find(p, FAKE, 0, 41, 0x1000)->path, "/b");
	cr_expect_null(procs__find(p, FAKE, 0, 0, 0x1000));	/* nothing before exec 1 */
	procs__free(p);
}

Test(procs, newest_mapping_wins)
{
	struct procs *p = procs__new();
	struct vma a = vma_at(0x1000, 10, "/a"), b = vma_at(0x1000, 20, "/b");

	cr_assert_eq(procs__exec(p, FAKE, 1), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &a), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &b), 0);
	cr_expect_str_eq(procs__find(p, FAKE, 0, EXEC_LATEST, 0x1000)->path, "/b");
	procs__free(p);
}

Test(procs, fork_copies_the_parent_as_it_was)
{
	struct procs *p = procs__new();
	struct vma early = vma_at(0x1000, 10, "/lib"), late = vma_at(0x5000, 30, "/dlopened");

	cr_assert_eq(procs__exec(p, FAKE, 1), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &early), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &late), 0);
	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 20), 0);
	cr_expect_not_null(procs__find(p, FAKE + 1, 0, EXEC_LATEST, 0x1000));
	cr_expect_null(procs__find(p, FAKE + 1, 0, EXEC_LATEST, 0x5000));	/* mapped after the fork */
	cr_expect(procs__alive(p, FAKE + 1, 0));
	cr_assert_eq(procs__exit(p, FAKE + 1, 40), 0);
	cr_expect_not(procs__alive(p, FAKE + 1, 0));
	cr_expect_not_null(procs__find(p, FAKE + 1, 0, EXEC_LATEST, 0x1000));	/* kept after exit */
	procs__free(p);
}

Test(procs, running_process_is_read_from_proc)
{
	struct procs *p = procs__new();
	const struct vma *v = procs__find(p, getpid(), 0, EXEC_LATEST, (uint64_t)(uintptr_t)&procs__find);

	cr_assert_not_null(v);
	cr_expect_eq(v->path[0], '/');
	procs__free(p);
}

__attribute__((noinline)) int target_function(int x)
{
	return x * 3 + 1;
}

/* procs entering its files in a registry, and a symbolizer, as main wires them */
struct world {
	struct procs *p;
	struct files *fs;
	struct symbolizer *sz;
};

static struct world world_budget(size_t max_bytes)
{
	struct world w = { .p = procs__new(),
			   .fs = files__new(&(struct files_opts){ .inlines = true,
								   .max_bytes = max_bytes }) };

	cr_assert(w.p && w.fs);
	files__attach(w.fs, w.p);
	w.sz = symbolizer__new(w.p, w.fs, &NAMES);
	cr_assert_not_null(w.sz);
	return w;
}

static struct world world_new(void)
{
	return world_budget(0);
}

static void world_free(struct world *w)
{
	symbolizer__free(w->sz);
	procs__free(w->p);
	files__free(w->fs);
}

static void expect_resolves(struct symbolizer *sz, pid_t pid)
{
	struct user_sym us;

	struct user_ctx ctx = { .tgid = pid, .exec_time = EXEC_LATEST };

	symbolizer__user(sz, &ctx, (uint64_t)(uintptr_t)&target_function + 2, &us);
	cr_assert_not_null(us.name, "pid %d: unresolved (dso %s)", pid, us.dso ? us.dso : "-");
	cr_expect_str_eq(us.name, "target_function");
	cr_expect_not_null(us.dso);
}

Test(procs, symbolizes_live_process)
{
	struct world w = world_new();

	expect_resolves(w.sz, getpid());
	world_free(&w);
}

/* The process is read while it runs, then exits: its frames must resolve
 * from what was kept (the path, checked against the inode). */
Test(procs, symbolizes_exited_process)
{
	struct world w = world_new();
	pid_t child = fork();
	int status;

	cr_assert_geq(child, 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	cr_assert_eq(procs__synthesize(w.p, child), 0);
	kill(child, SIGKILL);
	cr_assert_eq(waitpid(child, &status, 0), child);
	cr_assert_eq(procs__exit(w.p, child, procs__now()), 0);
	expect_resolves(w.sz, child);
	world_free(&w);
}

static int find_vdso(const struct maps_line *ml, void *ctx)
{
	if (strcmp(ml->path, "[vdso]") == 0)
		*(uint64_t *)ctx = ml->start;
	return 0;
}

Test(procs, vdso_is_named)
{
	struct world w = world_new();
	struct user_sym us;
	uint64_t start = 0;

	cr_assert_eq(maps_for_each_exec(getpid(), find_vdso, &start), 0);
	cr_assert_neq(start, 0, "no [vdso] mapping");
	symbolizer__user(w.sz, &(struct user_ctx){ .tgid = getpid(), .exec_time = EXEC_LATEST },
			 start + 0x10, &us);
	cr_assert_not_null(us.dso);
	cr_expect_str_eq(us.dso, "[vdso]");
	cr_expect_eq(us.file_off, 0x10);
	world_free(&w);
}

/* pid reuse: a process that reuses an exited one's pid never gets its
 * mappings, and samples of each resolve in their own process. */
Test(procs, reused_pid_keeps_incarnations_apart)
{
	struct procs *p = procs__new();
	struct vma old = vma_at(0x1000, 15, "/old"), young = vma_at(0x1000, 45, "/young");

	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 10), 0);
	cr_assert_eq(procs__exec(p, FAKE + 1, 12), 0);
	cr_assert_eq(procs__mmap(p, FAKE + 1, &old), 0);
	cr_assert_eq(procs__exit(p, FAKE + 1, 30), 0);
	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 40), 0);	/* same pid, new process */
	cr_assert_eq(procs__exec(p, FAKE + 1, 42), 0);
	cr_expect_null(procs__find(p, FAKE + 1, 35, EXEC_LATEST, 0x5000));
	cr_assert_eq(procs__mmap(p, FAKE + 1, &young), 0);
	/* started at 5 (before the first exit): the old one; at 35: the new one */
	cr_expect_str_eq(procs__find(p, FAKE + 1, 5, EXEC_LATEST, 0x1000)->path, "/old");
	cr_expect_str_eq(procs__find(p, FAKE + 1, 35, EXEC_LATEST, 0x1000)->path, "/young");
	cr_expect_not(procs__alive(p, FAKE + 1, 5));
	cr_expect(procs__alive(p, FAKE + 1, 35));
	cr_expect_eq(procs__count(p), 2);	/* two FAKE + 1; the parent was never seen */
	procs__free(p);
}

/* The child's copy of its parent's mappings is made when first needed
 * (procs/fork_copy.c): after the parent is reaped it must still be the
 * parent's image at the fork, for the child and for a grandchild forked
 * before the child's copy was made. */
Test(procs, fork_copy_outlives_the_parent)
{
	struct procs *p = procs__new();
	struct vma lib = vma_at(0x1000, 10, "/lib"), late = vma_at(0x5000, 30, "/late");

	cr_assert_eq(procs__exec(p, FAKE, 1), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &lib), 0);
	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 20), 0);
	cr_assert_eq(procs__fork(p, FAKE + 1, FAKE + 2, 25), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &late), 0);
	cr_assert_eq(procs__exit(p, FAKE, 40), 0);
	cr_expect_eq(procs__reap(p, 50), 1);	/* the parent; its children run */
	cr_expect_str_eq(procs__find(p, FAKE + 1, 0, EXEC_LATEST, 0x1000)->path, "/lib");
	cr_expect_null(procs__find(p, FAKE + 1, 0, EXEC_LATEST, 0x5000));
	cr_expect_str_eq(procs__find(p, FAKE + 2, 0, EXEC_LATEST, 0x1000)->path, "/lib");
	cr_expect_null(procs__find(p, FAKE + 2, 0, EXEC_LATEST, 0x5000));
	procs__free(p);
}

/* A child's own mapping over a range it inherited wins, though the copy
 * is made after the mapping's record came; after an exec the old image
 * still names the samples taken before it. */
Test(procs, fork_child_maps_over_its_copy_and_execs)
{
	struct procs *p = procs__new();
	struct vma a = vma_at(0x1000, 10, "/a"), b = vma_at(0x1000, 30, "/b");
	struct vma n = vma_at(0x1000, 50, "/new");

	cr_assert_eq(procs__exec(p, FAKE, 1), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &a), 0);
	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 20), 0);
	cr_assert_eq(procs__mmap(p, FAKE + 1, &b), 0);
	cr_expect_str_eq(procs__find(p, FAKE + 1, 0, EXEC_LATEST, 0x1000)->path, "/b");
	cr_assert_eq(procs__fork(p, FAKE, FAKE + 2, 21), 0);
	cr_assert_eq(procs__exec(p, FAKE + 2, 40), 0);
	cr_assert_eq(procs__mmap(p, FAKE + 2, &n), 0);
	cr_expect_str_eq(procs__find(p, FAKE + 2, 0, EXEC_LATEST, 0x1000)->path, "/new");
	cr_expect_str_eq(procs__find(p, FAKE + 2, 0, 0, 0x1000)->path, "/a");
	procs__free(p);
}

Test(procs, reap_drops_only_processes_gone_before)
{
	struct procs *p = procs__new();
	struct vma v = vma_at(0x1000, 15, "/x");

	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 10), 0);
	cr_assert_eq(procs__mmap(p, FAKE + 1, &v), 0);
	cr_assert_eq(procs__exit(p, FAKE + 1, 30), 0);
	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 40), 0);
	cr_assert_eq(procs__fork(p, FAKE, FAKE + 2, 41), 0);
	cr_assert_eq(procs__exit(p, FAKE + 2, 50), 0);
	cr_expect_eq(procs__reap(p, 20), 0);
	cr_expect_eq(procs__reap(p, 45), 1);	/* the first FAKE + 1 */
	cr_expect_null(procs__find(p, FAKE + 1, 5, EXEC_LATEST, 0x1000));
	cr_expect_eq(procs__reap(p, 60), 1);	/* FAKE + 2 */
	cr_expect_eq(procs__count(p), 1);	/* the running FAKE + 1 */
	procs__free(p);
}

/* procs remembers its last answer for a (tgid, start time): a birth with
 * the same pid, or a reap, must not leave it stale (nor freed). */
Test(procs, remembered_incarnation_follows_births_and_reaps)
{
	struct procs *p = procs__new();
	struct vma old = vma_at(0x1000, 15, "/old"), young = vma_at(0x8000, 45, "/young");

	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 10), 0);
	cr_assert_eq(procs__mmap(p, FAKE + 1, &old), 0);
	cr_expect_str_eq(procs__find(p, FAKE + 1, 50, EXEC_LATEST, 0x1000)->path, "/old");
	cr_expect(procs__alive(p, FAKE + 1, 50));
	cr_assert_eq(procs__exit(p, FAKE + 1, 30), 0);
	cr_expect_not(procs__alive(p, FAKE + 1, 50));
	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 40), 0);
	cr_assert_eq(procs__mmap(p, FAKE + 1, &young), 0);
	cr_expect_str_eq(procs__find(p, FAKE + 1, 50, EXEC_LATEST, 0x8000)->path, "/young");
	cr_expect_null(procs__find(p, FAKE + 1, 50, EXEC_LATEST, 0x1000));
	cr_expect_str_eq(procs__find(p, FAKE + 1, 5, EXEC_LATEST, 0x1000)->path, "/old");
	cr_expect_eq(procs__reap(p, 45), 1);	/* frees the one just asked for */
	cr_expect_null(procs__find(p, FAKE + 1, 5, EXEC_LATEST, 0x1000));
	procs__free(p);
}

/* A FIFO, a directory, a regular file at a path: only the last is opened,
 * and the FIFO is refused at once (no writer: a blocking open would hang). */
Test(procs, file_open_regular_refuses_what_is_not_a_regular_file)
{
	char dir[] = "/tmp/bpfprof-test-open.XXXXXX", path[64];
	int fd;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_expect_eq(file_open_regular(path), -EINVAL);
	unlink(path);
	cr_expect_eq(file_open_regular(dir), -EINVAL);
	snprintf(path, sizeof(path), "%s/file", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	fd = file_open_regular(path);
	cr_assert_geq(fd, 0);
	cr_expect_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	unlink(path);
	cr_expect_eq(file_open_regular(path), -ENOENT);
	rmdir(dir);
}

/* What one address resolved to, kept as text. */
struct named {
	char text[512];
};

static void describe(const struct user_sym *us, struct named *out)
{
	const struct src_chain *c = us->src;
	int n = snprintf(out->text, sizeof(out->text), "%s|%s|%s:%u", us->name ?: "-",
			 us->dso ?: "-", c && c->outer.file ? c->outer.file : "-",
			 c ? c->outer.line : 0);

	for (uint32_t i = 0; c && i < c->ninlined && n > 0 && (size_t)n < sizeof(out->text); i++)
		n += snprintf(out->text + n, sizeof(out->text) - n, "|%s:%u",
			      c->inlined[i].name ?: "-", c->inlined[i].line);
}

struct sweep {
	uint64_t addrs[4096];
	size_t n;
};

/* Every 40th byte of the first 16 KiB of each executable mapping: starts
 * of functions (16-byte aligned) and their middles alike, about 400 a
 * mapping. (Every 16th byte, 4096 addresses, each reading its file's
 * symbols and DWARF again in the lazy pass, took 35-170 s under ASan.) */
static int add_text(const struct maps_line *ml, void *ctx)
{
	struct sweep *sw = ctx;

	for (uint64_t a = ml->start; a < ml->end && a - ml->start < 0x4000 && sw->n < 4096; a += 40)
		sw->addrs[sw->n++] = a;
	return 0;
}

/* Lazy symbolization (a budget of one byte: after every stack each file's
 * symbols and answers are dropped, read again on demand; sessions come
 * and go) names every address of an e2e workload (inline_hot: an inlined
 * hot function) and of its libraries as eager symbolization does. */
Test(procs, lazy_names_what_eager_did)
{
	struct world eager = world_budget(1u << 30), lazy = world_budget(1);
	struct sweep *sw = calloc(1, sizeof(*sw));
	struct named *want = calloc(4096, sizeof(*want)), got;
	struct user_sym us;
	size_t differ = 0, named = 0;
	pid_t child = fork();
	int status;

	cr_assert(sw && want);
	cr_assert_geq(child, 0);
	if (child == 0) {
		execl("build/examples/inline_hot", "inline_hot", "30", (char *)NULL);
		_exit(127);
	}
	usleep(200000);	/* exec'd, libraries mapped */
	kill(child, SIGSTOP);	/* mapped, not spinning: the CPU is the symbolizer's */
	cr_assert_eq(maps_for_each_exec(child, add_text, sw), 0);
	cr_assert_gt(sw->n, 100);
	cr_assert_eq(procs__synthesize(eager.p, child), 0);
	cr_assert_eq(procs__synthesize(lazy.p, child), 0);
	for (size_t i = 0; i < sw->n; i++) {
		symbolizer__user(eager.sz, &(struct user_ctx){ .tgid = child, .exec_time = EXEC_LATEST },
				 sw->addrs[i], &us);
		describe(&us, &want[i]);
		named += us.name != NULL;
	}
	for (size_t i = 0; i < sw->n; i++) {
		symbolizer__user(lazy.sz, &(struct user_ctx){ .tgid = child, .exec_time = EXEC_LATEST },
				 sw->addrs[i], &us);
		describe(&us, &got);
		if (strcmp(got.text, want[i].text) && differ++ < 5)
			cr_log_error("0x%" PRIx64 ": eager %s, lazy %s", sw->addrs[i], want[i].text, got.text);
		symbolizer__between_stacks(lazy.sz);
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	cr_expect_gt(named, sw->n / 2, "only %zu of %zu addresses named", named, sw->n);
	cr_expect_eq(differ, 0, "%zu of %zu addresses named otherwise", differ, sw->n);
	free(sw);
	free(want);
	world_free(&eager);
	world_free(&lazy);
}

/* Whose a process is, learnt when it first maps code no file backs (a
 * JIT's), not for the kernel's own pages; never from a process that
 * started after the record that named it (its pid reused); again after an
 * exec. */
Test(procs, the_owner_is_learnt_at_the_first_anonymous_code)
{
	struct procs *p = procs__new();
	struct vma vdso = vma_at(0x1000, procs__now(), "[vdso]");
	struct vma early = vma_at(0x2000, 1, "//anon");
	struct vma jit = vma_at(0x3000, procs__now(), "//anon");
	struct proc_owner o;

	cr_assert(p);
	cr_assert_eq(procs__mmap(p, getpid(), &vdso), 0);
	cr_expect_not(procs__owner(p, getpid(), 0).known, "the vDSO is no JIT's");
	cr_assert_eq(procs__mmap(p, getpid(), &early), 0);
	cr_expect_not(procs__owner(p, getpid(), 0).known, "we started after that record");
	cr_assert_eq(procs__mmap(p, getpid(), &jit), 0);
	o = procs__owner(p, getpid(), 0);
	cr_expect(o.known);
	cr_expect_eq(o.ruid, getuid());
	cr_expect_eq(o.euid, geteuid());
	cr_assert_eq(procs__mmap(p, FAKE, &jit), 0);
	cr_expect_not(procs__owner(p, FAKE, 0).known, "no such process");
	procs__free(p);
}

/* A process mapping distinct files in turn over one range: n mappings,
 * times first, first + 1, ..., each its own file (its own inode). */
