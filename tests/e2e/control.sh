# shellcheck shell=bash
# --control fifo:CTL,ACK and SIGUSR1: enable, disable, snapshot, clear, each
# checked against the BPF side's own never-reset sample counter (the run's
# `total` map, read with bpftool by the map ids in bpfprof's own fdinfo: other
# runs on the machine have their own). Sourced by run.sh.

# The run's BPF-side total: the per-CPU `total` map among PID's map fds.
bpf_total() {
	local f id
	for f in /proc/"$1"/fdinfo/*; do sed -n 's/^map_id:[[:space:]]*//p' "$f" 2>/dev/null; done | sort -un |
	while read -r id; do
		if [ "$(bpftool map show id "$id" -j 2>/dev/null | jq -r .name)" = total ]; then
			bpftool map lookup id "$id" key 0 0 0 0 -j | jq '[.formatted.values[].value] | add'
			return
		fi
	done
}
fsum() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
# send CMD: one command into CTL, and its ack read from ACK (5 s at most)
send() { local a=""; echo "$1" >&7; read -r -t 5 -u 8 a; [ "$a" = ack ]; }
# lost samples the last snapshot line reported
snap_lost() { sed -nE 's/.*control: snapshot: [0-9]+ samples \(([0-9]+) lost\).*/\1/p' "$T/ctl.err" | tail -1; }

echo "== --control fifo:CTL,ACK --start-disabled against the BPF side's total"
rm -f "$T/ctl" "$T/ack" "$T/ctl.folded"
mkfifo "$T/ctl" "$T/ack"
exec 7<>"$T/ctl" 8<>"$T/ack"
"$BPFPROF" -F 199 --start-disabled --control "fifo:$T/ctl,$T/ack" -o "$T/ctl.folded" \
	-- "$EX/cpu_chain" 60 2>"$T/ctl.err" &
CPID=$!
wait_started "$T/ctl.err" 10
sleep 1
t0=$(bpf_total $CPID)
check "--start-disabled: 1 s of cpu_chain, BPF-side total ${t0:-?} = 0" [ "${t0:-x}" = 0 ]
check "enable: acked" send enable
sleep 1
check "disable: acked" send disable
t1=$(bpf_total $CPID)
sleep 1
t2=$(bpf_total $CPID)
check "enabled 1 s: counted ($t1 > 0); disabled 1 s: nothing more ($t2 = $t1)" \
	all [ "${t1:-0}" -gt 0 ] -- [ "$t2" = "$t1" ]
check "snapshot: acked" send snapshot
s1=$(fsum "$T/ctl.folded"); l1=$(snap_lost)
check "snapshot: the file's $s1 samples + ${l1:-?} lost = the BPF side's $t2" \
	[ "$((s1 + ${l1:-999999}))" -eq "$t2" ]
check "snapshot: a valid folded file, cpu_chain's hot_leaf on top" \
	all valid_folded "$T/ctl.folded" -- [ "$(top_self "$T/ctl.folded" cpu_chain)" = hot_leaf ]
check "clear: acked" send clear
check "snapshot after clear: acked" send snapshot
check "snapshot after clear (disabled): no samples ($(fsum "$T/ctl.folded"))" [ "$(fsum "$T/ctl.folded")" -eq 0 ]
check "enable again: acked" send enable
sleep 1
t3=$(bpf_total $CPID)
check "enabled again: counted again ($t3 > $t2)" [ "${t3:-0}" -gt "$t2" ]
n=$(grep -c 'control: snapshot:' "$T/ctl.err")
kill -USR1 $CPID
for _ in $(seq 50); do [ "$(grep -c 'control: snapshot:' "$T/ctl.err")" -gt "$n" ] && break; sleep 0.1; done
check "SIGUSR1: a snapshot while enabled, sampling goes on ($(fsum "$T/ctl.folded") samples)" \
	[ "$(grep -c 'control: snapshot:' "$T/ctl.err")" -gt "$n" ]
check "disable: acked" send disable
t4=$(bpf_total $CPID)
check "snapshot: acked" send snapshot
s4=$(fsum "$T/ctl.folded"); l4=$(snap_lost)
check "snapshot since clear: $s4 + ${l4:-?} lost = $t4 - $t2 counted before the clear" \
	[ "$((s4 + ${l4:-999999}))" -eq "$((t4 - t2))" ]
