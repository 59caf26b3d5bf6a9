// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of replay.c: a stack copied before its process's tables were
 * in, walked in user space by the BPF side's rules (bpf/stack.bpf.h) over a
 * process entry and rows held in memory here.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <criterion/criterion.h>

#include "leak_check.h"
#include "unwind/replay.h"

TestSuite(replay, .fini = check_leaks);

#define BASE	0x7ffd0000ull	/* the copy's first byte: sp's page */
#define SP	(BASE + 0x100)
#define BIAS	0x3ff000ull	/* file vaddr 0x1000 is 0x400000 */

/* One file: a caller (CFA rsp+16, its rbp saved at CFA-16), a leaf (CFA
 * rsp+32), the outermost frame, and code no CFI covers. */
static const struct unwind_row rows[] = {
	{ .pc = 0x1000, .cfa_reg = CFA_RSP, .cfa_offset = 16, .rbp_offset = -16 },
	{ .pc = 0x2000, .cfa_reg = CFA_RSP, .cfa_offset = 32, .rbp_offset = RBP_SAME },
	{ .pc = 0x3000, .cfa_reg = CFA_END },
	{ .pc = 0x4000, .cfa_reg = CFA_NONE },
};

static bool find_row(void *arg, const struct unwind_map *m, __u64 vaddr, struct unwind_row *out)
{
	const struct unwind_row *r = arg;
	bool found = false;

	for (__u32 i = 0; i < m->nrows && r[i].pc <= vaddr; i++, found = true)
		*out = r[i];
	return found;
}

static struct unwind_proc entry = {
	.nmaps = 1,
	.maps = { { .start = 0x400000, .end = 0x405000, .bias = BIAS, .file = 0, .nrows = 4 } },
};

static struct early_stack *copy(__u64 ip, __u64 bp)
{
	struct early_stack *e = calloc(1, sizeof(*e));

	cr_assert_not_null(e);
	e->ip = ip;
	e->sp = SP;
	e->bp = bp;
	e->base = BASE;
	e->len = EARLY_PAGE;
	return e;
}

static void put(struct early_stack *e, __u64 addr, __u64 value)
{
	memcpy(e->stack + (addr - BASE), &value, sizeof(value));
}

static struct replay_view view(const struct unwind_proc *pr, const struct exec_ranges *ranges,
			       enum unwind_mode mode)
{
	return (struct replay_view){ .entry = pr, .ranges = ranges, .mode = mode,
				     .find_row = find_row, .arg = (void *)rows };
}

/* leaf (vaddr 0x2010) -> caller (0x1020) -> the outermost frame (0x3005) */
Test(replay, by_the_rows_to_the_end)
{
	struct early_stack *e = copy(0x401010, 0x1234);
	struct replay_view v = view(&entry, NULL, UNWIND_AUTO);
	__u64 ips[MAX_STACK_DEPTH];
	__u32 nr = 0, stop;

	put(e, SP + 24, 0x400020);		/* the leaf's return address, CFA - 8 */
	put(e, SP + 32 + 8, 0x402005);		/* the caller's, at its CFA - 8 */
	put(e, SP + 32, 0x5678);		/* its caller's rbp, CFA - 16 */
	stop = replay__walk_view(&v, e, ips, &nr);
	cr_assert_eq(stop, STAT_UNWIND_END, "stop %u", stop);
	cr_assert_eq(nr, 3);
	cr_assert_eq(ips[0], 0x401010);
	cr_assert_eq(ips[1], 0x400020);
	cr_assert_eq(ips[2], 0x402005);
	free(e);
}

/* A word past the copy is a read fault, as a failed read in the kernel. */
Test(replay, past_the_copy_a_read_fault)
{
	struct early_stack *e = copy(0x401010, 0);
	struct replay_view v = view(&entry, NULL, UNWIND_AUTO);
	__u64 ips[MAX_STACK_DEPTH];
	__u32 nr = 0;

	e->sp = BASE + EARLY_PAGE - 16;	/* CFA - 8 lies past the page */
	cr_assert_eq(replay__walk_view(&v, e, ips, &nr), STAT_UNWIND_READ_FAULT);
	cr_assert_eq(nr, 1);
	free(e);
}

/* Code no CFI covers: dwarf stops there; auto takes a checked
 * frame-pointer step, and one that lands outside every mapping is no
 * frame (not recorded). */
