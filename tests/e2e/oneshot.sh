# shellcheck shell=bash
# One-shot profiles: each workload's hot function and call chain, -p, -a,
# -U/-K, -- COMMAND, exited processes, full maps, perf as a peer, SIGINT,
# and every bad input's one-line error. Sourced by run.sh.

echo "== cpu_chain under -- COMMAND"
"$BPFPROF" -F 199 -o "$T/cpu.folded" --stats "$T/cpu.json" -- "$EX/cpu_chain" 2 2>"$T/cpu.err"
check "cpu_chain: exit 0" [ $? -eq 0 ]
check "cpu_chain: valid folded output" valid_folded "$T/cpu.folded"
s=$(frame_share "$T/cpu.folded" cpu_chain hot_leaf); note_share cpu_chain hot_leaf "$s"
check "cpu_chain: hot_leaf in >= 80% of samples ($s%)" [ "$s" -ge 80 ]
check "cpu_chain: full chain main;outer_loop;middle_step;hot_leaf" \
	has_chain "$T/cpu.folded" cpu_chain "main;outer_loop;middle_step;hot_leaf"
check "cpu_chain: stripped libc's local caller named through its build-id debug file (libc6-dbg)" \
	has_chain "$T/cpu.folded" cpu_chain "__libc_start_call_main;main;outer_loop"
# (a sample may land in the command's process between fork and exec, while
# it is still a copy of bpfprof)
check "cpu_chain: only the command's process is profiled" \
	[ $(( $(comm_total "$T/cpu.folded" cpu_chain) + $(comm_total "$T/cpu.folded" bpfprof) )) -eq "$(comm_total "$T/cpu.folded" "")" ]
samples=$(stat_of "$T/cpu.json" .samples); lost=$(stat_of "$T/cpu.json" .lost)
check "cpu_chain: --stats samples ($samples) = folded total + lost ($lost)" \
	[ "$samples" -eq $(( $(comm_total "$T/cpu.folded" "") + lost )) ]

echo "== the summary: a short line, --stats JSON equal to the folded file, -q"
short=$(grep -E '^bpfprof: [0-9]+ samples, ' "$T/cpu.err")
check "summary: one short line of at most 160 columns (${#short})" \
	all [ "$(grep -cE '^bpfprof: [0-9]+ samples, ' "$T/cpu.err")" -eq 1 ] -- [ "${#short}" -le 160 ]
check "summary: it names samples, lost, complete stacks, unresolved, duration, the file" \
	grep -qE "^bpfprof: $samples samples, $lost lost, [0-9.]+% complete stacks, [0-9.]+% frames unresolved, [0-9.]+ s \\(command exited\\), [0-9]+ stacks? to $T/cpu.folded\$" "$T/cpu.err"
check "--stats: JSON that jq parses" stat_true "$T/cpu.json" 'type == "object"'
check "--stats: counted = the folded counts' sum ($(stat_of "$T/cpu.json" .counted))" \
	[ "$(stat_of "$T/cpu.json" .counted)" -eq "$(comm_total "$T/cpu.folded" "")" ]
check "--stats: stacks = the folded file's lines ($(stat_of "$T/cpu.json" .stacks))" \
	[ "$(stat_of "$T/cpu.json" .stacks)" -eq "$(wc -l <"$T/cpu.folded")" ]
check "--stats: the short line's stacks are the folded lines too" \
	grep -qE " $(wc -l <"$T/cpu.folded") stacks? to " "$T/cpu.err"
"$BPFPROF" -q -F 199 -o "$T/quiet.folded" --stats "$T/quiet.json" -- "$EX/cpu_chain" 1 2>"$T/quiet.err"; rc=$?
check "-q: exit 0 ($rc), a profile, nothing on stderr ($(head -c 200 "$T/quiet.err"))" \
	all [ "$rc" -eq 0 ] -- valid_folded "$T/quiet.folded" -- [ ! -s "$T/quiet.err" ]