echo bogus >&7
send enable >/dev/null
sleep 0.5
kill -INT $CPID
wait $CPID
rc=$?
exec 7>&- 8>&-
sum=$(fsum "$T/ctl.folded"); lost=$(summary_lost "$T/ctl.err")
line=$(grep 'control: [0-9]* commands' "$T/ctl.err")
cleared=$(echo "$line" | sed -nE 's/.* ([0-9]+) samples cleared.*/\1/p')
total=$(echo "$line" | sed -nE 's/.*BPF-side total ([0-9]+) samples.*/\1/p')
echo "        $line"
check "end (SIGINT): exit 143 (cpu_chain's SIGTERM: $rc), final file $sum + $lost lost + ${cleared:-?} cleared = BPF-side total ${total:-?}" \
	all [ "$rc" -eq 143 ] -- [ "$((sum + lost + ${cleared:-999999}))" -eq "${total:--1}" ] -- [ "$cleared" -eq "$t2" ]
check "an unknown command is said in one line, not acked" \
	all [ "$(grep -c "unknown command 'bogus'" "$T/ctl.err")" -eq 1 ] -- \
	    [ "$(echo "$line" | sed -nE 's/.*control: ([0-9]+) commands.*/\1/p')" -eq 10 ]

echo "== --control: FIFOs only, never created, nothing waits"
: >"$T/regular"
expect_error "--control on a regular file" 1 'not a FIFO' \
	"$BPFPROF" -d 0.2 --control "fifo:$T/regular" -o "$T/x.folded"
expect_error "--control on a missing path (not created)" 1 'No such file' \
	"$BPFPROF" -d 0.2 --control "fifo:$T/nonexistent" -o "$T/x.folded"
check "--control: the missing path was not created" [ ! -e "$T/nonexistent" ]
expect_error "--control ACK on a directory" 1 'not a FIFO' \
	"$BPFPROF" -d 0.2 --control "fifo:$T/ctl,$T" -o "$T/x.folded"
expect_error "--control without fifo:" 2 'expected fifo:CTL\[,ACK\]' "$BPFPROF" --control "$T/ctl" -d 0.2
expect_error "--start-disabled alone" 2 'needs --control' "$BPFPROF" --start-disabled -d 0.2
timeout 20 "$BPFPROF" -d 5 --control "fifo:$T/ctl,$T/ack" -o "$T/x.folded" -- "$EX/cpu_chain" 0.5 2>/dev/null
check "FIFOs no one holds open: no wait on open (exit $?)" [ $? -eq 0 ]

echo "== --control with --off-cpu: a block that ends while disabled counts nothing"
# sleeper naps 1 s at a time: nap 1 from ~0 s (disabled: never recorded),
# nap 2 from ~1 s, begun enabled (0.5 .. 1.3 s) and ended disabled at ~2 s
rm -f "$T/ctl" "$T/ack" "$T/off.folded"
mkfifo "$T/ctl" "$T/ack"
exec 7<>"$T/ctl" 8<>"$T/ack"
"$BPFPROF" --off-cpu --start-disabled --control "fifo:$T/ctl,$T/ack" -o "$T/off.folded" \
	-- "$EX/sleeper" 4 1000 2>"$T/off.err" &
OPID=$!
for _ in $(seq 100); do grep -q '^bpfprof: profiling' "$T/off.err" && break; sleep 0.01; done
t_start=$(date +%s%N)
sleep 0.5
send enable; t_on=$(date +%s%N)
sleep $(awk -v s="$t_start" -v n="$(date +%s%N)" 'BEGIN { d = 1.3 - (n - s) / 1e9; print (d > 0 ? d : 0) }')
t_off=$(date +%s%N); send disable
sleep 1.5
send snapshot
us=$(fsum "$T/off.folded"); window=$(((t_off - t_on) / 1000))
check "off-CPU: $us us counted <= the $window us it was enabled (one thread)" [ "$us" -le "$window" ]
wait $OPID
exec 7>&- 8>&-

echo "== --control in fleet mode: snapshot ends the interval now, clear drops it"
rm -rf "$T/ctlfleet" "$T/ctl" "$T/ack"
mkdir -m 700 "$T/ctlfleet"
mkfifo "$T/ctl" "$T/ack"
exec 7<>"$T/ctl" 8<>"$T/ack"
"$BPFPROF" -F 199 --interval 60 --output-dir "$T/ctlfleet" --control "fifo:$T/ctl,$T/ack" \
	-- "$EX/cpu_chain" 60 2>"$T/ctlfleet.err" &
