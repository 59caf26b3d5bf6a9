# shellcheck shell=bash
# bpfprof top in a real terminal: tmux (its own server socket, so other
# sessions on the machine are not touched) runs it, send-keys types, and
# capture-pane reads the screen. Sourced by run.sh.

SHOTS=${SHOTS:-build/views}
mkdir -p "$SHOTS"
TM=(tmux -L "bpfprof-top-$$" -f /dev/null)
# What top is run by: its status, and the terminal's mode after it, kept.
cat >"$T/top_run.sh" <<EOF
"$(realpath "$BPFPROF")" top "\$@" 2>"$T/top.err"
echo \$? >"$T/top.rc"
stty -a >"$T/top.stty"
sleep 600
EOF

screen_() { "${TM[@]}" capture-pane -t top -p "$@"; }
# wait_screen PATTERN SECS: until the screen matches (grep -E), at most SECS
wait_screen() {
	local end; end=$(($(date +%s%N) + ${2%.*} * 1000000000))
	while [ "$(date +%s%N)" -lt "$end" ]; do screen_ | grep -qE "$1" && return 0; sleep 0.1; done
	return 1
}
# the interval number on the status line
interval_no() { screen_ | sed -nE 's/^interval ([0-9]+):.*/\1/p'; }
# top_start ARGS...: a new session running top; sets TOP_PID (bpfprof's pid)
top_start() {
	rm -f "$T/top.rc" "$T/top.err" "$T/top.stty"
	"${TM[@]}" new-session -d -s top -x 120 -y 32 "bash $T/top_run.sh $*"
	local pane; pane=$("${TM[@]}" display -p -t top '#{pane_pid}')
	TOP_PID=
	for _ in $(seq 50); do TOP_PID=$(pgrep -P "$pane" | head -1); [ -n "$TOP_PID" ] && break; sleep 0.1; done
}
top_end() {
	for _ in $(seq 100); do [ -s "$T/top.rc" ] && [ -s "$T/top.stty" ] && break; sleep 0.1; done
	"${TM[@]}" kill-server 2>/dev/null
}
# counted + lost = the BPF side's total, from top's last line
top_accounts() {
	sed -nE 's/.*top: [0-9]+ intervals, ([0-9]+) samples counted, ([0-9]+) lost; BPF-side total ([0-9]+) samples.*/\1 \2 \3/p' "$T/top.err" |
		awk '{ exit !($1 + $2 == $3 && $1 > 0) }'
}
restored() { grep -qw icanon "$T/top.stty" && grep -qw echo "$T/top.stty"; }

echo "== bpfprof top: two workloads, their hot functions live; k, u, p, resize, q"
"$EX/cpu_chain" 60 & W1=$!
"$EX/syscalls" 60 & W2=$!
t0=$(date +%s%N)
top_start -p "$W1,$W2"
wait_screen ' \[\.\] hot_leaf$' 3
seen=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "cpu_chain's hot_leaf on the screen within 3 s of the start ($ms ms)" [ "$seen" -eq 0 ]
wait_screen ' \[k\] read_zero$' 3
check "syscalls' kernel read_zero on the screen too" [ $? -eq 0 ]
for _ in $(seq 30); do [ "$(screen_ | grep -c '^ *[0-9.]*% ')" -ge 12 ] && break; sleep 0.2; done
screen_ >"$SHOTS/top.txt"
check "the rows: self%, total%, samples, shared object, mark, symbol" \
	grep -qE '^ +[0-9.]+% +[0-9.]+% +[0-9]+  cpu_chain +\[\.\] hot_leaf$' "$SHOTS/top.txt"
