# shellcheck shell=bash
# Events other than cpu-clock, filters and off-CPU time. Sourced by run.sh.

echo "== page-faults: the allocation path is the top stack"
"$BPFPROF" -e page-faults -c 1 -o "$T/pf.folded" -- "$EX/faulter" 16 4 2>"$T/pf.err"
check "page-faults: exit 0" [ $? -eq 0 ]
s=$(frame_share "$T/pf.folded" faulter touch_pages)
check "page-faults: touch_pages in >= 80% of faulter's faults ($s%)" [ "$s" -ge 80 ]
n=$(frame_total "$T/pf.folded" faulter touch_pages)
check "page-faults -c 1: every fault of 4 x 16 MiB of fresh pages counted ($n >= 16384)" [ "$n" -ge 16384 ]

echo "== context-switches and off-CPU time on a sleeping workload"
"$BPFPROF" -e cs -c 1 -o "$T/cs.folded" -- "$EX/sleeper" 20 20 2>"$T/cs.err"
s=$(frame_share "$T/cs.folded" sleeper sleep_loop)
check "context-switches: sleep_loop in >= 80% of switches ($s%)" [ "$s" -ge 80 ]
"$BPFPROF" --off-cpu -o "$T/off.folded" --stats "$T/off.json" -- "$EX/sleeper" 20 50 2>"$T/off.err"
check "off-CPU: exit 0" [ $? -eq 0 ]
s=$(frame_share "$T/off.folded" sleeper sleep_loop)
check "off-CPU: sleep_loop carries >= 80% of the blocked time ($s%)" [ "$s" -ge 80 ]
us=$(comm_total "$T/off.folded" sleeper)
# at least its sleeps, at most its life: a loaded machine adds the time a
# woken sleeper waits for a CPU (1.12 s of 1 s beside two hogs and three
# test runs), which is off-CPU time too
life=$(sed -nE 's/.* ([0-9.]+) s \(command exited\).*/\1/p' "$T/off.err" | awk '{ printf "%d", $1 * 1000000 }')
check "off-CPU: total between the known 1,000,000 us of sleeps and the sleeper's life ($us us, life ${life:-?} us)" \
	all [ "$us" -ge 950000 ] -- [ "$us" -le "${life:-0}" ]
check "off-CPU: --stats states microseconds ($(stat_of "$T/off.json" .offcpu.us) us)" [ "$(stat_of "$T/off.json" .offcpu.us)" -ge "$us" ]
check "off-CPU: no BPF frames in the stacks" bash -c "! grep -qE 'bpf_prog_|bpf_trace_run' '$T/off.folded'"
"$BPFPROF" --off-cpu --min-block 100000 -o "$T/offmin.folded" --stats "$T/offmin.json" -- "$EX/sleeper" 10 20 2>"$T/offmin.err"
check "--min-block 100 ms: the 20 ms naps are left out" \
	stat_true "$T/offmin.json" '.offcpu | .us == 0 and .blocks == 0 and .shorter_than_min_block > 0'
"$BPFPROF" --off-cpu -e cpu-clock -F 999 -o "$T/mix.folded" -- "$EX/sleeper" 10 50 2>/dev/null
check "on+off CPU: oncpu and offcpu root frames" \
	bash -c "grep -q '^oncpu;sleeper;' '$T/mix.folded' && grep -q '^offcpu;sleeper;' '$T/mix.folded'"

echo "== tracepoints count exactly"
"$BPFPROF" -e sched:sched_process_exec -o "$T/exec.folded" -- sh -c '/bin/true; /bin/true; /bin/true; exit 0' 2>"$T/tpexec.err"
n=$(comm_total "$T/exec.folded" "")
check "sched:sched_process_exec: sh and its 3 children's execs (4 = $n)" [ "$n" -eq 4 ]
"$BPFPROF" -e syscalls:sys_enter_write -o "$T/write.folded" -- dd if=/dev/zero of=/dev/null bs=1 count=1000 status=none 2>"$T/tpwrite.err"
n=$(comm_total "$T/write.folded" dd)
check "syscalls:sys_enter_write: dd's 1000 writes ($n)" [ "$n" -eq 1000 ]

