#!/usr/bin/env bash
# make script-tests: make layers' two scripts fail on what they are for.
# Each case plants one violation in a copy of the tree (user/, bpf/, the
# architecture page, the two scripts), runs the check there and expects exit 1 and a line naming it;
# the copy as it is must pass both, and text that only mentions stderr (a
# comment, a string) must not fail the printer's check.
set -uo pipefail
cd "$(dirname "$0")/../.."

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/doc" "$T/tools"
cp -r user bpf "$T"/
cp doc/architecture.md "$T/doc/"
cp tools/check_layers.sh tools/check_printer.sh tools/check_runtimes.sh "$T/tools/"
. tests/scripts/check.sh

# fails SCRIPT PATTERN: the script (of the copy) exits 1 with a line matching PATTERN
fails() {
	local out rc
	out=$(bash "$T/tools/$1" 2>&1)
	rc=$?
	[ "$rc" -eq 1 ] && grep -qE -- "$2" <<<"$out" && return 0
	echo "  tools/$1: exit $rc, expected 1 and /$2/:"
	sed 's/^/    /' <<<"$out" | head -20
	return 1
}

passes() {
	local out
	out=$(bash "$T/tools/$1" 2>&1) && return 0
	sed 's/^/    /' <<<"$out" | head -20
	return 1
}

# plant FILE TEXT: appends TEXT (lines) to FILE of the copy, its original kept
plant() {
	cp "$T/$1" "$T/$1.orig"
	printf '%s\n' "$2" >>"$T/$1"
}
unplant() {
	mv "$T/$1.orig" "$T/$1"
}

check "the tree as it is passes check_layers.sh" passes check_layers.sh
check "the tree as it is passes check_printer.sh" passes check_printer.sh
check "the tree as it is passes check_runtimes.sh" passes check_runtimes.sh

plant user/run/setup.c 'static const char *py_default = "python";'
check "a runtime named outside its folder, walker and rows (python in run/setup.c) fails" \
	fails check_runtimes.sh '^user/run/setup.c: names the runtime python outside its folder, walker and rows: .*py_default'
unplant user/run/setup.c

plant user/output/summary_json.c 'static const int v8_extra = 1; /* a comment: python, hotspot */'
check "... v8 by a prefix of its files (v8_ in output/summary_json.c) fails; a comment does not" \
	fails check_runtimes.sh '^user/output/summary_json.c: names the runtime v8 .*: v8_extra $'
unplant user/output/summary_json.c

mv "$T/bpf/early.bpf.h" "$T/early.bpf.h.orig"
: >"$T/bpf/early.bpf.h"
check "an exception no longer needed (bpf/early.bpf.h without py_walk) fails" \
	fails check_runtimes.sh '^bpf/early.bpf.h: an exception for python no longer needed'
mv "$T/early.bpf.h.orig" "$T/bpf/early.bpf.h"

plant user/elf/elf_read.c '#include <run/run.h>'
check "an up-arrow in angle brackets (<run/run.h> in elf/elf_read.c) fails" \
	fails check_layers.sh '^user/elf/elf_read.c: includes run/run.h \(elf -> run not allowed\)'
check "... and the angle brackets are said" \
	fails check_layers.sh '^user/elf/elf_read.c: includes <run/run.h>, a header of user/ in angle brackets'
unplant user/elf/elf_read.c

plant user/base/url.c '#include <base/grow.h>'
check "a header of its own room in angle brackets (<base/grow.h> in base/url.c) fails" \
	fails check_layers.sh '^user/base/url.c: includes <base/grow.h>, a header of user/ in angle brackets'
unplant user/base/url.c

plant user/sampling/session.c '#include "bpf/maps.bpf.h"'
check "a bpf/ header but bpf/profile.h (bpf/maps.bpf.h in sampling/session.c) fails" \
	fails check_layers.sh '^user/sampling/session.c: includes bpf/maps.bpf.h, a header of the BPF side'
unplant user/sampling/session.c

plant user/unwind/keeps_fp.c '#include "unwind/unwind_table.h"'
check "a cycle of files (keeps_fp.c <-> unwind_table.c) fails" \
	fails check_layers.sh 'user/unwind/(keeps_fp|unwind_table)\.c -> .* -> user/unwind/(keeps_fp|unwind_table)\.c: a cycle of files'
unplant user/unwind/keeps_fp.c

cp "$T/doc/architecture.md" "$T/doc/architecture.md.orig"
sed -i 's/^| `python` | base, /| `python` | /' "$T/doc/architecture.md"
check "the architecture page's rooms table unlike LAYERS (python's row) fails" \
	fails check_layers.sh '^doc/architecture.md: its rooms table is not LAYERS'
cp "$T/doc/architecture.md.orig" "$T/doc/architecture.md"
sed -i '/^| `user\/offline\/` |/d' "$T/doc/architecture.md"
check "the folder map without user/offline/ fails" \
	fails check_layers.sh '^doc/architecture.md: the folder map has no row for user/offline/'
unplant doc/architecture.md

plant user/procs/tracker.c 'static void say(void) { fprintf(stderr, "bpfprof: raw\n"); }'
check "fprintf(stderr, ...) outside the printer fails" \
	fails check_printer.sh '^user/procs/tracker.c:[0-9]+: writes to stderr: static void say'
unplant user/procs/tracker.c
plant user/run/run.c 'static void say(void) { perror("x"); }'
check "perror() fails" fails check_printer.sh '^user/run/run.c:[0-9]+: prints to stderr by itself'
unplant user/run/run.c
plant user/run/run.c 'static void say(void) { if (write(STDERR_FILENO, "x", 1)) return; }'
check "write(STDERR_FILENO, ...) fails" fails check_printer.sh '^user/run/run.c:[0-9]+: writes to file descriptor 2'
unplant user/run/run.c
plant user/run/run.c 'static FILE *where(void) { return stderr; }'
check "stderr handed on (return stderr) fails" fails check_printer.sh '^user/run/run.c:[0-9]+: names stderr'
unplant user/run/run.c
plant user/run/run.c '/* fprintf(stderr, ...) in a comment,
 * over lines: perror(x) */
static const char *say = "fprintf(stderr, \"x\")"; // stderr'
check "stderr in comments and strings passes" passes check_printer.sh
unplant user/run/run.c

checks_done test_checks
