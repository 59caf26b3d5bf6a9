#!/usr/bin/env bash
# make bench: what bpfprof costs and how well it agrees with perf, measured
# against `perf record` at the same frequency in the same run, or against
# a goal. Twelve parts:
#
#   1 workload slowdown      3 time to a flame graph   5 fidelity (top-10 shares)
#   2 the profiler's cost    4 memory                  6 fleet cost (--interval)
#   7 auto/fp/dwarf           8 the flame graph page: 100k stacks, first paint
#   9 inline frames' cost    10 a build (make -j2)     11 fleet mode under churn
#  12 a busy server (PostgreSQL under pgbench, process churn; busy_server.sh)
#
# Prints a table on stdout (progress goes to stderr) and writes the same
# figures as JSON. A benchmark, not a test: nothing here fails on a number.
# See tools/bench/README.md for what each row means.
#
# Usage: tools/bench/bench.sh [--smoke] [--parts "1 2 3 4 5 6"] [--out FILE.json]
#                             [--table FILE.txt]
#   --smoke   every part, minimally (a few seconds each): checks that the
#             bench runs end to end; the figures mean nothing
# Environment: BPFPROF (./bpfprof), EXAMPLES (build/examples),
#              BENCH_BUILD (build/bench): where the helpers were built.
set -euo pipefail
export LC_ALL=C

cd "$(dirname "$0")/../.."
ROOT=$PWD
BPFPROF_SRC=${BPFPROF:-$ROOT/bpfprof}
EX=${EXAMPLES:-$ROOT/build/examples}
BB=${BENCH_BUILD:-$ROOT/build/bench}
MODE=full
PARTS="1 2 3 4 5 6 7 8 9 10 11 12"
OUT_JSON=$ROOT/tools/bench/results.json
OUT_TABLE=$ROOT/tools/bench/results.txt

while [ $# -gt 0 ]; do
	case $1 in
	--smoke) MODE=smoke ;;
	--parts) PARTS=$2; shift ;;
	--out) OUT_JSON=$2; shift ;;
	--table) OUT_TABLE=$2; shift ;;
	*) echo "usage: $0 [--smoke] [--parts \"1 2 3 4 5 6 7\"] [--out FILE.json] [--table FILE.txt]" >&2
	   exit 2 ;;
	esac
	shift
done

# ---------------------------------------------------------------- settings
NCPU=$(nproc)
if [ "$MODE" = full ]; then
	P1_HZ="19 99 997"; P1_REPS=5; P1_SECS=2	# per run, workload alone
	P2_HZ=997; P2_REPS=3; P2_SECS=10		# peer runs: parts 2, 4, 5
	FLOOR_REPS=3; FLOOR_SECS=3; ALONE_WARM=5
	P3_HZ=997; P3_SECS=20; P3_MAX_STACKS=262144; P3_MIN_STACKS=20000; P3_CACHES="cold warm"
	# the issue's goal is over 10 minutes of the busy machine
	P6_HZ=19; P6_SECS=120; P6_SECS_BUSY=600; P6_INTERVAL=10
	P7_HZ=997; P7_SECS=5
	P8_STACKS=100000
	P10_REPS=3; P10_START_REPS=7
	P11_SECS=${P11_SECS:-600}
	# the agent's run; the load without it, before and after
	P12_SECS=${P12_SECS:-600}; P12_BASE=${P12_BASE:-60}
else
	P1_HZ="99"; P1_REPS=1; P1_SECS=0.3
	P2_HZ=997; P2_REPS=1; P2_SECS=0.5
	FLOOR_REPS=1; FLOOR_SECS=0.3; ALONE_WARM=0.5
	P3_HZ=997; P3_SECS=1; P3_MAX_STACKS=262144; P3_MIN_STACKS=0; P3_CACHES="cold"
	P6_HZ=19; P6_SECS=3; P6_SECS_BUSY=3; P6_INTERVAL=1
	P7_HZ=997; P7_SECS=0.5
	P8_STACKS=2000
	P10_REPS=1; P10_START_REPS=1
	P11_SECS=4
	P12_SECS=5; P12_BASE=2; P12_READ=1
fi
# first paint of the page for P8_STACKS distinct stacks, in headless Chromium
P8_BUDGET_MS=5000

W=$BB/run	# scratch: profiles, perf.data, logs of the last run
BENCH_START=$(date +%s)

# ---------------------------------------------------------------- helpers
log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }
now_ns() { date +%s%N; }
# seconds between two now_ns values
secs_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", (b - a) / 1e9 }'; }
calc() { awk "BEGIN { printf \"%.6g\", $* }"; }

