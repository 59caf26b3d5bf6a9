#!/usr/bin/awk -f
# N distinct folded stacks shaped like a real program's (bench part 8): a
# few roots, a tree of base-B choices 8 levels deep, helper frames of
# varying depth, a kernel tail on a third of them. Deterministic.
#   awk -v n=100000 -f gen_stacks.awk > stacks.folded
BEGIN {
	if (!n) n = 100000
	B = 5
	for (i = 0; i < n; i++) {
		line = "app" (i % 3) ";_start;__libc_start_main;main"
		x = i
		for (l = 0; l < 8; l++) {
			line = line ";mod" l "_fn" (x % B)
			x = int(x / B)
		}
		for (h = 0; h < i % 7; h++)
			line = line ";helper_" h
		if (i % 3 == 0)
			line = line ";entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_read_[k];vfs_read_[k]"
		print line ";leaf_" i, 1 + (i * 7919) % 97
	}
}