Test(replay, no_rule_dwarf_stops_auto_steps_by_frame_pointer)
{
	struct early_stack *e = copy(0x403010, SP + 0x40);
	struct replay_view dwarf = view(&entry, NULL, UNWIND_DWARF);
	struct replay_view autov = view(&entry, NULL, UNWIND_AUTO);
	__u64 ips[MAX_STACK_DEPTH];
	__u32 nr = 0;

	cr_assert_eq(replay__walk_view(&dwarf, e, ips, &nr), STAT_UNWIND_NO_RULE);
	cr_assert_eq(nr, 1);
	put(e, SP + 0x40, SP + 0x80);		/* the caller's rbp */
	put(e, SP + 0x48, 0x900000);		/* a return address in no mapping */
	cr_assert_eq(replay__walk_view(&autov, e, ips, &nr), STAT_UNWIND_IMPLAUSIBLE);
	cr_assert_eq(nr, 1, "the implausible frame is not recorded (%u frames)", nr);
	free(e);
}

/* JIT code (executable, no file) is walked by frame pointers into a file
 * the entry knows, and on by its rows. */
Test(replay, jit_code_by_frame_pointers_then_rows)
{
	struct exec_ranges ranges = { .start = { 0x7f0000000000 }, .end = { 0x7f0000100000 } };
	struct early_stack *e = copy(0x7f0000000100, SP + 0x40);
	struct replay_view v = view(&entry, &ranges, UNWIND_AUTO);
	__u64 ips[MAX_STACK_DEPTH];
	__u32 nr = 0, stop;

	put(e, SP + 0x40, 0);			/* the caller's rbp */
	put(e, SP + 0x48, 0x402005);		/* into the outermost frame */
	stop = replay__walk_view(&v, e, ips, &nr);
	cr_assert_eq(stop, STAT_UNWIND_END, "stop %u", stop);
	cr_assert_eq(nr, 2);
	cr_assert_eq(ips[1], 0x402005);
	free(e);
}

/* No entry (the process exited, or exec'd since): the kernel's
 * frame-pointer walk, counted as such. */
Test(replay, no_entry_frame_pointers)
{
	struct early_stack *e = copy(0x401010, SP + 0x40);
	struct replay_view v = view(NULL, NULL, UNWIND_AUTO);
	__u64 ips[MAX_STACK_DEPTH];
	__u32 nr = 0;

	put(e, SP + 0x40, SP + 0x80);
	put(e, SP + 0x48, 0x400123);
	put(e, SP + 0x80, 0);			/* the outermost: rbp 0 */
	put(e, SP + 0x88, 0x400456);
	cr_assert_eq(replay__walk_view(&v, e, ips, &nr), STAT_UNWIND_FP_FALLBACK);
	cr_assert_eq(nr, 3);
	cr_assert_eq(ips[1], 0x400123);
	cr_assert_eq(ips[2], 0x400456);
	free(e);
}

/* A map of the BPF side's kind, or the test fails (it runs as root). */
static int new_map(enum bpf_map_type type, __u32 value_size)
{
	int fd = bpf_map_create(type, NULL, sizeof(__u32), value_size, 4, NULL);

	cr_assert_geq(fd, 0, "bpf_map_create: %s", strerror(errno));
	return fd;
}

/* The process entries and exec stamps a walk reads, as the BPF side's. */
static struct replay_maps entry_maps(void)
{
	return (struct replay_maps){
		.procs_fd = new_map(BPF_MAP_TYPE_HASH, sizeof(struct unwind_proc)),
		.exec_fd = new_map(BPF_MAP_TYPE_HASH, sizeof(__u64)),
		.mode = UNWIND_AUTO,
	};
}

/* An entry is used for the image it was read in only: one user space read
 * before an exec and wrote after it (stamped with the old exec) is not the
 * sample's; one kept past its process's exit still is. */