# Processes started here, stopped at exit (by pid, never by name).
STARTED=()
STATS_OLD=""
cleanup() {
	local p
	for p in "${STARTED[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	p12_pg_stop
	if [ -n "$STATS_OLD" ]; then
		sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD" || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# median, min, max, n of a list of numbers ("NA" entries are skipped)
stats() {
	printf '%s\n' "$@" | awk '$1 != "" && $1 != "NA" { v[n++] = $1 + 0 }
	END {
		if (!n) { print "NA NA NA 0"; exit }
		for (i = 1; i < n; i++) { x = v[i]; for (j = i - 1; j >= 0 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
		m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
		printf "%.6g %.6g %.6g %d\n", m, v[0], v[n - 1], n
	}'
}

# A number for the table: 3 significant digits, no exponent for usual sizes.
fmt() {
	awk -v v="$1" 'BEGIN {
		if (v == "NA" || v == "") { printf "-"; exit }
		a = v < 0 ? -v : v
		if (a >= 100000) printf "%.0f", v
		else if (a >= 100) printf "%.0f", v
		else if (a >= 10) printf "%.1f", v
		else if (a >= 1) printf "%.2f", v
		else if (a == 0) printf "0"
		else printf "%.3g", v
	}'
}

# "median (min..max)" from stats output, or the single value when n <= 1
cell() {
	local m lo hi n
	read -r m lo hi n <<<"$1"
	if [ "$n" = 0 ]; then printf -- '-'
	elif [ "$n" = 1 ] || [ "$lo" = "$hi" ]; then fmt "$m"
	else printf '%s (%s..%s)' "$(fmt "$m")" "$(fmt "$lo")" "$(fmt "$hi")"
	fi
}

json_stats() {
	local m lo hi n
	read -r m lo hi n <<<"$1"
	if [ "$n" = 0 ]; then printf 'null'
	else printf '{"median": %s, "min": %s, "max": %s, "n": %s}' "$m" "$lo" "$hi" "$n"
	fi
}

TABLE_FMT='%-4s %-62s %-26s %-28s %s\n'
ROWS_JSON=()
TABLE_LINES=()

out_line() {
	TABLE_LINES+=("$1")
	printf '%s\n' "$1"
}

header() {
	out_line ""
	out_line "== $*"
	# shellcheck disable=SC2059
	out_line "$(printf "$TABLE_FMT" part figure bpfprof peer "ratio")"
}

# row PART FIGURE UNIT "BPFPROF VALUES" PEER_NAME "PEER VALUES" [NOTE]
# One measured figure: medians with the spread of the repeats, the peer's,
# and bpfprof/peer of the medians.
row() {
	local part=$1 fig=$2 unit=$3 bvals=$4 pname=$5 pvals=$6 note=${7:-}
	local bs ps bm pm ratio="NA" label pcell rcell=-
	# shellcheck disable=SC2086
	bs=$(stats $bvals)
	# shellcheck disable=SC2086
	ps=$(stats $pvals)
	bm=${bs%% *}; pm=${ps%% *}
	if [ "$bm" != NA ] && [ "$pm" != NA ]; then
		# a ratio of a negative or zero median (noise) would mean nothing
		ratio=$(awk -v b="$bm" -v p="$pm" 'BEGIN { if (p + 0 > 0 && b + 0 > 0) printf "%.4g", b / p; else print "NA" }')
	fi
	label="$fig${unit:+ ($unit)}"
	pcell="$(cell "$ps")"
	[ -n "$pname" ] && [ "$pcell" != - ] && pcell="$pname $pcell"
	[ "$ratio" = NA ] || rcell=$(fmt "$ratio")
	# shellcheck disable=SC2059
	out_line "$(printf "$TABLE_FMT" "$part" "$label" "$(cell "$bs")" "$pcell" "$rcell${note:+  $note}")"
	ROWS_JSON+=("$(printf '{"part": %s, "figure": "%s", "unit": "%s", "bpfprof": %s, "peer_name": "%s", "peer": %s, "ratio": %s, "note": "%s"}' \
		"$part" "$fig" "$unit" "$(json_stats "$bs")" "$pname" "$(json_stats "$ps")" \
		"$([ "$ratio" = NA ] && echo null || echo "$ratio")" "$note")")
}

# goal PART FIGURE UNIT "BPFPROF VALUES" PEER_NAME "PEER VALUES" LIMIT: a
# row of issue 16's goals, its note saying whether the goal holds: ratio <=
# LIMIT against the peer, or (no peer) bpfprof's median <= LIMIT. GOALS
# collects them for the summary at the end.
GOALS=()
goal() {
	local part=$1 fig=$2 unit=$3 bvals=$4 pname=$5 pvals=$6 limit=$7 extra=${8:-} bm pm v what verdict shown
	# shellcheck disable=SC2086
	bm=$(stats $bvals); bm=${bm%% *}
	if [ -n "$pname" ]; then
		# shellcheck disable=SC2086
		pm=$(stats $pvals); pm=${pm%% *}
		what="<= ${limit}x $pname"
		v=$(awk -v b="$bm" -v p="$pm" 'BEGIN { if (b == "NA" || p == "NA" || p + 0 <= 0 || b + 0 <= 0) print "NA"; else print b / p }')
		shown="ratio $(fmt "$v")"
	else
		what="<= $limit $unit"
		v=$bm
		shown="$(fmt "$v") $unit"
	fi
	if [ "$v" = NA ]; then verdict="not measured"
	elif awk -v v="$v" -v l="$limit" 'BEGIN { exit !(v + 0 <= l + 0) }'; then verdict="goal met"
	else verdict="goal not met"; fi
	row "$part" "$fig" "$unit" "$bvals" "$pname" "$pvals" "(goal $what: $verdict)${extra:+ $extra}"
	GOALS+=("$(printf '%-4s %-62s %-34s %s' "$part" "$fig" "$shown" "goal $what: $verdict")")
}

# A figure that could not be measured on this machine or build.
row_na() {
	local part=$1 fig=$2 why=$3
	# shellcheck disable=SC2059
	out_line "$(printf "$TABLE_FMT" "$part" "$fig" "not available: $why" "" "")"
	ROWS_JSON+=("$(printf '{"part": %s, "figure": "%s", "available": false, "note": "%s"}' "$part" "$fig" "$why")")
}

# -------------------------------------------------- running the profilers
# Each profiler runs under /usr/bin/time -v (CPU seconds, peak RSS); the
# signals go to the profiler itself, the child of time.

# start_timed NAME CMD...: sets LAST_PID (the command) and LAST_TPID (time)
start_timed() {
	local name=$1; shift
	/usr/bin/time -v -o "$W/$name.time" "$@" >"$W/$name.out" 2>"$W/$name.err" &
	LAST_TPID=$!
	STARTED+=("$LAST_TPID")
	LAST_PID=""
	local i
	for i in $(seq 1 500); do
		LAST_PID=$(pgrep -P "$LAST_TPID" | head -1 || true)
		[ -n "$LAST_PID" ] && break
		sleep 0.01
	done
	[ -n "$LAST_PID" ] || die "$name did not start"
	STARTED+=("$LAST_PID")
}

perf_fds() { find /proc/"$1"/fd -lname 'anon_inode:\[perf_event\]' 2>/dev/null | wc -l; }
link_fds() { find /proc/"$1"/fd -lname 'anon_inode:bpf_link' 2>/dev/null | wc -l; }
catches_sigint() { awk '/^SigCgt:/ { exit !(and_bit($2)) } function and_bit(h,  d, i, c) {
	d = substr(h, length(h), 1); i = index("0123456789abcdef", d) - 1; return int(i / 2) % 2 }' "/proc/$1/status"; }

# wait_ready bpfprof|perf PID: until the profiler samples every CPU
wait_ready() {
	local kind=$1 pid=$2 i
	for i in $(seq 1 1000); do
		kill -0 "$pid" 2>/dev/null || die "$kind exited early: $(tail -3 "$W"/*.err 2>/dev/null | tail -3)"
		if [ "$(perf_fds "$pid")" -ge "$NCPU" ]; then
			if [ "$kind" = bpfprof ] && [ "$(link_fds "$pid")" -ge 1 ]; then break; fi
			if [ "$kind" = perf ] && catches_sigint "$pid"; then break; fi
		fi
		sleep 0.01
	done
	[ "$i" -lt 1000 ] || die "$kind did not get ready in 10 s"
	sleep 0.3	# the last CPUs' events enabled, the first mmaps read
}

# stop_timed PID TPID SIGNAL: sets STOP_SECS, from the signal to the exit
stop_timed() {
	local pid=$1 tpid=$2 sig=$3 t0 t1
	t0=$(now_ns)
	kill -"$sig" "$pid"
	wait "$tpid" || true
	t1=$(now_ns)
	STOP_SECS=$(secs_between "$t0" "$t1")
}

# (its counts in $W/NAME.json: bpfprof --stats)
start_bpfprof() { start_timed "$1" "$BPFPROF" --stats "$W/$1.json" "${@:2}"; wait_ready bpfprof "$LAST_PID"; }
start_perf()    { start_timed "$1" perf record "${@:2}"; wait_ready perf "$LAST_PID"; }

# From a /usr/bin/time -v file: CPU seconds (user + system), peak RSS in MiB
time_cpu() { awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.3f", u + s }' "$1"; }
time_rss() { awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$1"; }
time_wall() {
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
		for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.3f", s }' "$1"
}

# From bpfprof's --stats beside its stderr (NAME.err: NAME.json), field F
# of: samples, stacks, lost, frames unresolved, frames
sum_field() {
	jq -r '[.samples, .stacks, .lost, .frames_unresolved, .frames] | map(tostring) | join(" ")' \
		"${1%.err}.json" 2>/dev/null | awk -v f="$2" '{ print $f }'
}

# The unwind tables' counts of a --stats file, as one line the rows below
# read: "N files loaded (R rows of B, peak P, in kernel), W walked by frame pointers,
# U reused by a later process, S s building"
tables_line() {
	jq -r '.unwind_tables | "unwind tables: \(.files_loaded) files loaded (\(.rows) rows of \(.rows_budget), peak \(.rows_peak), in kernel), \(.files_by_frame_pointers) walked by frame pointers, \(.files_reused) reused by a later process, \(.build_s) s building"' \
		"$1" 2>/dev/null || true
}
b_samples()    { sum_field "$1" 1; }
b_lost()       { sum_field "$1" 3; }
b_unresolved() { sum_field "$1" 4; }
b_frames()     { sum_field "$1" 5; }
# From perf record's last words: "... (N samples) ]"
p_samples() { sed -nE 's/.*\(([0-9]+) samples\).*/\1/p' "$1" | tail -1; }
# Lost events, on stdin: perf script says "Processed N events and lost M chunks!"
p_lost() { sed -nE 's/.*and lost ([0-9]+) chunks.*/\1/p' | awk '{ s += $1 } END { print s + 0 }'; }

# MiB of perf ring buffers a process has mapped
ring_mib() {
	local s=0 a b line
	while read -r line; do
		case $line in *'anon_inode:[perf_event]'*) ;; *) continue ;; esac
		a=${line%%-*}; b=${line#*-}; b=${b%% *}
		s=$((s + 16#$b - 16#$a))
	done <"/proc/$1/maps"
	awk -v s="$s" 'BEGIN { printf "%.2f", s / 1048576 }'
}

# "run_time_ns run_cnt" summed over the perf_event programs of PID
bpf_prog_stats() {
	local pid=$1 f t=0 c=0 rt rc
	for f in /proc/"$pid"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "anon_inode:bpf-prog" ] || continue
		grep -q '^prog_type:[[:space:]]*7$' "/proc/$pid/fdinfo/${f##*/}" || continue	# BPF_PROG_TYPE_PERF_EVENT
		rt=$(sed -nE 's/^run_time_ns:[[:space:]]*([0-9]+)/\1/p' "/proc/$pid/fdinfo/${f##*/}")
		rc=$(sed -nE 's/^run_cnt:[[:space:]]*([0-9]+)/\1/p' "/proc/$pid/fdinfo/${f##*/}")
		t=$((t + ${rt:-0})); c=$((c + ${rc:-0}))
	done
	echo "$t $c"
}
# MiB of kernel memory in the BPF maps a run created (memlock, as `bpftool
# map show` reports it): the maps its fds hold, plus the inner maps of its
# maps of maps (the unwind row store's per-file rows: user/unwind/rowstore.c
# closes their fds once the outer map holds them), each counted once
maps_memlock_mib() {
	local pid=$1 f id b s=0
	declare -A seen=()
	for f in /proc/"$pid"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "anon_inode:bpf-map" ] || continue
		read -r id b <<<"$(awk '/^map_id:/ { i = $2 } /^memlock:/ { m = $2 } END { print i, m }' \
			"/proc/$pid/fdinfo/${f##*/}" 2>/dev/null)"
		[ -n "$id" ] && [ -z "${seen[$id]:-}" ] || continue
		seen[$id]=1; s=$((s + ${b:-0}))
	done
	for id in $(outer_map_ids "$pid"); do
		for f in $(inner_map_ids "$id"); do
			[ -z "${seen[$f]:-}" ] || continue
			seen[$f]=1
			b=$(bpftool map show id "$f" 2>/dev/null | sed -nE 's/.*memlock ([0-9]+)B.*/\1/p')
			s=$((s + ${b:-0}))
		done
	done
	awk -v s="$s" 'BEGIN { printf "%.2f", s / 1048576 }'
}
# map_entry_bytes PID NAME: the key and value bytes of one entry of PID's
# BPF map NAME (a runtime's per-process map: what each process it walks
# takes in the kernel, the hash table's own overhead aside)
map_entry_bytes() {
	local pid=$1 name=$2 f id
	for f in /proc/"$pid"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "anon_inode:bpf-map" ] || continue
		id=$(awk '/^map_id:/ { print $2 }' "/proc/$pid/fdinfo/${f##*/}" 2>/dev/null)
		[ -n "$id" ] || continue
		bpftool -j map show id "$id" 2>/dev/null |
			jq -r --arg n "$name" 'select(.name == $n) | .bytes_key + .bytes_value' || true
	done | head -1
}
# ids of the maps of maps (BPF_MAP_TYPE_ARRAY_OF_MAPS, HASH_OF_MAPS) PID holds
outer_map_ids() {
	local f
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "anon_inode:bpf-map" ] || continue
		awk '/^map_type:/ { t = $2 } /^map_id:/ { i = $2 } END { if (t == 12 || t == 13) print i }' \
			"/proc/$1/fdinfo/${f##*/}" 2>/dev/null
	done
}
# the inner map ids in map of maps ID (bpftool dumps them as 4 bytes, little-endian)
inner_map_ids() {
	bpftool -j map dump id "$1" 2>/dev/null |
		jq -r '.[] | .value | map(ltrimstr("0x")) | reverse | join("")' 2>/dev/null |
		while read -r hex; do [ -n "$hex" ] && echo $((16#$hex)); done
}

drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }

enable_bpf_stats() {
	[ -n "$STATS_OLD" ] || STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
}
restore_bpf_stats() {
	if [ -n "$STATS_OLD" ]; then
		sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD"
		STATS_OLD=""
	fi
}

# Self shares (%) of comm $2's samples by innermost frame, "share function", descending
self_shares() {
	awk -v c="$2" '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
		if (f[1] != c) next; self[f[k]] += n; tot += n }
	END { for (s in self) printf "%.4f %s\n", 100 * self[s] / tot, s }' "$1" | sort -k1,1gr -k2
}

# --------------------------------------------------------------- workloads
FIXED=$EX/bench_fixed
STACKS=$EX/bench_stacks
ITER_SECS=""	# wall seconds per bench_fixed iteration, all threads, measured

# Wall seconds per iteration (all threads at once), from the fastest of 3
# short runs: the runs of part 1 last about P1_SECS on this machine as it is.
calibrate() {
	local best="" wall
	for _ in 1 2 3; do
		wall=$("$FIXED" -r 100 | sed -nE 's/^wall=([0-9.]+) .*/\1/p')
		best=$(awk -v b="$best" -v t="$wall" 'BEGIN { print (b == "" || t < b) ? t : b }')
	done
	ITER_SECS=$(calc "$best / 100")
}
iters_for() { awk -v s="$1" -v i="$ITER_SECS" 'BEGIN { n = int(s / i + 0.5); print n < 1 ? 1 : n }'; }

# run_fixed ITERS: runs the workload (one thread per CPU); sets RUN_SECS, its
# wall time, and RUN_CPU, its CPU time (sampling interrupts included)
run_fixed() {
	local out
	out=$("$FIXED" -r "$1")
	RUN_SECS=$(sed -nE 's/^wall=([0-9.]+) .*/\1/p' <<<"$out")
	RUN_CPU=$(sed -nE 's/.* cpu=([0-9.]+)$/\1/p' <<<"$out")
	if [ -z "$RUN_SECS" ] || [ -z "$RUN_CPU" ]; then die "bench_fixed printed '$out'"; fi
}

# ====================================================== 1. workload slowdown
part1() {
	local iters rep hz a b c ac bc cc fc
	declare -A SLOW_B SLOW_P ALONE CPU_B CPU_P COST_B COST_P COST_F
	iters=$(iters_for "$P1_SECS")
	P1_ITERS=$iters
	log "part 1: bench_fixed $iters iterations x $NCPU threads, $P1_REPS repeats at ${P1_HZ// /, } Hz"
	for rep in $(seq 1 "$P1_REPS"); do
		for hz in $P1_HZ; do
			log "part 1: repeat $rep/$P1_REPS, $hz Hz: alone, bpfprof, perf"
			run_fixed "$iters"; a=$RUN_SECS; ac=$RUN_CPU

			start_bpfprof p1b -a -F "$hz" -o "$W/p1.folded"
			run_fixed "$iters"; b=$RUN_SECS; bc=$RUN_CPU
			stop_timed "$LAST_PID" "$LAST_TPID" TERM

			rm -f "$W/p1.data"
			start_perf p1p -F "$hz" -g -a -o "$W/p1.data"
			run_fixed "$iters"; c=$RUN_SECS; cc=$RUN_CPU
			stop_timed "$LAST_PID" "$LAST_TPID" INT

			# the floor: what a sample costs the workload with no stack
			# taken at all (the timer, the perf event, perf's record)
			if [ "$hz" = 997 ]; then
				rm -f "$W/p1.data"
				start_perf p1f -F "$hz" -a -o "$W/p1.data"
				run_fixed "$iters"; fc=$RUN_CPU
				stop_timed "$LAST_PID" "$LAST_TPID" INT
				COST_F[$hz]+=" $(calc "($fc - $ac) / ($hz * $fc) * 1e6")"
			fi

			ALONE[$hz]+=" $a"
			SLOW_B[$hz]+=" $(calc "($b / $a - 1) * 100")"
			SLOW_P[$hz]+=" $(calc "($c / $a - 1) * 100")"
			CPU_B[$hz]+=" $(calc "($bc / $ac - 1) * 100")"
			CPU_P[$hz]+=" $(calc "($cc / $ac - 1) * 100")"
			# the workload's extra CPU per sampling interrupt it took (Hz x its
			# CPU seconds of them), in µs
			COST_B[$hz]+=" $(calc "($bc - $ac) / ($hz * $bc) * 1e6")"
			COST_P[$hz]+=" $(calc "($cc - $ac) / ($hz * $cc) * 1e6")"
		done
	done
	P1_COST_B=${COST_B[997]:-}; P1_COST_P=${COST_P[997]:-}
	header "1. workload slowdown: bench_fixed, $iters iterations x $NCPU threads (one per CPU), $P1_REPS interleaved repeats; median (min..max)"
	for hz in $P1_HZ; do
		row 1 "workload alone, wall time, at the $hz Hz runs" s "${ALONE[$hz]}" "" ""
		row 1 "slowdown (wall) at $hz Hz, -a (perf: -g -a)" % "${SLOW_B[$hz]}" perf "${SLOW_P[$hz]}"
		row 1 "workload CPU time increase at $hz Hz" % "${CPU_B[$hz]}" perf "${CPU_P[$hz]}"
		if [ "$hz" = 997 ]; then
			goal 1 "in-context CPU per sample at $hz Hz" us "${COST_B[$hz]}" perf "${COST_P[$hz]}" 0.8
			row 1 "in-context CPU per sample at $hz Hz, perf record without -g (no stack: the floor)" us \
				"" floor "${COST_F[$hz]}"
			row 1 "in-context CPU per sample at $hz Hz vs that floor" us \
				"${COST_B[$hz]}" floor "${COST_F[$hz]}"
		else
			row 1 "in-context CPU per sample at $hz Hz" us "${COST_B[$hz]}" perf "${COST_P[$hz]}"
		fi
	done
}

# ====================================== peer runs: data for parts 2, 4 and 5
# bpfprof -a and perf record -g -a at the same frequency, at the same time, on
# the same bench_fixed run; BPF statistics on for the run.
PEER_DONE=0
declare -A PEER
peer_add() { PEER[$1]+=" $2"; }
pv() { printf '%s' "${PEER[$1]:-}"; }

peer_runs() {
	[ "$PEER_DONE" = 1 ] && return
	PEER_DONE=1
	local iters rep bp bt pp pt rt rc rt0 rc0 t
	iters=$(iters_for "$P2_SECS")
	P2_ITERS=$iters
	enable_bpf_stats
	for rep in $(seq 1 "$P2_REPS"); do
		log "peer run $rep/$P2_REPS: bpfprof and perf at $P2_HZ Hz, bench_fixed $iters iterations"
		peer_add load_peer "$(cut -d' ' -f1 /proc/loadavg)"
		start_bpfprof p2b -a -F "$P2_HZ" -o "$W/p2.$rep.folded"
		bp=$LAST_PID; bt=$LAST_TPID
		start_perf p2p -F "$P2_HZ" -g -a -o "$W/p2.$rep.data"
		pp=$LAST_PID; pt=$LAST_TPID
		read -r rt0 rc0 <<<"$(bpf_prog_stats "$bp")"
		run_fixed "$iters"
		read -r rt rc <<<"$(bpf_prog_stats "$bp")"
		peer_add maps "$(maps_memlock_mib "$bp")"
		peer_add ring_b "$(ring_mib "$bp")"
		peer_add ring_p "$(ring_mib "$pp")"
		stop_timed "$bp" "$bt" TERM
		stop_timed "$pp" "$pt" INT

		t=$(now_ns)
		/usr/bin/time -v -o "$W/p2s.time" perf script -i "$W/p2.$rep.data" >"$W/p2.$rep.script" 2>"$W/p2s.err"
		awk -f tools/bench/fold_perf.awk "$W/p2.$rep.script" >"$W/p2.$rep.perf.folded"
		rm -f "$W/p2.$rep.script"

		[ $((rc - rc0)) -gt 0 ] && peer_add bpf_ns "$(calc "($rt - $rt0) / ($rc - $rc0)")"
		peer_add cpu_b "$(time_cpu "$W/p2b.time")"
		peer_add cpu_pr "$(time_cpu "$W/p2p.time")"
		peer_add cpu_ps "$(time_cpu "$W/p2s.time")"
		peer_add cpu_p "$(calc "$(time_cpu "$W/p2p.time") + $(time_cpu "$W/p2s.time")")"
		peer_add rss_b "$(time_rss "$W/p2b.time")"
		peer_add rss_pr "$(time_rss "$W/p2p.time")"
		peer_add rss_ps "$(time_rss "$W/p2s.time")"
		peer_add samples_b "$(b_samples "$W/p2b.err")"
		peer_add samples_p "$(p_samples "$W/p2p.err")"
		peer_add lost_b "$(b_lost "$W/p2b.err")"
		peer_add lost_p "$(cat "$W/p2p.err" "$W/p2s.err" | p_lost)"
		peer_add unres_b "$(calc "100 * $(b_unresolved "$W/p2b.err") / $(b_frames "$W/p2b.err")")"
		peer_add us_b "$(calc "$(time_cpu "$W/p2b.time") / $(b_samples "$W/p2b.err") * 1e6")"
		peer_add us_p "$(calc "($(time_cpu "$W/p2p.time") + $(time_cpu "$W/p2s.time")) / $(p_samples "$W/p2p.err") * 1e6")"
		fidelity "$W/p2.$rep.folded" "$W/p2.$rep.perf.folded"
		rm -f "$W/p2.$rep.data"
	done
	restore_bpf_stats
	alone_runs
	stage_runs
	self_profile
}

# the floor: bpf_get_stackid alone, on the same workload (PEER[floor_*])
floor_run() {
	local name ns
	log "floor $1/$FLOOR_REPS: stackid_floor at $P2_HZ Hz for $FLOOR_SECS s"
	"$FIXED" "$(iters_for "$(calc "$FLOOR_SECS + 1")")" >/dev/null &
	STARTED+=("$!")
	sleep 0.2
	"$BB/stackid_floor" -F "$P2_HZ" -d "$FLOOR_SECS" >"$W/floor.out"
	wait "$!" || true
	while read -r name _ _ ns; do
		peer_add "floor_${name#floor_}" "${ns#ns_per_run=}"
	done <"$W/floor.out"
}

# The BPF program per sample of each tool alone on the same workload:
# bpftrace's stack-counting one-liner (issue 16's peer) and bpfprof in each
# call-graph mode it has. PEER[alone_<tool>] gets ns per run.
BPFTRACE_PROG="profile:hz:$P2_HZ { @[kstack, ustack, comm] = count(); }"
# the --call-graph modes bpfprof's --help lists, and which is the default
alone_modes() {
	local m help
	# read whole first: with pipefail, grep -q quitting early can fail the
	# pipe by SIGPIPE and drop a mode at random
	help=$("$BPFPROF" --help 2>&1 | grep -- "--call-graph" || true)
	for m in fp dwarf auto; do
		grep -q -- "--call-graph.*$m" <<<"$help" && printf '%s ' "$m"
	done
	return 0
}
default_mode() { "$BPFPROF" --help 2>&1 | grep -- "--call-graph" | grep -oE '[a-z]+ \(default\)' | cut -d' ' -f1; }
# alone_ns NAME CMD...: runs CMD over bench_fixed, prints its perf_event
# programs' ns per run over FLOOR_SECS after ALONE_WARM s of warm-up
# (attached, dwarf tables built), or NA
alone_ns() {
	local name=$1 wpid tpid rt0 rc0 rt rc; shift
	"$FIXED" "$(iters_for "$(calc "$ALONE_WARM + $FLOOR_SECS + 2")")" >/dev/null &
	wpid=$!; STARTED+=("$wpid")
	"$@" >"$W/$name.out" 2>"$W/$name.err" &
	tpid=$!; STARTED+=("$tpid")
	sleep "$ALONE_WARM"
	read -r rt0 rc0 <<<"$(bpf_prog_stats "$tpid")"
	sleep "$FLOOR_SECS"
	read -r rt rc <<<"$(bpf_prog_stats "$tpid")"
	maps_memlock_mib "$tpid" >"$W/$name.mib"
	# the figures are read: a peer that prints its whole map at SIGINT
	# (bpftrace symbolizes every stack of every process, 14 min once on a
	# busy machine) gets 5 s for it, then SIGKILL
	kill -INT "$tpid" 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$tpid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$tpid" 2>/dev/null || true; wait "$tpid" || true
	kill -TERM "$wpid" 2>/dev/null || true; wait "$wpid" 2>/dev/null || true
	if [ $((rc - rc0)) -gt 0 ]; then calc "($rt - $rt0) / ($rc - $rc0)"; else echo NA; fi
}
alone_runs() {
	local rep m
	enable_bpf_stats
	# one round per repeat, every tool in turn (A B C A B C ...): a ratio
	# is taken within a round (ratios()), so a machine that slows down
	# between rounds moves both sides of it
	for rep in $(seq 1 "$FLOOR_REPS"); do
		peer_add load_alone "$(cut -d' ' -f1 /proc/loadavg)"
		floor_run "$rep"
		if command -v bpftrace >/dev/null; then
			log "alone $rep/$FLOOR_REPS: bpftrace one-liner at $P2_HZ Hz"
			peer_add alone_bpftrace "$(alone_ns alone-bpftrace bpftrace -e "$BPFTRACE_PROG")"
		fi
		for m in default $(alone_modes); do
			[ "$m" = "$(default_mode)" ] && continue	# measured as "default"
			log "alone $rep/$FLOOR_REPS: bpfprof --call-graph $m at $P2_HZ Hz"
			if [ "$m" = default ]; then
				peer_add alone_default "$(alone_ns alone-default "$BPFPROF" -a -F "$P2_HZ" -o "$W/alone.folded")"
			else
				peer_add "alone_$m" "$(alone_ns "alone-$m" "$BPFPROF" -a -F "$P2_HZ" --call-graph "$m" -o "$W/alone.folded")"
			fi
			peer_add "mib_$m" "$(cat "$W/alone-$m.mib")"
		done
		# the cost of the labels: the default without a cgroup in the
		# key (--labels pid,tid,comm: no cgroup id read, no label set)
		log "alone $rep/$FLOOR_REPS: bpfprof --labels pid,tid,comm at $P2_HZ Hz"
		peer_add alone_nolabels "$(alone_ns alone-nolabels "$BPFPROF" -a -F "$P2_HZ" \
			--labels pid,tid,comm -o "$W/alone.pb.gz")"
	done
	restore_bpf_stats
}

# fidelity BPFPROF_FOLDED PERF_FOLDED: top-10 self shares of bench_fixed.
# Appends "function share_bpfprof share_perf |difference|" for the union of
# both top-10s to fid.all, the largest difference to PEER[fid_max].
fidelity() {
	local b=$1 p=$2
	self_shares "$b" bench_fixed >"$W/fid.b"
	self_shares "$p" bench_fixed >"$W/fid.p"
	awk 'FNR == 1 { f++ }
	     f == 1 { sb[$2] = $1; if (FNR <= 10) top[$2] = 1 }
	     f == 2 { sp[$2] = $1; if (FNR <= 10) top[$2] = 1 }
	     END { for (s in top) { d = sb[s] - sp[s]; printf "%s %.4f %.4f %.4f\n", s, sb[s] + 0, sp[s] + 0, d < 0 ? -d : d } }' \
		"$W/fid.b" "$W/fid.p" | sort -k2,2gr >"$W/fid.run"
	cat "$W/fid.run" >>"$W/fid.all"
	peer_add fid_max "$(awk 'BEGIN { m = 0 } { if ($4 + 0 > m) m = $4 + 0 } END { print m }' "$W/fid.run")"
	peer_add fid_samples_b "$(awk '{ split($0, f, ";"); if (f[1] == "bench_fixed") t += $NF } END { print t + 0 }' "$b")"
	peer_add fid_samples_p "$(awk '{ split($0, f, ";"); if (f[1] == "bench_fixed") t += $NF } END { print t + 0 }' "$p")"
}

# ratios "A VALUES" "B VALUES": A_i / B_i of each round i (the rounds of
# alone_runs and peer_runs are interleaved), "NA" where either is missing
ratios() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) printf "%s ", (x[i] + 0 > 0 && y[i] + 0 > 0) ? x[i] / y[i] : "NA" }'
}
# spread "VALUES": (max - min) / median of a list, in %
spread() {
	# shellcheck disable=SC2086
	stats $1 | awk '{ if ($1 == "NA" || $1 + 0 == 0) print "NA"; else printf "%.0f%%", 100 * ($3 - $2) / $1 }'
}
# ratio_row PART FIGURE "A VALUES" "B VALUES" [LIMIT] [LOADS]: the ratio of
# each round, its median (min..max), its spread and (LOADS: the load
# average as each round began) the load; against LIMIT when given
ratio_row() {
	local r note loads
	r=$(ratios "$3" "$4")
	note="spread $(spread "$r")"
	read -ra loads <<<"${6:-}"
	[ "${#loads[@]}" -gt 0 ] && note="$note, load $(IFS=/; echo "${loads[*]}")"
	if [ -n "${5:-}" ]; then
		goal "$1" "$2, per round" x "$r" "" "" "$5" "$note"
	else
		row "$1" "$2, per round" x "$r" "" "" "$note"
	fi
}

