#!/usr/bin/env bash
# Churn soak: fleet mode for SECONDS over workload.sh, where examples/churn
# starts and ends ~50 short processes a second with pids reused (pid_max
# lowered for the run), one program is run every second for 6 s (its
# table built once, reused by every later run, counted), 20
# distinct binaries run at once early on, then a
# fleet of 200 distinct short-lived programs, each with a library of its
# own, is started one after another until 2 intervals before the end:
# copies of examples/nofp_fleet and libnofp_fleet.so (no frame pointers:
# each sample needs both files' unwind tables), each living 1 s.
# Checks that bpfprof's memory and fds stay flat, the stack map stays
# bounded, the drained totals equal the BPF side's own counter, the fleet's
# samples are named and unwound to main, and that once the fleet exited its
# unwind rows, files and kernel map memory are gone: back to the baseline
# read just before it started (bpfprof's index line says what it holds at
# every drain: rows, files, registry, the memlock of its BPF maps).
# Before the fleet, mixed churn (mix.sh: mapping churn, cgroups, JIT maps)
# for all but the last 7 minutes of a long run (10 s of the 60 s smoke),
# the agent's RSS read every 3 s over it: after its warm-up (the first
# quarter, 5 minutes at most) no reading may pass the cap, and the last
# quarter's lowest the warm-up's highest by more than 10% (written to
# SOAK_OUT/rss.tsv: seconds since the start, KiB, the stretch it is in).
# Usage: soak.sh SECONDS   (env: BPFPROF, EXAMPLES, GEN, SOAK_OUT)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
SECS=${1:-600}
BPFPROF=${BPFPROF:-./bpfprof}
EX=${EXAMPLES:-build/examples}
GEN=${GEN:-build/tests/gen}
OUT=${SOAK_OUT:-build/soak}
FLEET=200
# the mixed churn's stretch; its RSS cap (the fleet agent's goal of issue 16
# is 20 MiB; mapping churn holds 64 mapped files' tables and records)
MIX=$(( SECS >= 600 ? SECS - 420 : 10 ))
MIX_RSS_CAP=32768
T=$(mktemp -d /tmp/bpfprof-soak.XXXXXX)
LOG=$T/out/bpfprof-intervals.log
old_pid_max=$(cat /proc/sys/kernel/pid_max)
# a failed run's files stay for a look (profiles, index log, stderr)
restore() {
	echo "$old_pid_max" >/proc/sys/kernel/pid_max; kill $(jobs -p) 2>/dev/null
	if [ "${FAIL:-1}" -eq 0 ]; then rm -rf "$T"; else echo "soak: its files are in $T"; fi
}
trap restore EXIT

# Every member of the fleet a file identity of its own (copies, not links),
# its library beside it (rpath $ORIGIN); made before the run, not in it.
mkdir -p "$T/bin"
for i in $(seq 1 20); do cp "$EX/nofp_chain" "$T/bin/burst_$i"; done
cp "$EX/nofp_chain" "$T/bin/again"
for i in $(seq -w 1 "$FLEET"); do
	mkdir "$T/fleet_$i"
	cp "$EX/nofp_fleet" "$T/fleet_$i/fleet_$i"
	cp "$EX/libnofp_fleet.so" "$T/fleet_$i/"
done

# pids wrap around quickly: a new process soon gets a pid an exited one had
echo 16384 >/proc/sys/kernel/pid_max || echo "soak: cannot lower pid_max; pids will not be reused"
interval=$(( SECS >= 120 ? 10 : 5 ))
# Fleet mode over the workload's process tree (workload.sh: churn, the
# burst, the fleet), not -a: the machine is shared, and tables, samples
# and symbols of other users' processes (an ASan build's 500k rows, a
# python3's) moved the figures by 700k rows within a minute, where the
# fleet's whole table is a few thousand. The measuring below is outside
# the tree.
"$BPFPROF" -F 99 --interval "$interval" --output-dir "$T/out" \
	-- bash tests/soak/workload.sh "$SECS" "$interval" "$T" "$EX" "$FLEET" "$MIX" "$GEN" 2>"$T/err" & bp=$!
