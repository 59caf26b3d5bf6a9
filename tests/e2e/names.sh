# shellcheck shell=bash
# Names beyond the symbol table: demangled C++, JIT maps, inline frames and
# source lines, debug files. Sourced by run.sh.

echo "== C++: demangled by default, as the symbol table has them with --no-demangle"
"$BPFPROF" -o "$T/cxx.folded" -- "$EX/cxx_names" 2 2>"$T/cxx.err"
check "c++: exit 0" [ $? -eq 0 ]
run='hidden_ns::Cruncher<unsigned long>::run(unsigned long)'
drive='unsigned long hidden_ns::drive<unsigned long>(hidden_ns::Cruncher<unsigned long>&, unsigned long)'
s=$(frame_share "$T/cxx.folded" cxx_names "$run")
note_share cxx_names "Cruncher::run" "$s"
check "c++: the method's name demangled in >= 80% ($s%)" [ "$s" -ge 80 ]
check "c++: main;drive<...>;Cruncher<...>::run" has_chain "$T/cxx.folded" cxx_names "main;$drive;$run"
"$BPFPROF" --no-demangle -o "$T/cxxm.folded" -- "$EX/cxx_names" 1 2>/dev/null
s=$(frame_share "$T/cxxm.folded" cxx_names _ZN9hidden_ns8CruncherImE3runEm)
check "c++ --no-demangle: the mangled name ($s%)" [ "$s" -ge 80 ]

echo "== JIT code in anonymous memory, named by /tmp/perf-PID.map as it grows"
ls /tmp/perf-*.map 2>/dev/null | sort >"$T/maps.before"
"$BPFPROF" -o "$T/jitmap.folded" -- "$EX/jit_perfmap" 2 2>"$T/jitmap.err"
check "jit map: exit 0" [ $? -eq 0 ]
# the map the workload left behind, as JITs do
ls /tmp/perf-*.map 2>/dev/null | sort | comm -13 "$T/maps.before" - | xargs -r rm -f
first=$(frame_share "$T/jitmap.folded" jit_perfmap jit_spin_first)
second=$(frame_share "$T/jitmap.folded" jit_perfmap jit_spin_second)
note_share jit_perfmap "jit_spin_*" "$((first + second))"
check "jit map: >= 80% of samples named from the map ($first% + $second%)" \
	[ $((first + second)) -ge 80 ]
check "jit map: the line appended mid-run, 0x-prefixed, names its code too ($second%)" \
	[ "$second" -ge 25 ]
# (the generated code keeps no frame pointer: a frame-pointer walk skips run_jit)
check "jit map: under main" grep -qE '^jit_perfmap;.*main;(run_jit;)?jit_spin_second [0-9]+$' "$T/jitmap.folded"
