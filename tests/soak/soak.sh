#!/usr/bin/env bash
# Churn soak: fleet mode for SECONDS while examples/churn starts and ends
# ~50 short processes a second with pids reused (pid_max lowered for the
# run). Checks that bpfprof's memory and fds stay flat, the stack map stays
# bounded, and the drained totals equal the BPF side's own counter.
# Usage: soak.sh SECONDS   (env: BPFPROF, EXAMPLES)
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
SECS=${1:-600}
BPFPROF=${BPFPROF:-./bpfprof}
EX=${EXAMPLES:-build/examples}
T=$(mktemp -d /tmp/bpfprof-soak.XXXXXX)
old_pid_max=$(cat /proc/sys/kernel/pid_max)
restore() { echo "$old_pid_max" >/proc/sys/kernel/pid_max; kill $(jobs -p) 2>/dev/null; rm -rf "$T"; }
trap restore EXIT

# pids wrap around quickly: a new process soon gets a pid an exited one had
echo 16384 >/proc/sys/kernel/pid_max || echo "soak: cannot lower pid_max; pids will not be reused"
interval=$(( SECS >= 120 ? 10 : 5 ))
"$BPFPROF" -a -F 99 --interval "$interval" --output-dir "$T/out" 2>"$T/err" & bp=$!
"$EX/churn" "$SECS" 50 4 & cp=$!
mkdir -p "$T/bin"
for i in $(seq 1 20); do cp "$EX/nofp_chain" "$T/bin/burst_$i"; done
( sleep $((SECS / 10)); for i in $(seq 1 20); do "$T/bin/burst_$i" 1 >/dev/null & done; wait ) & burst=$!

# RSS and fds are read at one phase of every interval, half an interval
# after its profile was written: a drain opens files and libdwfl sessions
# for a few hundred ms, and a reading taken inside one says nothing about
# growth (readings at random phases swung fds 47..52 in CI). The loop forks
# nothing but sleep: processes of its own would be sampled, and their files
# opened, by the profiler it watches.
intervals_written() { local f=("$T/out"/*.folded); [ -e "${f[0]}" ] && echo ${#f[@]} || echo 0; }
open_fds() { local f=("/proc/$bp/fd"/*); echo ${#f[@]}; }
vm_rss() { local k v _; while read -r k v _; do [ "$k" = VmRSS: ] && echo "$v"; done <"/proc/$bp/status"; }
half=$(awk -v i="$interval" 'BEGIN { print i / 2 }')
rss=(); fds=()
for ((t = 0; t < SECS - interval; t += interval)); do
	n=$(intervals_written)
	while [ "$(intervals_written)" -eq "$n" ] && kill -0 "$bp" 2>/dev/null; do sleep 0.2; done
	sleep "$half"
	rss+=("$(vm_rss)")
	fds+=("$(open_fds)")
done
wait "$cp" "$burst"
sleep $((2 * interval))	# the burst's processes reaped, after the drain of their samples
kill -TERM "$bp"; wait "$bp"; rc=$?

warm=$(( ${#rss[@]} / 4 )); [ "$warm" -ge 1 ] || warm=1
rss_warm=${rss[$warm]}
rss_max=$(printf '%s\n' "${rss[@]:$warm}" | sort -n | tail -1)
rss_end=${rss[-1]}
fd_min=$(printf '%s\n' "${fds[@]:$warm}" | sort -n | head -1)
fd_max=$(printf '%s\n' "${fds[@]:$warm}" | sort -n | tail -1)
total=$(sed -nE 's/.*BPF-side total ([0-9]+) samples.*/\1/p' "$T/err")
sum=$(cat "$T/out"/*.folded | awk '{ t += $NF } END { print t + 0 }')
lost=$(sed -nE 's/.* ([0-9]+) lost .*/\1/p' "$T/out/bpfprof-intervals.log" | awk '{ t += $1 } END { print t + 0 }')
maxids=$(sed -nE 's/.*stack map held ([0-9]+) ids/\1/p' "$T/out/bpfprof-intervals.log" | sort -n | tail -1)
churn=$(cat "$T/out"/*.folded | awk '$0 ~ /^churn;/ { t += $NF } END { print t + 0 }')
named=$(cat "$T/out"/*.folded | awk '$0 ~ /^churn;.*child_work;child_spin / { t += $NF } END { print t + 0 }')
reg_now=$(sed -nE 's/.*file registry: ([0-9]+) files now.*/\1/p' "$T/err")
reg_peak=$(sed -nE 's/.*file registry: [0-9]+ files now \(peak ([0-9]+)\).*/\1/p' "$T/err")
reg_released=$(sed -nE 's/.*file registry: .*, ([0-9]+) released.*/\1/p' "$T/err")
rows_now=$(sed -nE 's/.*unwind tables: [0-9]+ files loaded \(([0-9]+) rows of.*/\1/p' "$T/err")
rows_peak=$(sed -nE 's/.*unwind tables: .* rows of [0-9]+, peak ([0-9]+),.*/\1/p' "$T/err")
dropped=$(sed -nE 's/.*, ([0-9]+) dropped after their processes exited.*/\1/p' "$T/err")

echo "soak: ${SECS}s, RSS after warm-up ${rss_warm} KiB, max ${rss_max} KiB, end ${rss_end} KiB;" \
	"fds ${fd_min}..${fd_max}; stack map held at most ${maxids} ids;" \
	"samples ${sum} + lost ${lost} vs BPF-side ${total}; churn children ${named}/${churn} named;" \
	"file registry ${reg_now} files at the end (peak ${reg_peak}, ${reg_released} released);" \
	"unwind rows ${rows_now} at the end (peak ${rows_peak}), ${dropped} tables dropped"
check "soak: bpfprof exit 0 ($rc)" [ "$rc" -eq 0 ]
check "soak: RSS after warm-up grows <= 10% ($rss_warm -> max $rss_max KiB)" \
	[ $((rss_max * 100)) -le $((rss_warm * 110)) ]
check "soak: open fds flat ($fd_min..$fd_max)" [ $((fd_max - fd_min)) -le 2 ]
check "soak: stack map bounded ($maxids ids at most)" [ "${maxids:-99999}" -le 16384 ]
check "soak: drained totals == BPF-side counter ($sum + $lost == $total)" \
	all [ -n "$total" ] -- [ $((sum + lost)) -eq "${total:-0}" ]
check "soak: short-lived children symbolized ($named of $churn samples)" \
	all [ "$churn" -gt 0 ] -- [ $((named * 100)) -ge $((churn * 80)) ]
check "soak: file registry back down after the burst exited ($reg_now files, peak $reg_peak)" \
	all [ -n "$reg_now" ] -- [ "${reg_peak:-0}" -ge $((reg_now + 20)) ]
check "soak: the burst's 20 files released from the registry ($reg_released)" \
	[ "${reg_released:-0}" -ge 20 ]
check "soak: unwind tables of the burst dropped ($dropped), rows back down ($rows_now < peak $rows_peak)" \
	all [ "${dropped:-0}" -ge 20 ] -- [ "${rows_now:-0}" -lt "${rows_peak:-0}" ]
echo "soak: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
