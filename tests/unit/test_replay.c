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

/* A chunk as rowstore.c makes it, in slot 0 of m's unwind_files: rows 3-6
 * of 10 are the file's (leaf_end: its leaf's row ends the walk), the
 * others another file's, whose pcs would answer a search that left the
 * run. Returns the chunk's fd. */
static int put_chunk(const struct replay_maps *m, bool leaf_end)
{
	LIBBPF_OPTS(bpf_map_create_opts, rows_opts, .map_flags = BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	struct unwind_row chunk[10];
	__u32 slot = 0;
	int rows_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, sizeof(__u32), sizeof(*chunk), 10,
				     &rows_opts);

	cr_assert_geq(rows_fd, 0, "bpf_map_create: %s", strerror(errno));
	for (__u32 i = 0; i < 10; i++) {
		chunk[i] = (struct unwind_row){ .pc = i < 3 ? 0x10 * i : 0x9000 + i,
						.cfa_reg = CFA_RSP, .cfa_offset = 8 };
		if (i >= 3 && i < 7)
			chunk[i] = rows[i - 3];
		if (leaf_end && i == 4)
			chunk[i].cfa_reg = CFA_END;
		cr_assert_eq(bpf_map_update_elem(rows_fd, &i, &chunk[i], BPF_ANY), 0);
	}
	cr_assert_eq(bpf_map_update_elem(m->files_fd, &slot, &rows_fd, BPF_ANY), 0);
	return rows_fd;
}

/* The maps of entry_maps(), unwind_files (slot 0: put_chunk()'s) and
 * exec_ranges; the entry of tgid 77 maps the file's rows at 3. */
static struct replay_maps chunk_maps(int *rows_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, outer_opts);
	LIBBPF_OPTS(bpf_map_create_opts, inner_opts, .map_flags = BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	struct replay_maps m = entry_maps();
	struct unwind_proc pr = entry;
	__u32 tgid = 77;
	int proto = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, sizeof(__u32),
				   sizeof(struct unwind_row), 10, &inner_opts);

	cr_assert_geq(proto, 0, "bpf_map_create: %s", strerror(errno));
	outer_opts.inner_map_fd = proto;
	m.files_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, NULL, sizeof(__u32), sizeof(__u32),
				    1, &outer_opts);
	cr_assert_geq(m.files_fd, 0, "bpf_map_create: %s", strerror(errno));
	close(proto);
	m.ranges_fd = new_map(BPF_MAP_TYPE_HASH, sizeof(struct exec_ranges));
	*rows_fd = put_chunk(&m, false);
	pr.maps[0].file = 0;
	pr.maps[0].first = 3;
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &tgid, &pr, BPF_ANY), 0);
	return m;
}

static void close_maps(struct replay_maps *m, int rows_fd)
{
	close(rows_fd);
	close(m->files_fd);
	close(m->ranges_fd);
	close(m->procs_fd);
	close(m->exec_fd);
}

/* by_the_rows_to_the_end's stack, of tgid 77, walked by replay__walk:
 * its frames (3 when the leaf's row steps, 1 when it ends the walk). */
static __u32 walk_77(const struct replay_maps *m, __u32 want_stop)
{
	struct early_stack *e = copy(0x401010, 0x1234);
	__u64 ips[MAX_STACK_DEPTH];
	__u32 nr = 0, stop;

	e->key.tgid = 77;
	put(e, SP + 24, 0x400020);
	put(e, SP + 32 + 8, 0x402005);
	put(e, SP + 32, 0x5678);
	stop = replay__walk(m, e, ips, &nr);
	cr_assert_eq(stop, want_stop, "stop %u", stop);
	cr_assert_eq(ips[0], 0x401010);
	if (nr == 3) {
		cr_assert_eq(ips[1], 0x400020);
		cr_assert_eq(ips[2], 0x402005);
	}
	free(e);
	return nr;
}

/* The same walk by replay__walk, its rows read from the BPF maps as the BPF
 * side reads them: the file's run of the chunk, mapped for the walk. */
Test(replay, by_the_rows_of_the_bpf_maps)
{
	int rows_fd;
	struct replay_maps m = chunk_maps(&rows_fd);

	cr_assert_eq(walk_77(&m, STAT_UNWIND_END), 3);
	close_maps(&m, rows_fd);
}

