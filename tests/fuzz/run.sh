#!/usr/bin/env bash
# Runs one libFuzzer target for a set time or number of executions and prints
# one line: executions, executions per second, coverage reached (cov/ft/corp
# of libFuzzer's last status line), crashes.
#
#   run.sh runs|long|smoke TARGET LIMIT FUZZ_DIR
#
# runs:  LIMIT executions (-runs), long: LIMIT seconds; either way new inputs
#        go to FUZZ_DIR/corpus-TARGET, kept from run to run. A crash is
#        reported (FUZZ_DIR/summary-TARGET.txt says CRASHED) but the exit
#        status is 0, so that `make fuzz` still runs the other targets.
# smoke: a fresh scratch corpus, seeded from the repository's; exit 1 on a
#        crash, with the sanitizer's report.
# Either way tests/fuzz/corpus/TARGET is only read, and a crashing input is
# kept in FUZZ_DIR/artifacts-TARGET/.
set -uo pipefail

if [ $# -ne 4 ] || { [ "$1" != runs ] && [ "$1" != long ] && [ "$1" != smoke ]; }; then
	echo "usage: $0 runs|long|smoke TARGET LIMIT FUZZ_DIR" >&2
	exit 2
fi
mode=$1 target=$2 limit=$3 dir=$4
here=$(dirname "$0")
bin=$dir/fuzz_$target
seeds=$here/corpus/$target
dict=$here/dict/$target.dict
artifacts=$dir/artifacts-$target
log=$dir/$mode-$target.log

if [ "$mode" != smoke ]; then
	scratch=$dir/corpus-$target
else
	scratch=$dir/smoke-$target
	rm -rf "$scratch"
fi
mkdir -p "$scratch" "$artifacts"

if [ "$mode" = runs ]; then
	args=(-runs="$limit")
else
	args=(-max_total_time="$limit")
fi
args+=(-print_final_stats=1 -timeout=25 -rss_limit_mb=2048
      -artifact_prefix="$artifacts/")
[ -f "$dict" ] && args+=(-dict="$dict")

stamp=$(mktemp)
start=$(date +%s)
"$bin" "${args[@]}" "$scratch" "$seeds" >"$log" 2>&1
rc=$?
elapsed=$(($(date +%s) - start))

execs=$(awk '/^stat::number_of_executed_units:/ { n = $2 } END { print n + 0 }' "$log")
rate=$(awk '/^stat::average_exec_per_sec:/ { n = $2 } END { print n + 0 }' "$log")
status=$(grep -E '^#[0-9]+.*cov: [0-9]+' "$log" | tail -n 1)
cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$status")
ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$status")
corp=$(sed -nE 's/.* corp: ([^ ]+).*/\1/p' <<<"$status")
found=$(find "$artifacts" -type f -newer "$stamp" \
	\( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \))
rm -f "$stamp"
crashes=$(grep -c . <<<"$found")
[ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1	# died without an artifact

line=$(printf 'fuzz_%-12s %5d s  %11d execs  %7d execs/s  cov %5s  ft %6s  corp %-12s  crashes %d' \
	"$target" "$elapsed" "$execs" "$rate" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes")
if [ "$crashes" -ne 0 ]; then
	line="$line  CRASHED (exit $rc, log $log)"
fi
echo "$line"
[ "$mode" != smoke ] && echo "$line" >"$dir/summary-$target.txt"

if [ "$crashes" -ne 0 ]; then
	echo "---- last lines of $log:" >&2
	tail -n 60 "$log" >&2
	[ -n "$found" ] && sed 's/^/artifact: /' <<<"$found" >&2
	[ "$mode" = smoke ] && exit 1
fi
exit 0
