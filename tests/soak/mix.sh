#!/usr/bin/env bash
# The soak's mixed churn (issue 36), for SECS seconds, beside workload.sh's
# process churn: what a busy shared machine does to a fleet agent, at a
# bounded rate each, so that an hour of it measures the agent, not the
# machine's CPUs:
#   mapping churn  tests/gen/map_churn: 300 distinct copies of a library
#                  (its own build id each) mapped executable in turn, 20 a
#                  second, 64 kept mapped
#   cgroups        one a second made under the cgroup2 mount, a short
#                  process moved into it and run there, then removed: a new
#                  name to resolve every second
#   JIT maps       jit_perfmap for 0.3 s every 2 s: a new /tmp/perf-PID.map
#                  each time, removed 20 s after (nothing else would): there
#                  when the agent names the program's frames at the next
#                  interval, so that a map it never closes shows in its fds
# Usage: mix.sh SECS DIR EXAMPLES GEN
set -u
SECS=$1 T=$2 EX=$3 GEN=$4
CGMNT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
CG=${CGMNT:+$CGMNT/bpfprof-soak-$$}
pids=()
# the loops end at SECS by themselves; a TERM (the run ended early) ends
# them at once (the last cgroup's process ends within 0.2 s: rmdir retries)
remove_cgroups() {
	[ -n "$CG" ] && [ -d "$CG" ] || return 0
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		rmdir "$CG"/c* 2>/dev/null; rmdir "$CG" 2>/dev/null && return 0; sleep 0.3
	done
}
trap 'kill "${pids[@]}" 2>/dev/null; wait; remove_cgroups; exit 0' TERM

"$GEN/map_churn" map "$EX/libnofp_fleet.so" 300 20 >"$T/map_churn.out" 2>&1 & pids+=($!)
if [ -n "$CG" ] && mkdir "$CG" 2>/dev/null; then
	bash -c 'end=$((SECONDS + $2)) i=0
		while [ "$SECONDS" -lt "$end" ]; do
			i=$((i + 1)); d=$3/c$i
			mkdir "$d" || break
			sh -c "echo \$\$ >$d/cgroup.procs && exec $1 0.2" >/dev/null
			rmdir "$d"; sleep 0.8
		done; echo "$i" >"$4/mix_cgroups"' sh "$(realpath "$EX/cpu_chain")" "$SECS" "$CG" "$T" & pids+=($!)
else
	echo "soak: mix: no cgroup2 mount to make cgroups under; cgroups left out" >&2
fi
bash -c 'end=$((SECONDS + $2)) i=0 maps=()
	trap '\''rm -f "${maps[@]}"; exit 0'\'' TERM
	while [ "$SECONDS" -lt "$end" ]; do
		"$1" 0.3 >/dev/null & p=$!; wait "$p"; maps+=("/tmp/perf-$p.map")
		[ "${#maps[@]}" -le 10 ] || { rm -f "${maps[0]}"; maps=("${maps[@]:1}"); }
		i=$((i + 1)); sleep 1.7
	done; rm -f "${maps[@]}"; echo "$i" >"$3/mix_jits"' sh "$EX/jit_perfmap" "$SECS" "$T" & pids+=($!)
sleep "$SECS" & wait $!
# map_churn removes its copies on SIGTERM; the loops end by themselves
kill "${pids[0]}"; wait
remove_cgroups