/* Runs kept mapped from walk to walk read what the chunk holds now: a
 * chunk made again in the slot (another map) is mapped anew, never read
 * through the old one's pages; after two tidies without a walk, none is
 * kept (every mapping unmapped: check_leaks' fd count, and ASan). */
Test(replay, rows_kept_between_walks_follow_the_slot)
{
	int rows_fd;
	struct replay_maps m = chunk_maps(&rows_fd);

	cr_assert_eq(replay_rows__new(0, &m.rows), 0);
	cr_assert_eq(walk_77(&m, STAT_UNWIND_END), 3);
	cr_assert_eq(walk_77(&m, STAT_UNWIND_END), 3, "the kept run, again");
	close(rows_fd);
	rows_fd = put_chunk(&m, true);		/* the slot's new chunk */
	cr_assert_eq(walk_77(&m, STAT_UNWIND_END), 1, "the new chunk's rows");
	replay_rows__tidy(m.rows);
	replay_rows__tidy(m.rows);
	cr_assert_eq(walk_77(&m, STAT_UNWIND_END), 1);
	replay_rows__free(m.rows);
	close_maps(&m, rows_fd);
}

/* A run larger than the cap is searched by lookups in the chunk: the same
 * walk, the run's own rows only. */
Test(replay, a_run_past_the_cap_by_lookups)
{
	int rows_fd;
	struct replay_maps m = chunk_maps(&rows_fd);

	cr_assert_eq(replay_rows__new(sizeof(struct unwind_row), &m.rows), 0);
	cr_assert_eq(walk_77(&m, STAT_UNWIND_END), 3);
	close(rows_fd);
	rows_fd = put_chunk(&m, true);
	cr_assert_eq(walk_77(&m, STAT_UNWIND_END), 1);
	replay_rows__free(m.rows);
	close_maps(&m, rows_fd);
}

/* Lazy tables: the unasked files a copy's walk may cross are the one
 * holding its pc and those its words from sp up point into (not a dead
 * frame's below sp, not a file nothing points into, not a built one); an
 * unasked file is no build being waited for, an asked one is. */
Test(replay, unasked_files_the_copy_points_into)
{
	struct replay_maps m = entry_maps();
	struct early_stack *e = copy(0x401010, SP + 0x40);
	struct unwind_proc pr = { .nmaps = 5 };
	__u32 tgid = 1234, owner = 0;
	__u64 exec_time = 500, starts[MAX_UNWIND_MAPS];
	const __u64 at[] = { 0x400000, 0x500000, 0x600000, 0x700000, 0x800000 };

	for (int i = 0; i < 5; i++)
		pr.maps[i] = (struct unwind_map){ .start = at[i], .end = at[i] + 0x10000,
			.file = UNWIND_FILE_PENDING, .flags = UNWIND_MAP_UNASKED };
	pr.maps[4].file = 0;			/* built: rows */
	pr.maps[4].flags = 0;
	pr.maps[4].nrows = 4;
	pr.exec_time = exec_time;
	e->key.tgid = tgid;
	e->key.exec_time = exec_time;
	cr_assert_eq(bpf_map_update_elem(m.exec_fd, &tgid, &exec_time, BPF_ANY), 0);
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &tgid, &pr, BPF_ANY), 0);
	put(e, SP + 0x48, 0x500123);		/* a return address into the second */
	put(e, SP + 0x50, 0x500456);		/* ... named once */
	put(e, SP - 0x20, 0x600123);		/* a dead frame's, below sp */
	put(e, SP + 0x58, 0x800123);		/* into the built one */
	cr_assert_eq(replay__unasked(&m, e, &owner, starts, MAX_UNWIND_MAPS), 2);
	cr_assert_eq(owner, tgid);
	cr_assert_eq(starts[0], 0x400000, "the pc's file first");
	cr_assert_eq(starts[1], 0x500000);
	cr_assert_eq(replay__unasked(&m, e, &owner, starts, 1), 1, "at most max");
	cr_assert(replay__ready(&m, e), "no build under way: nothing to wait for");
	pr.maps[1].flags = 0;			/* asked: being built */
	cr_assert_eq(bpf_map_update_elem(m.procs_fd, &tgid, &pr, BPF_ANY), 0);
	cr_assert_not(replay__ready(&m, e), "a table it asked for being built");
	cr_assert_eq(replay__unasked(&m, e, &owner, starts, MAX_UNWIND_MAPS), 1);
	cr_assert_eq(starts[0], 0x400000);
	close(m.procs_fd);
	close(m.exec_fd);
	free(e);
}
