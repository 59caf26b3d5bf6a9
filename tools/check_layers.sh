#!/usr/bin/env bash
# make layers: the rooms of user/ include only the rooms below them.
# Reads every #include of user/, "..." and <...> alike (the compiler's -Iuser
# finds <run/run.h> too), maps each file to its room (its folder under user/;
# user/main.c is the room "main") and checks each arrow against the table
# below. Prints each violation as
#   user/a/b.c: includes c/d.h (a -> c not allowed)
# and exits 1; says so in one line and exits 0 when there is none.
# With --arrows, prints the arrows the includes draw today, room by room;
# with --table, the table as doc/architecture.md shows it (--update-doc
# writes it there).
# Also checked: the table itself has no cycle (a room may not reach itself),
# every room under user/ is in it, an exception listed is still needed, an
# include of a header of user/ or bpf/ names its folder ("elf/elf_syms.h",
# "bpf/profile.h"), its own folder's too, in quotes; of bpf/'s headers user/
# includes bpf/profile.h only (the others are the BPF side's); no two .c
# files include each other's header, through any chain (a cycle of files);
# doc/architecture.md's table is --table's and its folder map has a row for
# every room. Only the generated headers of build/ (*.skel.h,
# profile.pb-c.h, opentelemetry/proto/**.pb-c.h, google/rpc/status.pb-c.h,
# flamegraph_page.h) go by their names.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each room, from the bottom up, and the rooms it may include (besides itself;
# bpf/profile.h, the layouts shared with the BPF side, any room may include).
LAYERS='
base:
elf:      base
profile:  base
sampling: base
procs:    base sampling
python:   base elf procs profile sampling
v8:       base elf procs profile sampling
hotspot:  base elf procs profile sampling
runtimes: base hotspot profile python v8 sampling
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

# The one header of bpf/ that user space includes.
SHARED_BPF_HEADER=bpf/profile.h
DOC=doc/architecture.md
DOC_BEGIN='<!-- rooms: written by tools/check_layers.sh --update-doc from its LAYERS; make layers checks it -->'
DOC_END='<!-- end of rooms -->'

# LAYERS as the architecture page's table.
rooms_table() {
	local room deps
	echo '| room | may include |'
	echo '|---|---|'
	while read -r room deps; do
		[ -n "$room" ] || continue
		room=${room%:}
		deps=$(echo "$deps" | sed 's/ \+/, /g')
		printf '| `%s`%s | %s |\n' "$room" "$([ "$room" = main ] && echo ' (`user/main.c`)')" \
			"${deps:-(nothing)}"
	done <<<"$LAYERS"
}

# The page's table now (between the markers).
doc_table() {
	awk -v b="$DOC_BEGIN" -v e="$DOC_END" '$0 == e { on = 0 } on { print } $0 == b { on = 1 }' "$DOC"
}

# Each way the page differs from LAYERS, one line each; their count is the status.
check_doc() {
	local bad=0 room
	if ! grep -qxF "$DOC_BEGIN" "$DOC" || ! grep -qxF "$DOC_END" "$DOC"; then
		echo "$DOC: no rooms table between its markers (tools/check_layers.sh --update-doc)"
		return 1
	fi
	if ! diff -q <(rooms_table) <(doc_table) >/dev/null; then
		echo "$DOC: its rooms table is not LAYERS' (tools/check_layers.sh --update-doc writes it):"
		diff <(rooms_table) <(doc_table) | sed -n 's/^[<>]/  &/p'
		bad=$((bad + 1))
	fi
	while read -r room _; do
		room=${room%:}
		[ -n "$room" ] && [ "$room" != main ] || continue
		if ! grep -qF "| \`user/$room/\` |" "$DOC"; then
			echo "$DOC: the folder map has no row for user/$room/"
			bad=$((bad + 1))
		fi
	done <<<"$LAYERS"
	return "$bad"
}

case "${1:-}" in
--table)
	rooms_table
	exit 0 ;;
--update-doc)
	doc_table >/dev/null
	tmp=$(mktemp)
	awk -v b="$DOC_BEGIN" -v e="$DOC_END" -v t="$(rooms_table)" '
		$0 == e { on = 0 } on { next } { print } $0 == b { print t; on = 1 }' "$DOC" >"$tmp"
	cat "$tmp" >"$DOC"
	rm -f "$tmp"
	echo "$DOC: rooms table written"
	exit 0 ;;