# ---------------------------------------------- the BPF program's stages
# bpfprof built with per-stage timers (bpf/stage_timer.bpf.h, bench.mk):
# each stage's ns per sample, the timers' own cost (stage "clock", once
# per mark) taken off. Its order is enum sample_stage's.
STAGE_NAMES="clock entry kstack proc runtime_begin walk walk_loop walk_py walk_mapping walk_jit walk_row walk_step fp_ustack early walk_stats store counts walk_row_hint"
# "index ns calls" per stage, summed over CPUs, from PID's stage_ns map
stage_dump() {
	local f id
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "anon_inode:bpf-map" ] || continue
		id=$(awk '/^map_id:/ { print $2 }' "/proc/$1/fdinfo/${f##*/}" 2>/dev/null)
		[ -n "$id" ] && bpftool map show id "$id" 2>/dev/null | grep -q ' name stage_ns ' || continue
		bpftool -j map dump id "$id" 2>/dev/null |
			jq -r '.[] | .formatted | "\(.key) \([.values[].value.ns] | add) \([.values[].value.calls] | add)"' ||
			true	# it exited in between: no figures
	done
	return 0
}
# stage_run TAG [-p]: the timed bpfprof over bench_fixed (-a, or -p: only
# bench_fixed's samples, the common path: tables in, frame pointers and
# CFI, no Python, no JIT); PEER[stage_TAG_NAME] += ns per sample
stage_run() {
	local tag=$1 wpid tpid target=(-a)
	# long enough for a slow start-up on a busy machine (-p stops when
	# it ends); ended below
	"$FIXED" "$(iters_for "$(calc "$ALONE_WARM + $FLOOR_SECS + 60")")" >/dev/null &
	wpid=$!; STARTED+=("$wpid")
	[ "${2:-}" = -p ] && target=(-p "$wpid")
	"$BB/stages/bpfprof" "${target[@]}" -F "$P2_HZ" -o "$W/stages.folded" >"$W/stages.out" 2>"$W/stages.err" &
	tpid=$!; STARTED+=("$tpid")
	wait_ready bpfprof "$tpid"
	sleep "$ALONE_WARM"
	stage_dump "$tpid" >"$W/stages.0"
	sleep "$FLOOR_SECS"
	stage_dump "$tpid" >"$W/stages.1"
	kill -INT "$tpid" 2>/dev/null || true; wait "$tpid" || true
	kill -TERM "$wpid" 2>/dev/null || true; wait "$wpid" 2>/dev/null || true
	# per sample: the stage's time less one clock per mark, over the
	# samples that got past the filters (the "entry" stage's marks); 0
	# when under the clock's own (a stage cheaper than the timer's noise)
	paste "$W/stages.0" "$W/stages.1" | awk -v names="$STAGE_NAMES" '
		BEGIN { split(names, nm, " ") }
		{ ns[$1] = $5 - $2; calls[$1] = $6 - $3 }
		END { clk = calls[0] ? ns[0] / calls[0] : 0; n = calls[1]
		      for (i = 1; i in nm; i++) if (i - 1 in ns && n > 0)
			printf "%s %.1f %.2f\n", nm[i], max0(ns[i - 1] - calls[i - 1] * clk) / n, calls[i - 1] / n }
		function max0(v) { return v > 0 ? v : 0 }' \
		>"$W/stages.$tag"
	local name v per
	while read -r name v per; do
		peer_add "stage_${tag}_$name" "$v"
		peer_add "stagecalls_${tag}_$name" "$per"
	done <"$W/stages.$tag"
}
stage_runs() {
	local rep
	[ -x "$BB/stages/bpfprof" ] || { log "no $BB/stages/bpfprof: make bench-build"; return; }
	for rep in $(seq 1 "$FLOOR_REPS"); do
		log "stages $rep/$FLOOR_REPS: bpfprof with stage timers, -a, then -p bench_fixed"
		peer_add load_stages "$(cut -d' ' -f1 /proc/loadavg)"
		stage_run all
		stage_run common -p
	done
}

