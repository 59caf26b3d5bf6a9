# shellcheck shell=bash
# Names other users control never drive root's terminal (issue 23 case 2,
# and the folded writer of case 3). The attacker runs a program under
# hostile file names: the name is the process's comm (the kernel's copy of
# the executable's first 15 bytes), its shared object, and, stripped, its
# frames' names (FILE+0xOFFSET); one more sets its comm with prctl. Root
# profiles with the documented commands in a real terminal (tmux, its own
# server socket) and what the terminal received is checked: the window title
# kept, the screen not cleared, no colour from a name, the names shown
# escaped (\x1b, \xHH), valid UTF-8 shown as it is. Sourced by run.sh.

D=$T/hterm; mkdir -p "$D/x"; chmod 755 "$T" "$D"; chmod 1777 "$D/x"
strip -o "$D/x/stripped" "$EX/cpu_chain"; chmod 755 "$D/x/stripped"
N_TITLE=$'\033]2;PWNED\007'		# OSC 2: retitles the window
N_CLEAR=$'\033[2J\033[H# ok'		# clears the screen, draws a fake root prompt
N_RED=$'\001\033[31mred\xff\xc2\x9b'	# a C0 byte, a colour, invalid UTF-8, C1 CSI
N_UTF8='müller_日本'			# valid UTF-8: shown as it is
S_TITLE='\x1b]2;PWNED\x07'; S_CLEAR='\x1b[2J\x1b[H# ok'; S_RED='\x01\x1b[31mred\xff\xc2\x9b'
# as a pprof file holds it: valid UTF-8, the invalid byte U+FFFD (base/utf8_safe.h)
S_RED_PPROF='\x01\x1b[31mred'$'\xef\xbf\xbd''\xc2\x9b'
N_PRCTL=$'\033]2;PRCTL\007'		# a comm set with prctl(PR_SET_NAME)
S_PRCTL='\x1b]2;PRCTL\x07'
HPIDS=() HJOBS=()
# each writes its pid (the workload's once exec'd) where it may: $D/x
i=0
for n in "$N_TITLE" "$N_CLEAR" "$N_RED" "$N_UTF8"; do
	attacker bash -c 'cp "$1/stripped" "$1/$2" && echo $$ >"$1/w$3.pid" && exec "$1/$2" 120' \
		_ "$D/x" "$n" "$i" &
	HJOBS+=($!)
	i=$((i + 1))
done
attacker /usr/bin/python3 -c 'import ctypes, os, sys
ctypes.CDLL(None).prctl(15, os.fsencode(sys.argv[1]), 0, 0, 0)
open(sys.argv[2], "w").write(str(os.getpid()))
while True: pass' "$N_PRCTL" "$D/x/w4.pid" &
HJOBS+=($!)
for _ in $(seq 100); do [ "$(cat "$D"/x/w?.pid 2>/dev/null | wc -w)" -eq 5 ] && break; sleep 0.1; done
HPIDS=($(cat "$D"/x/w?.pid))
# the workloads exec'd: none still bash or cp
for _ in $(seq 50); do grep -qxE 'bash|cp' $(printf '/proc/%s/comm ' "${HPIDS[@]}") 2>/dev/null || break; sleep 0.1; done
HP=$(IFS=,; echo "${HPIDS[*]}")
TMH=(tmux -L "bpfprof-hterm-$$" -f /dev/null)

