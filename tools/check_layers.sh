#!/usr/bin/env bash
# make layers: the rooms of user/ include only the rooms below them.
# Reads every #include "..." in user/, maps each file to its room (its folder
# under user/; user/main.c is the room "main") and checks each arrow against
# the table below. Prints each violation as
#   user/a/b.c: includes c/d.h (a -> c not allowed)
# and exits 1; says so in one line and exits 0 when there is none.
# With --arrows, prints the arrows the includes draw today, room by room.
# Also checked: the table itself has no cycle (a room may not reach itself),
# every room under user/ is in it, an exception listed is still needed, and
# an include of a header of user/ or bpf/ names its folder ("elf/elf_syms.h",
# "bpf/profile.h"), its own folder's too; only the generated headers of
# build/ (*.skel.h, profile.pb-c.h, opentelemetry/proto/**.pb-c.h,
# google/rpc/status.pb-c.h, flamegraph_page.h) go by their names.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each room, from the bottom up, and the rooms it may include (besides itself;
# bpf/'s headers, the layouts shared with the BPF side, any room may include).
LAYERS='
base:
elf:      base
profile:  base
sampling: base
procs:    base sampling
python:   base elf procs profile sampling
v8:       base elf
runtimes: base profile python sampling
files:    base elf procs profile
unwind:   base elf files procs sampling
symbols:  base elf files procs profile runtimes sampling
render:   base profile
output:   base files profile render
views:    base render
offline:  base cli elf output render
run:      base elf files output procs profile render runtimes sampling symbols unwind views
cli:      base sampling
main:     base cli offline run sampling views
'

# Arrows that point up, each allowed until the change that removes it (a
# line "a -> b  why"); none today.
EXCEPTIONS='
'

headers=$(mktemp)
trap 'rm -f "$headers"' EXIT
find user bpf -name '*.h' | LC_ALL=C sort > "$headers"
mapfile -t sources < <(find user -name '*.[ch]' | LC_ALL=C sort)
export LAYERS EXCEPTIONS
awk -v headers="$headers" -v arrows="${1:-}" '
function room(path,   p) {
	if (path == "user/main.c")
		return "main"
	p = substr(path, 6)
	return index(p, "/") ? substr(p, 1, index(p, "/") - 1) : "user"
}
function dir_of(path) {
	sub(/\/[^\/]*$/, "", path)
	return path
}
function base_of(path) {
	sub(/^.*\//, "", path)
	return path
}
function generated(inc) {
	return inc ~ /^[a-z_]+\.skel\.h$/ || inc == "profile.pb-c.h" || inc ~ /^opentelemetry\/proto\/[a-z0-9_\/]+\.pb-c\.h$/ || inc == "google/rpc/status.pb-c.h" || inc == "flamegraph_page.h"
}
function say(msg) {
	if (arrows != "--arrows")
		print msg
	bad++
}
# 1 if room a reaches room b through the table
function reaches(a, b, seen,   n, i, d) {
	if (a == b)
		return 1
	if (a in seen)
		return 0
	seen[a] = 1
	n = split(deps[a], d, " ")
	for (i = 1; i <= n; i++)
		if (reaches(d[i], b, seen))
			return 1
	return 0
}
BEGIN {
	n = split(ENVIRON["LAYERS"], l, "\n")
	for (i = 1; i <= n; i++) {
		if (l[i] !~ /:/)
			continue
		r = l[i]; sub(/:.*/, "", r)
		d = l[i]; sub(/^[^:]*:[ \t]*/, "", d); gsub(/[ \t]+/, " ", d)
		deps[r] = d
		nd = split(d, dd, " ")
		for (j = 1; j <= nd; j++)
			allowed[r, dd[j]] = 1
	}
	n = split(ENVIRON["EXCEPTIONS"], l, "\n")
	for (i = 1; i <= n; i++) {
		if (split(l[i], w, " ") < 3)
			continue
		excepted[w[1], w[3]] = 1
	}
	for (r in deps) {
		nd = split(deps[r], dd, " ")
		for (j = 1; j <= nd; j++) {
			if (!(dd[j] in deps))
				say("check_layers: room " r " may include " dd[j] ", which is not in the table")
			delete seen
			if (reaches(dd[j], r, seen))
				say("check_layers: the table has a cycle: " r " -> " dd[j] " -> ... -> " r)
		}
	}
}
FILENAME == headers { header[$0] = 1; byname[base_of($0)] = byname[base_of($0)] " " $0; next }
FNR == 1 {
	files++
	if (!(room(FILENAME) in deps) && !(room(FILENAME) in missing)) {
		missing[room(FILENAME)] = 1
		say(FILENAME ": room " room(FILENAME) " is not in the table of tools/check_layers.sh")
	}
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0
	sub(/^[^"]*"/, "", inc)
	sub(/".*/, "", inc)
	includes++
	from = room(FILENAME)
	target = ""
	if ((dir_of(FILENAME) "/" inc) in header && inc !~ /\//)
		target = dir_of(FILENAME) "/" inc
	else if (inc ~ /^bpf\// && inc in header)
		target = inc
	else if (inc ~ /\// && ("user/" inc) in header)
		target = "user/" inc
	else if (generated(inc))
		next
	else if (inc !~ /\//) {
		m = split(byname[inc], c, " ")
		if (m == 1)
			target = c[1]
	}
	if (target == "") {
		say(FILENAME ": includes \"" inc "\", no header of user/ or bpf/ by that name (or more than one)")
		next
	}
	if (inc !~ /\//)
		say(FILENAME ": includes \"" inc "\" without its folder (write \"" \
		    (target ~ /^user\// ? substr(target, 6) : target) "\")")
	if (target ~ /^bpf\//)
		next
	to = room(target)
	if (from == to)
		next
	used[from, to] = 1
	if ((from, to) in allowed)
		next
	if ((from, to) in excepted)
		next
	say(FILENAME ": includes " substr(target, 6) " (" from " -> " to " not allowed)")
}
END {
	if (arrows == "--arrows") {
		for (k in used) {
			split(k, w, SUBSEP)
			print w[1] ": " w[2] | "sort"
		}
		close("sort")
		exit 0
	}
	for (k in excepted) {
		split(k, w, SUBSEP)
		if (!((w[1], w[2]) in used))
			say("check_layers: the exception " w[1] " -> " w[2] " is no longer needed: remove it")
	}
	if (bad) {
		print "check_layers: " bad " violation(s) of the rooms table (tools/check_layers.sh)"
		exit 1
	}
	nx = 0
	for (k in excepted)
		nx++
	print "layers: " includes " includes in " files " files of user/ point down the rooms table" \
	      (nx ? " (" nx " exception(s) still listed)" : "")
}
' "$headers" "${sources[@]}"
