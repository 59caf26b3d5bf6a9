#!/usr/bin/env bash
# make layers: a runtime is its folder (user/NAME/), its BPF walker
# (bpf/NAME*.h, bpf/PREFIX*.h) and one row in each table of the seam:
# outside those, no code names it. The runtimes are bpf/runtimes.h's ids
# (RUNTIME_NAME); a runtime's names are the identifiers and strings, its
# comments aside, that hold its folder's name ("python", "v8", "hotspot")
# or its files' prefix as a word of their own ("py" in py_find.c:
# py_procs, STAT_PY_FRAMES). Prints each file that names a runtime it
# should not, with the names, and exits 1; with --count, prints each
# runtime's count of files outside its folder and walker (rows included)
# and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."

# The seam's tables, where every runtime has its row.
ROWS='
bpf/runtimes.h
bpf/runtimes.bpf.h
user/runtimes/runtimes.c
user/base/frame_kind.h
user/base/frame_kind.c
'

# Files that name a runtime outside its row, each allowed until the change
# that removes it ("FILE RUNTIME  why"); an exception no longer needed fails.
EXCEPTIONS='
bpf/profile.h python  the BPF stats enum holds the walker'"'"'s counts (STAT_PY_*)
bpf/profile.h v8  ... and STAT_V8_*
bpf/stack.bpf.h python  the unwinder'"'"'s step keeps its native-frame flag in struct py_walk
bpf/early.bpf.h python  ... and asks it whether the sample'"'"'s process is a runtime'"'"'s
'

count=false
[ "${1:-}" = --count ] && count=true

# A file's code without its comments (strings kept): the compiler's own
# reading, no include followed.
code_of() {
	gcc -fpreprocessed -dD -E -P -x c "$1" 2>/dev/null | grep -v '^#define' || true
	grep -E '^[[:space:]]*#[[:space:]]*define' "$1" | sed 's|/\*.*||; s|//.*||' || true
}

# The words of a runtime: its folder's name anywhere in a word, and each
# prefix of its files' names (py_code.c: py) as a word's own part.
runtime_pattern() {
	local dir=$1 name prefixes
	name=$(basename "$dir")
	prefixes=$(find "$dir" -maxdepth 1 -name '*_*.[ch]' -printf '%f\n' | sed 's/_.*//' | sort -u |
		grep -vx "$name" | tr '\n' '|' | sed 's/|$//')
	if [ -n "$prefixes" ]; then
		echo "[A-Za-z0-9_]*${name}[A-Za-z0-9_]*|(^|[^A-Za-z0-9])([A-Za-z0-9]+_)*(${prefixes})_[A-Za-z0-9_]*"
	else
		echo "[A-Za-z0-9_]*${name}[A-Za-z0-9_]*"
	fi
}

bad=0
for id in $(sed -nE 's/^[[:space:]]*RUNTIME_([A-Z0-9]+)[[:space:]]*(=[^,]*)?,.*/\1/p' bpf/runtimes.h |
	    grep -vx MAX); do
	name=$(tr 'A-Z' 'a-z' <<<"$id")
	dir=user/$name
	if [ ! -d "$dir" ]; then
		echo "bpf/runtimes.h: RUNTIME_$id has no folder $dir"
		bad=1
		continue
	fi
	pat=$(runtime_pattern "$dir")
	prefixes=$(find "$dir" -maxdepth 1 -name '*_*.[ch]' -printf '%f\n' | sed 's/_.*//' | sort -u)
	n=0
	outside=()
	while IFS= read -r f; do
		case "$f" in
		"$dir"/*|bpf/"$name".h|bpf/"$name".bpf.h|bpf/"$name"_*.h) continue ;;
		esac
		skip=false
		for p in $prefixes; do
			case "$f" in bpf/"$p"_*.h|bpf/"$p".h|bpf/"$p".bpf.h) skip=true ;; esac
		done
		$skip && continue
		excepted=$(grep -cE "^$f $name " <<<"$EXCEPTIONS" || true)
		words=$(code_of "$f" | grep -ioE "$pat" | sed -E 's/^[^A-Za-z0-9_]+//' | sort -u |
			tr '\n' ' ' || true)
		if [ -z "$words" ]; then
			if [ "$excepted" -gt 0 ] && ! $count; then
				echo "$f: an exception for $name no longer needed (tools/check_runtimes.sh)"
				bad=1
			fi
			continue
		fi
		n=$((n + 1))
		outside+=("$f: $words")
		if ! $count && ! grep -qxF "$f" <<<"$ROWS" &&
		   ! grep -qE "^$f $name " <<<"$EXCEPTIONS"; then
			echo "$f: names the runtime $name outside its folder, walker and rows: $words"
			bad=1
		fi
	done < <(find user bpf -name '*.[ch]' | sort)
	if $count; then
		echo "$name: $n files outside user/$name/ and its walker"
		printf '  %s\n' "${outside[@]}"
	fi
done
$count && exit 0
[ "$bad" -eq 0 ] && echo "runtimes: each named only in its folder, its walker and the seam's rows"
exit "$bad"