# in_term NAME CMD...: runs CMD in a new terminal (200x100: nothing scrolls
# off) after a marker line, waits for its end (60 s at most); the screen in
# $D/NAME.screen (text with tmux's escapes for attributes), its title before
# and after in $D/NAME.title0, $D/NAME.title. The terminal stays for more
# captures.
in_term() {
	local name=$1; shift
	printf '%q ' "$@" >"$D/$name.cmd"
	printf 'echo MARKER-BEFORE\n%s 2>"%s"\necho $? >"%s"\nsleep 600\n' "$(cat "$D/$name.cmd")" \
		"$D/$name.err" "$D/$name.rc" >"$D/$name.sh"
	"${TMH[@]}" new-session -d -s "$name" -x 200 -y 100 "sleep 0.5; bash $D/$name.sh"
	"${TMH[@]}" display -p -t "$name" '#{pane_title}' >"$D/$name.title0"
	for _ in $(seq 600); do [ -s "$D/$name.rc" ] && break; sleep 0.1; done
	sleep 0.2
	"${TMH[@]}" capture-pane -e -p -t "$name" >"$D/$name.screen"
	"${TMH[@]}" display -p -t "$name" '#{pane_title}' >"$D/$name.title"
}
# title_kept NAME: the window's title is what it was, not a name's
title_kept() { cmp -s "$D/$1.title0" "$D/$1.title" && ! grep -q PWNED "$D/$1.title"; }
# raw_free FILE: no ESC, BEL or other C0 byte but newline and tab in FILE
raw_free() { ! LC_ALL=C grep -q $'[\001-\010\013-\037\177]' "$1"; }
# shown_escaped FILE NAME...: every escaped NAME appears in FILE as it is
shown_escaped() { local f=$1 s; shift; for s in "$@"; do grep -qF -- "$s" "$f" || return 1; done; }
# valid_utf8 FILE: iconv reads all of it as UTF-8, and no C1 control is in it
valid_utf8() { iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 && ! LC_ALL=C grep -q $'\xc2[\x80-\x9f]' "$1"; }

echo "== hostile names: -p PIDS -d 2 --report in a terminal"
# the profiles report and diff read, meanwhile: pprof keeps the names,
# made valid UTF-8
"$BPFPROF" -F 199 -p "$HP" -d 2 -o "$D/a.pb.gz" 2>"$D/a.err" &
pa=$!
"$BPFPROF" -F 199 -p "$HP" -d 2 -o "$D/b.pb.gz" 2>"$D/b.err" &
pb=$!
in_term rep "$BPFPROF" -F 199 -p "$HP" -d 2 --report
wait "$pa" "$pb"
head -c 600 "$D/rep.screen" | cat -v | sed "s/^/        /"; echo
check "--report: exit 0 ($(cat "$D/rep.rc")), the window's title kept ($(cat "$D/rep.title"))" \
	all [ "$(cat "$D/rep.rc")" = 0 ] -- title_kept rep
check "--report: the screen not cleared by a name (the line before the run still shown)" \
	grep -q '^MARKER-BEFORE$' "$D/rep.screen"
check "--report: no escape, no control byte from a name reached the terminal" raw_free "$D/rep.screen"
check "--report: the names shown escaped ($S_TITLE, $S_CLEAR, $S_RED, prctl's $S_PRCTL)" \
	shown_escaped "$D/rep.screen" "  $S_TITLE  " "[.] $S_CLEAR+0x" "/x/$S_RED  " "$S_PRCTL"
check "--report: valid UTF-8 shown as it is ($N_UTF8)" shown_escaped "$D/rep.screen" "[.] $N_UTF8+0x"
check "--report: stderr holds no raw byte of a name either" all raw_free "$D/rep.err" -- valid_utf8 "$D/rep.err"

echo "== hostile names: bpfprof report FILE, bpfprof diff A B in a terminal (pprof: the names as valid UTF-8)"
in_term view bash -c "\"\$0\" report \"\$1\" && \"\$0\" diff \"\$1\" \"\$2\"" "$BPFPROF" "$D/a.pb.gz" "$D/b.pb.gz"
check "report, diff: exit 0 ($(cat "$D/view.rc")), the window's title kept ($(cat "$D/view.title"))" \
	all [ "$(cat "$D/view.rc")" = 0 ] -- title_kept view
check "report, diff: the screen not cleared, no escape or control byte from a name" \
	all grep -q '^MARKER-BEFORE$' "$D/view.screen" -- raw_free "$D/view.screen"
check "report, diff: the names shown escaped, UTF-8 as it is" \
	shown_escaped "$D/view.screen" "[.] $S_TITLE+0x" "[.] $S_CLEAR+0x" "[.] $S_RED_PPROF+0x" \
	"# bpfprof diff" "[.] $N_UTF8+0x"
check "report, diff: no raw byte of a name on their output bytes either" \
	all bash -c "'$BPFPROF' report '$D/a.pb.gz' >'$D/view.out' 2>&1" -- raw_free "$D/view.out" -- \
	    bash -c "'$BPFPROF' diff '$D/a.pb.gz' '$D/b.pb.gz' >'$D/view.out' 2>&1" -- raw_free "$D/view.out"