# --------------------------------------- where bpfprof's own CPU goes
# perf record --call-graph dwarf on the bpfprof process of a -a run as part
# 2's (P2_SECS at P2_HZ over bench_fixed): its samples by phase, the first
# phase of SELF_PHASES (in its order) one of whose functions is on the
# stack, as that run's CPU seconds ($W/p2self.phases: "phase seconds").
# bpfprof runs under perf, so every thread it starts is followed (perf -p
# PID follows only the threads there when it attaches: the table builder
# and the tracker's reader came later and were missed). Early copies come
# before tables and tracking: they are walked as records are read and as
# processes are synced.
SELF_PHASES="start-up:bpf_object__load|session__load|run__load|bpf_prog_load
early_copies:early_walks__|replay__|early__take|walk_if_
tables:unwind_table__|unwinder__sync|sync_one|rowstore__|cfi_|walk_fdes|builder__
naming:resolve__|symbolizer__|ksyms__|dwarf_lines__|dwfl_|dwarf_|elf_syms__|elf_compress|inflate
writing:run__write_profile|output__|folded__|pprof__|gzip__
drain:collector__collect|drain__|run__collect
tracking:consume_tracking|tracker__|procs__|proc_maps__|read_buffers
uprobe_traps:asm_exc_debug"
self_profile() {
	local iters bpid="" tpid="" ppid i
	iters=$(iters_for "$P2_SECS")
	log "self profile: perf record --call-graph dwarf on bpfprof -a at $P2_HZ Hz, bench_fixed $iters iterations"
	perf record -q --call-graph dwarf,16384 -F 499 -o "$W/p2self.data" -- \
		/usr/bin/time -v -o "$W/p2self.time" "$BPFPROF" --stats "$W/p2self.json" -a -F "$P2_HZ" \
		-o "$W/p2self.folded" >"$W/p2self.out" 2>"$W/p2self.err" &
	ppid=$!; STARTED+=("$ppid")
	for i in $(seq 1 500); do	# perf's child is time, time's is bpfprof
		tpid=$(pgrep -P "$ppid" | head -1 || true)
		[ -n "$tpid" ] && bpid=$(pgrep -P "$tpid" | head -1 || true)
		[ -n "$bpid" ] && break
		sleep 0.01
	done
	[ -n "$bpid" ] || die "bpfprof under perf record did not start"
	STARTED+=("$bpid")
	wait_ready bpfprof "$bpid"
	run_fixed "$iters"
	kill -TERM "$bpid"
	wait "$ppid" || true
	perf script -i "$W/p2self.data" 2>/dev/null | awk -f tools/bench/fold_perf.awk >"$W/p2self.perf.folded"
	rm -f "$W/p2self.data"
	awk -v phases="$(tr '\n' ' ' <<<"$SELF_PHASES")" -v cpu="$(time_cpu "$W/p2self.time")" '
		BEGIN { n = split(phases, line, " ")
			for (i = 1; i <= n; i++) { split(line[i], kv, ":"); name[i] = kv[1]; re[i] = kv[2] } }
		/^time;/ { next }	# /usr/bin/time, between perf and bpfprof
		{ c = $NF; tot += c; hit = "other"
		  for (i = 1; i <= n; i++) if ($0 ~ re[i]) { hit = name[i]; break }
		  by[hit] += c }
		END { for (i = 1; i <= n; i++) printf "%s %.4f\n", name[i], tot ? cpu * by[name[i]] / tot : 0
		      printf "other %.4f\n", tot ? cpu * by["other"] / tot : 0 }' "$W/p2self.perf.folded" >"$W/p2self.phases"
	SELF_CPU=$(time_cpu "$W/p2self.time")
}

