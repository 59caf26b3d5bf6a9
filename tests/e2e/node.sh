# shellcheck shell=bash
# node's JavaScript frames with no flags: V8's own postmortem metadata
# (v8dbg_ symbols) tells the BPF walker which frames are JavaScript
# functions and user space names them from the process's heap
# (user/v8/, bpf/v8.bpf.h). examples/node_chain.js runs its top level ->
# outer -> middle -> leaf (TurboFan inlines leaf into middle: a frame of
# its own only while not inlined). Sourced by run.sh.

NODE_JS=examples/node_chain.js

# Percent of comm node's samples in folded $1 whose stack reaches a
# thread's entry (_start for the main thread, clone3/clone for the others).
node_whole() {
	awk '{ n = $NF; split($0, f, ";"); if (f[1] != "node") next; all += n
		if (f[2] == "_start" || f[2] == "clone3" || f[2] == "clone") hit += n }
		END { print (all > 0 ? int(hit * 100 / all) : 0) }' "$1"
}

# "IN OF PCT": of node's samples in node_chain.js (a frame of it, named
# by the walker), those whose frames of it are, root first, the script's
# top level, outer, middle (then leaf or nothing), with only frames of
# no script (native, builtins) after middle.
node_chain() {
	awk '
	function js(f) { return f ~ /^[^;]* \(node_chain\.js(:[0-9]+)?\)_\[j\]$/ }
	{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
		if (f[1] != "node") next
		seq = ""; for (i = 2; i <= k; i++) if (js(f[i])) { s = f[i]; sub(/ \(.*/, "", s); seq = seq ";" s }
		if (seq == "") next
		all += n
		if (seq == ";(anonymous);outer;middle" || seq == ";(anonymous);outer;middle;leaf") hit += n
	} END { printf "%d %d %d\n", hit, all, (all > 0 ? int(hit * 100 / all) : 0) }' "$1"
}

# The JavaScript functions (names only: "NAME (file:L)" from the walker,
# "JS:*NAME /path:L:C" from a --perf-basic-prof map) in at least 20% of
# node's samples, sorted, one line. A map names an anonymous function
# "JS:* /path:L:C", the walker "(anonymous) (file)": the same function.
node_top() {
	awk '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
		if (f[1] != "node") next; all += n; delete seen
		for (i = 2; i <= k; i++) if (f[i] ~ /_\[j\]$/) {
			s = f[i]; sub(/_\[j\]$/, "", s); sub(/^JS:[*~^]?/, "", s); sub(/ .*/, "", s)
			if (s == "") s = "(anonymous)"
			if (s != "[JIT]" && !(s in seen)) { seen[s] = 1; c[s] += n }
		}
	} END { for (s in c) if (c[s] * 5 >= all) print s }' "$1" | sort | tr '\n' ' '
}

echo "== node started by bpfprof, no flags: JavaScript frames named and whole"
"$BPFPROF" -F 199 -o "$T/node.folded" --stats "$T/node.json" -- node "$NODE_JS" 3 >/dev/null 2>"$T/node.err"
check "node: exit 0" [ $? -eq 0 ]
w=$(node_whole "$T/node.folded"); note_share node "whole" "$w"
check "node: >= 95% of node's samples reach a thread's entry ($w%)" [ "$w" -ge 95 ]
check_complete node "$T/node.folded" "$T/node.json" "$T/node.err"
read -r hit in s <<<"$(node_chain "$T/node.folded")"; note_share node "JS chain" "$s"
check "node: >= 90% of the samples in node_chain.js name (anonymous);outer;middle[;leaf] in order ($hit of $in: $s%)" \
	all [ "$in" -ge 50 ] -- [ "$s" -ge 90 ]
[ "$s" -ge 90 ] || awk '{ print $NF, $0 }' "$T/node.folded" | sort -nr | head -3 | cut -c1-600
check "node --stats: one V8 process, frames read and named, none refused" \
	stat_true "$T/node.json" '.v8 | .processes == 1 and .unsupported == 0 and .frames_read > 0 and .frames_named > 0'
