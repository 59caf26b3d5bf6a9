#!/usr/bin/env bash
# Seeds of fuzz_fde_index and fuzz_debug_file (tests/fuzz/corpus/), from the
# example workloads (make examples first). Not part of the build.
#   bash tests/fuzz/seedgen/debug_seeds.sh OUT_DIR
set -euo pipefail
out=$1
ex=${EXAMPLES:-build/examples}
w=$(mktemp -d)
mkdir -p "$out"/{fde_index,debug_file}
# fde_index: .eh_frame sections as they are
for f in inline_hot nofp_chain cxx_names; do
	objcopy -O binary --only-section=.eh_frame "$ex/$f" "$out/fde_index/$f.eh_frame"
done
# debug_file: FILE, then DEBUG FILE, then the 4-byte offset of the split
seed() {	# NAME APP DEBUG
	local n
	n=$(stat -c %s "$2")
	{ cat "$2"; [ -n "$3" ] && cat "$3"; python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<I', $n))"; } >"$out/debug_file/$1"
}
cp "$ex/inline_hot" "$w/app"
objcopy --only-keep-debug "$w/app" "$w/app.debug"
strip -s -o "$w/stripped" "$w/app"
objcopy --add-gnu-debuglink="$w/app.debug" "$w/stripped" "$w/linked"
seed debuglink "$w/linked" "$w/app.debug"
seed debuglink_bad_crc "$w/linked" "$w/stripped"
seed with_dwarf "$w/app" ""
# MiniDebugInfo as Fedora makes it: the function symbols .dynsym lacks, xz'd
nm -D "$w/app" --format=posix --defined-only | awk '{ print $1 }' | sort >"$w/dyn"
nm "$w/app" --format=posix --defined-only | awk '$2 ~ /^[TtD]$/ { print $1 }' | sort >"$w/funcs"
comm -13 "$w/dyn" "$w/funcs" >"$w/keep"
objcopy -S --remove-section .comment --keep-symbols="$w/keep" "$w/app.debug" "$w/mini"
xz -f "$w/mini"
objcopy --add-section .gnu_debugdata="$w/mini.xz" "$w/stripped" "$w/minidebug"
seed minidebuginfo "$w/minidebug" ""
rm -rf "$w"