check "-q: --stats still written" [ "$(stat_of "$T/quiet.json" .counted)" = "$(comm_total "$T/quiet.folded" "")" ]
"$BPFPROF" -v -F 199 -o "$T/verbose.folded" -- "$EX/cpu_chain" 1 2>"$T/verbose.err"
check "-v: the labelled lines under the short one" \
	all grep -qE '^bpfprof: stacks: [0-9]+ distinct stacks written' "$T/verbose.err" -- \
	grep -qE '^bpfprof: lost: 0 samples \(' "$T/verbose.err" -- \
	grep -qE '^bpfprof: names: [0-9]+/[0-9]+ frames unresolved' "$T/verbose.err" -- \
	grep -qE '^bpfprof: unwind: [0-9]+ user stacks walked, [0-9]+ ended with no caller' "$T/verbose.err"
# -v is bpfprof's own lines (the names: line a warning points to); libbpf's log
# (1,523 lines of it on -a -d 2 before) only with -vv
check "-v: every line bpfprof's own, no libbpf line ($(grep -vc '^bpfprof: ' "$T/verbose.err") others)" \
	all [ "$(grep -vc '^bpfprof: ' "$T/verbose.err")" -eq 0 ] -- [ -s "$T/verbose.err" ]
"$BPFPROF" -vv -o "$T/vv.folded" -- true 2>"$T/vv.err"
check "-vv: libbpf's log too ($(grep -c '^libbpf: ' "$T/vv.err") lines), and the labelled lines" \
	all [ "$(grep -c '^libbpf: ' "$T/vv.err")" -gt 10 ] -- \
	grep -qE '^bpfprof: names: [0-9]+/[0-9]+ frames unresolved' "$T/vv.err"

echo "== lib_caller under -p PID (hot function in a shared library)"
"$EX/lib_caller" 4 & lpid=$!
"$EX/cpu_chain" 4 & other=$!
sleep 0.3
"$BPFPROF" -p "$lpid" -d 2 -o "$T/lib.folded" 2>"$T/lib.err"
check "lib_caller: exit 0" [ $? -eq 0 ]
s=$(frame_share "$T/lib.folded" lib_caller lib_hot_spin); note_share lib_caller lib_hot_spin "$s"
check "lib_caller: lib_hot_spin in >= 80% of samples ($s%)" [ "$s" -ge 80 ]
check "lib_caller: full chain main;call_into_lib;lib_hot_spin" \
	has_chain "$T/lib.folded" lib_caller "main;call_into_lib;lib_hot_spin"
check "-p: no other process in the profile" \
	[ "$(comm_total "$T/lib.folded" lib_caller)" -eq "$(comm_total "$T/lib.folded" "")" ]
wait "$lpid" "$other"

echo "== threads, system-wide (-a -d)"
# 3 s of each thread's own CPU time: alive through the run however busy
# the machine (3 s of wall time had ended before an ASan -a run at load 40
# had loaded: 0 samples)
WORKLOAD_CLOCK=cpu "$EX/threads" 3 2 & tpid=$!
sleep 0.3
"$BPFPROF" -a -d 2 -o "$T/thr.folded" --stats "$T/thr.json" 2>"$T/thr.err"
check "threads: exit 0" [ $? -eq 0 ]
check "threads: valid folded output" valid_folded "$T/thr.folded"
s=$(frame_share "$T/thr.folded" threads thread_spin); note_share threads thread_spin "$s"
check "threads: thread_spin in >= 80% of samples ($s%)" [ "$s" -ge 80 ]
check "threads: full chain thread_main;thread_work;thread_spin" \
	has_chain "$T/thr.folded" threads "thread_main;thread_work;thread_spin"
samples=$(stat_of "$T/thr.json" .samples); lost=$(stat_of "$T/thr.json" .lost)
check "-a: --stats samples ($samples) = folded total + lost ($lost)" \
	[ "$samples" -eq $(( $(comm_total "$T/thr.folded" "") + lost )) ]
