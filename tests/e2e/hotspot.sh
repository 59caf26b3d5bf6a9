# shellcheck shell=bash
# HotSpot (OpenJDK 17) with no flags: JavaChain's compiled code named from
# the VM's own description of its structures (gHotSpotVMStructs, read from
# the process: user/hotspot/), not from a perf map it never wrote; a
# process that fakes the structures refused and counted. One JVM run
# (killed after ~15 s) serves every check. Sourced by run.sh.

# Of the samples of comm $2 in folded $1 whose innermost frame (kernel
# frames aside) is code without a file (_[j]), the percent named: not
# "[JIT]"; then that count.
hs_jit_named() {
	awk -v c="$2" '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, f, ";"); if (f[1] != c) next
		while (k > 1 && f[k] ~ /_\[k\]$/) k--
		if (f[k] !~ /_\[j\]$/) next
		all += n; if (f[k] != "[JIT]_[j]") named += n }
		END { print (all > 0 ? int(named * 100 / all) : 0), all + 0 }' "$1"
}

# The named JavaChain frames of folded $1 ("JavaChain.leaf"; a perf map's
# "double JavaChain.leaf(int)" cut to that), most sampled first: "name count".
hs_chain_names() {
	awk '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
		for (i = 1; i <= k; i++) if (f[i] ~ /JavaChain\./) {
			s = f[i]; sub(/_\[j\]$/, "", s); sub(/\(.*$/, "", s); sub(/^.* /, "", s)
			t[s] += n } }
		END { for (s in t) print s, t[s] }' "$1" | sort -k2 -nr
}

echo "== HotSpot, no flags: compiled Java code named from the VM's structures"
if javac -d "$T/hs" examples/JavaChain.java 2>"$T/hs_javac.err"; then
	java -cp "$T/hs" JavaChain 30 >/dev/null 2>&1 &
	HS_PID=$!
	sleep 3	# C1 and C2 compile the chain in its first seconds
	"$BPFPROF" -p "$HS_PID" -d 3 -o "$T/hs.folded" --stats "$T/hs.json" 2>"$T/hs.err"
	check "hotspot: exit 0" [ $? -eq 0 ]
	check "hotspot: --stats counts one JVM read and its code named" \
		stat_true "$T/hs.json" '.hotspot | .processes == 1 and .refused == 0 and .code_named > 0'
	read -r HS_NAMED HS_JIT <<<"$(hs_jit_named "$T/hs.folded" java)"
	note_share "hotspot" "compiled Java samples named" "$HS_NAMED"
	check "hotspot: >= 90% of the $HS_JIT samples in code without a file named ($HS_NAMED%)" \
		all [ "$HS_JIT" -gt 0 ] -- [ "$HS_NAMED" -ge 90 ]
	[ "$HS_NAMED" -ge 90 ] || sort -t' ' -k2 -nr "$T/hs.folded" | head -3
	# printed, not asserted: compiled frames are not walked by their frame
	# sizes yet, so their callers are skipped or the walk stops
	HS_WHOLE=$(awk '/^java;clone3;start_thread;/ { w += $NF } /^java;/ { a += $NF }
		END { print (a > 0 ? int(w * 100 / a) : 0) }' "$T/hs.folded")
	note_share "hotspot" "java samples reaching start_thread" "$HS_WHOLE"
	check_complete hotspot "$T/hs.folded" "$T/hs.json" "$T/hs.err"
	# the VM's own list of its compiled methods, just after: every
	# JavaChain method named is one of them
	jcmd "$HS_PID" Compiler.codelist 2>/dev/null |
		awk '{ s = $4; sub(/\(.*$/, "", s); print s }' | sort -u >"$T/hs_codelist"
	hs_chain_names "$T/hs.folded" >"$T/hs_names"
	check "hotspot: JavaChain's hottest named method is one of its chain ($(head -1 "$T/hs_names"))" \
		grep -qE '^JavaChain\.(leaf|middle|outer|main) ' <(head -1 "$T/hs_names")
	check "hotspot: every JavaChain method named is one jcmd Compiler.codelist lists" \
		all [ -s "$T/hs_names" ] -- bash -c "! awk '{ print \$1 }' '$T/hs_names' | grep -vxFf '$T/hs_codelist'"
	# reference, printed beside: the VM's perf map (what -XX:+PreserveFramePointer
	# users pair with jcmd Compiler.perfmap), which bpfprof prefers when present
	if jcmd "$HS_PID" Compiler.perfmap >/dev/null 2>&1; then
		"$BPFPROF" -p "$HS_PID" -d 2 -o "$T/hs_map.folded" 2>/dev/null
		echo "        names from the VM: $(head -3 "$T/hs_names" | tr '\n' ' ')"
		echo "        names from jcmd Compiler.perfmap: $(hs_chain_names "$T/hs_map.folded" | head -3 | tr '\n' ' ')"
		rm -f "/tmp/perf-$HS_PID.map"
	fi
	if command -v perf >/dev/null; then
		perf record -q -F 99 -g -o "$T/hs.perf" -p "$HS_PID" -- sleep 1 >/dev/null 2>&1
		echo "        perf -g: $(perf script -i "$T/hs.perf" 2>/dev/null | awk '/^java /{ n++ } /JavaChain/{ j++ } END { print n + 0 " samples, " j + 0 " frames named JavaChain (no map: none)" }')"
	fi
	kill "$HS_PID" 2>/dev/null
	wait "$HS_PID" 2>/dev/null
	# started by bpfprof, named after it exited: its code heaps were
	# walked while it ran (user/hotspot/hotspot.c)
	"$BPFPROF" -o "$T/hs_cmd.folded" --stats "$T/hs_cmd.json" -- java -cp "$T/hs" JavaChain 3 \
		>/dev/null 2>"$T/hs_cmd.err"
	check "hotspot -- java: exit 0" [ $? -eq 0 ]
	read -r HS_NAMED HS_JIT <<<"$(hs_jit_named "$T/hs_cmd.folded" java)"
	note_share "hotspot" "-- java: compiled Java samples named" "$HS_NAMED"
	check "hotspot -- java: >= 90% of the $HS_JIT samples in code without a file named after the JVM exited ($HS_NAMED%)" \
		all [ "$HS_JIT" -gt 0 ] -- [ "$HS_NAMED" -ge 90 ]
	[ "$HS_NAMED" -ge 90 ] || { jq -c .hotspot "$T/hs_cmd.json"; tail -2 "$T/hs_cmd.err"
		sort -t' ' -k2 -nr "$T/hs_cmd.folded" | head -3; }
else
	fail "hotspot: javac cannot build examples/JavaChain.java" "$(head -3 "$T/hs_javac.err")"
fi

echo "== HotSpot: a process that fakes gHotSpotVMStructs is refused and counted"
# examples/hs_fake_jvm.c under libjvm's name, its structs table never ending
"$EXAMPLES/fakejvm/libjvm.so" unended >"$T/hs_fake.out" &
HS_FAKE=$!
until grep -q ready "$T/hs_fake.out" 2>/dev/null || ! kill -0 "$HS_FAKE" 2>/dev/null; do sleep 0.1; done
"$BPFPROF" -p "$HS_FAKE" -d 1 -o "$T/hs_fake.folded" --stats "$T/hs_fake.json" 2>"$T/hs_fake.err"
check "hotspot fake: exit 0" [ $? -eq 0 ]
check "hotspot fake: its tables refused and counted" \
	stat_true "$T/hs_fake.json" '.hotspot | .processes == 1 and .refused == 1 and .code_named == 0'
kill "$HS_FAKE" 2>/dev/null
wait "$HS_FAKE" 2>/dev/null
