# shellcheck shell=bash
# Kernel memory (issue 16): the counts and stack maps grow with what is
# stored; --max-stacks is a ceiling, not an allocation. Sourced by run.sh.

# memlock_kib PID: the sum of memlock over the BPF map fds PID holds (KiB
# precision is enough), as the kernel accounts them in /proc/PID/fdinfo.
memlock_kib() {
	local fds
	fds=$(find "/proc/$1/fd" -lname 'anon_inode:bpf-map' -printf "/proc/$1/fdinfo/%f\n" 2>/dev/null)
	[ -n "$fds" ] || { echo 0; return; }
	# shellcheck disable=SC2086  # one path a line, no spaces
	awk '/^memlock:/ { s += $2 } END { printf "%d\n", s / 1024 }' $fds 2>/dev/null
}

# cost_run NAME ARGS...: bpfprof -- cpu_chain 3 with ARGS; sets KIB to the
# maps' memlock read 2 s into the run.
cost_run() {
	local name=$1; shift
	"$BPFPROF" -F 997 "$@" -o "$T/$name.folded" --stats "$T/$name.json" -- "$EX/cpu_chain" 3 2>"$T/$name.err" &
	local bp=$!
	sleep 2
	# the mappings first: on a busy machine the 3 s run may end while its
	# maps are summed
	MAPS=$(awk '{ print $6 }' "/proc/$bp/maps" | sort -u)
	KIB=$(memlock_kib "$bp")
	wait "$bp"
	check "$name: exit 0" [ $? -eq 0 ]
	local samples lost
	samples=$(stat_of "$T/$name.json" .samples); lost=$(stat_of "$T/$name.json" .lost)
	check "$name: --stats samples ($samples) = folded total + lost ($lost)" \
		[ "$samples" -eq $(( $(comm_total "$T/$name.folded" "") + lost )) ]
}

echo "== kernel memory of the maps"
cost_run memlock-default
check "default run: BPF maps pin <= 16 MiB of kernel memory ($KIB KiB)" all [ "$KIB" -gt 0 ] -- [ "$KIB" -le 16384 ]
# libcurl (push) and libdebuginfod come in only when used: linked, their
# TLS libraries were 6 MiB of every run's RSS
libs=$(echo "$MAPS" | grep -E 'lib(curl|debuginfod|gnutls|ssl|crypto)' | tr '\n' ' ')
check "default run: no libcurl, libdebuginfod or TLS library mapped (${libs:-none})" \
	all [ -n "$MAPS" ] -- [ -z "$libs" ]
cost_run memlock-max-stacks --max-stacks 262144
# Elements are allocated as stored, but a hash map's bucket array (16 bytes
# per max entry) is not: 8 maps (counts + 3 stack depth classes, 2
# generations) x 262144 x 16 B = 32 MiB up front, 622 MiB before.
check "--max-stacks 262144: elements a ceiling, buckets only up front (maps $KIB KiB <= 40 MiB)" \
	all [ "$KIB" -gt 0 ] -- [ "$KIB" -le 40960 ]

echo "== maps of what lives: exec stamps and Python's thread states go with their task"
# map_id PID NAME: the id of the run's map NAME, from PID's fdinfo (other
# runs on the machine have their own); entries ID: how many it holds.
map_id() {
	local f id
	for f in /proc/"$1"/fdinfo/*; do
		id=$(sed -n 's/^map_id:[[:space:]]*//p' "$f" 2>/dev/null)
		[ -n "$id" ] && [ "$(bpftool map show id "$id" -j 2>/dev/null | jq -r .name)" = "$2" ] &&
			{ echo "$id"; return; }
	done
}
entries() { bpftool map dump id "$1" -j 2>/dev/null | jq length; }
# how many of the keys $2... map $1 holds (u32 keys: tids, tgids); a dump
# taken while threads exit can fail midway: taken again, up to 5 times
held() {
	local id=$1 n; shift
	for _ in 1 2 3 4 5; do
		n=$(bpftool map dump id "$id" -j 2>/dev/null | jq --argjson want "[$(IFS=,; echo "$*")]" \
			'[.[] | objects | .formatted.key? // empty | select(. as $k | $want | index($k))] | length' \
			2>/dev/null) && [ -n "$n" ] && { echo "$n"; return; }
		sleep 0.1
	done
}
"$BPFPROF" -a -F 499 -d 30 -o "$T/live.folded" 2>"$T/live.err" &
bp=$!
# its maps, once it made them and runs (-a builds every process's tables
# first: a loaded machine took more than 2 s)
wait_started "$T/live.err"
for _ in $(seq 100); do
	ex=$(map_id "$bp" exec_times); th=$(map_id "$bp" py_threads); pp=$(map_id "$bp" py_procs)
	[ -n "$ex" ] && [ -n "$th" ] && [ -n "$pp" ] && break
	sleep 0.2