SECONDS=0; t_start=$EPOCHSECONDS

intervals_written() { local f=("$T/out"/*.folded); [ -e "${f[0]}" ] && echo ${#f[@]} || echo 0; }

# RSS and fds are read at one phase of every interval, half an interval
# after its profile was written: a drain opens files and libdwfl sessions
# for a few hundred ms, and a reading taken inside one says nothing about
# growth (readings at random phases swung fds 47..52 in CI). The loop forks
# nothing but sleep: processes of its own would be sampled, and their files
# opened, by the profiler it watches. It ends at the END_LINES-th interval
# line written 2 intervals or more after the fleet's last member exited.
END_LINES=2
# open fds: "ALL OWN", OWN leaving out files outside the tree's directory,
# which bpfprof keeps open for any process of the machine whose mapped file
# its path does not name (deleted, replaced; up to files.c's MAX_KEPT_OPEN):
# another user's mapping churner moved ALL 68 -> 324 -> 97 in a smoke run.
# One ls a reading (readlink is no builtin).
open_fds() {
	ls -l "/proc/$bp/fd" 2>/dev/null | awk -v t="$T/" 'NR > 1 { n++; sub(/^[^>]*-> /, "")
		if (substr($0, 1, 1) != "/" || index($0, t) == 1 || $0 ~ /^\/tmp\/perf-/) o++ }
		END { print n + 0, o + 0 }'
}
vm_rss() { local k v _; while read -r k v _; do [ "$k" = VmRSS: ] && echo "$v"; done <"/proc/$bp/status"; }
# half an interval in steps of 0.2 s, the 3 s readings taken in it too (a
# plain sleep left gaps of 5.5 s: the smoke's 8 s of mixed churn after its
# warm-up got 1 reading of the 2 its check asks for, on a loaded machine)
half_steps=$(awk -v i="$interval" 'BEGIN { print int(i / 2 / 0.2) }')
rss=(); fds=(); own_fds=(); at=(); fleet_line=""
# every 3 s, whatever the phase: "SECONDS KIB" (the caps' readings)
every=(); next_every=0
read_every() {
	[ "$SECONDS" -ge "$next_every" ] || return 0
	every+=("$((EPOCHSECONDS - t_start)) $(vm_rss)"); next_every=$((SECONDS + 3))
}
while kill -0 "$bp" 2>/dev/null && [ "$SECONDS" -lt $((SECS + 12 * interval)) ]; do
	n=$(intervals_written)
	while [ "$(intervals_written)" -eq "$n" ] && kill -0 "$bp" 2>/dev/null; do read_every; sleep 0.2; done
	for ((k = 0; k < half_steps; k++)); do read_every; sleep 0.2; done
	rss+=("$(vm_rss)")
	read -r f o < <(open_fds); fds+=("$f"); own_fds+=("$o")
	at+=("$((EPOCHSECONDS - t_start))")
	[ -n "$fleet_line" ] || { [ -s "$T/fleet_line" ] && read -r fleet_line <"$T/fleet_line"; }
	[ -n "$fleet_line" ] && [ "$(intervals_written)" -ge $((fleet_line + 2 + END_LINES)) ] && break
done
# the agent's fds on JIT maps at the end: the mixed churn's programs all
# ended minutes ago (the smoke's, 40 s), their maps long drained
jit_fds=0
for f in "/proc/$bp/fd"/*; do case $(readlink "$f") in /tmp/perf-*.map*) jit_fds=$((jit_fds + 1)) ;; esac; done
kill -TERM "$bp"; wait "$bp"; rc=$?
read -r base_line <"$T/base_line"

# After warm-up: the highest reading of the first quarter is what the run
# had reached. A leak is in every later reading, so the lowest of the last
# quarter may pass it by 10% at most; one reading says little: RSS swings
# by 1.7 MiB between intervals while the fleet's tables come and go (12116
# -> 13772 -> 10992 KiB in one flat run), 14% of a 12 MiB agent. The
# highest reading is held to the fleet RSS goal (issue 16: 20 MiB).
warm=$(( ${#rss[@]} / 4 )); [ "$warm" -ge 1 ] || warm=1
rss_warm=$(printf '%s\n' "${rss[@]:0:$((warm + 1))}" | sort -n | tail -1)
rss_max=$(printf '%s\n' "${rss[@]:$warm}" | sort -n | tail -1)
rss_late=$(printf '%s\n' "${rss[@]: -$warm}" | sort -n | head -1)
rss_end=${rss[-1]}
fd_min=$(printf '%s\n' "${fds[@]:$warm}" | sort -n | head -1)
fd_max=$(printf '%s\n' "${fds[@]:$warm}" | sort -n | tail -1)
own_min=$(printf '%s\n' "${own_fds[@]:$warm}" | sort -n | head -1)
own_max=$(printf '%s\n' "${own_fds[@]:$warm}" | sort -n | tail -1)
kept_open=$(sed -nE 's/^#define MAX_KEPT_OPEN[[:space:]]+([0-9]+).*/\1/p' user/files/files.c)
dwarf_open=$(sed -nE 's/^#define MAX_DWARF_SESSIONS[[:space:]]+([0-9]+).*/\1/p' user/files/files.c)
# The mixed churn's stretch (and the intervals after it, its files lingering)
read -r mix_a <"$T/mix_start" 2>/dev/null; read -r mix_b <"$T/mix_end" 2>/dev/null
mix_a=$(( ${mix_a:-0} - t_start )) mix_b=$(( ${mix_b:-0} - t_start ))
in_mix() { [ "$1" -ge $((mix_a - 3)) ] && [ "$1" -le $((mix_b + 2 * interval + 10)) ]; }
rss_max_out=0
for ((k = warm; k < ${#rss[@]}; k++)); do
	in_mix "${at[k]}" || [ "${rss[k]}" -le "$rss_max_out" ] || rss_max_out=${rss[k]}
done
total=$(sed -nE 's/.*BPF-side total ([0-9]+) samples.*/\1/p' "$T/err")
sum=$(cat "$T/out"/*.folded | awk '{ t += $NF } END { print t + 0 }')
lost=$(jq -s 'map(.lost) | add // 0' "$LOG")
maxids=$(jq -r .stack_ids "$LOG" | sort -n | tail -1)
churn=$(cat "$T/out"/*.folded | awk '$0 ~ /^churn;/ { t += $NF } END { print t + 0 }')
named=$(cat "$T/out"/*.folded | awk '$0 ~ /^churn;.*child_work;child_spin / { t += $NF } END { print t + 0 }')
reg_now=$(sed -nE 's/.*file registry: ([0-9]+) files now.*/\1/p' "$T/err")
reg_peak=$(sed -nE 's/.*file registry: [0-9]+ files now \(peak ([0-9]+)\).*/\1/p' "$T/err")
reg_released=$(sed -nE 's/.*file registry: .*, ([0-9]+) released.*/\1/p' "$T/err")
# the unwinder's tables at the last interval
rows_now=$(tail -1 "$LOG" | jq -r .unwind_tables.rows)
rows_peak=$(tail -1 "$LOG" | jq -r .unwind_tables.rows_peak)
dropped=$(tail -1 "$LOG" | jq -r .unwind_tables.files_dropped)
read -r again_first <"$T/again_first"; read -r again_last <"$T/again_last"
reused_at() { jq -s -r ".[$(($1 - 1))].unwind_tables.files_reused // 0" "$LOG"; }

# The footprint of each interval line, one line of 8 numbers (or of "x"):
# rows, files, tables loaded and dropped so far, registry files, released
# so far, kernel bytes of all maps, of the unwind rows' inner maps.
mapfile -t FOOT < <(jq -r '.footprint // {} | [.unwind_rows, .unwind_files, .tables_loaded,
	.tables_dropped, .registry_files, .registry_released, .bpf_map_bytes, .unwind_row_bytes]
	| map(. // "x") | join(" ")' "$LOG")
ROWS=0 FILES=1 LOADED=2 DROPPED=3 REG=4 RELEASED=5 KBYTES=6 RBYTES=7
# foot LINE COLUMN: the figure of interval line LINE (1 = the first); empty
# when the line does not say it
foot() { local f; read -ra f <<<"${FOOT[$(($1 - 1))]:-}"; [ "${f[$2]:-x}" = x ] || echo "${f[$2]}"; }
# le_pct A B P: both numbers, A <= B + P%
le_pct() { [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] && [ $(($1 * 100)) -le $(($2 * (100 + $3))) ]; }
# since COLUMN: how much a count grew from the baseline line to the last end line
since() {
	local a b; a=$(foot "$last_end" "$1"); b=$(foot "$base_line" "$1")
	[[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ ]] && echo $((a - b)) || echo -1
}
# lowest COLUMN FIRST LAST: the lowest figure of lines FIRST..LAST
lowest() { local k; for ((k = $2; k <= $3; k++)); do foot "$k" "$1"; done | sort -n | head -1; }
highest() { local k; for ((k = $2; k <= $3; k++)); do foot "$k" "$1"; done | sort -n | tail -1; }
# Baseline: the lower of the line the fleet started at and the one before;
# end: the lowest of the END_LINES lines from 2 intervals after its last
# member exited. Lowest, because the file registry holds every process's
# files, and another user's process (the machine is shared) may be at one
# reading and gone at the next, where a leak would stay in every reading.
first_end=$(( ${fleet_line:-0} + 3 )) last_end=$(( ${fleet_line:-0} + 2 + END_LINES ))
base() { lowest "$1" $((base_line - 1)) "$base_line"; }
end() { lowest "$1" "$first_end" "$last_end"; }
peak() { highest "$1" "$base_line" "$first_end"; }
base_rows=$(base $ROWS) peak_rows=$(peak $ROWS) end_rows=$(end $ROWS)
base_files=$(base $FILES) peak_files=$(peak $FILES) end_files=$(end $FILES)
base_reg=$(base $REG) peak_reg=$(peak $REG) end_reg=$(end $REG)
base_kb=$(base $KBYTES) peak_kb=$(peak $KBYTES) end_kb=$(end $KBYTES)
base_rb=$(base $RBYTES) peak_rb=$(peak $RBYTES) end_rb=$(end $RBYTES)
loaded_since=$(since $LOADED) dropped_since=$(since $DROPPED) released_since=$(since $RELEASED)
# The fleet's samples: all of them, those unwound from the program's own
# function (and from its library's) to main, and members with a stack
# unwound from the library's hot function through the program to main.
fleet_all=$(cat "$T/out"/*.folded | awk '/^fleet_[0-9]+;/ { t += $NF } END { print t + 0 }')
to_main='^fleet_[0-9]+;(.*;)?main;fleet_outer[; ]'
chain='^fleet_[0-9]+;(.*;)?main;fleet_outer;fleet_lib_middle;fleet_lib_hot[; ]'
fleet_unwound=$(cat "$T/out"/*.folded | awk -v re="$to_main" '$0 ~ re { t += $NF } END { print t + 0 }')
fleet_members=$(cat "$T/out"/*.folded | awk -v re="$chain" '$0 ~ re { split($0, f, ";"); m[f[1]] = 1 }
	END { print length(m) }')
# Members sampled in their own code, and the samples there that did not
# reach main: on these binaries (no frame pointers, exact CFI) a stack can
# stop short only when it was taken before its tables were in, walked by
# frame pointers, which the summary counts ("by frame pointers (no tables
# yet)", per interval: summed over the run's lines, every process's).
own='^fleet_[0-9]+;.*(fleet_outer|fleet_lib_middle|fleet_lib_hot)[; ]'
fleet_sampled=$(cat "$T/out"/*.folded | awk -v re="$own" '$0 ~ re { split($0, f, ";"); m[f[1]] = 1 }
	END { print length(m) }')
fleet_stuck=$(cat "$T/out"/*.folded | awk -v re="$own" -v main="$to_main" '$0 ~ re && $0 !~ main { t += $NF }
	END { print t + 0 }')
fp_walked=$(jq -s 'map(.unwind.fp_no_tables_yet) | add // 0' "$LOG")

echo "soak: ${SECS}s, RSS after warm-up ${rss_warm} KiB, max ${rss_max} KiB, last quarter's lowest ${rss_late} KiB, end ${rss_end} KiB;" \
	"fds ${fd_min}..${fd_max}; stack map held at most ${maxids} ids;" \
	"samples ${sum} + lost ${lost} vs BPF-side ${total}; churn children ${named}/${churn} named;" \
	"file registry ${reg_now} files at the end (peak ${reg_peak}, ${reg_released} released);" \
	"unwind rows ${rows_now} at the end (peak ${rows_peak}), ${dropped} tables dropped"
echo "soak: fleet of $FLEET from interval line $base_line, last exited before line $((fleet_line + 1));" \
	"baseline / peak / end: unwind rows $base_rows / $peak_rows / $end_rows," \
	"files $base_files / $peak_files / $end_files, registry $base_reg / $peak_reg / $end_reg," \
	"BPF maps $base_kb / $peak_kb / $end_kb bytes (unwind rows $base_rb / $peak_rb /" \
	"$end_rb); tables loaded $loaded_since, dropped $dropped_since, registry files released $released_since in between;" \
	"fleet samples $fleet_unwound of $fleet_all unwound to main, $fleet_stuck in its code short of main" \
	"($fp_walked of all processes' by frame pointers before their tables), $fleet_members of $fleet_sampled members sampled in their code unwound"
echo "soak: per interval line, unwind rows / files / BPF maps bytes:" \
	"$(for ((k = 1; k <= ${#FOOT[@]}; k++)); do printf '%s/%s/%s ' "$(foot $k $ROWS)" "$(foot $k $FILES)" "$(foot $k $KBYTES)"; done)"
echo "soak: RSS KiB at each interval: ${rss[*]}"
echo "soak: open fds at each interval (all/own): $(for ((k = 0; k < ${#fds[@]}; k++)); do printf '%s/%s ' "${fds[k]}" "${own_fds[k]}"; done)"
check "soak: bpfprof exit 0 ($rc)" [ "$rc" -eq 0 ]
check "soak: RSS does not grow: the last quarter's lowest <= 10% over the warm-up's highest ($rss_warm -> $rss_late KiB)" \
	[ $((rss_late * 100)) -le $((rss_warm * 110)) ]
# Outside the mixed churn (held to its own cap below) the fleet goal
# (issue 16: 20 MiB) holds a run whose mixed churn is short (the smoke's
# 10 s); a long one fills the caps it is held to (MIX_RSS_CAP: the symbol
# budget, 64 lingering files' tables, the kept-open files), and what malloc
# got back stays in the heap after it: an hour's run ended at 20.2 MiB, 23.1
# its highest after the churn.
rss_cap=$(( MIX >= 600 ? MIX_RSS_CAP : 20480 ))
check "soak: peak RSS outside the mixed churn <= $((rss_cap / 1024)) MiB ($rss_max_out KiB; $rss_max with it)" \
	all [ "$rss_max_out" -gt 0 ] -- [ "$rss_max_out" -le "$rss_cap" ]
# fds: back to their level once the fleet is gone (a leak of one per member,
# per interval or per drain would show here), and bounded while it runs: a
# reading may fall while one or two members are alive, whose program and
# library are open (a libdwfl session each: the file, its debug file) until
# the registry releases them after their exit (51..54 once in 5 smoke runs).
own_end=${own_fds[-1]}
check "soak: bpfprof's own fds flat (all but files outside the tree): $own_end at the end, $own_min..$own_max after warm-up" \
	all [ $((own_end - own_min)) -le 2 ] -- [ $((own_max - own_min)) -le 8 ]
check "soak: open fds bounded by the files kept open ($fd_min..$fd_max, at most $kept_open + 2 x $dwarf_open sessions + 8 over)" \
	all [ -n "$kept_open" ] -- [ -n "$dwarf_open" ] -- \
	[ $((fd_max - fd_min)) -le $((kept_open + 2 * dwarf_open + 8)) ]
check "soak: no JIT map of the mixed churn's ended programs held open at the end ($jit_fds fds; $(cat "$T/mix_jits" 2>/dev/null || echo 0) JIT runs)" \
	[ "$jit_fds" -eq 0 ]
check "soak: stack map bounded ($maxids ids at most)" [ "${maxids:-99999}" -le 16384 ]
check "soak: drained totals == BPF-side counter ($sum + $lost == $total)" \
	all [ -n "$total" ] -- [ $((sum + lost)) -eq "${total:-0}" ]
check "soak: short-lived children symbolized ($named of $churn samples)" \
	all [ "$churn" -gt 0 ] -- [ $((named * 100)) -ge $((churn * 80)) ]
check "soak: file registry back down after the burst exited ($reg_now files, peak $reg_peak)" \
	all [ -n "$reg_now" ] -- [ "${reg_peak:-0}" -ge $((reg_now + 20)) ]
check "soak: the burst's 20 files released from the registry ($reg_released)" \
	[ "${reg_released:-0}" -ge 20 ]
# a program run 6 times, once a second: its table built at the first run,
# taken again by the 5 others (it lingers 2 s after its last user). Between
# the two lines around the runs: tables loaded (6 if built each time; the
# tree's other processes' tables are in already), reuses (churn's children
# add theirs: a lower bound)
loaded_again=$(( $(foot "$again_last" $LOADED) - $(foot "$again_first" $LOADED) ))
reused_again=$(( $(reused_at "$again_last") - $(reused_at "$again_first") ))
check "soak: a program run 6 times in 6 s: its table built once ($loaded_again loaded), reused by the 5 later runs ($reused_again reused; lines $again_first..$again_last)" \
	all [ "$again_last" -gt "$again_first" ] -- [ "$loaded_again" -le 2 ] -- [ "$reused_again" -ge 5 ]
check "soak: unwind tables of the burst dropped ($dropped), rows back down ($rows_now < peak $rows_peak)" \
	all [ "${dropped:-0}" -ge 20 ] -- [ "${rows_now:-0}" -lt "${rows_peak:-0}" ]
check "soak: every interval line says what bpfprof holds (baseline line $base_line, end line $last_end)" \
	all [ -n "$base_rows" ] -- [ -n "$end_rows" ] -- [ -n "$end_rb" ]
# Each of the 400 files is an identity of its own: a table of its own,
# loaded while a member ran and dropped after. A member's tables are built
# when it appears; one that lived and died while bpfprof was starved (a
# loaded machine) may never get them, so the bound below is what the code
# guarantees: a member unwound through both files had both tables, one
# each, and no file's table is loaded twice (the tree's other processes,
# sleep and bash, add a few).
check "soak: fleet's tables loaded, one per file ($((2 * fleet_members)) <= $loaded_since <= $((2 * FLEET + 20)))" \
	all [ "$loaded_since" -ge $((2 * fleet_members)) ] -- [ "$loaded_since" -le $((2 * FLEET + 20)) ]
check "soak: every table loaded while the fleet ran was dropped after (dropped $dropped_since, loaded $loaded_since, files $base_files -> $end_files)" \
	all [ -n "$end_files" ] -- [ "$dropped_since" -ge $((loaded_since - (end_files > base_files ? end_files - base_files : 0))) ]
# the rows are written into preallocated chunks (unwind/rowstore.h): the
# kernel's bytes grow only when a chunk is made, not with every table, so
# they are never below the baseline while the rows rise above it
check "soak: the fleet's tables were counted while it ran (rows peak $peak_rows > $base_rows, row chunks' bytes $peak_rb >= $base_rb)" \
	all [ "$peak_rows" -gt "$base_rows" ] -- [ "$peak_rb" -ge "$base_rb" ]
check "soak: unwind rows and files back to the baseline (rows $end_rows <= $base_rows, files $end_files <= $base_files, inner maps $end_rb <= $base_rb bytes)" \
	all le_pct "$end_rows" "$base_rows" 0 -- le_pct "$end_files" "$base_files" 0 -- \
	le_pct "$end_rb" "$base_rb" 0
# The registry's level is printed, not checked: it holds the files of
# every process of the machine (the tracker follows them all, not only the
# profiled tree), and another user's long run beside the soak kept 47 of
# them in it at the end readings. What the fleet left is checked instead:
# each of its 400 files released (a count since the baseline; other
# processes' releases add to it, so this is a lower bound).
check "soak: fleet's files released from the registry ($released_since >= $((2 * FLEET)))" \
	[ "$released_since" -ge $((2 * FLEET)) ]
check "soak: kernel map memory flat: <= 10% over the baseline ($base_kb -> $end_kb bytes)" \
	le_pct "$end_kb" "$base_kb" 10
# What the unwinder guarantees, whatever the load: a sample in the fleet's
# code is unwound to main unless its tables were not in yet (counted). How
# many members were sampled at all, or before their tables, is the
# scheduler's: half of them unwound is the floor of a working run (200 of
# 200 on an idle machine, 192 with load 3-4 on 2 CPUs).
check "soak: every fleet sample short of main was taken before its tables ($fleet_stuck <= $fp_walked by frame pointers; $fleet_unwound of $fleet_all unwound)" \
	all [ "$fleet_all" -gt 0 ] -- [ "$fleet_stuck" -le "$fp_walked" ]
check "soak: the fleet's members unwound through both files ($fleet_members of $fleet_sampled sampled in their code, of $FLEET)" \
	all [ $((fleet_sampled * 2)) -ge "$FLEET" ] -- [ $((fleet_members * 2)) -ge "$fleet_sampled" ]
# The mixed churn's stretch: the readings every 3 s between its start and
# end (mix_a, mix_b above), after its warm-up
warm_end=$(( mix_a + ((mix_b - mix_a) / 4 < 300 ? (mix_b - mix_a) / 4 : 300) ))
mkdir -p "$OUT"
for r in "${every[@]}"; do
	read -r t k <<<"$r"
	# the warm-up's readings: from the one just before the stretch began
	if [ "$t" -lt $((mix_a - 3)) ] || [ "$t" -gt "$mix_b" ]; then ph=other
	elif [ "$t" -lt "$warm_end" ]; then ph=warmup; else ph=mix; fi
	echo "$t $k $ph"
done >"$OUT/rss.tsv"
mix_n=$(awk '$3 == "mix"' "$OUT/rss.tsv" | wc -l)
late_from=$(( mix_b - (mix_b - warm_end) / 4 ))
mix_first=$(awk '$3 == "mix" { print $2; exit }' "$OUT/rss.tsv")
mix_last=$(awk '$3 == "mix" { k = $2 } END { print k }' "$OUT/rss.tsv")
mix_max=$(awk '$3 == "mix" && $2 > m { m = $2 } END { print m + 0 }' "$OUT/rss.tsv")
warm_max=$(awk '$3 == "warmup" && $2 > m { m = $2 } END { print m + 0 }' "$OUT/rss.tsv")
late_min=$(awk -v f="$late_from" '$3 == "mix" && $1 >= f && (m == "" || $2 < m) { m = $2 } END { print m }' "$OUT/rss.tsv")
# a short run's last quarter may hold no reading: then the last one is it (never 0)
late_min=${late_min:-${mix_last:-0}}
echo "soak: mixed churn ${mix_a}..${mix_b} s ($(cat "$T/mix_cgroups" 2>/dev/null || echo 0) cgroups," 	"$(cat "$T/mix_jits" 2>/dev/null || echo 0) JIT runs, $(grep -c . "$T/map_churn.out" 2>/dev/null || echo 0) map_churn lines):" 	"RSS every 3 s after the warm-up (to ${warm_end} s): first ${mix_first} KiB, last ${mix_last}, max ${mix_max}," 	"the warm-up's highest ${warm_max}, the last quarter's lowest ${late_min}; $mix_n readings in $OUT/rss.tsv"
check "soak: mixed churn read over its stretch ($mix_n readings after warm-up)" [ "$mix_n" -ge 2 ]
check "soak: mixed churn: RSS under its cap after warm-up (max $mix_max <= $MIX_RSS_CAP KiB)" 	[ "$mix_max" -le "$MIX_RSS_CAP" ]
check "soak: mixed churn: RSS flat (the last quarter's lowest $late_min <= 10% over the warm-up's highest $warm_max KiB)" 	all [ "$warm_max" -gt 0 ] -- [ "$late_min" -gt 0 ] -- [ $((late_min * 100)) -le $((warm_max * 110)) ]
echo "soak: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
