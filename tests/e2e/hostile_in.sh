# shellcheck shell=bash
# Hostile inputs (issue 11): crafted files, pid reuse, long id lists, odd
# file names. Each test reproduces what bpfprof did wrong before its fix.
# Sourced by run.sh.

GEN=tests/gen

echo "== sparse ELF files: every size bounded, the file skipped and counted"
# 2 GiB sparse copies of cpu_chain whose .strtab, .symtab or extended
# section count span the file; they run as the command's children.
cp "$EX/libhot.so" "$T/"
for m in strtab symtab shnum; do
	python3 "$GEN/craft_elf.py" "$m" "$EX/cpu_chain" "$T/crafted_$m" $((2 << 30))
done
timeout 120 /usr/bin/time -f "%e %M" -o "$T/sparse.time" "$BPFPROF" -F 99 -o "$T/sparse.folded" -- \
	sh -c "$T/crafted_strtab 1; $T/crafted_symtab 1; $T/crafted_shnum 1" 2>"$T/sparse.err"
rc=$?
read -r secs kb < "$T/sparse.time"
check "sparse ELF: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "sparse ELF: peak RSS ${kb:-?} KB < 400 MB" [ "${kb:-999999999}" -lt 400000 ]
check "sparse ELF: done in ${secs:-?} s < 20 s (3 s of commands)" awk -v s="${secs:-999}" 'BEGIN { exit !(s < 20) }'
check "sparse ELF: the three files counted as skipped" grep -q ', 3 files skipped (over size limits)' "$T/sparse.err"
for m in strtab symtab shnum; do
	check "sparse ELF: crafted_$m's samples kept" [ "$(comm_total "$T/sparse.folded" "crafted_$m")" -gt 0 ]
done
rm -f "$T"/crafted_*
