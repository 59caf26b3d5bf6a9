# shellcheck shell=bash
# The bad-input matrix of a profiler that runs as root over files and
# processes it does not control: each case keeps what was sampled, says what
# it could not resolve, and never crashes. Sourced by run.sh.

echo "== a mapped library deleted, or replaced, while profiled"
for how in deleted replaced; do
	D=$T/lib-$how; mkdir -p "$D"
	cp "$EX/lib_caller" "$EX/libhot.so" "$D/"
	"$D/lib_caller" 3 & lp=$!
	sleep 0.3
	if [ "$how" = deleted ]; then
		rm "$D/libhot.so"
	else	# a new file under the name: the process keeps the old inode
		cp /bin/true "$D/libhot.so.new" && mv "$D/libhot.so.new" "$D/libhot.so"
	fi
	check "library $how: maps shows (deleted)" grep -q 'libhot.so (deleted)' "/proc/$lp/maps"
	"$BPFPROF" -p "$lp" -d 1.5 -o "$T/$how.folded" 2>"$T/$how.err"
	check "library $how: exit 0" [ $? -eq 0 ]
	s=$(frame_share "$T/$how.folded" lib_caller lib_hot_spin)
	check "library $how: still symbolized from the mapped inode ($s% in lib_hot_spin)" [ "$s" -ge 80 ]
	wait "$lp"
done

echo "== the process exits and its library is gone: known file, no symbols"
D=$T/gone; mkdir -p "$D"
cp "$EX/lib_caller" "$EX/libhot.so" "$D/"
"$BPFPROF" -a -d 2 -o "$T/gone.folded" --stats "$T/gone.json" 2>"$T/gone.err" & bp=$!
# the workload starts at the start line (sampling has begun): the default
# mode's unwinder loads more slowly than a frame-pointer run did
wait_started "$T/gone.err"
"$D/lib_caller" 0.5 & lp=$!
sleep 0.2
rm "$D/libhot.so"
wait "$lp" "$bp"
check "library gone: exit 0" [ $? -eq 0 ]
check "library gone: frames keep the file name and offset" grep -qE '^lib_caller;.*libhot\.so\+0x[0-9a-f]+ [0-9]+$' "$T/gone.folded"
check "library gone: counted as unresolved ($(stat_of "$T/gone.json" .frames_unresolved))" \
	[ "$(stat_of "$T/gone.json" .frames_unresolved)" -ge 1 ]

echo "== a mapped file that is not ELF (JIT-like code)"
mkdir -p "$T/jit"
# 1 s of its own CPU time: ~99 samples however busy the machine
WORKLOAD_CLOCK=cpu "$BPFPROF" -o "$T/jit.folded" --stats "$T/jit.json" -- "$EX/jit_map" "$T/jit" 1 2>"$T/jit.err"
check "non-ELF mapping: exit 0" [ $? -eq 0 ]
check "non-ELF mapping: frames named jitcode.bin+0xOFF" grep -qE ';jitcode\.bin\+0x[0-9a-f]+ [0-9]+$' "$T/jit.folded"
check "non-ELF mapping: counted as unresolved, as not ELF ($(stat_of "$T/jit.json" .unresolved_by_reason.not_elf))" \
	[ "$(stat_of "$T/jit.json" .unresolved_by_reason.not_elf)" -ge 1 ]
