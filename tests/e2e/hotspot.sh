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

# Of the samples in folded $1 (one JVM's threads), the percent whose
# outermost frame is a thread's start (clone3; or start_thread, as perf -g
# of a JVM run with -XX:+PreserveFramePointer ends, and a walk that crossed
# libc while its table was being built) or the process's (_start: the
# launcher's first thread); then the count.
hs_whole() {
	awk '{ n = $NF; split($0, f, ";"); all += n
		if (f[2] == "clone3" || f[2] == "start_thread" || f[2] == "_start") w += n }
		END { print (all > 0 ? int(w * 100 / all) : 0), all + 0 }' "$1"
}

# The three most sampled stacks of folded $1 not reaching a start (why a
# check failed).
hs_cut() {
	awk '{ split($0, f, ";"); if (f[2] != "clone3" && f[2] != "start_thread" && f[2] != "_start") print }' "$1" |
		sort -t' ' -k2 -nr | head -3 | cut -c1-400
}

# Of the samples of folded $1 in JavaChain's Java code (a frame named
# JavaChain.*: in the launcher's call of main, under
# jni_CallStaticVoidMethod, or in a pool worker's request, under
# FutureTask.run), the percent whose JavaChain frames, outermost first, are
# main;outer;middle;leaf (a worker: outer;middle;leaf; the pool's caller:
# main;serve) or a prefix of it;
# then that count. Each method is past C2's inlining limit
# (examples/JavaChain.java), so a frame missing is the walker's.
hs_chain_in_order() {
	awk '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";"); want = alt = s = ""
		for (i = 1; i <= k; i++) {
			if (f[i] == "jni_CallStaticVoidMethod") { want = "main;outer;middle;leaf;"; alt = "main;serve;" }
			if (f[i] ~ /^java\.util\.concurrent\.FutureTask\.run_/) want = "outer;middle;leaf;"
			if (f[i] ~ /^JavaChain\./) { t = f[i]; sub(/_\[j\]$/, "", t); sub(/^JavaChain\./, "", t)
				s = s t ";" }
		}
		if (want == "" || s == "") next
		all += n; if (index(want, s) == 1 || (alt != "" && index(alt, s) == 1)) ok += n }
		END { print (all > 0 ? int(ok * 100 / all) : 0), all + 0 }' "$1"
}

# The innermost JavaChain frame of each sample of folded $1, most sampled
# first: "name count" (a perf map's "double JavaChain.leaf(int)" cut to
# JavaChain.leaf).
hs_chain_self() {
	awk '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";"); s = ""
		for (i = 1; i <= k; i++) if (f[i] ~ /JavaChain\./) s = f[i]
		if (s == "") next
		sub(/_\[j\]$/, "", s); sub(/\(.*$/, "", s); sub(/^.* /, "", s); t[s] += n }
		END { for (s in t) print s, t[s] }' "$1" | sort -k2 -nr
}

# hs_chain_self's top 5 of folded $1, those in >= 10% of its samples: names.
hs_top_self() {
	hs_chain_self "$1" | awk -v pct="${2:-10}" '{ name[NR] = $1; n[NR] = $2; all += $2 }
		END { for (i = 1; i <= NR && i <= 5; i++) if (n[i] * 100 >= all * pct) print name[i] }'
}

