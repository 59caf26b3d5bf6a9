# shellcheck shell=bash
# Python frames: CPython's functions interleaved with the native frames,
# read in BPF from the interpreter's frame chain. examples/py_chain.py runs
# <module> -> main -> outer -> middle -> hot (or t<K>_outer -> ... per thread).
# Sourced by run.sh.

# Python frames with no flag: --call-graph auto (the default) unwinds
# python3 by its CFI (it has no frame pointers)
PY_CG=()
PY_SCRIPT=examples/py_chain.py

# Percent of all samples in folded file $1 whose stack starts at the native
# root $5 (default _start), then holds the Python chain $2, $3, $4 in order
# (each "name (file.py:line)_[py]"), with only native frames between them
# (before 3.11 each Python call has its eval frames) and after the last.
py_chain_share() {
	awk -v a="$2" -v b="$3" -v c="$4" -v root="${5:-_start}" '
	function py(name) { return ";" name " \\([^;()]+\\.py:[0-9]+\\)_\\[py\\]" }
	BEGIN {
		nat = "(;([^;]*[^];]|[^;]*_\\[[ik]\\]|\\[unknown\\]))*"
		re = "^[^;]+;" root ";.*" py(a) nat py(b) nat py(c) nat "$"
	}
	{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); all += n; if (line ~ re) hit += n }
	END { all -= skip; print (all > 0 ? int(hit * 100 / all) : 0) }' skip="${6:-0}" "$1"
}
# The samples --stats $1 counts as taken before their tables were in (a
# loaded machine builds them later: counted, and not what a chain's share
# is about): walked by frame pointers, or from a copy of the stack later,
# both without Python frames (those are read at the sample).
fp_before_tables() {
	stat_of "$1" '(.unwind.fp_no_tables_yet // 0) + (.unwind.from_early_copies // 0)'
}

# The samples of $1 that hold frame names matching $2.
py_count() { awk -v re="$2" '$0 ~ re { t += $NF } END { print t + 0 }' "$1"; }

# The samples of $1 whose stack holds frames of two threads' chains (t<K>_).
py_mixed() {
	awk '{ n = $NF; k = split($0, f, ";"); first = ""; mixed = 0
		for (i = 2; i <= k; i++) if (match(f[i], /^t[0-9]+_/)) {
			id = substr(f[i], 1, RLENGTH)
			if (first == "") first = id; else if (id != first) mixed = 1
		}
		if (mixed) t += n } END { print t + 0 }' "$1"
}

# run_chain NAME PYTHON: the chain test under bpfprof -- PYTHON script, 6 s:
# its first samples, before its unwind tables are built (by frame pointers:
# no Python frames), weigh less than in a shorter run.
run_chain() {
	local name=$1 py=$2 s
	"$BPFPROF" "${PY_CG[@]}" -o "$T/py_$name.folded" --stats "$T/py_$name.json" -- "$py" "$PY_SCRIPT" 6 2>"$T/py_$name.err"
	check "python $name: exit 0" [ $? -eq 0 ]
	s=$(py_chain_share "$T/py_$name.folded" outer middle hot)
	note_share "python" "$name chain" "$s"
	check "python $name: >= 80% of samples show _start ... outer;middle;hot ($s%)" [ "$s" -ge 80 ]
	check_complete "python $name" "$T/py_$name.folded" "$T/py_$name.json" "$T/py_$name.err"
	[ "$s" -ge 80 ] || { grep 'samples' "$T/py_$name.err"; sort -t' ' -k2 -nr "$T/py_$name.folded" | head -3; }
}

echo "== Debian's python3 (3.11, libpython in the executable)"
run_chain debian /usr/bin/python3
check "python: --stats counts Python processes and frames" \
	stat_true "$T/py_debian.json" '.python | .processes == 1 and .unsupported == 0 and .frames_read > 0 and .frames_named > 0'