esac

doc_bad=0
[ "${1:-}" = --arrows ] || check_doc || doc_bad=$?

headers=$(mktemp)
trap 'rm -f "$headers"' EXIT
find user bpf -name '*.h' | LC_ALL=C sort > "$headers"
mapfile -t sources < <(find user -name '*.[ch]' | LC_ALL=C sort)
export LAYERS EXCEPTIONS
awk -v headers="$headers" -v arrows="${1:-}" -v shared="$SHARED_BPF_HEADER" -v bad="$doc_bad" '
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
# an include of a header of ours: the arrow between rooms, the name, the quotes
function check_include(inc, angle,   from, to, target, m, c) {
	from = room(FILENAME)
	target = ""
	if (angle) {	# the compiler looks in -Iuser (and build/, then the system)
		if (("user/" inc) in header)
			target = "user/" inc
		else if (inc ~ /^bpf\// && inc in header)
			target = inc
		else
			return
		say(FILENAME ": includes <" inc ">, a header of " (target ~ /^user\// ? "user/" : "bpf/") \
		    " in angle brackets (write \"" inc "\")")
	} else if ((dir_of(FILENAME) "/" inc) in header && inc !~ /\//)
		target = dir_of(FILENAME) "/" inc
	else if (inc ~ /^bpf\// && inc in header)
		target = inc
	else if (inc ~ /\// && ("user/" inc) in header)
		target = "user/" inc
	else if (generated(inc))
		return
	else if (inc !~ /\//) {
		m = split(byname[inc], c, " ")
		if (m == 1)
			target = c[1]
	}
	includes++
	if (target == "") {
		say(FILENAME ": includes \"" inc "\", no header of user/ or bpf/ by that name (or more than one)")
		return
	}
	if (inc !~ /\//)
		say(FILENAME ": includes \"" inc "\" without its folder (write \"" \
		    (target ~ /^user\// ? substr(target, 6) : target) "\")")
	if (target ~ /^bpf\//) {
		if (target != shared)
			say(FILENAME ": includes " target ", a header of the BPF side (user space " \
			    "includes " shared " only)")
		return
	}
	file_edge(FILENAME, target)
	to = room(target)
	if (from == to)
		return
	used[from, to] = 1
	if ((from, to) in allowed)
		return
	if ((from, to) in excepted)
		return
	say(FILENAME ": includes " substr(target, 6) " (" from " -> " to " not allowed)")
}
# a .c file that includes the header of another .c of its room: an arrow
# between files (one between rooms is checked by the table, which has no cycle)
function file_edge(file, target,   other) {
	if (file !~ /\.c$/ || room(file) != room(target))
		return
	other = substr(target, 1, length(target) - 2) ".c"
	if (other != file)
		fedges[file] = fedges[file] " " other
}
# the cycles of files, from file: each said once, by the files on it
function file_cycles(file,   n, e, i, j, path) {
	color[file] = 1
	stack[++depth] = file
	n = split(fedges[file], e, " ")
	for (i = 1; i <= n; i++) {
		if (!(e[i] in cfile))
			continue
		if (color[e[i]] == 1) {
			path = e[i]
			for (j = depth; j >= 1 && stack[j] != e[i]; j--)
				path = stack[j] " -> " path
			say(e[i] " -> " path ": a cycle of files (each includes the next one\x27s header)")
		} else if (!color[e[i]])
			file_cycles(e[i])
	}
	depth--
	color[file] = 2
}
FILENAME ~ /\.c$/ && FNR == 1 { cfile[FILENAME] = 1 }
/^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0
	sub(/^[^"]*"/, "", inc)
	sub(/".*/, "", inc)
	check_include(inc, 0)
}
/^[ \t]*#[ \t]*include[ \t]*</ {
	inc = $0
	sub(/^[^<]*</, "", inc)
	sub(/>.*/, "", inc)
	check_include(inc, 1)
}
END {
	for (f in cfile)
		if (!color[f])
			file_cycles(f)
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