echo "== HotSpot, no flags: compiled Java code named from the VM's structures, stacks whole"
if javac -d "$T/hs" examples/JavaChain.java 2>"$T/hs_javac.err"; then
	# the chain as a worker service's requests: in a pool's thread, called
	# through the pool's compiled code (frame pointers kept by none of it)
	java -cp "$T/hs" JavaChain 30 pool >/dev/null 2>&1 &
	HS_PID=$!
	sleep 3	# C1 and C2 compile the chain in its first seconds
	"$BPFPROF" -p "$HS_PID" -d 3 -o "$T/hs.folded" --stats "$T/hs.json" 2>"$T/hs.err"
	check "hotspot: exit 0" [ $? -eq 0 ]
	check "hotspot: --stats counts one JVM read and its code named" \
		stat_true "$T/hs.json" '.hotspot | .processes == 1 and .refused == 0 and .code_named > 0'
	read -r HS_NAMED HS_JIT <<<"$(hs_jit_named "$T/hs.folded" pool-1-thread-1)"
	note_share "hotspot" "compiled Java samples named" "$HS_NAMED"
	check "hotspot: >= 90% of the $HS_JIT samples in code without a file named ($HS_NAMED%)" \
		all [ "$HS_JIT" -gt 0 ] -- [ "$HS_NAMED" -ge 90 ]
	[ "$HS_NAMED" -ge 90 ] || sort -t' ' -k2 -nr "$T/hs.folded" | head -3
	# whole with no flags: compiled frames stepped by their blobs' frame
	# sizes (bpf/hotspot.bpf.h), interpreted ones by their sender sp
	read -r HS_WHOLE HS_ALL <<<"$(hs_whole "$T/hs.folded")"
	note_share "hotspot" "java samples reaching the thread's start" "$HS_WHOLE"
	check "hotspot: >= 95% of the JVM's $HS_ALL samples reach the thread's start ($HS_WHOLE%)" \
		all [ "$HS_ALL" -gt 0 ] -- [ "$HS_WHOLE" -ge 95 ]
	[ "$HS_WHOLE" -ge 95 ] || { jq -c .unwind "$T/hs.json"; hs_cut "$T/hs.folded"; }
	read -r HS_ORDER HS_MAIN <<<"$(hs_chain_in_order "$T/hs.folded")"
	note_share "hotspot" "Java samples naming the chain in order" "$HS_ORDER"
	check "hotspot: >= 90% of the $HS_MAIN samples in JavaChain's code name outer;middle;leaf in order below the pool's frames ($HS_ORDER%)" \
		all [ "$HS_MAIN" -gt 0 ] -- [ "$HS_ORDER" -ge 90 ]
	[ "$HS_ORDER" -ge 90 ] || grep JavaChain "$T/hs.folded" | sort -t' ' -k2 -nr | head -3 | cut -c1-500
	check_complete hotspot "$T/hs.folded" "$T/hs.json" "$T/hs.err"
	# the VM's own list of its compiled methods, just after: the hottest
	# innermost JavaChain method is one of them; every JavaChain method
	# named (compiled, or interpreted: its Method*) is one the class declares
	jcmd "$HS_PID" Compiler.codelist 2>/dev/null |
		awk '{ s = $4; sub(/\(.*$/, "", s); print s }' | sort -u >"$T/hs_codelist"
	javap -p -cp "$T/hs" JavaChain 2>/dev/null |
		sed -n 's/.* \([A-Za-z_$][A-Za-z0-9_$]*\)(.*/JavaChain.\1/p' | sort -u >"$T/hs_declared"
	hs_chain_names "$T/hs.folded" >"$T/hs_names"
	HS_HOT=$(hs_chain_self "$T/hs.folded" | head -1)
	check "hotspot: JavaChain's hottest innermost method is one of its chain, compiled ($HS_HOT)" \
		all grep -qE '^JavaChain\.(leaf|middle|outer) ' <<<"$HS_HOT" -- \
		grep -qxF "${HS_HOT%% *}" "$T/hs_codelist"
	check "hotspot: every JavaChain method named is one the class declares ($(awk '{ print $1 }' "$T/hs_names" | tr '\n' ' '))" \
		all [ -s "$T/hs_names" ] -- bash -c "! awk '{ print \$1 }' '$T/hs_names' | grep -vxFf '$T/hs_declared'"
	# reference, printed beside: the VM's perf map (what -XX:+PreserveFramePointer
	# users pair with jcmd Compiler.perfmap), which bpfprof prefers when present
	# The map is jcmd's snapshot of the code at one moment: code the JIT
	# makes or moves later is named by it wrongly (a stale entry named a
	# leaf's new code JavaChain.serve in an idle CI run). So the run it
	# names counts only when JavaChain's entries in the map written after
	# it are those before it (the VM's other code, jcmd's own among it,
	# moves on every try): up to 5 tries, while the JIT settles.
	HS_MAP=/tmp/perf-$HS_PID.map HS_STABLE=0
	for try in 1 2 3 4 5; do
		jcmd "$HS_PID" Compiler.perfmap >/dev/null 2>&1 &&
			grep JavaChain "$HS_MAP" >"$T/hs_map_before" || break
		"$BPFPROF" -p "$HS_PID" -d 2 -o "$T/hs_map.folded" 2>/dev/null
		jcmd "$HS_PID" Compiler.perfmap >/dev/null 2>&1 &&
			grep JavaChain "$HS_MAP" | cmp -s - "$T/hs_map_before" && { HS_STABLE=$try; break; }
	done
	if [ -s "$T/hs_map_before" ]; then
		echo "        names from the VM: $(head -3 "$T/hs_names" | tr '\n' ' ')"
		echo "        names from jcmd Compiler.perfmap: $(hs_chain_names "$T/hs_map.folded" | head -3 | tr '\n' ' ')"
		rm -f "/tmp/perf-$HS_PID.map"
		# the top-5 by innermost JavaChain frame, those in >= 10% of the
		# samples (two runs: a method in 1 or 2 samples is luck): every
		# name the map gives the walker gives too
		# (the walker's: those in >= 3%, a method near 10% of a short run's
		# samples (serve's own work) is in or out of one run's top by luck)
		hs_top_self "$T/hs.folded" 3 >"$T/hs_self"
		hs_top_self "$T/hs_map.folded" >"$T/hs_map_self"
		echo "        innermost, walker: $(tr '\n' ' ' <"$T/hs_self")| perf map: $(tr '\n' ' ' <"$T/hs_map_self")"
		check "hotspot: the perf map's top-5 innermost JavaChain methods (>= 10%) are among the walker's (>= 3%) (map: $(tr '\n' ' ' <"$T/hs_map_self")walker: $(tr '\n' ' ' <"$T/hs_self"); the map unchanged over the run at try $HS_STABLE of 5)" \
			all [ "$HS_STABLE" -gt 0 ] -- [ -s "$T/hs_map_self" ] -- bash -c "! grep -vxFf '$T/hs_self' '$T/hs_map_self'"
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
	read -r HS_ORDER HS_MAIN <<<"$(hs_chain_in_order "$T/hs_cmd.folded")"
	note_share "hotspot" "-- java: Java samples naming the chain" "$HS_ORDER"
	check "hotspot -- java: >= 90% of the $HS_MAIN samples in JavaChain's Java code name its chain in order, named after the JVM exited ($HS_ORDER%)" \
		all [ "$HS_MAIN" -gt 0 ] -- [ "$HS_ORDER" -ge 90 ]
	[ "$HS_ORDER" -ge 90 ] || grep jni_CallStaticVoidMethod "$T/hs_cmd.folded" | sort -t' ' -k2 -nr | head -3 | cut -c1-400
	read -r HS_WHOLE HS_ALL <<<"$(hs_whole "$T/hs_cmd.folded")"
	note_share "hotspot" "-- java: samples reaching the thread's start" "$HS_WHOLE"
	check "hotspot -- java: >= 95% of the JVM's $HS_ALL samples reach the thread's start, its start-up too ($HS_WHOLE%)" \
		all [ "$HS_ALL" -gt 0 ] -- [ "$HS_WHOLE" -ge 95 ]
	[ "$HS_WHOLE" -ge 95 ] || { jq -c .unwind "$T/hs_cmd.json"; hs_cut "$T/hs_cmd.folded"; }
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
