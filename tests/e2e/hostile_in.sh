# shellcheck shell=bash
# Hostile inputs (issue 11): crafted files, pid reuse, long id lists, odd
# file names. Each test reproduces what bpfprof did wrong before its fix.
# Sourced by run.sh.

GEN_PY=tests/gen			# python generators
GEN_BIN=${GEN:-build/tests/gen}		# the C ones, built by make e2e

echo "== sparse ELF files: every size bounded, the file skipped and counted"
# 2 GiB sparse copies of cpu_chain whose .strtab, .symtab or extended
# section count span the file; they run as the command's children.
cp "$EX/libhot.so" "$T/"
for m in strtab symtab shnum; do
	python3 "$GEN_PY/craft_elf.py" "$m" "$EX/cpu_chain" "$T/crafted_$m" $((2 << 30))
done
timeout 120 /usr/bin/time -f "%e %M" -o "$T/sparse.time" "$BPFPROF" -F 99 -o "$T/sparse.folded" --stats "$T/sparse.json" -- \
	sh -c "$T/crafted_strtab 1; $T/crafted_symtab 1; $T/crafted_shnum 1" 2>"$T/sparse.err"
rc=$?
read -r secs kb < "$T/sparse.time"
check "sparse ELF: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "sparse ELF: peak RSS ${kb:-?} KB < 400 MB" [ "${kb:-999999999}" -lt 400000 ]
check "sparse ELF: done in ${secs:-?} s < 20 s (3 s of commands)" awk -v s="${secs:-999}" 'BEGIN { exit !(s < 20) }'
check "sparse ELF: the three files counted as skipped" [ "$(stat_of "$T/sparse.json" .inputs.files_over_size_limits)" = 3 ]
for m in strtab symtab shnum; do
	check "sparse ELF: crafted_$m's samples kept" [ "$(comm_total "$T/sparse.folded" "crafted_$m")" -gt 0 ]
done
rm -f "$T"/crafted_*

echo "== more than 1024 -p / -t ids: the filter maps hold the whole list"
for kind in threads procs; do
	"$GEN_BIN/many_ids" "$kind" 1100 >"$T/ids.$kind" & idp=$!
	for _ in $(seq 300); do [ -s "$T/ids.$kind" ] && break; sleep 0.1; done
	opt=$([ "$kind" = threads ] && echo -t || echo -p)
	"$BPFPROF" "$opt" "$(cat "$T/ids.$kind")" -d 0.5 -o "$T/ids.folded" 2>"$T/ids.err"
	rc=$?
	check "$opt with 1100 $kind: exit 0 ($rc$(grep -m1 "cannot\|invalid" "$T/ids.err" | cut -c1-80))" [ "$rc" -eq 0 ]
	kill "$idp"; wait "$idp" 2>/dev/null
done

echo "== -p follows the process, not its pid: a reused pid is not profiled"
"$EX/cpu_chain" 30 & victim=$!
"$BPFPROF" -F 99 -p "$victim" -d 20 -o "$T/reuse.folded" 2>"$T/reuse.err" & bp=$!
wait_started "$T/reuse.err"	# (an ASan start on a loaded machine takes seconds)
sleep 1	# sampling the victim
kill -9 "$victim"; wait "$victim" 2>/dev/null
# the same pid at once, running something else (comm "threads")
"$GEN_BIN/respawn_pid" "$victim" "$EX/threads" 30 2 & rp=$!
t0=$(date +%s%N)
wait "$bp"; rc=$?
took=$(( ($(date +%s%N) - t0) / 1000000 ))
check "pid reuse: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "pid reuse: the pid was reused (respawn_pid got it)" [ -d "/proc/$victim" ]
check "pid reuse: stopped with 'target exited' ($(grep -o '([a-z ]*)$' "$T/reuse.err"))" grep -q '(target exited)' "$T/reuse.err"
check "pid reuse: stopped ${took} ms after the exit (< 8 s, not at -d 20)" [ "$took" -lt 8000 ]
check "pid reuse: the victim was profiled" [ "$(comm_total "$T/reuse.folded" cpu_chain)" -gt 0 ]
check "pid reuse: nothing of the new process" [ "$(comm_total "$T/reuse.folded" threads)" -eq 0 ]
kill "$victim" 2>/dev/null; wait "$rp" 2>/dev/null
