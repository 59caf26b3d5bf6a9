# shellcheck shell=bash
# Files of processes in other mount namespaces, named after the processes
# exit (issue 13), and a file's identity: a file of another device with the
# same inode number never names their frames (issue 11 defect 7). Sourced
# by run.sh.

# ns_run DIR MOUNT: runs DIR/m/app (cpu_chain, 1 s) in a mount namespace of
# its own, where MOUNT put it at that path; in ours, DIR/m/app is another
# file. The process exits long before the profile is written.
ns_run() {
	local d=$1 how=$2
	"$BPFPROF" -a -d 3 -o "$d/out.folded" 2>"$d/err" & bp=$!
	wait_started "$d/err"
	unshare -m --propagation private sh -c "$how && exec '$d/m/app' 1"
	wait "$bp"
}

echo "== a workload bind-mounted over a path in its own mount namespace, gone before the end"
D=$T/files-bind; mkdir -p "$D/m"
cp "$EX/cpu_chain" "$D/real"
: >"$D/m/app"	# ours: an empty file at that path
ns_run "$D" "mount --bind '$D/real' '$D/m/app'"
check "bind mount: exit 0" [ $? -eq 0 ]
s=$(frame_share "$D/out.folded" app hot_leaf)
check "bind mount: frames named after the process exited ($s% in hot_leaf, not app+0xOFF)" \
	[ "$s" -ge 80 ]

echo "== another device's file with the same inode number at the same path"
# Two fresh tmpfs number their files alike: ours holds a decoy (the same
# program, every symbol renamed decoy_*), the namespace's the real one.
D=$T/files-ino; mkdir -p "$D/m"
objcopy --prefix-symbols=decoy_ "$EX/cpu_chain" "$D/decoy"
mount -t tmpfs tmpfs "$D/m" && cp "$D/decoy" "$D/m/app"
ns_run "$D" "mount -t tmpfs tmpfs '$D/m' && cp '$EX/cpu_chain' '$D/m/app'"
ino_ours=$(stat -c %i "$D/m/app")
umount -l "$D/m"	# lazily: another profiler on the machine may hold the decoy open
decoys=$(awk '/;decoy_/ { t += $NF } END { print t + 0 }' "$D/out.folded")
s=$(frame_share "$D/out.folded" app hot_leaf)
check "same inode $ino_ours, other device: no frame named from the decoy ($decoys samples)" \
	[ "$decoys" -eq 0 ]
check "same inode, other device: the real file names them ($s% in hot_leaf)" [ "$s" -ge 80 ]