Test(replay, ready_only_for_the_image_sampled)
{
	struct replay_maps m = entry_maps();
	struct early_stack *e = copy(0x401010, SP + 0x40);
	struct unwind_proc pr = entry;
	__u32 tgid = 1234;
	__u64 exec_time = 500, later = 600;

	e->key.tgid = tgid;
	e->key.exec_time = exec_time;
	cr_assert_eq(bpf_map_update_elem(m.exec_fd, &tgid, &exec_time, BPF_ANY), 0);
	pr.exec_time = 400;			/* the image before */
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &tgid, &pr, BPF_ANY), 0);
	cr_assert_not(replay__ready(&m, e), "an entry of the image before the exec");
	pr.exec_time = exec_time;
	pr.maps[0].file = UNWIND_FILE_PENDING;
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &tgid, &pr, BPF_ANY), 0);
	cr_assert_not(replay__ready(&m, e), "a table being built");
	cr_assert_not(replay__parent_pending(&m, e), "its own entry, not a parent's");
	pr.maps[0].file = entry.maps[0].file;
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &tgid, &pr, BPF_ANY), 0);
	cr_assert(replay__ready(&m, e));
	cr_assert_eq(bpf_map_delete_elem(m.exec_fd, &tgid), 0);	/* it exited */
	cr_assert(replay__ready(&m, e), "an exited process's entry, kept for its copies");
	cr_assert_eq(bpf_map_update_elem(m.exec_fd, &tgid, &later, BPF_ANY), 0);
	cr_assert_not(replay__ready(&m, e), "exec'd since the sample");
	close(m.procs_fd);
	close(m.exec_fd);
	free(e);
}

static pid_t forked_by_1000(void *arg, pid_t tgid, __u64 start_time)
{
	(void)arg;
	return tgid == 1234 && start_time == 50 ? 1000 : 0;
}

/* A copy taken between a fork and the child's exec: the child's entry now
 * describes the image it exec'd, its parent's the one it ran then, as
 * long as the parent has not exec'd since the fork (nor has the child
 * exec'd before the sample, nor a fork gone unseen). */
Test(replay, before_the_childs_exec_by_its_parents_entry)
{
	struct replay_maps m = entry_maps();
	struct early_stack *e = copy(0x401010, SP + 0x40);
	struct unwind_proc child = entry, parent = entry;
	__u32 tgid = 1234, ptgid = 1000;
	__u64 child_exec = 70, parent_exec = 20, parent_later = 60;

	m.forked_by = forked_by_1000;
	e->key.tgid = tgid;
	e->key.start_time = 50;		/* forked at 50, not exec'd yet */
	cr_assert_eq(bpf_map_update_elem(m.exec_fd, &tgid, &child_exec, BPF_ANY), 0);
	child.exec_time = child_exec;
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &tgid, &child, BPF_ANY), 0);
	cr_assert_not(replay__ready(&m, e), "no parent entry yet");
	cr_assert_eq(bpf_map_update_elem(m.exec_fd, &ptgid, &parent_exec, BPF_ANY), 0);
	parent.exec_time = parent_exec;
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &ptgid, &parent, BPF_ANY), 0);
	cr_assert(replay__ready(&m, e), "the parent's image, unchanged since the fork");
	cr_assert_not(replay__no_entry(&m, e));
	cr_assert_not(replay__parent_pending(&m, e));
	parent.maps[0].file = UNWIND_FILE_PENDING;	/* its table being built */
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &ptgid, &parent, BPF_ANY), 0);
	cr_assert(replay__parent_pending(&m, e));
	cr_assert_not(replay__ready(&m, e));
	parent = entry;
	parent.exec_time = parent_exec;
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &ptgid, &parent, BPF_ANY), 0);
	cr_assert_eq(bpf_map_delete_elem(m.exec_fd, &tgid), 0);	/* the child exited */
	cr_assert(replay__ready(&m, e), "exited: its kept entry says it exec'd since");
	cr_assert_eq(bpf_map_update_elem(m.exec_fd, &tgid, &child_exec, BPF_ANY), 0);
	e->key.start_time = 51;		/* a fork the tracker did not see */
	cr_assert_not(replay__ready(&m, e));
	e->key.start_time = 50;
	cr_assert_eq(bpf_map_update_elem(m.exec_fd, &ptgid, &parent_later, BPF_ANY), 0);
	parent.exec_time = parent_later;
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &ptgid, &parent, BPF_ANY), 0);
	cr_assert_not(replay__ready(&m, e), "the parent exec'd after the fork");
	close(m.procs_fd);
	close(m.exec_fd);
	free(e);
}

/* No entry at all for the image sampled (all its files keep frame
 * pointers): walked at once after its sync, not held to the interval's
 * end; one that exec'd since stays for the end. */