# the mapping is in the process's entry, walked by frame pointers (the
# BPF side takes only anonymous memory for JIT code): left out, every
# sample was walked by frame pointers alone, past libc without _start
jn=$(comm_total "$T/jit.folded" jit_map)
jw=$(awk '$0 ~ /^jit_map;_start;__libc_start_main;.*;main;jitcode\.bin\+0x[0-9a-f]+(;[^;]*_\[k\])* [0-9]+$/ { t += $NF }
	END { print t + 0 }' "$T/jit.folded")
check "non-ELF mapping: walked through from _start in >= 90% of samples ($jw of $jn)" \
	all [ "$jn" -ge 20 ] -- [ $((jw * 100)) -ge $((jn * 90)) ]

echo "== -p of a process that exits mid-run"
# it lives 4 s: an ASan bpfprof beside a make test and two CPU hogs took
# more than the 1 s it had to start sampling (0 samples, nothing to write)
"$EX/cpu_chain" 4 & cp=$!
"$BPFPROF" -p "$cp" -d 10 -o "$T/pexit.folded" 2>"$T/pexit.err"
check "-p exits: exit 0, stopped early" grep -q '(target exited)' "$T/pexit.err"
check "-p exits: what was sampled is written" has_chain "$T/pexit.folded" cpu_chain "middle_step;hot_leaf"
wait "$cp"

echo "== a target that execs another program mid-run"
"$BPFPROF" -o "$T/exec.folded" -- "$EX/exec_chain" 700 "$EX/cpu_chain" 1 2>"$T/exec.err"
check "exec: exit 0" [ $? -eq 0 ]
s=$(frame_share "$T/exec.folded" exec_chain before_exec_spin)
check "exec: samples before the exec named from the first image ($s%)" [ "$s" -ge 80 ]
s=$(frame_share "$T/exec.folded" cpu_chain hot_leaf)
check "exec: samples after it from the second ($s%)" [ "$s" -ge 80 ]

echo "== SIGINT during drains"
D=$T/sigdrain; mkdir -p "$D"
"$EX/threads" 4 2 & tp=$!
"$BPFPROF" -p "$tp" -F 999 --interval 0.1 --output-dir "$D" 2>"$T/sigdrain.err" & bp=$!
sleep 1.2
kill -INT "$bp"	# once: a second signal would abort the write
wait "$bp"; rc=$?
kill "$tp" 2>/dev/null; wait "$tp" 2>/dev/null
total=$(sed -nE 's/.*BPF-side total ([0-9]+) samples.*/\1/p' "$T/sigdrain.err")
sum=$(cat "$D"/*.folded | awk '{ t += $NF } END { print t + 0 }')
lost=$(jq -s 'map(.lost) | add // 0' "$D/bpfprof-intervals.log")
check "SIGINT in drains: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "SIGINT in drains: nothing lost or doubled ($sum + $lost == $total)" all [ -n "$total" ] -- [ $((sum + lost)) -eq "$total" ]

echo "== SIGKILL leaves no BPF program, map or link behind"
# The ids of the run's own programs and maps, from its fds' fdinfo (other
# runs of bpfprof may load theirs beside it: a set diff of bpftool's lists
# took theirs for ours), read once it has attached (a loaded machine may
# take a few seconds to get there).
fd_ids() { cat /proc/"$1"/fdinfo/* 2>/dev/null | sed -nE "s/^$2:[[:space:]]+([0-9]+)/\1/p" | sort -un; }
bpf_ids() { bpftool "$1" show 2>/dev/null | sed -nE 's/^([0-9]+): .*/\1/p' | sort -n; }
"$BPFPROF" -a -o "$T/killed.folded" 2>"$T/killed.err" & bp=$!
wait_started "$T/killed.err" 20
progs1=$(fd_ids "$bp" prog_id); maps1=$(fd_ids "$bp" map_id); links1=$(fd_ids "$bp" link_id)
kill -KILL "$bp"; wait "$bp" 2>/dev/null
# the kernel frees them once the last reference goes (maps after an RCU
# grace period, from a work queue): give it a while on a loaded machine
for _ in $(seq 100); do
	left_progs=$(comm -12 <(echo "$progs1") <(bpf_ids prog) | grep -c .)
	left_maps=$(comm -12 <(echo "$maps1") <(bpf_ids map) | grep -c .)
	left_links=$(comm -12 <(echo "$links1") <(bpf_ids link) | grep -c .)
	[ "$left_progs" -eq 0 ] && [ "$left_maps" -eq 0 ] && [ "$left_links" -eq 0 ] && break
	sleep 0.1
done
check "SIGKILL: its programs were loaded ($(echo $progs1)) and are gone ($left_progs left)" \
	all [ -n "$progs1" ] -- [ "$left_progs" -eq 0 ]
check "SIGKILL: its $(echo "$maps1" | grep -c .) maps are gone ($left_maps left)" \
	all [ -n "$maps1" ] -- [ "$left_maps" -eq 0 ]
check "SIGKILL: its $(echo "$links1" | grep -c .) links are gone ($left_links left)" \
	all [ -n "$links1" ] -- [ "$left_links" -eq 0 ]

echo "== output files: no symlink followed, mode 0644"
echo keep >"$T/victim"
ln -s "$T/victim" "$T/link.folded"
"$BPFPROF" -d 0.3 -o "$T/link.folded" 2>"$T/link.err"
check "symlink output: refused (exit $?)" grep -q 'cannot write' "$T/link.err"
check "symlink output: the target is untouched" [ "$(cat "$T/victim")" = keep ]
"$BPFPROF" -d 0.3 -o "$T/mode.folded" 2>/dev/null
check "output mode 0644 ($(stat -c %a "$T/mode.folded"))" [ "$(stat -c %a "$T/mode.folded")" = 644 ]
