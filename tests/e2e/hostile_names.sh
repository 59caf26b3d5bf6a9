# shellcheck shell=bash
# A file's name is the same whichever way bpfprof learnt it (issue 11 defect
# 11): from /proc/PID/maps (a process that ran before bpfprof: -p) or from
# the perf side-band (one started after: -- CMD), and it is written with one
# escaping: in folded output ';' is ':' and a newline is the two characters
# \n; pprof has the raw name. Sourced by run.sh.

D=$T/hnames; mkdir -p "$D"
nl=$'\n'
# name-of-file  what its frames must be called in folded output (the basename,
# escaped), for a stripped copy of cpu_chain whose frames are FILE+0xOFFSET
names=("cpu${nl}chain" 'cpu;chain' 'chain (deleted)')
want=('cpu\nchain' 'cpu:chain' 'chain (deleted)')
strip -o "$D/stripped" "$EX/cpu_chain"

# frames_of FOLDED PREFIX: how many samples have a frame PREFIX+0x... (PREFIX through the
# environment: awk -v would turn its \n into a newline)
frames_of() {
	P="$2+0x" awk 'BEGIN { p = ENVIRON["P"] } { n = split($0, f, ";"); for (i = 1; i <= n; i++) if (index(f[i], p) == 1) { s += $NF; break } }
	     END { print s + 0 }' "$1"
}

for i in "${!names[@]}"; do
	f="$D/${names[$i]}"; w=${want[$i]}
	cp "$D/stripped" "$f"
	echo "== defect 11: a workload called $(printf %q "${names[$i]}")"
	# side-band: started after bpfprof, seen in its MMAP2 record
	"$BPFPROF" -F 199 -o "$D/sb$i.folded" -- "$f" 1 2>"$D/sb$i.err"; rc1=$?
	# /proc/PID/maps: running before bpfprof
	"$f" 3 & wp=$!; sleep 0.3
	"$BPFPROF" -F 199 -p "$wp" -d 1 -o "$D/maps$i.folded" 2>"$D/maps$i.err"; rc2=$?
	kill "$wp" 2>/dev/null; wait "$wp" 2>/dev/null
	sb=$(frames_of "$D/sb$i.folded" "$w"); mp=$(frames_of "$D/maps$i.folded" "$w")
	# before: maps gave cpu\012chain and chain (with " (deleted)" cut), the side-band cpu chain;
	# 5 samples of the ~199 an idle machine gives: a starved one (load 30) gave 15-19
	check "defect 11: $(printf %q "${names[$i]}"): frames named '$w+0x..' from the side-band ($sb samples) and from maps ($mp)" \
		all [ "$rc1" -eq 0 ] -- [ "$rc2" -eq 0 ] -- [ "$sb" -ge 5 ] -- [ "$mp" -ge 5 ]
	check "defect 11: $(printf %q "${names[$i]}"): every line well formed in both" \
		all valid_folded "$D/sb$i.folded" -- valid_folded "$D/maps$i.folded"
done

echo "== defect 11: pprof keeps the raw name; a file really deleted loses the kernel's mark"
f="$D/chain (deleted)"
"$BPFPROF" -F 199 -o "$D/del.pb.gz" -- "$f" 1 2>/dev/null
check "defect 11: pprof: the mapping is '$f'" \
	bash -c "go tool pprof -raw '$D/del.pb.gz' 2>/dev/null | grep -qF '$f'"
f="$D/cpu${nl}chain"
"$BPFPROF" -F 199 -o "$D/nl.pb.gz" -- "$f" 1 2>/dev/null
check "defect 11: pprof: the mapping of 'cpu<newline>chain' has the raw name, newline and all" \
	bash -c "go tool pprof -raw '$D/nl.pb.gz' 2>/dev/null | tr '\n' '\001' | grep -qF \"hnames/cpu\$(printf '\001')chain\""
cp "$D/stripped" "$D/gone"
"$D/gone" 3 & wp=$!; sleep 0.3; rm "$D/gone"
"$BPFPROF" -F 199 -p "$wp" -d 1 -o "$D/gone.folded" 2>/dev/null
kill "$wp" 2>/dev/null; wait "$wp" 2>/dev/null
check "defect 11: a deleted file is named 'gone', not 'gone (deleted)' ($(frames_of "$D/gone.folded" gone) samples)" \
	all [ "$(frames_of "$D/gone.folded" gone)" -ge 5 ] -- [ "$(frames_of "$D/gone.folded" 'gone (deleted)')" -eq 0 ]

echo "== siblings: a FIFO planted where a debug file is looked for"
# a binary in a directory others may write (/tmp-like), with a .gnu_debuglink: its debug
# file is looked for beside it and in .debug/, where anyone may plant a FIFO
L=$D/link; mkdir -p "$L/.debug"; chmod 1777 "$L"
cp "$EX/cpu_chain" "$L/app"
objcopy --only-keep-debug "$L/app" "$L/app.debug"
strip -g "$L/app"; objcopy --add-gnu-debuglink="$L/app.debug" "$L/app"
rm "$L/app.debug"
setpriv --reuid=nobody --regid=nogroup --clear-groups mkfifo "$L/app.debug" "$L/.debug/app.debug"
s=$(date +%s)	# before: open() of the FIFO blocked for good, SIGTERM too (killed at 20 s)
timeout -k 2 20 "$BPFPROF" -F 199 -o "$D/fifo.folded" -- "$L/app" 1 2>"$D/fifo.err"; rc=$?
e=$(($(date +%s) - s))
check "siblings: a FIFO as the debug link's target is passed by: exit $rc in $e s, frames named" \
	all [ "$rc" -eq 0 ] -- [ "$e" -lt 10 ] -- grep -q ';hot_leaf [0-9]*$' "$D/fifo.folded"