echo "== hostile names: the folded writer's one rule (control bytes and invalid UTF-8 as \\xHH)"
"$BPFPROF" -F 199 -p "$HP" -d 1 -o "$D/h.folded" 2>"$D/h.err"
grep -aF 'PWNED' "$D/h.folded" | head -1 | cut -c1-100 | cat -v | sed 's/^/        /'
check "folded: every line well formed, valid UTF-8, no control byte" \
	all valid_folded "$D/h.folded" -- valid_utf8 "$D/h.folded" -- raw_free "$D/h.folded"
check "folded: the names escaped as bpfprof.1 says (comm, file, frame), UTF-8 kept" \
	shown_escaped "$D/h.folded" "${S_TITLE//;/:};" ";$S_CLEAR+0x" "$S_RED;" "${S_PRCTL//;/:};" ";$N_UTF8+0x"
in_term fold bash -c "\"\$0\" report \"\$1\" | grep -F PWNED" "$BPFPROF" "$D/h.folded"
check "folded: bpfprof report reads it back, the name as the terminal rule shows it" \
	shown_escaped "$D/fold.screen" "[.] ${S_TITLE//;/:}+0x"

echo "== hostile names: bpfprof top"
in_term top "$BPFPROF" top -F 199 -p "$HP" &
tp=$!
for _ in $(seq 150); do "${TMH[@]}" capture-pane -p -t top 2>/dev/null | grep -qF "$S_TITLE+0x" && break; sleep 0.1; done
sleep 1.2	# one more interval drawn
"${TMH[@]}" capture-pane -e -p -t top >"$D/top.live"
"${TMH[@]}" display -p -t top '#{pane_title}' >"$D/top.title.live"
"${TMH[@]}" send-keys -t top q
wait "$tp"
grep -F 'PWNED' "$D/top.live" | head -2 | cat -v | sed 's/^/        /'
check "top: the window's title kept ($(cat "$D/top.title.live"))" \
	all cmp -s "$D/top.title0" "$D/top.title.live" -- bash -c "! grep -q PWNED '$D/top.title.live'"
check "top: no colour and no control byte from a name on the screen (only top's inverse title bar)" \
	all raw_free <(sed -e $'s/\033\\[[0-9;]*m//g' "$D/top.live") -- bash -c "! grep -qF \$'\\033[31m' '$D/top.live'"
check "top: the names shown escaped, the file's column cut by columns" \
	shown_escaped "$D/top.live" "[.] $S_TITLE+0x" "[.] $S_CLEAR+0x" "[.] $S_RED+0x" "[.] $N_UTF8+0x" \
	"  $N_UTF8           [.] $N_UTF8+0x"
check "top: q: exit 0 ($(cat "$D/top.rc" 2>/dev/null)), stderr without raw bytes" \
	all [ "$(cat "$D/top.rc" 2>/dev/null)" = 0 ] -- raw_free "$D/top.err"
"${TMH[@]}" kill-server 2>/dev/null

echo "== hostile input on stderr: a control command quoting escapes, from the attacker"
rm -f "$D/ctl"; mkfifo -m 600 "$D/ctl"
exec 7<>"$D/ctl"
"$BPFPROF" -F 199 -p "$HP" -d 3 --control "fifo:$D/ctl" -o "$D/ctl.folded" 2>"$D/ctl.err" &
cp=$!
wait_started "$D/ctl.err" 10
# root's FIFO, written by the attacker through a descriptor it was handed
attacker bash -c 'printf "%s\n" "$1" "$2" >&7' _ "$N_TITLE$N_CLEAR" "$N_RED"
wait "$cp"
grep -a 'unknown command' "$D/ctl.err" | cat -v | sed 's/^/        /'
check "control: each bad command one warning line, quoted escaped ($(grep -c 'unknown command' "$D/ctl.err") lines)" \
	all [ "$(grep -c 'unknown command' "$D/ctl.err")" = 2 ] -- \
	    grep -qF "unknown command '$S_TITLE$S_CLEAR'" "$D/ctl.err" -- grep -qF "unknown command '$S_RED'" "$D/ctl.err"
check "control: stderr's bytes: no control byte, valid UTF-8" all raw_free "$D/ctl.err" -- valid_utf8 "$D/ctl.err"
exec 7>&-

kill "${HPIDS[@]}" 2>/dev/null
wait "${HJOBS[@]}" 2>/dev/null