# ================================================== 2. the profiler's own cost
part2() {
	peer_runs
	header "2. the profiler's own cost: bpfprof -a and perf record -g -a at $P2_HZ Hz together on bench_fixed ($P2_ITERS iterations x $NCPU threads, ~${P2_SECS} s), $P2_REPS repeats"
	row 2 "CPU of bpfprof vs perf record" s "$(pv cpu_b)" perf "$(pv cpu_pr)"
	row 2 "CPU of bpfprof vs perf record + perf script" s "$(pv cpu_b)" perf "$(pv cpu_p)"
	ratio_row 2 "CPU of bpfprof / (perf record + perf script)" "$(pv cpu_b)" "$(pv cpu_p)" 0.8 "$(pv load_peer)"
	ratio_row 2 "CPU of bpfprof / perf record" "$(pv cpu_b)" "$(pv cpu_pr)" "" "$(pv load_peer)"
	row 2 "CPU of perf script alone" s "" perf "$(pv cpu_ps)"
	row 2 "user-space CPU per sample" us "$(pv us_b)" perf "$(pv us_p)"
	ratio_row 2 "user-space CPU per sample, bpfprof / perf" "$(pv us_b)" "$(pv us_p)" 1.0 "$(pv load_peer)"
	if [ -s "$W/p2self.phases" ]; then
		local phase secs
		while read -r phase secs; do
			row 2 "bpfprof's CPU by phase (perf on it, one run of ${SELF_CPU} s): $phase" s "$secs" "" ""
		done <"$W/p2self.phases"
	fi
	row 2 "samples taken" "" "$(pv samples_b)" perf "$(pv samples_p)"
	row 2 "samples lost (bpfprof summary; perf: lost chunks)" "" "$(pv lost_b)" perf "$(pv lost_p)"
	row 2 "frames unresolved (bpfprof summary)" % "$(pv unres_b)" "" ""
	[ -n "${P1_COST_B:-}" ] &&
		row 2 "in-context CPU per sample at 997 Hz (part 1)" us "$P1_COST_B" perf "$P1_COST_P"
	row 2 "BPF program per sample (bpf_stats) vs floor" ns "$(pv bpf_ns)" floor "$(pv floor_both)"
	row 2 "floor: bpf_get_stackid kernel + user" ns "$(pv floor_both)" "" ""
	row 2 "floor: bpf_get_stackid kernel stack" ns "$(pv floor_kstack)" "" ""
	row 2 "floor: bpf_get_stackid user stack" ns "$(pv floor_ustack)" "" ""
	row 2 "floor: an empty program (stats overhead)" ns "$(pv floor_empty)" "" ""
	if [ -n "$(pv alone_bpftrace)" ]; then
		goal 2 "BPF per sample alone, default mode, vs bpftrace one-liner" ns \
			"$(pv alone_default)" bpftrace "$(pv alone_bpftrace)" 1.0
	else
		row_na 2 "BPF per sample alone, default mode, vs bpftrace one-liner" "bpftrace missing: make bench-deps"
	fi
	goal 2 "BPF per sample alone, default mode, vs floor" ns "$(pv alone_default)" floor "$(pv floor_both)" 1.2
	ratio_row 2 "BPF per sample alone, default mode / floor" "$(pv alone_default)" "$(pv floor_both)" 1.2 "$(pv load_alone)"
	[ -n "$(pv alone_bpftrace)" ] &&
		ratio_row 2 "BPF per sample alone, default mode / bpftrace" "$(pv alone_default)" "$(pv alone_bpftrace)" 1.0 "$(pv load_alone)"
	local st loads
	read -ra loads <<<"$(pv load_stages)"
	for st in $STAGE_NAMES; do
		[ "$st" = clock ] && continue
		row 2 "BPF stage $st (stage timers), ns per sample: -a / -p bench_fixed" ns \
			"$(pv "stage_all_$st")" "common" "$(pv "stage_common_$st")" \
			"${loads[*]:+load $(IFS=/; echo "${loads[*]}")}"
	done
	row 2 "BPF per sample alone: cgroup labels (default) vs none (--labels pid,tid,comm)" ns \
		"$(pv alone_default)" "no labels" "$(pv alone_nolabels)"
	local m
	for m in $(alone_modes); do
		if [ "$m" = "$(default_mode)" ]; then
			row 2 "BPF per sample alone, --call-graph $m (default), vs bpftrace" ns "$(pv alone_default)" bpftrace "$(pv alone_bpftrace)"
		else
			row 2 "BPF per sample alone, --call-graph $m, vs bpftrace" ns "$(pv "alone_$m")" bpftrace "$(pv alone_bpftrace)"
		fi
	done
}

# ================================================= 3. time to a flame graph
declare -A P3
p3_add() { P3[$1]+=" $2"; }
p3v() { printf '%s' "${P3[$1]:-}"; }

part3() {
	local cache t0 t1 t2
	log "part 3: bench_stacks (-L $BB) for $P3_SECS s at $P3_HZ Hz, bpfprof --max-stacks $P3_MAX_STACKS, then perf; page cache: $P3_CACHES"
	for cache in $P3_CACHES; do
		# bpfprof, with its end-of-run phases timed by uprobes
		start_bpfprof p3b -a -F "$P3_HZ" --max-stacks "$P3_MAX_STACKS" -o "$W/p3.$cache.folded"
		local bp=$LAST_PID bt=$LAST_TPID
		"$BB/fn_timer" -p "$bp" -b "$BPFPROF" drain__collect ksyms__load ksyms__load_wait \
			resolve__drained folded__write >"$W/fn_timer.out" 2>"$W/fn_timer.err" &
		local ft=$!
		STARTED+=("$ft")
		for _ in $(seq 1 500); do grep -q ready "$W/fn_timer.out" 2>/dev/null && break; sleep 0.01; done
		"$STACKS" -L "$BB" "$P3_SECS"
		p3_add maps_b "$(maps_memlock_mib "$bp")"
		[ "$cache" = cold ] && drop_caches
		stop_timed "$bp" "$bt" TERM
		wait "$ft" || true
		p3_add "end_b_$cache" "$STOP_SECS"
		p3_add rss_b "$(time_rss "$W/p3b.time")"
		p3_add lost_b "$(calc "100 * $(b_lost "$W/p3b.err") / $(b_samples "$W/p3b.err")")"
		p3_add unres_b "$(calc "100 * $(b_unresolved "$W/p3b.err") / $(b_frames "$W/p3b.err")")"
		p3_add stacks_b "$(wc -l <"$W/p3.$cache.folded")"
		# kernel symbols at the end: the wait for the thread that read them
		# while sampling (ksyms__load_wait), or, in a bpfprof without it,
		# ksyms__load itself; the thread's own time is a row of its own
		local phase ns sym=0 have=1 kphase=ksyms__load
		grep -q '^ksyms__load_wait calls=' "$W/fn_timer.out" && kphase=ksyms__load_wait
		for phase in drain__collect $kphase resolve__drained folded__write; do
			ns=$(sed -nE "s/^$phase calls=[0-9]+ ns=([0-9]+)/\\1/p" "$W/fn_timer.out")
			if [ -z "$ns" ]; then have=0; continue; fi
			p3_add "ph_${phase%_wait}_$cache" "$(calc "$ns / 1e9")"
			case $phase in ksyms__load*|resolve__drained) sym=$((sym + ns)) ;; esac
		done
		if [ "$kphase" = ksyms__load_wait ]; then
			ns=$(sed -nE "s/^ksyms__load calls=[1-9][0-9]* ns=([0-9]+)/\\1/p" "$W/fn_timer.out")
			[ -n "$ns" ] && p3_add "ksyms_thread_$cache" "$(calc "$ns / 1e9")"
		fi
		if [ "$have" = 1 ] && [ "$sym" -gt 0 ]; then
			p3_add "fps_$cache" "$(calc "$(b_frames "$W/p3b.err") / ($sym / 1e9)")"
		fi
		p3_add frames_b "$(b_frames "$W/p3b.err")"

		# perf: record, stop, perf script, fold
		rm -f "$W/p3.data"
		start_perf p3p -F "$P3_HZ" -g -a -o "$W/p3.data"
		local pp=$LAST_PID pt=$LAST_TPID
		"$STACKS" -L "$BB" "$P3_SECS"
		[ "$cache" = cold ] && drop_caches
		stop_timed "$pp" "$pt" INT
		t0=$(now_ns)
		/usr/bin/time -v -o "$W/p3s.time" perf script -i "$W/p3.data" >"$W/p3.script" 2>"$W/p3s.err"
		t1=$(now_ns)
		awk -f tools/bench/fold_perf.awk "$W/p3.script" >"$W/p3.$cache.perf.folded"
		t2=$(now_ns)
		p3_add "rec_stop_$cache" "$STOP_SECS"
		p3_add "script_$cache" "$(secs_between "$t0" "$t1")"
		p3_add "fold_$cache" "$(secs_between "$t1" "$t2")"
		p3_add "end_p_$cache" "$(calc "$STOP_SECS + $(secs_between "$t0" "$t2")")"
		p3_add rss_pr "$(time_rss "$W/p3p.time")"
		p3_add rss_ps "$(time_rss "$W/p3s.time")"
		p3_add stacks_p "$(wc -l <"$W/p3.$cache.perf.folded")"
		p3_add data_mib "$(awk -v b="$(stat -c %s "$W/p3.data")" 'BEGIN { printf "%.1f", b / 1048576 }')"
		log "part 3 ($cache): bpfprof end of run $(p3v "end_b_$cache") s; perf: record stop $STOP_SECS s, script $(secs_between "$t0" "$t1") s, fold $(secs_between "$t1" "$t2") s"
		rm -f "$W/p3.script" "$W/p3.data"
	done

	header "3. time to a flame graph: bench_stacks (executable + 4 libraries, 3..7 deep, kernel paths), $P3_SECS s at $P3_HZ Hz, bpfprof --max-stacks $P3_MAX_STACKS; the cold and the warm run"
	local fewest
	# shellcheck disable=SC2046
	fewest=$(stats $(p3v stacks_b) $(p3v stacks_p) | awk '{ print $2 }')
	row 3 "distinct stacks in the folded output" "" "$(p3v stacks_b)" perf "$(p3v stacks_p)" \
		"$(awk -v m="$P3_MIN_STACKS" -v f="$fewest" 'BEGIN { if (f < m) print "(fewer than " m ")" }')"
	goal 3 "end of sampling -> folded file, page cache cold" s "$(p3v end_b_cold)" perf "$(p3v end_p_cold)" 0.2
	[ -n "$(p3v end_b_warm)" ] &&
		goal 3 "end of sampling -> folded file, page cache warm" s "$(p3v end_b_warm)" perf "$(p3v end_p_warm)" 0.2
	row 3 "perf: record stop (cold, warm)" s "" perf "$(p3v rec_stop_cold) $(p3v rec_stop_warm)"
	row 3 "perf script alone vs bpfprof end of run, cold" s "$(p3v end_b_cold)" perf "$(p3v script_cold)"
	row 3 "perf script alone vs bpfprof end of run, warm" s "$(p3v end_b_warm)" perf "$(p3v script_warm)"
	row 3 "perf: folding the script (awk, cold, warm)" s "" perf "$(p3v fold_cold) $(p3v fold_warm)"
	row 3 "perf.data size" MiB "" perf "$(p3v data_mib)"
	if [ -n "$(p3v fps_cold)" ]; then
		local cache2
		for cache2 in $P3_CACHES; do
			row 3 "bpfprof phases ($cache2): read maps" s "$(p3v "ph_drain__collect_$cache2")" "" ""
			row 3 "bpfprof phases ($cache2): kernel symbols, at the end" s "$(p3v "ph_ksyms__load_$cache2")" "" ""
			[ -n "$(p3v "ksyms_thread_$cache2")" ] &&
				row 3 "bpfprof ($cache2): kernel symbols read on a thread while sampling" s \
					"$(p3v "ksyms_thread_$cache2")" "" ""
			row 3 "bpfprof phases ($cache2): symbolize + aggregate" s "$(p3v "ph_resolve__drained_$cache2")" "" ""
			row 3 "bpfprof phases ($cache2): write folded" s "$(p3v "ph_folded__write_$cache2")" "" ""
		done
		row 3 "symbolization alone, page cache cold" "frames/s" "$(p3v fps_cold)" "" ""
		row 3 "symbolization alone, page cache warm" "frames/s" "$(p3v fps_warm)" "" ""
		row 3 "frames symbolized (bpfprof summary)" "" "$(p3v frames_b)" "" ""
	else
		row_na 3 "symbolization alone (frames/s)" "bpfprof has no symbol ksyms__load/resolve__drained to time"
	fi
	row 3 "samples lost (bpfprof summary)" % "$(p3v lost_b)" "" ""
	row 3 "frames unresolved (bpfprof summary)" % "$(p3v unres_b)" "" ""
}