Test(replay, no_entry_only_without_an_entry_of_that_image)
{
	struct replay_maps m = entry_maps();
	struct early_stack *e = copy(0x401010, SP + 0x40);
	struct unwind_proc pr = entry;
	__u32 tgid = 1234;
	__u64 exec_time = 500, later = 600;

	e->key.tgid = tgid;
	e->key.exec_time = exec_time;
	cr_assert(replay__no_entry(&m, e));
	cr_assert_eq(bpf_map_update_elem(m.exec_fd, &tgid, &exec_time, BPF_ANY), 0);
	cr_assert(replay__no_entry(&m, e));
	pr.exec_time = exec_time;
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &tgid, &pr, BPF_ANY), 0);
	cr_assert_not(replay__no_entry(&m, e));
	cr_assert_eq(bpf_map_delete_elem(m.procs_fd, &tgid), 0);
	cr_assert_eq(bpf_map_update_elem(m.exec_fd, &tgid, &later, BPF_ANY), 0);
	cr_assert_not(replay__no_entry(&m, e), "exec'd since the sample");
	close(m.procs_fd);
	close(m.exec_fd);
	free(e);
}

/* The same walk by replay__walk, its rows read from the BPF maps as the BPF
 * side reads them: the file's run of a chunk (rows 3 to 3 + run_rows, the
 * others another file's, whose pcs would answer a search that left the
 * run). Past its 4 rows, the run's rows start above every address walked. */
static void walk_by_chunk(__u32 run_rows)
{
	LIBBPF_OPTS(bpf_map_create_opts, outer_opts);
	/* a chunk as rowstore.c makes it: the walk maps the file's run */
	LIBBPF_OPTS(bpf_map_create_opts, rows_opts, .map_flags = BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	struct replay_maps m = entry_maps();
	struct early_stack *e = copy(0x401010, 0x1234);
	struct unwind_proc pr = entry;
	struct unwind_row row;
	__u64 ips[MAX_STACK_DEPTH];
	__u32 nr = 0, slot = 0, tgid = 77, stop, n = run_rows + 6;
	int rows_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, sizeof(__u32), sizeof(row), n,
				     &rows_opts);

	cr_assert_geq(rows_fd, 0, "bpf_map_create: %s", strerror(errno));
	outer_opts.inner_map_fd = rows_fd;
	m.files_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, NULL, sizeof(__u32), sizeof(__u32),
				    1, &outer_opts);
	cr_assert_geq(m.files_fd, 0, "bpf_map_create: %s", strerror(errno));
	m.ranges_fd = new_map(BPF_MAP_TYPE_HASH, sizeof(struct exec_ranges));
	for (__u32 i = 0; i < n; i++) {
		row = (struct unwind_row){ .pc = i < 3 ? 0x10 * i : 0x9000 + i,
					   .cfa_reg = CFA_RSP, .cfa_offset = 8 };
		if (i >= 3 && i < 7)
			row = rows[i - 3];
		else if (i >= 7 && i < 3 + run_rows)
			row.pc = 0x100000 + 0x10 * i;
		cr_assert_eq(bpf_map_update_elem(rows_fd, &i, &row, BPF_ANY), 0);
	}
	cr_assert_eq(bpf_map_update_elem(m.files_fd, &slot, &rows_fd, BPF_ANY), 0);
	pr.maps[0].file = slot;
	pr.maps[0].first = 3;
	pr.maps[0].nrows = run_rows;
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &tgid, &pr, BPF_ANY), 0);
	e->key.tgid = tgid;
	put(e, SP + 24, 0x400020);
	put(e, SP + 32 + 8, 0x402005);
	put(e, SP + 32, 0x5678);
	stop = replay__walk(&m, e, ips, &nr);
	cr_assert_eq(stop, STAT_UNWIND_END, "stop %u", stop);
	cr_assert_eq(nr, 3);
	cr_assert_eq(ips[1], 0x400020);
	cr_assert_eq(ips[2], 0x402005);
	close(rows_fd);
	close(m.files_fd);
	close(m.ranges_fd);
	close(m.procs_fd);
	close(m.exec_fd);
	free(e);
}

Test(replay, by_the_rows_of_the_bpf_maps)
{
	walk_by_chunk(4);	/* mapped */
}

/* A run past replay.c's MAP_RUN_MAX_BYTES (64 KiB: 4,096 rows) is searched
 * a lookup a step, with the same answers. */
Test(replay, by_lookups_through_a_large_run)
{
	walk_by_chunk(5000);
}