check "-a: --stats stacks ($(stat_of "$T/thr.json" .stacks)) = the folded lines ($(wc -l <"$T/thr.folded"))" \
	[ "$(stat_of "$T/thr.json" .stacks)" -eq "$(wc -l <"$T/thr.folded")" ]
short=$(grep -E '^bpfprof: [0-9]+ samples, ' "$T/thr.err")
check "-a: the short line fits 160 columns (${#short})" [ "${#short}" -le 160 ]
# issue 36: a map far from full (16384 entries, a few hundred stacks) is
# never said full, whatever an insert's transient error (-ENOMEM, -EBUSY)
check "-a: maps far from full: no 'full' line, full counts 0 ($(stat_of "$T/thr.json" '.lost_by_reason | tostring'))" \
	all bash -c "! grep -q 'full maps' '$T/thr.err'" -- \
	stat_true "$T/thr.json" '.lost_by_reason.stack_map_full == 0 and .lost_by_reason.counts_map_full == 0 and (.lost_by_reason | has("stack_map_transient") and has("counts_map_transient"))'
kill "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null

echo "== syscalls: kernel frames under the syscall"
"$BPFPROF" -o "$T/sys.folded" -- "$EX/syscalls" 2 2>"$T/sys.err"
check "syscalls: exit 0" [ $? -eq 0 ]
s=$(frame_share "$T/sys.folded" syscalls do_io); note_share syscalls do_io "$s"
check "syscalls: do_io in >= 80% of samples ($s%)" [ "$s" -ge 80 ]
k=$(frame_share "$T/sys.folded" syscalls read_zero_[k]); note_share syscalls "read_zero_[k]" "$k"
check "syscalls: kernel read_zero_[k] in >= 80% of samples ($k%)" [ "$k" -ge 80 ]
check "syscalls: user chain continues into the kernel" \
	has_chain "$T/sys.folded" syscalls "main;syscall_loop;do_io;entry_SYSCALL_64_after_hwframe_[k]"

echo "== -U and -K"
"$BPFPROF" -U -o "$T/u.folded" -- "$EX/syscalls" 1 2>"$T/u.err"
check "-U: exit 0" [ $? -eq 0 ]
check "-U: no kernel frames" bash -c "! grep -q '_\[k\]' '$T/u.folded'"
check "-U: user chain kept" has_chain "$T/u.folded" syscalls "main;syscall_loop;do_io"
"$BPFPROF" -K -o "$T/k.folded" -- "$EX/syscalls" 1 2>"$T/k.err"
check "-K: exit 0" [ $? -eq 0 ]
check "-K: no user frames" bash -c "! awk '{ sub(/ [0-9]+\$/, \"\"); n = split(\$0, f, \";\"); for (i = 2; i <= n; i++) if (f[i] !~ /_\\[k\\]\$/) bad = 1 } END { exit !bad }' '$T/k.folded'"
check "-K: kernel frames kept" has_chain "$T/k.folded" syscalls "vfs_read_[k];read_zero_[k]"

echo "== short-lived processes are symbolized after they exit"
"$BPFPROF" -o "$T/short.folded" -- "$EX/short_lived" 300 2>"$T/short.err"
check "short_lived -- cmd: exit 0" [ $? -eq 0 ]
s=$(frame_share "$T/short.folded" short_lived short_spin); note_share short_lived "short_spin (cmd)" "$s"
check "short_lived -- cmd: short_spin in >= 80% ($s%)" [ "$s" -ge 80 ]
check "short_lived -- cmd: chain main;short_work;short_spin" \
	has_chain "$T/short.folded" short_lived "main;short_work;short_spin"