# ================================================================ 4. memory
part4() {
	peer_runs
	header "4. memory: peak RSS (/usr/bin/time -v) and kernel-side buffers"
	row 4 "peak RSS, bench_fixed at $P2_HZ Hz: bpfprof vs perf record" MiB "$(pv rss_b)" perf "$(pv rss_pr)"
	row 4 "peak RSS, bench_fixed at $P2_HZ Hz: bpfprof vs perf script" MiB "$(pv rss_b)" perf "$(pv rss_ps)"
	if [ -n "$(p3v rss_b)" ]; then
		row 4 "peak RSS, bench_stacks: bpfprof vs perf record" MiB "$(p3v rss_b)" perf "$(p3v rss_pr)"
		row 4 "peak RSS, bench_stacks: bpfprof vs perf script" MiB "$(p3v rss_b)" perf "$(p3v rss_ps)"
	fi
	goal 4 "BPF maps (memlock, inner maps included), default one-shot run" MiB "$(pv maps)" "" "" 16
	local m
	for m in default $(alone_modes); do
		[ -n "$(pv "mib_$m")" ] || continue
		row 4 "BPF maps (memlock, inner maps included), alone, --call-graph $([ "$m" = default ] && echo "$(default_mode) (default)" || echo "$m")" \
			MiB "$(pv "mib_$m")" "" ""
	done
	[ -n "$(p3v maps_b)" ] &&
		row 4 "BPF maps (memlock), --max-stacks $P3_MAX_STACKS" MiB "$(p3v maps_b)" "" ""
	row 4 "perf ring buffers mapped" MiB "$(pv ring_b)" perf "$(pv ring_p)"
	local kb="" i m r
	for i in $(seq 1 "$P2_REPS"); do
		m=$(awk -v i="$i" '{ print $i }' <<<"$(pv maps)")
		r=$(awk -v i="$i" '{ print $i }' <<<"$(pv ring_b)")
		kb+=" $(calc "$m + $r")"
	done
	row 4 "kernel buffers: BPF maps + ring buffers" MiB "$kb" perf "$(pv ring_p)"
}

# ============================================================== 5. fidelity
part5() {
	peer_runs
	header "5. fidelity: self shares of bench_fixed's samples, bpfprof and perf at $P2_HZ Hz in the same runs (union of both top-10s)"
	local fn
	for fn in $(awk '{ print $1 }' "$W/fid.all" | awk '!seen[$1]++'); do
		row 5 "share of $fn" % "$(awk -v f="$fn" '$1 == f { print $2 }' "$W/fid.all")" \
			perf "$(awk -v f="$fn" '$1 == f { print $3 }' "$W/fid.all")"
	done
	row 5 "samples of bench_fixed" "" "$(pv fid_samples_b)" perf "$(pv fid_samples_p)"
	row 5 "largest absolute difference" "pp" "$(pv fid_max)" "" ""
}

# ============================================================ 6. fleet cost
# p6_figure COND FIGURE UNIT VALUE LIMIT: issue 16's goals are the busy
# machine's, over its 10 minutes; the idle run is shorter, and its start-up
# (the verifier, kallsyms, the first tables: 0.3 s of CPU) weighs 5x more
# in it, so there the figure is a plain row.
p6_figure() {
	if [ "$1" = busy ]; then
		goal 6 "$2" "$3" "$4" "" "" "$5"
	else
		row 6 "$2" "$3" "$4" "" ""
	fi
}

