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