# 300 ms of its own CPU time (~30 samples however busy the machine: 300
# ms of wall time was a handful at load 20), then the run ends (SIGINT)
# after its exit
"$BPFPROF" -a -o "$T/shorta.folded" 2>"$T/shorta.err" & bp=$!
wait_started "$T/shorta.err"
WORKLOAD_CLOCK=cpu "$EX/short_lived" 300
sleep 0.2; kill -INT "$bp"
wait "$bp"
check "short_lived -a: exit 0" [ $? -eq 0 ]
s=$(frame_share "$T/shorta.folded" short_lived short_spin); note_share short_lived "short_spin (-a)" "$s"
check "short_lived -a: exited process still symbolized: short_spin in >= 80% ($s%)" [ "$s" -ge 80 ]
check "short_lived -a: chain main;short_work;short_spin" \
	has_chain "$T/shorta.folded" short_lived "main;short_work;short_spin"

echo "== full maps: the run goes on, the loss is counted"
"$BPFPROF" --max-stacks 2 -o "$T/full.folded" --stats "$T/full.json" -- "$EX/threads" 1 2 2>"$T/full.err"
check "--max-stacks 2: exit 0" [ $? -eq 0 ]
samples=$(stat_of "$T/full.json" .samples); lost=$(stat_of "$T/full.json" .lost)
check "--max-stacks 2: the summary says what to do (raise --max-stacks)" \
	grep -qE '^bpfprof: warning: [0-9]+ samples lost to full maps: raise --max-stacks' "$T/full.err"
full=$(stat_of "$T/full.json" '.lost_by_reason.stack_map_full + .lost_by_reason.counts_map_full')
check "--max-stacks 2: samples were lost and counted ($lost of $samples), as full maps (-E2BIG: $full)" \
	all [ "${lost:-0}" -gt 0 ] -- [ "${full:-0}" -gt 0 ] -- \
	grep -qE "^bpfprof: warning: $full samples lost to full maps: raise --max-stacks" "$T/full.err"
check "--max-stacks 2: samples ($samples) = folded total + lost ($lost)" \
	[ "$samples" -eq $(( $(comm_total "$T/full.folded" "") + lost )) ]

echo "== perf record -F 99 -g ranks the same top function"
if command -v perf >/dev/null; then
	"$BPFPROF" -o "$T/cmp.folded" -- "$EX/cpu_chain" 2 2>/dev/null
	perf record -q -F 99 -g -o "$T/perf.data" -- "$EX/cpu_chain" 2 >/dev/null 2>&1
	ptop=$(perf report -i "$T/perf.data" --stdio --no-children --sort sym -q 2>/dev/null |
		awk 'NF && $1 ~ /%$/ { print $NF; exit }')
	btop=$(top_self "$T/cmp.folded" cpu_chain)
	check "perf top ($ptop) == bpfprof top ($btop)" all [ -n "$ptop" ] -- [ "$ptop" = "$btop" ]
else
	fail "perf is not installed (make deps installs linux-perf)"
fi

echo "== SIGINT mid-run writes what was sampled"
"$BPFPROF" -a -o "$T/int.folded" 2>"$T/int.err" & bp=$!
# the workload and the clock start at the start line (sampling has begun),
# not at the launch: a loaded machine starts the ASan build slowly
wait_started "$T/int.err"
"$EX/cpu_chain" 3 & cpid=$!
sleep 1.5
kill -INT "$bp"
wait "$bp"; rc=$?
check "SIGINT: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "SIGINT: valid profile written" valid_folded "$T/int.folded"
check "SIGINT: the running workload is in it" has_chain "$T/int.folded" cpu_chain "middle_step;hot_leaf"
check "SIGINT: summary says interrupted" grep -q '(interrupted)' "$T/int.err"
wait "$cpid"