part6() {
	header "6. fleet cost: bpfprof --interval $P6_INTERVAL --output-dir DIR -F $P6_HZ, $P6_SECS s idle, $P6_SECS_BUSY s busy"
	# grep reads the whole help: -q would stop at the match, and bpfprof's
	# SIGPIPE fails the pipeline under pipefail (part 6 read "no --interval")
	if ! "$BPFPROF" --help 2>&1 | grep -- '--interval' >/dev/null; then
		local c
		for c in idle busy; do
			row_na 6 "sampler CPU, $c machine (% of one core)" "this bpfprof has no --interval"
			row_na 6 "sampler peak RSS, $c machine (MiB)" "this bpfprof has no --interval"
		done
		return
	fi
	local cond wpid="" rss files secs cpu0 cpu1 tick
	tick=$(getconf CLK_TCK)
	for cond in idle busy; do
		secs=$P6_SECS
		[ "$cond" = busy ] && secs=$P6_SECS_BUSY
		log "part 6: fleet mode, $cond machine, $secs s"
		rm -rf "$W/fleet-$cond"; mkdir -p "$W/fleet-$cond"
		if [ "$cond" = busy ]; then
			"$STACKS" -L "$BB" "$(calc "$secs + 10")" &
			wpid=$!; STARTED+=("$wpid")
		fi
		start_bpfprof p6 --interval "$P6_INTERVAL" --output-dir "$W/fleet-$cond" -F "$P6_HZ"
		local bp=$LAST_PID bt=$LAST_TPID
		# one reading after the first interval, one at the end: a reader
		# forking every second would be processes the sampler tracks,
		# whose files it opens, on a machine that is otherwise idle
		sleep "$(calc "$P6_INTERVAL + 1")"
		cpu0=$(awk '{ print $14 + $15 }' "/proc/$bp/stat")
		sleep "$(calc "$secs - $P6_INTERVAL - 1")"
		cpu1=$(awk '{ print $14 + $15 }' "/proc/$bp/stat")
		rss=$(awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$bp/status")
		stop_timed "$bp" "$bt" TERM
		if [ -n "$wpid" ]; then kill -TERM "$wpid" 2>/dev/null || true; wait "$wpid" || true; wpid=""; fi
		files=$(find "$W/fleet-$cond" -type f \( -name '*.folded' -o -name '*.pb.gz' \) | wc -l)
		log "part 6 ($cond): $files profiles written"
		p6_figure "$cond" "sampler CPU, $cond machine, start-up included" "% of one core" \
			"$(calc "100 * $(time_cpu "$W/p6.time") / $(time_wall "$W/p6.time")")" 0.1
		row 6 "sampler CPU from its first interval on, $cond machine" "% of one core" \
			"$(calc "100 * ($cpu1 - $cpu0) / $tick / ($secs - $P6_INTERVAL - 1)")" "" ""
		p6_figure "$cond" "sampler peak RSS, $cond machine" MiB "$(time_rss "$W/p6.time")" 20
		row 6 "sampler RSS at the end, $cond machine" MiB "$rss" "" ""
	done
}

# ================================== 7. --call-graph auto vs fp vs dwarf
# One mode's run of WORKLOAD ARGS at P7_HZ system-wide: sets P7_NS (BPF
# program ns per sample), P7_MIB (kernel memory: the memlock of bpfprof's
# maps, the unwind rows' inner maps included),
# P7_LINE (the unwind tables line).
p7_run() {
	local mode=$1 name=$2 bp bt stats wpid; shift 2
	"$@" >/dev/null 2>&1 &
	wpid=$!; STARTED+=("$wpid")
	start_bpfprof "p7-$mode-$name" --call-graph "$mode" -a -F "$P7_HZ" -o "$W/p7-$mode-$name.folded"
	bp=$LAST_PID bt=$LAST_TPID
	sleep "$P7_SECS"
	stats=$(bpf_prog_stats "$bp")
	P7_MIB=$(maps_memlock_mib "$bp")
	stop_timed "$bp" "$bt" INT
	kill -TERM "$wpid" 2>/dev/null || true; wait "$wpid" 2>/dev/null || true
	P7_NS=$(awk -v s="$stats" 'BEGIN { split(s, a, " "); if (a[2]) printf "%.0f", a[1] / a[2]; else print "" }')
	P7_LINE=$(tables_line "$W/p7-$mode-$name.json")
}

# p7_target NAME BPFPROF-OPTS... -- WORKLOAD...: bpfprof -p on the workload
# alone at P7_HZ in dwarf mode: sets P7_NS, the BPF programs' run time over
# the samples the run recorded (the filtered-out runs on other CPUs cost a
# few percent of that, included), and P7_DEPTH, the frames of its most
# counted stack holding a frame that matches P7_LEAF (an ERE).
p7_target() {
	local name=$1 opts=() bp bt stats wpid n; shift
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	"$@" >/dev/null 2>&1 &
	wpid=$!; STARTED+=("$wpid")
	sleep 0.3	# past the interpreter's start
	start_bpfprof "p7-$name" --call-graph dwarf "${opts[@]}" -p "$wpid" -F "$P7_HZ" \
		-o "$W/p7-$name.folded"
	bp=$LAST_PID bt=$LAST_TPID
	sleep "$P7_SECS"
	stats=$(bpf_prog_stats "$bp")
	P7_ENTRY=""
	[ -z "${P7_MAP:-}" ] || P7_ENTRY=$(map_entry_bytes "$bp" "$P7_MAP") || true
	stop_timed "$bp" "$bt" INT
	kill -TERM "$wpid" 2>/dev/null || true; wait "$wpid" 2>/dev/null || true
	n=$(sed -nE 's/^bpfprof: ([0-9]+) samples, .*/\1/p' "$W/p7-$name.err" | tail -1)
	P7_NS=$(awk -v s="$stats" -v n="${n:-0}" 'BEGIN { split(s, a, " "); if (n) printf "%.0f", a[1] / n; else print "" }')
	P7_DEPTH=$({ grep -E "$P7_LEAF" "$W/p7-$name.folded" || true; } | sort -t' ' -k2 -nr |
		awk 'NR == 1 { sub(/ [0-9]+$/, ""); print split($0, f, ";") - 1 }')
}

# Python frames: a Python chain against the same process without them and
# against a C process whose stacks are as deep.
p7_python() {
	local py_ns off_ns c_ns depth secs
	secs=$(calc "$P7_SECS + 5")
	log "part 7: python3 py_chain.py with Python frames, without, and C of the same depth"
	P7_LEAF='hot \(py_chain'
	p7_target py -- /usr/bin/python3 "$ROOT/examples/py_chain.py" "$secs"; py_ns=$P7_NS depth=$P7_DEPTH
	p7_target py-off --no-python -- /usr/bin/python3 "$ROOT/examples/py_chain.py" "$secs"; off_ns=$P7_NS
	# nofp_depth's stack: _start, two libc frames, main, DEPTH descents, the spin
	P7_LEAF=';nofp_spin'
	p7_target c-depth -- "$EX/nofp_depth" "$secs" "$(( ${depth:-20} > 5 ? ${depth:-20} - 5 : 1 ))"
	c_ns=$P7_NS
	row 7 "BPF program per sample, python3 chain (Python frames) vs C as deep" ns "$py_ns" \
		"C" "$c_ns" "(${depth:-?} frames, $P7_DEPTH in C)"
	row 7 "BPF program per sample, python3 chain: Python frames vs --no-python" ns "$py_ns" \
		"no-python" "$off_ns"
}

# Issue 39: the BPF program per sample of a node and a Java process, their
# walkers on (V8's frames walked; HotSpot's code stepped by frame
# pointers), against a native chain, all at the default (--call-graph
# auto). The JVM gets a second to start and compile its chain first.
p7_runtimes() {
	local node_ns java_ns c_ns node_d java_d secs
	# long enough for bpfprof to start on a loaded machine; killed after
	secs=$(calc "$P7_SECS + 30")
	log "part 7: node node_chain.js and java JavaChain (no flags) vs a native chain, --call-graph auto"
	P7_LEAF='leaf' P7_MAP=v8_procs
	p7_target node --call-graph auto -- node "$ROOT/examples/node_chain.js" "$secs"
	node_ns=$P7_NS node_d=$P7_DEPTH
	row 7 "kernel memory a V8 process takes (its v8_procs entry)" B "$P7_ENTRY" "" ""
	P7_MAP=py_procs
	p7_target py-entry --call-graph auto -- /usr/bin/python3 "$ROOT/examples/py_chain.py" "$secs"
	row 7 "kernel memory a CPython process takes (its py_procs entry)" B "$P7_ENTRY" "" ""
	P7_MAP=""
	if [ -f "$EX/java/JavaChain.class" ] && command -v java >/dev/null; then
		P7_LEAF='JavaChain\.'
		p7_target java --call-graph auto -- java -cp "$EX/java" JavaChain "$secs"
		java_ns=$P7_NS java_d=$P7_DEPTH
	fi
	P7_LEAF=';nofp_hot'
	p7_target c-chain --call-graph auto -- "$EX/nofp_chain" "$secs"; c_ns=$P7_NS
	row 7 "BPF program per sample, node node_chain.js (V8 walker) vs a native chain" ns \
		"$node_ns" "C" "$c_ns" "(${node_d:-?} frames, $P7_DEPTH in C)"
	if [ -n "${java_ns:-}" ]; then
		row 7 "BPF program per sample, java JavaChain (HotSpot) vs a native chain" ns \
			"$java_ns" "C" "$c_ns" "(${java_d:-?} frames)"
	else
		row_na 7 "BPF program per sample, java JavaChain (HotSpot) vs a native chain" \
			"no java or no $EX/java/JavaChain.class (make examples)"
	fi
}

part7() {
	header "7. --call-graph auto (default) vs fp vs dwarf: user stacks of code without frame pointers, $P7_HZ Hz, -a, $P7_SECS s"
	enable_bpf_stats
	local w m ns=() mib=() ulines=()
	for w in nofp_chain python3; do
		local cmd=("$EX/nofp_chain" "$(calc "$P7_SECS + 5")")
		[ "$w" = python3 ] && cmd=(/usr/bin/python3.11 -c "import time
t = time.time()
while time.time() - t < $(calc "$P7_SECS + 5"): sum(i * i for i in range(1000))")
		for m in 0 1 2; do
			local mode; mode=$(cut -d' ' -f$((m + 1)) <<<"fp auto dwarf")
			log "part 7: $w, --call-graph $mode"
			p7_run "$mode" "$w" "${cmd[@]}"; ns[m]=$P7_NS; mib[m]=$P7_MIB; ulines[m]=$P7_LINE
		done
		row 7 "BPF program per sample, $w: auto vs fp" ns "${ns[1]}" fp "${ns[0]}"
		row 7 "BPF program per sample, $w: dwarf vs fp" ns "${ns[2]}" fp "${ns[0]}"
		row 7 "kernel memory (maps + unwind rows), $w: auto vs fp" MiB "${mib[1]}" fp "${mib[0]}"
		row 7 "kernel memory (maps + unwind rows), $w: dwarf vs fp" MiB "${mib[2]}" fp "${mib[0]}"
		for m in 1 2; do
			local mode; mode=$(cut -d' ' -f$((m + 1)) <<<"fp auto dwarf")
			row 7 "unwind rows loaded at the peak (all processes' files), $w, $mode" rows \
				"$(sed -nE 's/.*, peak ([0-9]+),.*/\1/p' <<<"${ulines[m]}")" "" "" \
				"($(sed -nE 's/.*: ([0-9]+) files loaded.*/\1/p' <<<"${ulines[m]}") files loaded, $(sed -nE 's/.*, ([0-9]+) walked by frame pointers.*/\1/p' <<<"${ulines[m]}") walked by frame pointers)"
			row 7 "unwind tables build time, $w, $mode" s \
				"$(sed -nE 's/.*, ([0-9.]+) s building.*/\1/p' <<<"${ulines[m]}")" "" ""
		done
	done
	p7_python
	p7_runtimes
	restore_bpf_stats
	local f line
	for f in /lib/x86_64-linux-gnu/libc.so.6 /usr/bin/python3.11; do
		line=$("$BB/unwind_cost" "$f" 2>/dev/null) || { row_na 7 "unwind table of ${f##*/}" "cannot build"; continue; }
		read -r _ rows bytes msecs <<<"$line"
		row 7 "unwind table of ${f##*/}: build time" ms "$msecs" "" "" "($rows rows, $(calc "$bytes / 1048576") MiB)"
	done
}

# ============================================ 8. the flame graph page, big
# Time from navigation to the first drawn canvas (the page's own
# performance.now() after its first draw, which includes reading and
# parsing the HTML and its data), for synthetic stacks shaped like a
# program's (tools/bench/gen_stacks.awk).
part8() {
	header "8. the flame graph page: $P8_STACKS distinct stacks in headless Chromium, first paint (budget $P8_BUDGET_MS ms)"
	command -v chromium >/dev/null || { row_na 8 "first paint" "chromium is not installed (make deps)"; return; }
	awk -v n="$P8_STACKS" -f tools/bench/gen_stacks.awk >"$W/p8.folded"
	local t0 t1 dom paint nodes prof
	t0=$(now_ns)
	"$BPFPROF" flamegraph "$W/p8.folded" -o "$W/p8.html"
	t1=$(now_ns)
	prof=$(mktemp -d "$W/chrome.XXXXXX")
	dom=$(timeout 300 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--no-first-run --user-data-dir="$prof" --dump-dom "file://$W/p8.html" 2>/dev/null) || true
	rm -rf "$prof"
	paint=$(sed -nE 's/.*data-paint-ms="([0-9.]+)".*/\1/p' <<<"$dom")
	nodes=$(sed -nE 's/.*data-nodes="([0-9]+)".*/\1/p' <<<"$dom")
	row 8 "bpfprof flamegraph: folded -> page" s "$(secs_between "$t0" "$t1")" "" ""
	row 8 "page size" MiB "$(calc "$(stat -c %s "$W/p8.html") / 1048576")" "" "" "($nodes tree nodes)"
	if [ -z "$paint" ]; then
		row_na 8 "first paint" "the page did not draw"
		return
	fi
	row 8 "first paint (navigation -> canvas drawn)" ms "$paint" "budget" "$P8_BUDGET_MS" \
		"$(awk -v p="$paint" -v b="$P8_BUDGET_MS" 'BEGIN { print (p <= b) ? "within budget" : "OVER BUDGET" }')"
	row 8 "  of which parse the data, lay out" ms \
		"$(sed -nE 's/.*data-parse-ms="([0-9.]+)".*/\1/p' <<<"$dom")" "" "" \
		"layout $(sed -nE 's/.*data-layout-ms="([0-9.]+)".*/\1/p' <<<"$dom") ms"
}

# ================================ 10. a build: make -j2 of examples/cproject
# 13 files of gcc -O2 (no frame pointers: cc1 neither), built alone, under
# bpfprof's default mode and under perf record -g and --call-graph dwarf,
# all at 99 Hz over every process of the build: the build's wall time
# (the slowdown a developer notices), how many of cc1's samples reach its
# entry, and what bpfprof's tables cost.
P10_ROOTS='^(_start|__libc_start_main|__libc_start_call_main|main)$'
p10_make() { make -s -C examples/cproject O="$W/cp" -j2 >/dev/null; }

# p10_run NAME CMD...: the build from clean under CMD (nothing: alone);
# its wall seconds into P10_WALL, and CMD's own peak RSS in MiB into
# P10_RSS: its VmHWM, read every 10 ms until it ends. Not /usr/bin/time's:
# its maximum is over every descendant, the compiler's processes too
# (cc1's 33 MiB was both profilers' figure).
p10_run() {
	local name=$1 t0 t1 pid hwm=0 v; shift
	make -s -C examples/cproject O="$W/cp" clean >/dev/null
	sync
	t0=$(now_ns)
	"$@" make -s -C examples/cproject O="$W/cp" -j2 >/dev/null 2>"$W/p10.$name.err" &
	pid=$!
	while v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) && [ -n "$v" ]; do
		[ "$v" -gt "$hwm" ] && hwm=$v
		grep -q '^State:.*zombie' "/proc/$pid/status" 2>/dev/null && break
		sleep 0.01
	done
	wait "$pid" || die "part 10: the build under ${1:-nothing} failed: $(tail -1 "$W/p10.$name.err")"
	t1=$(now_ns)
	P10_WALL=$(secs_between "$t0" "$t1")
	P10_RSS=$(awk -v k="$hwm" 'BEGIN { printf "%.1f", k / 1024 }')
}

# p10_startup CMD...: start-up to the first sample, in seconds, into
# P10_START: from just before CMD (a profiler) is run to the first
# instruction of the command it starts, `date +%s%N` printing the time.
# Both profilers sample the command from its exec on (bpfprof attaches
# before it lets the command exec, perf record enables its events at the
# exec), so this is the time until a sample of it can be taken: what the
# profiler adds in front of a short command.
p10_startup() {
	local t0 t1
	t0=$(now_ns)
	"$@" date +%s%N >"$W/p10.start.out" 2>"$W/p10.start.err" ||
		die "part 10: start-up under $1 failed: $(tail -1 "$W/p10.start.err")"
	t1=$(head -1 "$W/p10.start.out")
	P10_START=$(secs_between "$t0" "$t1")
}

part10() {
	header "10. a build: make -j2 of examples/cproject (13 files, gcc -O2), 99 Hz, $P10_REPS runs each"
	mkdir -p "$W/cp"
	p10_make	# warm: the sources and the compiler in the page cache
	local i alone=() bp=() pg=() pd=() share_b=() share_g=() share_d=() line rss_b=() rss_g=()
	local start_b=() start_p=()
	for i in $(seq "$P10_START_REPS"); do
		p10_startup "$BPFPROF" -F 99 -o "$W/p10.start.folded" --; start_b+=("$P10_START")
		p10_startup perf record -q -F 99 -g -o "$W/p10.start.data" --; start_p+=("$P10_START")
	done
	rm -f "$W/p10.start.data"
	for i in $(seq "$P10_REPS"); do
		log "part 10: build $i of $P10_REPS: alone, bpfprof, perf -g, perf dwarf"
		p10_run alone; alone+=("$P10_WALL")
		p10_run bpfprof "$BPFPROF" -F 99 --stats "$W/p10.bpfprof.json" -o "$W/p10.folded" --; bp+=("$P10_WALL")
		rss_b+=("$P10_RSS")
		share_b+=("$(python3 tests/e2e/root_share.py folded "$W/p10.folded" cc1 "$P10_ROOTS" | cut -d' ' -f1)")
		line=$(tables_line "$W/p10.bpfprof.json")
		p10_run perfg perf record -q -F 99 -g -o "$W/p10.g.data" --; pg+=("$P10_WALL")
		rss_g+=("$P10_RSS")
		perf script -i "$W/p10.g.data" -F comm,ip,sym >"$W/p10.g.script" 2>/dev/null
		share_g+=("$(python3 tests/e2e/root_share.py perf "$W/p10.g.script" cc1 "$P10_ROOTS" | cut -d' ' -f1)")
		p10_run perfd perf record -q -F 99 --call-graph dwarf -o "$W/p10.d.data" --; pd+=("$P10_WALL")
		perf script -i "$W/p10.d.data" -F comm,ip,sym >"$W/p10.d.script" 2>/dev/null
		share_d+=("$(python3 tests/e2e/root_share.py perf "$W/p10.d.script" cc1 "$P10_ROOTS" | cut -d' ' -f1)")
		rm -f "$W"/p10.*.data "$W"/p10.*.script
	done
	goal 10 "build wall time under bpfprof's default mode vs alone" s "${bp[*]}" alone "${alone[*]}" 1.05
	row 10 "build wall time under perf record -g vs alone" s "${pg[*]}" alone "${alone[*]}"
	row 10 "build wall time under perf --call-graph dwarf vs alone" s "${pd[*]}" alone "${alone[*]}"
	goal 10 "build wall time: bpfprof default vs perf record -g" s "${bp[*]}" "perf -g" "${pg[*]}" 1.0
	goal 10 "one-shot peak RSS of the profiler itself, the build: vs perf record -g" MiB \
		"${rss_b[*]}" "perf -g" "${rss_g[*]}" 1.0
	goal 10 "start-up to the first sample (launch -> command's exec): bpfprof" s "${start_b[*]}" "" "" 0.15
	row 10 "start-up to the first sample (launch -> command's exec): vs perf record -g" s \
		"${start_b[*]}" "perf -g" "${start_p[*]}"
	row 10 "cc1's samples reaching its entry: bpfprof vs perf -g" % "${share_b[*]}" "perf -g" "${share_g[*]}"
	row 10 "cc1's samples reaching its entry: bpfprof vs perf dwarf" % "${share_b[*]}" "perf dwarf" "${share_d[*]}"
	row 10 "unwind tables built (last run)" files "$(sed -nE 's/.*: ([0-9]+) files loaded.*/\1/p' <<<"$line")" "" "" \
		"($(sed -nE 's/.*, ([0-9]+) reused by a later process.*/\1/p' <<<"$line") reused by a later process)"
	row 10 "unwind tables: time building (last run)" s "$(sed -nE 's/.*, ([0-9.]+) s building.*/\1/p' <<<"$line")" "" ""
	row 10 "unwind rows' kernel memory at the peak (last run)" MiB \
		"$(sed -nE 's/.*, peak ([0-9]+),.*/\1/p' <<<"$line" | awk '{ printf "%.1f", $1 * 16 / 1048576 }')" "" ""
	make -s -C examples/cproject O="$W/cp" clean >/dev/null
}

# ====================== 11. fleet mode under process churn, for 10 minutes
# The fleet sampler where processes come and go: bench_stacks busy, the
# soak's churn (50 short processes a second, pids reused), and a loop of
# short nofp_chain runs (no frame pointers: a table, lingering between
# runs). Its CPU from the first interval on (the start-up's verifier and
# first tables are part 6's), its peak RSS, and the kernel memory of its
# maps at the end.
part11() {
	local secs=$P11_SECS bp bt cpu0 cpu1 tick kmem wpids=() line
	header "11. fleet mode under process churn: --interval $P6_INTERVAL -F $P6_HZ, $secs s over bench_stacks, churn (50 processes a second) and short nofp_chain runs"
	tick=$(getconf CLK_TCK)
	rm -rf "$W/churn"; mkdir -p "$W/churn"
	"$STACKS" -L "$BB" "$(calc "$secs + 10")" >/dev/null 2>&1 & wpids+=($!)
	"$EX/churn" "$(calc "$secs + 10")" 50 4 >/dev/null 2>&1 & wpids+=($!)
	: >"$W/p11.runs"
	bash -c 'end=$((SECONDS + $2))
		while [ "$SECONDS" -lt "$end" ]; do "$1" 0.2 >/dev/null; echo >>"$3"; sleep 0.3; done' \
		sh "$EX/nofp_chain" "$((${secs%.*} + 10))" "$W/p11.runs" & wpids+=($!)
	STARTED+=("${wpids[@]}")
	start_bpfprof p11 --interval "$P6_INTERVAL" --output-dir "$W/churn" -F "$P6_HZ"
	bp=$LAST_PID bt=$LAST_TPID
	sleep "$(calc "$P6_INTERVAL + 1")"
	cpu0=$(awk '{ print $14 + $15 }' "/proc/$bp/stat")
	sleep "$(calc "$secs - $P6_INTERVAL - 1")"
	cpu1=$(awk '{ print $14 + $15 }' "/proc/$bp/stat")
	kmem=$(maps_memlock_mib "$bp")
	stop_timed "$bp" "$bt" TERM
	kill -TERM "${wpids[@]}" 2>/dev/null || true
	wait "${wpids[@]}" 2>/dev/null || true
	line=$(tables_line "$W/p11.json")
	goal 11 "sampler CPU from its first interval on, under churn" "% of one core" \
		"$(calc "100 * ($cpu1 - $cpu0) / $tick / ($secs - $P6_INTERVAL - 1)")" "" "" 0.15
	goal 11 "sampler peak RSS, under churn" MiB "$(time_rss "$W/p11.time")" "" "" 32
	row 11 "kernel memory of its maps at the end (unwind rows included)" MiB "$kmem" "" ""
	row 11 "unwind tables reused by a later process" files \
		"$(sed -nE 's/.*, ([0-9]+) reused by a later process.*/\1/p' <<<"$line")" "" "" \
		"($(wc -l <"$W/p11.runs") nofp_chain runs; $(sed -nE 's/.*: ([0-9]+) files loaded.*/\1/p' <<<"$line") files loaded at the end)"
}

# ======================== 9. inline frames and source lines: their cost
# (a) every 61st byte of a file's .text resolved once each by dwarf_lines.c
# from a cold libdwfl handle, with inline frames and without; (b) part 3's
# profile (bench_stacks, -a, page cache warm) ended with inline frames (the
# default) and with --no-inline: the time from SIGTERM to the folded file.
part9() {
	header "9. inline frames and source lines (libdwfl): per address, and the end of run with and without --no-inline"
	local f line n with without inl opt
	local -A end stacks frames
	for f in /lib/x86_64-linux-gnu/libc.so.6 "$BB/libstackbench1.so"; do
		if ! line=$("$BB/inline_cost" "$f" 61 2>/dev/null); then
			row_na 9 "addresses resolved, ${f##*/}" "libdwfl cannot read it"
			continue
		fi
		read -r _ n with without inl <<<"$line"
		row 9 "addresses resolved, ${f##*/}: inline frames vs --no-inline" "addresses/s" "$with" \
			"no-inline" "$without" "($n addresses, $inl with inline frames)"
	done
	for opt in inline no-inline; do
		log "part 9: bench_stacks for $P3_SECS s, bpfprof -a, $opt"
		# shellcheck disable=SC2046
		start_bpfprof p9b -a -F "$P3_HZ" --max-stacks "$P3_MAX_STACKS" \
			$([ "$opt" = no-inline ] && echo --no-inline) -o "$W/p9.$opt.folded"
		local bp=$LAST_PID bt=$LAST_TPID
		"$STACKS" -L "$BB" "$P3_SECS"
		stop_timed "$bp" "$bt" TERM
		end[$opt]=$STOP_SECS
		stacks[$opt]=$(wc -l <"$W/p9.$opt.folded")
		frames[$opt]=$(b_frames "$W/p9b.err")
	done
	row 9 "end of sampling -> folded file (warm): inline frames vs --no-inline" s "${end[inline]}" \
		"no-inline" "${end[no-inline]}" "(goal <= 1.5x; ${stacks[inline]} and ${stacks[no-inline]} stacks)"
	row 9 "frames per second of the end of run: inline frames vs --no-inline" frames/s \
		"$(calc "${frames[inline]:-0} / ${end[inline]}")" "no-inline" \
		"$(calc "${frames[no-inline]:-0} / ${end[no-inline]}")"
}

# ============================ 12. a busy server (its own file: busy_server.sh)
. tools/bench/busy_server.sh

# ================================================================== main
# Without BPF (not root, lockdown) there is nothing to measure: the smoke run
# says so loudly and passes, as the end-to-end tests do; the full run fails.
skip_or_die() {
	if [ "$MODE" = smoke ]; then
		{
			echo "#####################################################################"
			echo "### SKIPPING THE BENCH SMOKE RUN: $*"
			echo "#####################################################################"
		} >&2
		exit 0
	fi
	die "$*"
}
[ "$(id -u)" = 0 ] || skip_or_die "must run as root (BPF, perf -a, drop_caches)"
for f in "$BPFPROF_SRC" "$FIXED" "$STACKS" "$BB/stackid_floor" "$BB/fn_timer" "$BB/unwind_cost" "$BB/inline_cost" "$BB/libstackbench1.so"; do
	[ -x "$f" ] || [ -f "$f" ] || die "missing $f: run 'make bench' (it builds everything first)"
done
for c in perf bpftool /usr/bin/time; do
	command -v "$c" >/dev/null || die "missing $c: run 'make bench-deps'"
done
mkdir -p "$W"
rm -rf "${W:?}"/*
# A copy: other builds of ./bpfprof during the run do not change what is measured.
BPFPROF=$W/bpfprof
cp "$BPFPROF_SRC" "$BPFPROF"
if ! "$BPFPROF" -a -d 0.1 -o "$W/probe.folded" 2>"$W/probe.err"; then
	if grep -qi 'permission denied\|not permitted' "$W/probe.err"; then
		skip_or_die "BPF IS NOT PERMITTED HERE: $(head -1 "$W/probe.err")"
	fi
	die "bpfprof does not run: $(head -3 "$W/probe.err")"
fi

calibrate
KERNEL=$(uname -r)
DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
BVERSION=$("$BPFPROF" --version 2>&1 | head -1)
PVERSION=$(perf --version 2>&1 | head -1)
out_line "bpfprof bench ($MODE): $DATE, kernel $KERNEL, $NCPU CPUs, $BVERSION, $PVERSION"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
out_line "bench_fixed: $(calc "$ITER_SECS * 1000") ms per iteration (wall, $NCPU threads); ratio = bpfprof / peer (medians); load average at start: $LOAD_START"
if awk -v l="${LOAD_START%% *}" 'BEGIN { exit !(l > 0.5) }'; then
	log "warning: the machine is not idle (load average $LOAD_START): other work adds noise to every figure"
fi

PART_TIMES=()	# each part's wall seconds, logged at the end (where a run's time goes)
for p in $PARTS; do
	part_start=$(date +%s)
	case $p in
	1) part1 ;; 2) part2 ;; 3) part3 ;; 4) part4 ;; 5) part5 ;; 6) part6 ;; 7) part7 ;; 8) part8 ;; 9) part9 ;;
	10) part10 ;; 11) part11 ;; 12) part12 ;;
	*) die "no part $p" ;;
	esac
	PART_TIMES+=("part $p $(( $(date +%s) - part_start )) s")
done
log "wall time per part: $(IFS=,; echo "${PART_TIMES[*]}" | sed 's/,/, /g')"

if [ "${#GOALS[@]}" -gt 0 ]; then
	out_line ""
	out_line "== goals of issue 16 in this run (ratio = bpfprof / peer of the medians)"
	for g in "${GOALS[@]}"; do out_line "$g"; done
fi
STARTED=()	# all of them waited for
WALL=$(( $(date +%s) - BENCH_START ))
out_line ""
out_line "bench: $MODE run took $WALL s"

# ------------------------------------------------------------ results file
mkdir -p "$(dirname "$OUT_JSON")"
{
	printf '{\n  "date": "%s",\n  "mode": "%s",\n  "kernel": "%s",\n  "cpus": %s,\n' \
		"$DATE" "$MODE" "$KERNEL" "$NCPU"
	printf '  "bpfprof": "%s",\n  "perf": "%s",\n  "wall_seconds": %s,\n  "load_average_start": "%s",\n  "load_average_end": "%s",\n' \
		"$BVERSION" "$PVERSION" "$WALL" "$LOAD_START" "$(cut -d' ' -f1-3 /proc/loadavg)"
	printf '  "settings": {"part1_hz": "%s", "part1_repeats": %s, "part1_iterations": %s, "peer_hz": %s, "peer_repeats": %s, "peer_iterations": %s, "part3_seconds": %s, "part3_max_stacks": %s, "part6_seconds": %s, "part6_seconds_busy": %s, "part6_interval": %s, "iteration_ms": %s},\n' \
		"$P1_HZ" "$P1_REPS" "${P1_ITERS:-0}" "$P2_HZ" "$P2_REPS" "${P2_ITERS:-0}" "$P3_SECS" "$P3_MAX_STACKS" "$P6_SECS" "$P6_SECS_BUSY" "$P6_INTERVAL" "$(calc "$ITER_SECS * 1000")"
	printf '  "rows": [\n'
	n=${#ROWS_JSON[@]}
	for i in "${!ROWS_JSON[@]}"; do
		printf '    %s%s\n' "${ROWS_JSON[$i]}" "$([ "$i" -lt $((n - 1)) ] && echo ,)"
	done
	printf '  ]\n}\n'
} >"$OUT_JSON.tmp"
mv "$OUT_JSON.tmp" "$OUT_JSON"
printf '%s\n' "${TABLE_LINES[@]}" >"$OUT_TABLE"
log "results: $OUT_JSON, table: $OUT_TABLE"