prog_ids=$(for f in /proc/"$TOP_PID"/fdinfo/*; do sed -n 's/^prog_id:[[:space:]]*//p' "$f" 2>/dev/null; done | sort -un)
# toggle KEY SIDE MARK OTHER: KEY hides SIDE's frames (no row with MARK, the
# row OTHER still there), KEY again shows them (a MARK row back)
toggle() {
	"${TM[@]}" send-keys -t top "$1"
	wait_screen "$2 frames HIDDEN" 2
	screen_ >"$T/top.$1"
	check "$1: $2 frames hidden, no $3 row, '$4' still there" \
		all bash -c "! grep -qF ' $3 ' '$T/top.$1'" -- grep -qF " $4" "$T/top.$1"
	"${TM[@]}" send-keys -t top "$1"
	for _ in $(seq 20); do screen_ >"$T/top.$1.back"; grep -qF " $3 " "$T/top.$1.back" && break; sleep 0.1; done
	check "$1 again: $2 frames back" grep -qF " $3 " "$T/top.$1.back"
}
toggle k kernel '[k]' '[.] hot_leaf'
toggle u user '[.]' '[k] read_zero'
"${TM[@]}" send-keys -t top p
wait_screen 'PAUSED' 2
n1=$(interval_no); screen_ >"$T/top.p1"
sleep 2.5
n2=$(interval_no); screen_ >"$T/top.p2"
check "p: paused, the screen stays (interval $n1, then $n2, 2.5 s later)" \
	all [ -n "$n1" ] -- [ "$n1" = "$n2" ] -- cmp -s "$T/top.p1" "$T/top.p2"
"${TM[@]}" resize-window -t top -x 150 -y 28
sleep 0.5
w=$(screen_ -N | head -1 | awk '{ print length($0) }')
check "resize (while paused): drawn at once at the new width (title bar $w columns = 150)" [ "$w" = 150 ]
"${TM[@]}" send-keys -t top p
sleep 2.2
n3=$(interval_no)
check "p again: the screen moves on (interval $n2 -> $n3)" [ "${n3:-0}" -gt "${n2:-0}" ]
"${TM[@]}" send-keys -t top q
top_end
check "q: exit 0 ($(cat "$T/top.rc" 2>/dev/null)), the terminal's mode restored (icanon, echo)" \
	all [ "$(cat "$T/top.rc" 2>/dev/null)" = 0 ] -- restored
echo "        $(tail -1 "$T/top.err")"
check "q: every sample counted or lost, none missing: counted + lost = BPF-side total" top_accounts
left=$(for id in $prog_ids; do bpftool prog show id "$id" >/dev/null 2>&1 && echo "$id"; done)
check "q: none of the run's $(echo "$prog_ids" | wc -w) BPF programs is left (left: ${left:-none})" \
	all [ -n "$prog_ids" ] -- [ -z "$left" ]

echo "== bpfprof top: SIGTERM and Ctrl-C end it cleanly"
top_start --comm cpu_chain --interval 0.5
wait_screen ' \[\.\] hot_leaf$' 5
tty=$("${TM[@]}" display -p -t top '#{pane_tty}')
kill -TSTP "$TOP_PID"
sleep 0.5
screen_ >"$T/top.z"
check "^Z (SIGTSTP): stopped ($(ps -o stat= -p "$TOP_PID")), the terminal's mode and screen put back" \
	all bash -c "ps -o stat= -p $TOP_PID | grep -q '^T'" -- bash -c "stty -a -F $tty | grep -qw icanon" -- \
	    bash -c "! grep -q 'bpfprof top:' '$T/top.z'"
kill -CONT "$TOP_PID"
wait_screen 'bpfprof top:' 2
check "continued (SIGCONT): the screen drawn again, keys without echo again" \
	all [ $? -eq 0 ] -- bash -c "stty -a -F $tty | grep -qw -- -icanon"
kill -TERM "$TOP_PID"
top_end
check "SIGTERM: exit 0 ($(cat "$T/top.rc" 2>/dev/null)), terminal restored, accounted" \
	all [ "$(cat "$T/top.rc" 2>/dev/null)" = 0 ] -- restored -- grep -q '(terminated)' "$T/top.err" -- top_accounts
top_start --comm cpu_chain
wait_screen ' \[\.\] hot_leaf$' 5
"${TM[@]}" send-keys -t top C-c
top_end
check "Ctrl-C: exit 0 ($(cat "$T/top.rc" 2>/dev/null)), terminal restored, accounted" \
	all [ "$(cat "$T/top.rc" 2>/dev/null)" = 0 ] -- restored -- grep -q '(interrupted)' "$T/top.err" -- top_accounts
kill "$W1" "$W2" 2>/dev/null
wait "$W1" "$W2" 2>/dev/null

echo "== bpfprof top: bad usage"
expect_error "top without a terminal" 1 'must be a terminal' "$BPFPROF" top
expect_error "top -o" 2 'writes no profile' "$BPFPROF" top -o "$T/x.folded"
expect_error "top -- COMMAND" 2 'not -- COMMAND' "$BPFPROF" top -- ls
expect_error "top --interval 0" 2 'invalid interval' "$BPFPROF" top --interval 0