echo "== bad input: one clear line, non-zero exit"
expect_error "unknown option" 2 "unknown option '--bogus'" "$BPFPROF" --bogus
expect_error "unknown short option" 2 "unknown option '-Z'" "$BPFPROF" -Z
expect_error "missing argument" 2 "option '-F' needs an argument" "$BPFPROF" -F
expect_error "-F 0" 2 "invalid frequency" "$BPFPROF" -F 0
expect_error "-F absurd" 2 "invalid frequency" "$BPFPROF" -F 10000000
expect_error "-d garbage" 2 "invalid duration" "$BPFPROF" -d 1x
expect_error "-p missing pid" 1 "no such process: 999999" "$BPFPROF" -p 999999 -d 1
expect_error "--max-stacks 0" 2 "invalid --max-stacks" "$BPFPROF" --max-stacks 0
expect_error "-p garbage" 2 "invalid pid list" "$BPFPROF" -p 12ab
expect_error "command not found" 1 "cannot execute '/nonexistent/cmd'" "$BPFPROF" -d 1 -- /nonexistent/cmd
printf 'data\n' >"$T/notexec"; chmod 644 "$T/notexec"
expect_error "command not executable" 1 "cannot execute '$T/notexec': Permission denied" \
	"$BPFPROF" -d 1 -- "$T/notexec"
expect_error "missing BTF" 1 "cannot read BTF from /nonexistent" "$BPFPROF" --btf /nonexistent -d 1
head -c 4096 /dev/urandom >"$T/garbage.btf"
expect_error "garbage BTF" 1 "cannot read BTF from" "$BPFPROF" --btf "$T/garbage.btf" -d 1
expect_error "unwritable output" 1 "cannot write /nonexistent/dir/out" "$BPFPROF" -d 1 -o /nonexistent/dir/out
expect_error "output to a device: refused" 1 "/dev/full: not a regular file" "$BPFPROF" -d 0.5 -o /dev/full
mkdir -p "$T/full" && mount -t tmpfs -o size=64k tmpfs "$T/full" && {
	head -c 1M /dev/zero >"$T/full/filler" 2>/dev/null
	expect_error "output to a full filesystem" 1 "No space left on device" "$BPFPROF" -a -d 0.5 -o "$T/full/out.folded"
	check "full filesystem: no temporary left behind" [ "$(ls "$T/full")" = filler ]
	umount "$T/full"
}
if command -v setpriv >/dev/null; then
	chmod o+rx "$T"
	expect_error "not root" 1 "permission denied" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$(readlink -f "$BPFPROF")" -d 1
fi
"$BPFPROF" --help >"$T/help" 2>&1
check "--help: exit 0 and usage" grep -q '^Usage: bpfprof' "$T/help"

echo "== the formats' table: the start line names what is written; help, man, completion list all"
for f in html:'a flame graph page' svg:'a flame graph image' pb.gz:pprof otlp:'OTLP profiles' \
	 folded:'folded stacks'; do
	"$BPFPROF" -o "$T/fmt.${f%%:*}" -- true 2>"$T/fmt.err"
	check "-o x.${f%%:*}: the start line says '${f#*:} to'" \
		grep -qE "^bpfprof: profiling .*; ${f#*:} to $T/fmt\\.${f%%:*}; " "$T/fmt.err"
done
check "-o x.html wrote the page, -o x.svg the image" \
	all grep -qi '^<!doctype html' "$T/fmt.html" -- grep -q '<svg' "$T/fmt.svg"
# --help's --format line, wrapped: the words up to "(fleet mode"
names=$(sed -n '/--format FMT/,/overrides/p' "$T/help" | tr -s ' \n' ' ' |
	sed -E 's/.*--format FMT (.*) \(fleet mode.*/\1/; s/,|\bor\b//g')
check "--help lists otlp among --format's words ($names)" grep -qw otlp <<<"$names"
man_formats=$(MANWIDTH=200 man -l doc/bpfprof.1 2>/dev/null | grep -A1 -- '--format FMT' | tail -1)
comp_formats=$(grep -A1 -- '--format)' completion/bpfprof.bash | tail -1)
missing=$(for n in $names; do grep -qw "$n" <<<"$man_formats" || echo "man:$n"
	grep -qw "$n" <<<"$comp_formats" || echo "completion:$n"; done)
