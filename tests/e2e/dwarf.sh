# shellcheck shell=bash
# --call-graph dwarf: user stacks of code without frame pointers, unwound in
# the BPF program from the files' .eh_frame tables. Sourced by run.sh.

# Percent of comm $2's samples whose stack holds the ';'-joined chain $3
# followed (at the end, maybe after more frames matching $4) by nothing but
# kernel frames.
chain_share() {
	awk -v c="$2" -v ch="$3" -v tail="${4:-}" '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		while (line ~ /;[^;]*_\[k\]$/) sub(/;[^;]*_\[k\]$/, "", line)
		gsub(/;[^;]*_\[i\]/, "", line)	# inline frames: the chain is of real calls
		split(line, f, ";"); if (f[1] != c) next
		all += n; i = index(line ";", ";" ch ";")
		if (!i) next
		rest = substr(line ";", i + length(ch) + 2)
		if (tail == "" ? rest == "" : rest ~ ("^((" tail ");)*$")) hit += n
	} END { print all ? int(hit * 100 / all) : 0 }' "$1"
}

DWARF_SHARES=()
note_dwarf() { DWARF_SHARES+=("$(printf '%-14s auto %3s%%   dwarf %3s%%   fp %3s%%' "$1" "$2" "$3" "$4")"); }

echo "== workloads built -O2 -fomit-frame-pointer: complete chains in auto (the default) and dwarf modes, not fp"
for w in "nofp_chain|main;nofp_outer;nofp_middle;nofp_hot|" \
	 "nofp_qsort|main;sort_rounds;qsort_r|msort_with_tmp.part.0|cmp_slow" \
	 "nofp_threads|start_thread;thread_entry;nofp_work;nofp_spin|"; do
	IFS='|' read -r name chain mid leaf <<<"$w"
	# qsort: main;sort_rounds;qsort_r, then msort's recursion, then the comparator
	if [ -n "$leaf" ]; then tailre="$mid|$leaf"; else tailre=""; fi
	"$BPFPROF" -o "$T/$name.auto" -- "$EX/$name" 4 2>"$T/$name.auto.err"
	check "$name auto: exit 0" [ $? -eq 0 ]
	"$BPFPROF" --call-graph dwarf -o "$T/$name.dwarf" -- "$EX/$name" 4 2>"$T/$name.dwarf.err"
	check "$name dwarf: exit 0" [ $? -eq 0 ]
	"$BPFPROF" --call-graph fp -o "$T/$name.fp" -- "$EX/$name" 2 2>/dev/null
	a=$(chain_share "$T/$name.auto" "$name" "$chain" "$tailre")
	d=$(chain_share "$T/$name.dwarf" "$name" "$chain" "$tailre")
	f=$(chain_share "$T/$name.fp" "$name" "$chain" "$tailre")
	[ -n "$leaf" ] && { grep -q ";$leaf " "$T/$name.dwarf" || d=0; }
	[ -n "$leaf" ] && { grep -q ";$leaf " "$T/$name.auto" || a=0; }
	note_dwarf "$name" "$a" "$d" "$f"
	check "$name: >= 95% complete chains with auto, the default ($a%)" [ "$a" -ge 95 ]
	check "$name: >= 95% complete chains with dwarf ($d%)" [ "$d" -ge 95 ]
	check "$name: frame pointers cannot ($f%)" [ "$f" -lt 50 ]
done

echo "== a Debian binary without frame pointers: python3 in a busy loop"
PY='import time
t = time.time()
def f(n):
    return sum(i * i for i in range(n))
while time.time() - t < 3:
    f(10000)'
# native frames only, as perf sees them (Python frames: section python)
"$BPFPROF" --call-graph dwarf --no-python -o "$T/py.folded" -- /usr/bin/python3.11 -c "$PY" 2>"$T/py.err"
check "python3 dwarf: exit 0" [ $? -eq 0 ]
s=$(awk '{ n = $NF; t += n; if ($0 ~ /;_start;|;__libc_start_main;|;__libc_start_call_main;|;clone3?;/) s += n }
	END { print t ? int(s * 100 / t) : 0 }' "$T/py.folded")
note_dwarf "python3.11" "-" "$s" "-"
check "python3: >= 90% of samples reach the process entry ($s%)" [ "$s" -ge 90 ]
perf record -q --call-graph dwarf -F 99 -o "$T/py.perf" -- /usr/bin/python3.11 -c "$PY" >/dev/null 2>&1
ptop=$(perf report -i "$T/py.perf" --stdio --no-children --sort sym -q 2>/dev/null |
	awk 'NF && $1 ~ /%$/ { print $NF; exit }')
btop=$(top_self "$T/py.folded" python3.11)
check "python3: the same top function as perf --call-graph dwarf ($btop vs $ptop)" \
	all [ -n "$ptop" ] -- [ "$btop" = "$ptop" ]
check "python3: the summary accounts for how stacks ended" grep -q ', unwind: ' "$T/py.err"
printf '  %s\n' "${DWARF_SHARES[@]}"
