# shellcheck shell=bash
# bpfprof as a Linux admin scripts it: exit status, signals to the command,
# the start and progress lines, usage errors, --help's examples. Sourced by
# run.sh.

echo "== exit status: the command's, as perf record gives it"
"$BPFPROF" -o "$T/adm.folded" -- sh -c 'exit 3' 2>"$T/adm.err"
check "-- sh -c 'exit 3': exit 3 ($?)" [ $? -eq 3 ]
check "start line: what, rate, where, how to stop" \
	grep -qE "^bpfprof: profiling sh -c 'exit 3' \(pid [0-9]+\): cpu-clock at 99 Hz; folded stacks to $T/adm.folded; stops when it exits or on Ctrl-C$" "$T/adm.err"
"$BPFPROF" -o "$T/adm.folded" -- sh -c 'kill -9 $$' 2>"$T/adm.err"
check "-- a command killed by SIGKILL: exit 137 ($?)" [ $? -eq 137 ]
"$BPFPROF" -q -o "$T/adm.folded" -- true 2>"$T/adm.err"
check "-- true: exit 0 ($?)" [ $? -eq 0 ]
check "-q: no start line" bash -c "! grep -q '^bpfprof: profiling' '$T/adm.err'"

echo "== exit status: bpfprof's own failures keep 1 and 2"
expect_error "no such process" 1 'no such process: 999999' "$BPFPROF" -p 999999 -d 1
expect_error "a command that cannot run" 1 "cannot execute '/nonexistent/cmd'" \
	"$BPFPROF" -o "$T/adm.folded" -- /nonexistent/cmd
expect_error "a typo gets the closest option" 2 "unknown option '--durration'; did you mean --duration\?" \
	"$BPFPROF" --durration 1
expect_error "an ambiguous prefix names the candidates" 2 "'--max' is ambiguous: --max-cgroups, --max-stacks, --max-files, --max-bytes" \
	"$BPFPROF" --max 5
"$BPFPROF" -d 0.3 -o "$T/adm.html" 2>/dev/null
check "-o x.html: the flame graph page (issue 15's writer)" grep -q 'bpfprof-data' "$T/adm.html"
"$BPFPROF" -d 0.3 -o "$T/adm.pb" 2>/dev/null
check "-o x.pb: pprof (gzipped protobuf)" bash -c "file '$T/adm.pb' | grep -q gzip"

echo "== signals: the command gets SIGTERM, SIGKILL only after --kill-after"
rm -f "$T/marker"
"$BPFPROF" -d 1 -o "$T/term.folded" -- "$EX/term_trap" "$T/marker" 30 2>"$T/term.err"
rc=$?
check "-d ends: the command got SIGTERM and cleaned up ($(tr '\n' ' ' <"$T/marker"))" \
	[ "$(cat "$T/marker" 2>/dev/null)" = "$(printf 'SIGTERM\ncleaned up')" ]
check "-d ends: exit status is the command's (0 after its clean exit: $rc)" [ "$rc" -eq 0 ]
check "-d ends: its samples are written" has_chain "$T/term.folded" term_trap "main;term_spin"
rm -f "$T/marker"
t0=$(date +%s%N)
"$BPFPROF" -d 0.5 --kill-after 1 -o "$T/term.folded" -- "$EX/term_trap" "$T/marker" 30 ignore 2>"$T/term.err"
rc=$?; ms=$((($(date +%s%N) - t0) / 1000000))
check "a command that ignores SIGTERM: SIGTERM first (marker: $(cat "$T/marker"))" [ "$(cat "$T/marker")" = SIGTERM ]
check "... then SIGKILL after --kill-after, said on stderr" grep -q "still ran 1 s after SIGTERM: killed (SIGKILL)" "$T/term.err"
check "... exit 137 ($rc), in well under 30 s (${ms} ms)" all [ "$rc" -eq 137 ] -- [ "$ms" -lt 15000 ]

echo "== Ctrl-C once stops and writes; twice aborts"
rm -f "$T/marker"
# started when the start line is out and the command has its handler (a loaded machine is slow)
started() { for _ in $(seq 100); do grep -q '^bpfprof: profiling' "$1" 2>/dev/null && [ -e "$T/marker" ] && break; sleep 0.1; done; sleep 1; }
"$BPFPROF" -o "$T/int.folded" -- "$EX/term_trap" "$T/marker" 30 2>"$T/int.err" & bp=$!
started "$T/int.err"
kill -INT "$bp"; wait "$bp"; rc=$?
check "one SIGINT: profile written ($rc)" has_chain "$T/int.folded" term_trap "main;term_spin"
check "one SIGINT: the command got SIGTERM and cleaned up" grep -q "cleaned up" "$T/marker"
rm -f "$T/marker" "$T/int2.folded"
"$BPFPROF" --kill-after 20 -o "$T/int2.folded" -- "$EX/term_trap" "$T/marker" 30 ignore 2>"$T/int2.err" & bp=$!
started "$T/int2.err"
kill -INT "$bp"
for _ in $(seq 50); do grep -q SIGTERM "$T/marker" 2>/dev/null && break; sleep 0.1; done
sleep 0.5	# the profile is written while it waits for the command (a signal in
		# the first 0.2 s after the stop is the same request delivered twice)