FPID=$!
for _ in $(seq 100); do grep -q '^bpfprof: profiling' "$T/ctlfleet.err" && break; sleep 0.1; done
sleep 1
send snapshot
n=$(find "$T/ctlfleet" -name '*.folded' | wc -l)
check "snapshot: an interval's file written now, not after --interval 60 ($n file)" [ "$n" -eq 1 ]
sleep 1
send clear
sleep 1
kill -INT $FPID
wait $FPID
exec 7>&- 8>&-
written=$(cat "$T"/ctlfleet/*.folded | awk '{ s += $NF } END { print s + 0 }')
lost=$(jq -s 'map(.lost) | add // 0' "$T/ctlfleet/bpfprof-intervals.log")
cleared=$(sed -nE 's/.*control: [0-9]+ commands, ([0-9]+) samples cleared.*/\1/p' "$T/ctlfleet.err")
total=$(sed -nE 's/.*fleet: .*BPF-side total ([0-9]+) samples.*/\1/p' "$T/ctlfleet.err")
check "fleet: $(find "$T/ctlfleet" -name '*.folded' | wc -l) files: $written written + $lost lost + ${cleared:-?} cleared = BPF-side total ${total:-?}" \
	all [ "${cleared:-0}" -gt 0 ] -- [ "$((written + lost + ${cleared:-0}))" -eq "${total:--1}" ]

echo "== --control under a flood from another user: the run ends on time, SIGTERM is heard, output bounded"
# A FIFO root made writable by others (a group, an operator's service): its
# writers are not root. Every bound below holds whatever they write.
mkdir -p "$T/x"; chmod 755 "$T"; chmod 1777 "$T/x"
rm -f "$T/x/ctl"; mkfifo -m 666 "$T/x/ctl"
# one known process profiled (-p): the whole system holds other tests' hostile
# processes, whose symbols would make the final write's time anyone's guess
"$EX/cpu_chain" 300 & CC=$!
# flood SECONDS CMD...: CMD run as the attacker, its stdout into the FIFO,
# for SECONDS at most (in the background; $! is its pid)
flood() { local s=$1; shift; attacker timeout -k 1 "$s" bash -c 'exec "$@" >"$0"' "$T/x/ctl" "$@" & }
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
# run ERR ARGS...: bpfprof in the background, stderr to ERR, $BP its pid,
# $T0 when it said it began sampling (-d counts from there)
run_bg() {
	local err=$1; shift
	"$BPFPROF" "$@" 2>"$err" & BP=$!
	for _ in $(seq 300); do grep -q '^bpfprof: profiling' "$err" && break; sleep 0.1; done
	T0=$(date +%s%N)
}
# wait_max SECONDS: waits for $BP that long at most (then KILL); RC its status
wait_max() {
	local i
	for i in $(seq $(($1 * 10))); do kill -0 $BP 2>/dev/null || break; sleep 0.1; done
	kill -0 $BP 2>/dev/null && kill -KILL $BP
	wait $BP; RC=$?
}

# The same runs without a flood, on this machine now (the ASan build's
# final write can take seconds under load).
run_bg "$T/plain.err" -p $CC -d 5 -o "$T/plain.folded"
wait_max 60; B=$(ms_since "$T0")
run_bg "$T/plain.err" -p $CC -o "$T/plain.folded"
sleep 2; t_term=$(date +%s%N); kill -TERM $BP
wait_max 60; BT=$(ms_since "$t_term")
echo "        without a flood: -d 5 ended $B ms after it began, SIGTERM took $BT ms"
# the bounds: 5 + 3 s and 3 s, or what the run takes without a flood now and 3 s (2 s) more
LIM=$((B + 3000 > 8000 ? B + 3000 : 8000)); LIMT=$((BT + 2000 > 3000 ? BT + 2000 : 3000))

# 64 KiB of enable and disable lines (each once cost ~10 ms of an RCU sync),
# then one enable: the run ends enabled, its profile not empty (ended by a
# disable, as the cut of 64 KiB may, it held nothing on a loaded machine)
flood 20 bash -c '{ yes "enable
disable" | head -c 65536; printf "\nenable\n"; }'; F=$!
run_bg "$T/flood1.err" -p $CC -d 5 --control "fifo:$T/x/ctl" -o "$T/flood1.folded"
wait_max 30
el=$(ms_since "$T0"); kill $F 2>/dev/null; wait $F 2>/dev/null
check "-d 5 with 64 KiB of enable/disable lines queued: ended $el ms after it began (<= $LIM), exit $RC" \
	all [ "$el" -le $LIM ] -- [ "$RC" -eq 0 ] -- valid_folded "$T/flood1.folded"
check "enable/disable lines merged: said in $(grep -c 'control: \(enable\|disable\)' "$T/flood1.err") lines (<= 25)" \
	[ "$(grep -c 'control: \(enable\|disable\)' "$T/flood1.err")" -le 25 ]

# yes snapshot for 3 s during -d 5, fleet mode: one file per snapshot
rm -rf "$T/snapdir"; mkdir -m 700 "$T/snapdir"
run_bg "$T/flood2.err" -p $CC -d 5 --interval 60 --output-dir "$T/snapdir" --control "fifo:$T/x/ctl"
flood 3 yes snapshot; F=$!
wait_max 30
el=$(ms_since "$T0"); kill $F 2>/dev/null; wait $F 2>/dev/null
files=$(find "$T/snapdir" -name '*.folded' | wc -l)
check "-d 5 with 'yes snapshot' for 3 s: ended $el ms after it began (<= $LIM), exit $RC" \
	all [ "$el" -le $LIM ] -- [ "$RC" -eq 0 ]
check "snapshots at most one a second: $files files written (<= 7)" [ "$files" -le 7 ]
check "skipped snapshot requests said: $(grep -m1 'snapshot requests skipped' "$T/flood2.err" | cut -c1-120)" \
	grep -q 'snapshot requests skipped' "$T/flood2.err"
check "stderr of the snapshot flood: $(wc -c <"$T/flood2.err") bytes (< 8192)" [ "$(wc -c <"$T/flood2.err")" -lt 8192 ]

# the same in one-shot mode: each snapshot merges and writes the whole
# profile, as the end does (B - 5 s of it), up to one a second: on a loaded
# machine those writes stretch the run (9.9 s where B was 5.7 s, beside two
# test runs), a freeze would be minutes (70 s before the bound)
LIM3=$((2 * B > LIM ? 2 * B : LIM))
run_bg "$T/flood3.err" -p $CC -d 5 --control "fifo:$T/x/ctl" -o "$T/flood3.folded"
flood 3 yes snapshot; F=$!
wait_max 30
el=$(ms_since "$T0"); kill $F 2>/dev/null; wait $F 2>/dev/null
check "one-shot -d 5 with 'yes snapshot' for 3 s: ended $el ms after it began (<= $LIM3), exit $RC, $(grep -c 'control: snapshot:' "$T/flood3.err") snapshots (<= 6)" \
	all [ "$el" -le $LIM3 ] -- [ "$RC" -eq 0 ] -- valid_folded "$T/flood3.folded" -- \
	    [ "$(grep -c 'control: snapshot:' "$T/flood3.err")" -le 6 ]

# 10 MB of garbage: a few lines quoted, the rest counted
flood 20 head -c 10000000 /dev/urandom; F=$!
run_bg "$T/flood4.err" -p $CC -d 5 --control "fifo:$T/x/ctl" -o "$T/flood4.folded"
wait_max 30
el=$(ms_since "$T0"); kill $F 2>/dev/null; wait $F 2>/dev/null
check "10 MB of garbage: stderr $(wc -c <"$T/flood4.err") bytes (< 4096), ended $el ms after it began (<= $LIM), exit $RC" \
	all [ "$(wc -c <"$T/flood4.err")" -lt 4096 ] -- [ "$el" -le $LIM ] -- [ "$RC" -eq 0 ]
check "bad lines counted: $(grep -o '[0-9]* bad control lines[^;]*' "$T/flood4.err" | tail -1)" \
	grep -q '[1-9][0-9]* bad control lines' "$T/flood4.err"

# SIGTERM in the middle of a flood of every command
flood 30 yes "enable
disable
snapshot
clear
bogus"; F=$!
run_bg "$T/flood5.err" -p $CC --control "fifo:$T/x/ctl" -o "$T/flood5.folded"
sleep 2
t_term=$(date +%s%N); kill -TERM $BP
wait_max 30
el=$(ms_since "$t_term"); kill $F 2>/dev/null; wait $F 2>/dev/null
# (the flood's clears may have left it empty: written, stopped by the signal)
check "SIGTERM under a FIFO flood: exited in $el ms (<= $LIMT), exit $RC, the profile written" \
	all [ "$el" -le $LIMT ] -- [ "$RC" -eq 0 ] -- [ -f "$T/flood5.folded" ] -- \
	    grep -q '(terminated)' "$T/flood5.err"
kill $CC; wait $CC 2>/dev/null
rm -f "$T/x/ctl"
