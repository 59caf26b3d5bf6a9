#!/usr/bin/env bash
# The churn soak's workload, bpfprof's command in soak.sh (its files are
# made there): examples/churn for SECS seconds; one program run every
# second for 6 s between two interval lines; then 20
# copies of nofp_chain at once; then the fleet: FLEET members, each a
# program with a library of its own, started one after another from the
# second interval line after the burst exited (its tables gone: they
# linger 2 s after their last user), that line's figures being the
# baseline, until 2 intervals before the end. Each member lives 1 s: it
# idles its first 100 ms, as a program that starts and then works (a
# member spinning from its exec had 6-12% of its samples walked by frame
# pointers, before its tables were in: counted, but not what the check of
# its unwinding is about), then spins that step's share of the rest (a step of 200 ms: 5 at once, each busy
# 20%), so the fleet keeps one CPU busy at most and bpfprof, which drains,
# builds tables and syncs new processes, has the other (a fleet that took
# both CPUs starved it in a 60 s run: members lived and died unseen, 74 of
# 200 got tables). The stages note the count of interval lines written
# when the fleet began (base_line) and when its last member exited
# (fleet_line). Then it waits to be ended (bpfprof's SIGTERM).
# Before the fleet, for MIX seconds, the mixed churn of issue 36 (mix.sh):
# mapping churn, cgroups made and removed with a process in each, and JIT
# programs naming their code in perf maps, beside churn; soak.sh holds the
# agent's RSS over that stretch to its caps.
# Usage: workload.sh SECS INTERVAL DIR EXAMPLES FLEET MIX GEN
set -u
trap 'kill $(jobs -p) 2>/dev/null; wait; exit 0' TERM	# bpfprof's, at the end: a clean end, bpfprof exits 0
SECS=$1 interval=$2 T=$3 EX=$4 FLEET=$5 MIX=$6 GEN=$7

intervals_written() { local f=("$T/out"/*.folded); [ -e "${f[0]}" ] && echo ${#f[@]} || echo 0; }
# From the fleet's baseline on, the tree forks nothing but the fleet: a
# pause is a read that times out on a FIFO nobody writes, not a sleep(1)
# process, whose table (alive at one reading, not at another) moved the
# baseline and end figures by a file (files 5 -> 6, rows +705 in an hour's run)
mkfifo "$T/never" && exec {never}<>"$T/never" || exit 1
pause() { read -rt "$1" -u "$never" _ || :; }

"$EX/churn" "$SECS" 50 4 &
# one program (no frame pointers: it needs its table) run 6 times, 0.3 s
# every second, as a cron job or a compiler under make is, between two
# interval lines (their numbers noted): its table is built once, kept
# between the runs and reused
n=$(intervals_written)
while [ "$(intervals_written)" -le "$n" ]; do sleep 0.2; done
intervals_written >"$T/again_first"
for i in 1 2 3 4 5 6; do "$T/bin/again" 0.3 >/dev/null; sleep 0.7; done
n=$(intervals_written)
while [ "$(intervals_written)" -le "$n" ]; do sleep 0.2; done
intervals_written >"$T/again_last"
burst=()
for i in $(seq 1 20); do "$T/bin/burst_$i" 1 >/dev/null & burst+=($!); done
wait "${burst[@]}"
if [ "$MIX" -gt 0 ]; then
	date +%s >"$T/mix_start"
	bash tests/soak/mix.sh "$MIX" "$T" "$EX" "$GEN" & wait $!	# (a wait hears the TERM)
	date +%s >"$T/mix_end"
fi
n=$(intervals_written)
while [ "$(intervals_written)" -lt $((n + 2)) ]; do pause 0.2; done
intervals_written >"$T/base_line"
step_ms=$(( (SECS - 2 * interval - SECONDS) * 1000 / FLEET ))
[ "$step_ms" -ge 50 ] || step_ms=50
busy=$((step_ms / 10)); [ "$busy" -le 100 ] || busy=100
fleet=()
for ((j = 1; j <= FLEET; j++)); do
	printf -v i '%0*d' ${#FLEET} "$j"	# seq -w's names, with no process
	"$T/fleet_$i/fleet_$i" 1 "$busy" 100 >/dev/null & fleet+=($!)
	# 0.5-1.5 steps: a fixed step that divides the interval (2.5 s of
	# 10) put every member between two drains, none alive at one
	ms=$((step_ms / 2 + RANDOM % (step_ms + 1)))
	printf -v step '%d.%03d' $((ms / 1000)) $((ms % 1000))
	pause "$step"
done
wait "${fleet[@]}"
intervals_written >"$T/fleet_line"
while :; do pause 1; done
