#!/usr/bin/env bash
# End-to-end tests: the real bpfprof binary and its real BPF programs against
# the workloads in examples/, whose hot functions and call chains are known.
# Env: BPFPROF (binary, the ASan/UBSan build under make test), BPFPROF_PLAIN (the
# build without sanitizers: what measures memory runs it), EXAMPLES (dir).
# Each tests/e2e/*.sh section is sourced in turn (E2E_SECTIONS="a b" picks
# some); lib.sh has the helpers.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

BPFPROF=${BPFPROF:-./bpfprof}
EX=${EXAMPLES:-build/examples}
T=$(mktemp -d /tmp/bpfprof-e2e.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; attacker_remove; rm -rf "$T"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
SHARES=()

note_share() { SHARES+=("$(printf '%-12s %-18s bpfprof %3s%%' "$1" "$2" "$3")"); }

# BPF must be allowed here; if it truly is not (not root, lockdown), say so
# loudly and stop: every test below needs it.
if ! "$BPFPROF" -d 0.2 -o "$T/probe" 2>"$T/probe.err"; then
	if grep -q 'permission denied' "$T/probe.err"; then
		echo "#####################################################################"
		echo "### SKIPPING ALL END-TO-END TESTS: BPF IS NOT PERMITTED HERE:"
		echo "### $(cat "$T/probe.err")"
		echo "#####################################################################"
		echo "e2e: 0 passed, 0 failed, 1 skipped"
		exit 0
	fi
	cat "$T/probe.err"
	echo "e2e: 0 passed, 1 failed"
	exit 1
fi

# Every section file in tests/e2e/ (all but lib.sh and run.sh), or the ones named.
ALL_SECTIONS=$(cd tests/e2e && ls ./*.sh | sed 's#^./##; s#\.sh$##' | grep -vx -e lib -e run)
# Each section's wall time, printed after it and again sorted at the end:
# where make test's minutes go (a busy machine stretches them all alike).
SECTION_TIMES=()
e2e_start=$(date +%s.%N)
for section in ${E2E_SECTIONS:-$ALL_SECTIONS}; do
	echo "##### $section"
	section_start=$(date +%s.%N)
	. "tests/e2e/$section.sh"
	section_secs=$(awk -v a="$section_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	SECTION_TIMES+=("$(printf '%7s s  %s' "$section_secs" "$section")")
	echo "##### $section: $section_secs s"
done

echo
echo "hot-function shares measured in this run:"
printf '  %s\n' "${SHARES[@]}"
if [ "$FAIL" -gt 0 ]; then
	printf 'failed: %s\n' "${FAILED[@]}"
fi
echo "e2e section wall times, longest first:"
printf '  %s\n' "${SECTION_TIMES[@]}" | sort -rn
awk -v a="$e2e_start" -v b="$(date +%s.%N)" 'BEGIN { printf "  %5.1f s  all sections\n", b - a }'
echo "e2e: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