t0=$(date +%s%N)
kill -INT "$bp"; wait "$bp"; rc=$?; ms=$((($(date +%s%N) - t0) / 1000000))
check "second SIGINT: aborts at once (${ms} ms), dying of SIGINT (exit $rc)" all [ "$rc" -eq 130 ] -- [ "$ms" -lt 5000 ]
check "second SIGINT: says so" grep -q "aborted by a second signal" "$T/int2.err"
check "second SIGINT: no profile, no temporary left" [ -z "$(ls -A "$T" | grep int2.folded)" ]
cmdpid=$(sed -nE 's/^bpfprof: profiling .* \(pid ([0-9]+)\):.*/\1/p' "$T/int2.err")
sleep 0.2
state=$(awk '{ print $3 }' "/proc/$cmdpid/stat" 2>/dev/null)
check "second SIGINT: the command ($cmdpid) is killed (state '${state:-gone}')" all [ -n "$cmdpid" ] -- [ "${state:-Z}" = Z ]

# timeout(1) signals bpfprof and then its process group: one request, two
# deliveries (before: the second aborted in about half the runs, exit 143,
# nothing written); three runs
aborted=0 written=0
for i in 1 2 3; do
	rm -f "$T/marker"
	timeout 60 "$BPFPROF" -o "$T/dup$i.folded" -- "$EX/term_trap" "$T/marker" 30 2>"$T/dup$i.err" & bp=$!
	started "$T/dup$i.err"
	kill -TERM "$bp"; wait "$bp"
	grep -q 'aborted by a second signal' "$T/dup$i.err" && aborted=$((aborted + 1))
	has_chain "$T/dup$i.folded" term_trap "main;term_spin" && written=$((written + 1))
done
check "SIGTERM from timeout(1), to bpfprof and its group: one request ($written of 3 written, $aborted aborted)" \
	all [ "$written" -eq 3 ] -- [ "$aborted" -eq 0 ]

echo "== progress: on a terminal, in place, once a second after 2 s; never in a pipe"
script -qfec "$BPFPROF -d 3.5 -o $T/prog.folded" /dev/null >"$T/tty.out" 2>&1
check "terminal (script): progress line with elapsed, samples, lost" \
	grep -qaE $'\rbpfprof: [23] s, [1-9][0-9]* samples, 0 lost' "$T/tty.out"
check "terminal: erased before the summary" grep -qaE $'\r\e\\[K''bpfprof: [0-9]+ samples, ' "$T/tty.out"
"$BPFPROF" -d 3.5 -o "$T/prog.folded" 2>&1 | cat >"$T/pipe.out"
check "piped: start line, no progress" bash -c "grep -q '^bpfprof: profiling the whole system' '$T/pipe.out' && ! grep -qa \$'\\r' '$T/pipe.out'"
script -qfec "$BPFPROF --no-progress -d 2.5 -o $T/prog.folded" /dev/null >"$T/tty2.out" 2>&1
check "--no-progress: start line, no progress" bash -c "grep -qa 'bpfprof: profiling' '$T/tty2.out' && ! grep -qaE \$'\\rbpfprof: [0-9]+ s,' '$T/tty2.out'"

echo "== --help: grouped, and its examples are true"
"$BPFPROF" --help >"$T/help.txt"
for group in 'Profiling' 'Events' 'Outputs' 'Fleet mode'; do
	check "--help has the group '$group'" grep -q "^$group" "$T/help.txt"
done
check "--help: --list is under Events" bash -c "sed -n '/^Events/,/^\$/p' '$T/help.txt' | grep -q -- '--list'"
check "--help: fleet file names as they are written" grep -q 'HOST-YYYYmmddTHHMMSS.mmmZ' "$T/help.txt"
"$EX/cpu_chain" 20 & cp=$!
sed -n '/^Examples:/,/^$/p' "$T/help.txt" | sed -n 's/^  \(bpfprof .*\)$/\1/p' | sed -E 's/  +.*//' >"$T/examples"
check "--help has 5 examples" [ "$(wc -l <"$T/examples")" -eq 5 ]
bp_abs=$(realpath "$BPFPROF")
cd "$T" || exit 1
while read -r ex; do
	# shorter, and on a process of ours: -d 10 -> 1, pid 1234 -> cpu_chain, /usr -> a smaller tree
	run=$(echo "$ex" | sed -E "s/-d 10/-d 1/; s/-p 1234/-p $cp -d 1/; s#-lR /usr#-lR /usr/share/doc#; s#--output-dir /var/lib/bpfprof#--output-dir $T/exdir#; s/--interval 60/--interval 0.5/")
	run=${run/bpfprof/$bp_abs}
	mkdir -p "$T/exdir"
	if [[ $run == *--interval* ]]; then
		$run 2>"$T/ex.err" & ep=$!; sleep 1.6; kill -TERM "$ep"; wait "$ep"; rc=$?
		made=$(ls "$T/exdir" | grep -cE '^[^.].*-[0-9]{8}T[0-9]{6}\.[0-9]{3}Z\.(folded|pb\.gz)$')
		check "example: $ex (exit $rc, $made files named as --help says)" all [ "$rc" -eq 0 ] -- [ "$made" -ge 2 ]
	else
		out=$(echo "$run" | sed -nE 's/.* -o ([^ ]+).*/\1/p')
		if [ -n "$out" ]; then $run >/dev/null 2>"$T/ex.err"; else out=stdout.folded; $run >"$out" 2>"$T/ex.err"; fi
		rc=$?
		check "example: $ex (exit $rc, wrote $out)" all [ "$rc" -eq 0 ] -- [ -s "$out" ]
	fi
done <"$T/examples"
cd - >/dev/null || exit 1
kill "$cp" 2>/dev/null; wait "$cp" 2>/dev/null