check "python: every chain frame is named (no unread code object in the chain)" \
	[ "$(py_count "$T/py_debian.folded" 'python code 0x[0-9a-f]+\]_\[py\];middle')" -eq 0 ]

echo "== --call-graph dwarf too; fp: native frames only"
PY_CG=(--call-graph dwarf)
run_chain debian-dwarf /usr/bin/python3
PY_CG=()
"$BPFPROF" --call-graph fp -o "$T/py_fp.folded" -- /usr/bin/python3 "$PY_SCRIPT" 1 2>/dev/null
check "python --call-graph fp: no Python frames" [ "$(py_count "$T/py_fp.folded" '_\[py\]')" -eq 0 ]

echo "== attached with -p while it runs"
/usr/bin/python3 "$PY_SCRIPT" 8 & pypid=$!
sleep 1
"$BPFPROF" "${PY_CG[@]}" -p "$pypid" -d 4 -o "$T/py_attach.folded" --stats "$T/py_attach.json" 2>"$T/py_attach.err"
check "python -p: exit 0" [ $? -eq 0 ]
fpfb=$(fp_before_tables "$T/py_attach.json")
s=$(py_chain_share "$T/py_attach.folded" outer middle hot _start "${fpfb:-0}")
note_share "python" "-p chain" "$s"
check "python -p: >= 80% of samples show _start ... outer;middle;hot ($s%, of those not walked before their tables: ${fpfb:-?})" [ "$s" -ge 80 ]
[ "$s" -ge 80 ] || { grep 'samples' "$T/py_attach.err"; sort -t' ' -k2 -nr "$T/py_attach.folded" | head -5; }
kill "$pypid" 2>/dev/null; wait "$pypid" 2>/dev/null

echo "== a script that ends while profiled keeps its names"
/usr/bin/python3 "$PY_SCRIPT" 5 & pypid=$!
sleep 0.5
"$BPFPROF" "${PY_CG[@]}" -p "$pypid" -d 20 -o "$T/py_end.folded" 2>"$T/py_end.err"
wait "$pypid" 2>/dev/null
check "python ended: bpfprof saw the target exit" grep -q '(target exited)' "$T/py_end.err"
s=$(py_chain_share "$T/py_end.folded" outer middle hot)
check "python ended: >= 80% of samples still named outer;middle;hot ($s%)" [ "$s" -ge 80 ]

echo "== threads: each shows its own chain"
"$BPFPROF" "${PY_CG[@]}" -o "$T/py_thr.folded" -- /usr/bin/python3 "$PY_SCRIPT" 4 3 2>"$T/py_thr.err"
check "python threads: exit 0" [ $? -eq 0 ]
total=0
for k in 0 1 2; do
	s=$(py_chain_share "$T/py_thr.folded" "t${k}_outer" "t${k}_middle" "t${k}_hot" "clone3?;start_thread")
	total=$((total + s))
	check "python thread $k: its own chain t${k}_outer;t${k}_middle;t${k}_hot ($s% of all)" [ "$s" -ge 15 ]
done
note_share "python" "3 threads" "$total"
check "python threads: >= 80% of samples show a whole thread chain ($total%)" [ "$total" -ge 80 ]
check "python threads: no stack mixes two threads' chains ($(py_mixed "$T/py_thr.folded") samples do)" \
	[ "$(py_mixed "$T/py_thr.folded")" -eq 0 ]

echo "== fleet mode: three scripts one after another, each named in every interval"
rm -rf "$T/py_fleet" && mkdir "$T/py_fleet"
"$BPFPROF" "${PY_CG[@]}" --interval 1 --output-dir "$T/py_fleet" -- \
	bash -c "for i in 1 2 3; do /usr/bin/python3 $PY_SCRIPT 1.5; done" 2>"$T/py_fleet.err"
