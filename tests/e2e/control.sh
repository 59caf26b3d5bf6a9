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
for _ in $(seq 100); do grep -q '^bpfprof: profiling' "$T/ctl.err" && break; sleep 0.1; done
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
lost=$(sed -nE 's/^bpfprof: [0-9]+ samples, [0-9]+ stacks, ([0-9]+) lost .*/\1/p' "$T/ctlfleet.err" | awk '{ s += $1 } END { print s + 0 }')
cleared=$(sed -nE 's/.*control: [0-9]+ commands, ([0-9]+) samples cleared.*/\1/p' "$T/ctlfleet.err")
total=$(sed -nE 's/.*fleet: .*BPF-side total ([0-9]+) samples.*/\1/p' "$T/ctlfleet.err")
check "fleet: $(find "$T/ctlfleet" -name '*.folded' | wc -l) files: $written written + $lost lost + ${cleared:-?} cleared = BPF-side total ${total:-?}" \
	all [ "${cleared:-0}" -gt 0 ] -- [ "$((written + lost + ${cleared:-0}))" -eq "${total:--1}" ]