# before: one frame per address (anon+0x7f.. or [unknown]): 23 in a 10 s
# run; then one [JIT]_[j] per JavaScript frame (issue 39)
anon=$(sed 's/ [0-9]*$//' "$T/node.folded" | tr ';' '\n' | grep -cE 'anon\+0x|^0x[0-9a-f]+$')
check "node: no anon+0x frames ($anon)" [ "$anon" -eq 0 ]
check "node: no [JIT]_[j] frame where a function runs (none between outer and middle)" \
	bash -c "! grep -qE ';outer [^;]*_\[j\];\[JIT\]_\[j\]' '$T/node.folded'"
row=$("$BPFPROF" report "$T/node.folded" 2>/dev/null | grep -E ' leaf \(node_chain\.js' | head -1)
check "node: the report marks JavaScript frames [j] ($row)" bash -c "[[ '$row' == *'[j] leaf (node_chain.js'* ]]"

echo "== node started before bpfprof (-p), no flags"
node "$NODE_JS" 5 >/dev/null & np=$!
sleep 1
"$BPFPROF" -F 199 -p "$np" -d 2 -o "$T/node_p.folded" --stats "$T/node_p.json" 2>"$T/node_p.err"
check "node -p: exit 0" [ $? -eq 0 ]
kill "$np" 2>/dev/null; wait "$np" 2>/dev/null
read -r hit in s <<<"$(node_chain "$T/node_p.folded")"; note_share node "-p JS chain" "$s"
check "node -p: >= 90% of the samples in node_chain.js name the chain in order ($hit of $in: $s%)" \
	all [ "$in" -ge 30 ] -- [ "$s" -ge 90 ]
w=$(node_whole "$T/node_p.folded")
check "node -p: >= 95% of node's samples reach a thread's entry ($w%)" [ "$w" -ge 95 ]
check_complete "node -p" "$T/node_p.folded" "$T/node_p.json" "$T/node_p.err"

echo "== node --perf-basic-prof: the map names JIT code, the walker the rest; they agree"
# the script copied under $T: the map node leaves names it, so only ours is removed
mkdir -p "$T/nodepm" && cp "$NODE_JS" "$T/nodepm/node_chain.js"
"$BPFPROF" -F 199 -o "$T/node_pm.folded" -- node --perf-basic-prof --logfile="$T/v8.log" \
	--no-logfile-per-isolate "$T/nodepm/node_chain.js" 3 >/dev/null 2>&1
find /tmp -maxdepth 1 -name 'perf-*.map' -type f -user 0 -exec grep -lF "$T/nodepm/node_chain.js" {} + 2>/dev/null |
	xargs -r rm -f  # regular files only: grep blocks on a planted FIFO
check "node --perf-basic-prof: the map's names win for JIT code (JS:*middle)" \
	grep -qE ';JS:[*~^]?middle [^;]*node_chain\.js:[0-9:]+_\[j\][; ]' "$T/node_pm.folded"
row=$("$BPFPROF" report "$T/node_pm.folded" | grep -E 'JS:[*~^]?(leaf|middle|outer) ' | head -1)
check "node --perf-basic-prof: report marks them [j] ($row)" bash -c "[[ '$row' == *'[j] JS:'* ]]"
a=$(node_top "$T/node.folded"); b=$(node_top "$T/node_pm.folded")
check "node: the JavaScript functions in >= 20% of samples agree with --perf-basic-prof's ($a| $b)" \
	all [ -n "$a" ] -- [ "$a" = "$b" ]

echo "== a process that fakes V8's metadata: refused and counted, nothing walked"
# named node, as only a file named so is read for v8dbg_ symbols
mkdir -p "$T/fakenode" && cp "$EX/v8dbg_fake" "$T/fakenode/node" && cp "$EX/libhot.so" "$T/fakenode/"
"$T/fakenode/node" & fk=$!
sleep 0.3
"$BPFPROF" -p "$fk" -d 1 -o "$T/v8fake.folded" --stats "$T/v8fake.json" 2>"$T/v8fake.err"
check "v8dbg_fake -p: exit 0" [ $? -eq 0 ]
kill "$fk" 2>/dev/null; wait "$fk" 2>/dev/null
check "v8dbg_fake: counted refused, no V8 process ($(stat_of "$T/v8fake.json" .v8.unsupported) refused)" \
	stat_true "$T/v8fake.json" '.v8 | .processes == 0 and .unsupported == 1'