check "python fleet: exit 0" [ $? -eq 0 ]
grep -h '^python3;' "$T"/py_fleet/*.folded >"$T/py_fleet.folded" 2>/dev/null
s=$(py_chain_share "$T/py_fleet.folded" outer middle hot)
check "python fleet: >= 80% of python3's samples show the chain across intervals ($s%)" [ "$s" -ge 80 ]

echo "== pprof: Python functions with their file and line"
"$BPFPROF" "${PY_CG[@]}" -o "$T/py.pb.gz" -- /usr/bin/python3 "$PY_SCRIPT" 2 2>/dev/null
"$BPFPROF" report "$T/py.pb.gz" >"$T/py_report.txt" 2>&1
check "python pprof: the report names hot (py_chain.py:LINE)" grep -qE 'hot \(py_chain\.py:[0-9]+\)' "$T/py_report.txt"
# pprof: one Function per code object, the line in the Line (before:
# "hot (py_chain.py:14)", a Function per line: -list printed a block each)
go tool pprof -sample_index=samples -list '^hot$' "$T/py.pb.gz" >"$T/py.list" 2>&1
# the loop's line: its samples (cum; a Location per line: keyed by the code
# object alone, every sample went to whichever line came first, the for
# line in some runs; flat is the share where no native frame
# of the interpreter, PyObject_Free say, was the leaf: 46 of 103 in one run)
read -r flat cum <<<"$(awk '/n \+= i \* i/ { print $1, $2 }' "$T/py.list")"
check "python pprof: -list hot gives one block, its loop's line with samples (flat $flat, cum $cum; $(grep -c '^ROUTINE' "$T/py.list") blocks)" \
	all [ "$(grep -c '^ROUTINE' "$T/py.list")" -eq 1 ] -- grep -q '^ROUTINE.* hot in .*py_chain.py$' "$T/py.list" -- \
	    [ "${cum//./0}" -ge 10 ]
[ "${cum//./0}" -ge 10 ] || { grep -A12 '^ROUTINE' "$T/py.list"; go tool pprof -raw "$T/py.pb.gz" 2>&1 | grep -m5 -A3 'hot'; }

echo "== --no-python: native frames only"
"$BPFPROF" "${PY_CG[@]}" --no-python -o "$T/py_off.folded" -- /usr/bin/python3 "$PY_SCRIPT" 2 2>"$T/py_off.err"
check "python --no-python: no Python frames, native eval frames still there" \
	all [ "$(py_count "$T/py_off.folded" '_\[py\]')" -eq 0 ] -- grep -q '_PyEval_EvalFrameDefault' "$T/py_off.folded"

echo "== every CPython 3.10-3.13 present (pyenv's, shared libpython)"
for minor in 10 11 12 13; do
	py=$(ls -d /root/.pyenv/versions/3."$minor".*/bin/python3."$minor" 2>/dev/null | tail -1)
	if [ -z "$py" ] || [ ! -x "$py" ]; then
		echo "#####################################################################"
		echo "### SKIPPED: no pyenv CPython 3.$minor on this machine (/root/.pyenv/versions)"
		echo "#####################################################################"
		continue
	fi
	run_chain "pyenv-3.$minor" "$py"
done

echo "== an unsupported version: counted, native frames only, never a wrong frame"
py=$(ls -d /root/.pyenv/versions/3.9.*/bin/python3.9 2>/dev/null | tail -1)
if [ -n "$py" ]; then
	"$BPFPROF" "${PY_CG[@]}" -o "$T/py_39.folded" --stats "$T/py_39.json" -- "$py" "$PY_SCRIPT" 1 2>"$T/py_39.err"
	check "python 3.9: counted as unsupported, no Python frames" \
		all stat_true "$T/py_39.json" '.python | .processes == 0 and .unsupported == 1' -- \
		    [ "$(py_count "$T/py_39.folded" '_\[py\]')" -eq 0 ]
else
	echo "### SKIPPED: no pyenv CPython 3.9 to stand for an unsupported version"
fi