echo "== uprobes count exactly"
"$BPFPROF" -e "u:$EX/calls:counted_fn,uprobe:/lib/x86_64-linux-gnu/libc.so.6:malloc" -o "$T/u.folded" -- "$EX/calls" 1000 2>"$T/u.err"
check "uprobes: exit 0" [ $? -eq 0 ]
n=$(awk -v e="u:$EX/calls:counted_fn" -F';' '$1 == e { sub(/.* /, "", $NF); t += $NF } END { print t + 0 }' "$T/u.folded")
check "u:calls:counted_fn: 1000 calls ($n)" [ "$n" -eq 1000 ]
# call_malloc is there once its tables are in (auto); a frame-pointer walk
# from malloc's first instruction skips it
n=$(grep -E '^uprobe:[^;]*malloc;calls;.*main;(call_malloc;)?malloc [0-9]+$' "$T/u.folded" | awk '{ t += $NF } END { print t + 0 }')
check "uprobe:libc:malloc from main's loop: 1000 calls ($n)" [ "$n" -eq 1000 ]

echo "== what the kernel cannot do: one line, before sampling"
expect_error "cycles (no PMU)" 1 "event 'cycles': no hardware PMU" "$BPFPROF" -e cycles -d 1
check "--list omits cycles" bash -c "! '$BPFPROF' --list | grep -q '^  cycles '"
check "--list has page-faults" bash -c "'$BPFPROF' --list | grep -q '^  page-faults '"
expect_error "unknown event: one hint, to --list" 2 "unknown event 'no-such-event' \\(see bpfprof --list\\)$" \
	"$BPFPROF" -e no-such-event -d 1
expect_error "missing tracepoint" 1 "event 'sched:no_such_tp': no such tracepoint" "$BPFPROF" -e sched:no_such_tp -d 1
expect_error "uprobe on a missing symbol" 1 "event 'u:/bin/true:no_such_function': cannot attach" \
	"$BPFPROF" -e u:/bin/true:no_such_function -d 1
expect_error "uprobe on a missing file" 1 "event 'u:/no/such/file:f': /no/such/file" "$BPFPROF" -e u:/no/such/file:f -d 1

echo "== filters: -t, --comm, --cgroup, and a command's children"
"$EX/threads" 3 2 & tp=$!
sleep 0.3
tid=$(ls "/proc/$tp/task" | sort -n | tail -1)
"$BPFPROF" -t "$tid" -d 1.5 -o "$T/tid.pb.gz" 2>/dev/null
tids=$(go tool pprof -raw "$T/tid.pb.gz" 2>/dev/null | sed -nE 's/.*tid:\[([0-9]+)\].*/\1/p' | sort -u | tr '\n' ' ')
check "-t $tid: only that thread's samples ($tids)" [ "$tids" = "$tid " ]
wait "$tp"
"$EX/cpu_chain" 3 & cp=$!
"$EX/lib_caller" 3 & lp=$!
sleep 0.3
"$BPFPROF" --comm lib_caller -d 1.5 -o "$T/comm.folded" 2>/dev/null
check "--comm lib_caller: only lib_caller" [ "$(comm_total "$T/comm.folded" lib_caller)" -eq "$(comm_total "$T/comm.folded" "")" ]
check "--comm lib_caller: it is there" [ "$(comm_total "$T/comm.folded" lib_caller)" -gt 0 ]
wait "$cp" "$lp"
# cgroup v2 lives at /sys/fs/cgroup, or at .../unified on a hybrid system
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)/bpfprof-e2e-$$
if [ "$CG" != "/bpfprof-e2e-$$" ] && mkdir "$CG" 2>/dev/null; then
	"$EX/lib_caller" 3 & lp=$!
	echo "$lp" >"$CG/cgroup.procs"
	"$EX/cpu_chain" 3 & cp=$!
	sleep 0.3
	"$BPFPROF" --cgroup "$CG" -d 1.5 -o "$T/cg.folded" 2>/dev/null
	check "--cgroup: only the task in it" [ "$(comm_total "$T/cg.folded" lib_caller)" -eq "$(comm_total "$T/cg.folded" "")" ]
	check "--cgroup: it is there" [ "$(comm_total "$T/cg.folded" lib_caller)" -gt 0 ]
	wait "$cp" "$lp"
	rmdir "$CG"
else
	fail "--cgroup: no cgroup v2 hierarchy to make a test cgroup in"
fi
expect_error "--cgroup not a cgroup" 1 "cannot use cgroup /tmp" "$BPFPROF" --cgroup /tmp -d 1
"$BPFPROF" -o "$T/child.folded" -- sh -c "$EX/cpu_chain 1; exit 0" 2>/dev/null
s=$(frame_share "$T/child.folded" cpu_chain hot_leaf)
check "-- COMMAND follows its children: the forked cpu_chain is profiled ($s% hot_leaf)" [ "$s" -ge 80 ]