done
check "live maps: found among its file descriptors (exec_times $ex, py_threads $th, py_procs $pp)" \
	all [ -n "$ex" ] -- [ -n "$th" ] -- [ -n "$pp" ]
for i in $(seq 200); do /bin/true; done
python3 -c '
import threading, time
def spin():
    end = time.time() + 8
    while time.time() < end: pass
ts = [threading.Thread(target=spin) for _ in range(16)]
for t in ts: t.start()
time.sleep(1)
import os
print(os.getpid(), threading.get_native_id(), *[t.native_id for t in ts], flush=True)
for t in ts: t.join()
' | { read -r -a ids; echo "${ids[*]}" >"$T/live.ids"
      # its threads are known once bpfprof found the process a CPython
      # one: a loaded machine takes a while (0 of 17 after 2 s)
      for _ in $(seq 30); do
	      n=$(held "$th" "${ids[@]}"); [ "${n:-0}" -ge 4 ] && break; sleep 0.2
      done
      echo "${n:-0}" >"$T/live.threads"
      cat >/dev/null; }
# This Python's entries only: other Python processes of the machine (work
# beside the test) are sampled too. The BPF side forgets a thread at its
# exit; the process's entry goes when the loop reads its exit record, which
# a loaded machine delays: up to 10 s
read -r -a ids <"$T/live.ids"
for _ in $(seq 50); do
	e=$(entries "$ex"); t=$(held "$th" "${ids[@]}"); p=$(held "$pp" "${ids[0]}")
	[ "${e:-99}" -le 20 ] && [ "${t:-99}" -eq 0 ] && [ "${p:-99}" -eq 0 ] && break
	sleep 0.2
done
during=$(cat "$T/live.threads")
kill -INT "$bp"; wait "$bp"
check "live maps: exit 0 after Ctrl-C" [ $? -eq 0 ]
check "exec stamps of 200 exited commands gone, only the live ones kept ($e entries)" \
	all [ -n "$e" ] -- [ "$e" -le 20 ]
check "Python's thread states: there while its 17 threads run ($during), gone with them ($t), its entry too ($p)" \
	all [ "${during:-0}" -ge 4 ] -- [ "${t:-99}" -eq 0 ] -- [ "${p:-99}" -eq 0 ]

echo "== the end of a run does not wait a grace period per unwind table"
# Deleting a table from the array-of-maps waits for an RCU grace period
# (16 ms here): the end of a run, which drops every table, took 0.6 s of
# its 0.86 s in them with 40 files loaded. Now their slots go with the map.
# (LeakSanitizer cannot stop a process that strace traces: every other
# run checks for leaks)
ASAN_OPTIONS=detect_leaks=0 "$BPFPROF" -a -F 99 -o "$T/end.folded" --stats "$T/end.json" 2>"$T/end.err" &
bp=$!
sleep 3
strace -f -T -e trace=bpf,write -o "$T/end.strace" -p "$bp" 2>/dev/null &
st=$!
sleep 0.5
kill -INT "$bp"; wait "$bp"
check "end: exit 0 after Ctrl-C" [ $? -eq 0 ]
kill "$st" 2>/dev/null; wait "$st" 2>/dev/null
loaded=$(stat_of "$T/end.json" .unwind_tables.files_loaded)
# from the summary on (the profile is written): the end's drops
slow=$(sed -n '/write(2, "[0-9]* samples, /,$p' "$T/end.strace" |
	grep -cE 'BPF_MAP_DELETE_ELEM.*<(0\.0[1-9]|0\.[1-9]|[1-9])')
check "end: $loaded tables loaded, none deleted one grace period at a time ($slow deletes >= 10 ms)" \
	all [ "${loaded:-0}" -ge 5 ] -- [ "$slow" -eq 0 ]