check "man page and completion list every format of --help (missing: ${missing:-none})" \
	all [ -n "$names" ] -- [ -z "$missing" ]
expect_error "--interval --format html --output-dir: refused at start" 2 \
	"format html: fleet mode .* takes folded, pprof, otlp or both" \
	"$BPFPROF" --interval 1 --format html --output-dir "$T/fmt.d"
check "... and nothing made there" [ ! -e "$T/fmt.d" ]
expect_error "--push --format svg: refused at start" 2 "format svg: --push .* takes folded, pprof" \
	"$BPFPROF" --interval 1 --format svg --push http://127.0.0.1:1
"$BPFPROF" --version >"$T/version" 2>&1
check "--version: exit 0 and version" grep -qE '^bpfprof [0-9]+\.[0-9]+' "$T/version"


echo "== a one-shot run fits a 48 MiB memory cgroup"
# bpfprof alone in a cgroup limited to 48 MiB (its RSS, the BPF maps it
# creates and the page cache it reads are charged there); the command it
# starts moves itself out first, so the limit is what the run needs, not
# what the compiler does. cc -O2 runs cc1, the largest table on Debian
# (600k+ rows). The plain build: ASan's shadow and quarantine are no
# measure of a run's memory.
PLAIN=${BPFPROF_PLAIN:-./bpfprof}
memcg_v1=/sys/fs/cgroup/memory
memcg_v2=/sys/fs/cgroup/unified
if [ -w "$memcg_v1/cgroup.procs" ]; then
	mcg=$memcg_v1/bpfprof-e2e-$$ mroot=$memcg_v1
	mkdir -p "$mcg" && echo $((48 << 20)) >"$mcg/memory.limit_in_bytes"
elif grep -qw memory "$memcg_v2/cgroup.controllers" 2>/dev/null; then
	mcg=$memcg_v2/bpfprof-e2e-$$ mroot=$memcg_v2
	mkdir -p "$mcg" && echo $((48 << 20)) >"$mcg/memory.max"
else
	mcg=""
	echo "#####################################################################"
	echo "### SKIPPING THE 48 MiB MEMORY CGROUP TEST: NO MEMORY CONTROLLER"
	echo "### (neither $memcg_v1 nor $memcg_v2 has one)"
	echo "#####################################################################"
fi
if [ -n "$mcg" ]; then
	cp examples/cproject/main.c examples/cproject/mod01.c examples/cproject/unit.h "$T/"
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$mcg" \
		"$PLAIN" -F 499 -o "$T/memcg.folded" -- \
		sh -c 'echo $$ >"$1/cgroup.procs" && cd "$2" && cc -O2 -c main.c mod01.c' sh "$mroot" "$T" \
		2>"$T/memcg.err"
	rc=$?
	if [ -f "$mcg/memory.oom_control" ]; then
		ooms=$(sed -n 's/^oom_kill //p' "$mcg/memory.oom_control")
		peak=$(( $(cat "$mcg/memory.max_usage_in_bytes") >> 20 ))
	else
		ooms=$(sed -n 's/^oom_kill //p' "$mcg/memory.events")
		peak=$(( $(cat "$mcg/memory.peak" 2>/dev/null || echo 0) >> 20 ))
	fi
	check "48 MiB cgroup: exit 0 ($rc), no OOM kill (${ooms:-?}), the cgroup's peak ${peak} MiB" \
		all [ "$rc" -eq 0 ] -- [ "${ooms:-1}" -eq 0 ]
	check "48 MiB cgroup: a valid profile with the compiler's stacks ($(comm_total "$T/memcg.folded" cc1) cc1 samples)" \
		all valid_folded "$T/memcg.folded" -- [ "$(comm_total "$T/memcg.folded" cc1)" -gt 0 ] -- \
		grep -qE '^bpfprof: [0-9]+ samples, ' "$T/memcg.err"
	rmdir "$mcg" 2>/dev/null
fi
