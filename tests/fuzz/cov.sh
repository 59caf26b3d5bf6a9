#!/usr/bin/env bash
# Source coverage of each parser over its fuzz corpus: the scratch corpus of
# the last `make fuzz` (build/fuzz/corpus-TARGET) plus the repository's seeds,
# each input run once by a coverage build of the target.
#
#   cov.sh FUZZ_DIR TARGET:SOURCE...
#
# Prints llvm-cov's summary of SOURCE for each target (regions, functions,
# lines, branches); per-line detail: llvm-cov show, as printed at the end.
set -euo pipefail

dir=$1
shift
here=$(dirname "$0")
ver=$(clang -dumpversion | cut -d. -f1)
profdata=$(command -v "llvm-profdata-$ver" || command -v llvm-profdata)
llvmcov=$(command -v "llvm-cov-$ver" || command -v llvm-cov)

for spec in "$@"; do
	target=${spec%%:*} src=${spec#*:}
	bin=$dir/cov/fuzz_$target
	raw=$dir/cov/$target.profraw
	corpora=("$here/corpus/$target")
	[ -d "$dir/corpus-$target" ] && corpora=("$dir/corpus-$target" "${corpora[@]}")
	rm -f "$raw"
	# -runs=0: run every input of the corpora once, then stop
	LLVM_PROFILE_FILE=$raw "$bin" -runs=0 "${corpora[@]}" >"$dir/cov/$target.log" 2>&1
	"$profdata" merge -sparse "$raw" -o "$dir/cov/$target.profdata"
	inputs=$(find "${corpora[@]}" -type f | wc -l)
	echo "== fuzz_$target: $src over $inputs inputs"
	"$llvmcov" report "$bin" -instr-profile="$dir/cov/$target.profdata" "$src" \
		| sed -n '/^Filename/,$p' | grep -v '^-*$' | grep -v '^TOTAL'
done
echo "(lines not reached: $llvmcov show $dir/cov/fuzz_TARGET -instr-profile=$dir/cov/TARGET.profdata SOURCE)"
