# shellcheck shell=bash
# Hostile surroundings of what bpfprof writes (issue 11): FIFOs planted where it
# writes, files that must survive a failed run, directories of other users,
# full filesystems, servers that never answer. Sourced by run.sh.

# elapsed SECONDS_SINCE: wall time since a `date +%s.%N` stamp, 2 decimals.
elapsed() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }'; }
# below SECONDS LIMIT: true when SECONDS < LIMIT (decimals allowed).
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
# all CMD1 -- CMD2 ...: every command true (for check, which runs one command).

echo "== defect 10: a run that fails before sampling leaves -o FILE as it was"
H=$T/h10; mkdir -p "$H"
for why in "--btf /nonexistent" "-e cycles" "-- /nonexistent"; do
	printf 'keep me\n' >"$H/prof.folded"
	# shellcheck disable=SC2086
	"$BPFPROF" -d 0.2 -o "$H/prof.folded" $why 2>"$H/err"; rc=$?
	check "defect 10: $why: exit 1, FILE kept ($(wc -c <"$H/prof.folded") bytes)" \
		all [ "$rc" -eq 1 ] -- [ "$(cat "$H/prof.folded")" = "keep me" ]
done
check "defect 10: no temporary left beside FILE" [ "$(ls -A "$H" | grep -c '\.tmp$')" -eq 0 ]
"$BPFPROF" -d 0.3 -o "$H/prof.folded" 2>/dev/null
check "defect 10: a run that samples replaces FILE with the profile" valid_folded "$H/prof.folded"

echo "== defect 3: a FIFO planted where bpfprof writes"
chmod o+x "$T"	# other users reach their directories in it
H=$T/h3; mkdir -p -m 1777 "$H"
setpriv --reuid=nobody --regid=nogroup --clear-groups mkfifo "$H/prof.folded"
s=$(date +%s.%N)	# before: blocked in open() until the timeout (10 s)
expect_error "defect 3: another user's FIFO as -o (1777 dir) refused" 1 'not a regular file' \
	timeout 10 "$BPFPROF" -d 0.3 -o "$H/prof.folded"
e=$(elapsed "$s")
check "defect 3: refused at once ($e s), the FIFO left alone" all [ -p "$H/prof.folded" ] -- below "$e" 5
H=$T/h3log; mkdir -p "$H"; mkfifo "$H/bpfprof-intervals.log"
sleep 30 <>"$H/bpfprof-intervals.log" & rp=$!	# a reader: open() for writing would not fail
s=$(date +%s.%N)	# before: the first interval blocked writing the log, SIGTERM ignored
expect_error "defect 3: a FIFO as bpfprof-intervals.log refused" 1 'bpfprof-intervals.log: not a regular file' \
	timeout 10 "$BPFPROF" --interval 0.5 -d 2 --output-dir "$H"
e=$(elapsed "$s")
check "defect 3: refused at once ($e s)" below "$e" 5
kill "$rp"; wait "$rp" 2>/dev/null

# fleet_line ERRFILE: "INTERVALS SAMPLES LOST_INTERVALS LOST_SAMPLES TOTAL" of the exit line.
fleet_line() {
	sed -nE 's/^bpfprof: fleet: ([0-9]+) intervals, ([0-9]+) samples in them; ([0-9]+) intervals \(([0-9]+) samples\) not written; BPF-side total ([0-9]+) samples$/\1 \2 \3 \4 \5/p' "$1"
}
# The samples lost on the BPF side (stack errors, full maps), from the summary lines.
# (stderr, not the index: a full disk keeps the index from some of them)
log_sum_lost() { sed -nE 's/^bpfprof: [0-9]+ samples, ([0-9]+) lost, .*/\1/p' "$1" | awk '{ t += $1 } END { print t + 0 }'; }
# wait_for SECONDS CMD...: until CMD is true, at most SECONDS.
wait_for() { local n=$(($1 * 10)); shift; while [ "$n" -gt 0 ] && ! "$@"; do sleep 0.1; n=$((n - 1)); done; }
files_sum() { cat "$@" 2>/dev/null | awk '{ t += $NF } END { print t + 0 }'; }

echo "== defect 5: a full filesystem, a deleted directory: sampling goes on, the count is true"
M=$T/h5full; mkdir -p "$M"
if mount -t tmpfs -o size=256k,mode=0755 bpfprof-e2e "$M"; then
	head -c 1M /dev/zero >"$M/fill" 2>/dev/null	# fills it: ENOSPC
	"$EX/cpu_chain" 5 & cp=$!
	"$BPFPROF" -F 49 --interval 0.5 -d 3.2 --output-dir "$M/out" 2>"$T/h5full.err" & bp=$!
	wait_for 10 grep -q 'cannot write an interval' "$T/h5full.err"
	rm -f "$M/fill"	# space again
	wait "$bp"; rc=$?; wait "$cp"
	read -r n smp lostn losts total <<<"$(fleet_line "$T/h5full.err")"
	inside=$(files_sum "$M"/out/*.folded)
	# before: exit 1 at the first interval, and "N samples in them" counted the unwritten one
	check "defect 5: full disk: the run went on to the end (duration reached)" \
		grep -q '(duration reached)' "$T/h5full.err"
	check "defect 5: full disk: said once, and its end said once" \
		all [ "$(grep -c 'cannot write an interval' "$T/h5full.err")" -eq 1 ] -- \
		[ "$(grep -c 'works again' "$T/h5full.err")" -eq 1 ]
	check "defect 5: full disk: exit 1 (intervals lost: $rc)" [ "$rc" -eq 1 ]
	check "defect 5: full disk: ${lostn:-?} intervals lost, ${n:-?} written after" \
		all [ "${lostn:-0}" -ge 1 ] -- [ "${n:-0}" -ge 1 ]
	check "defect 5: full disk: 'samples in them' ($smp) == what the files hold ($inside)" \
		[ "${smp:-x}" = "$inside" ]
	check "defect 5: full disk: written ($smp) + not written ($losts) + BPF-side lost == total ($total)" \
		[ "$(( ${smp:-0} + ${losts:-0} + $(log_sum_lost "$T/h5full.err") ))" -eq "${total:--1}" ]
	umount "$M"
else
	fail "defect 5: cannot mount a tmpfs here"
fi
D=$T/h5gone
"$EX/cpu_chain" 5 & cp=$!
"$BPFPROF" -F 49 --interval 0.5 -d 3.2 --output-dir "$D" 2>"$T/h5gone.err" & bp=$!
wait_for 10 [ -s "$D/bpfprof-intervals.log" ]
rm -rf "$D"	# before: the next interval failed with ENOENT and the run ended, exit 1
wait "$bp"; rc=$?; wait "$cp"
read -r n smp lostn losts total <<<"$(fleet_line "$T/h5gone.err")"
check "defect 5: deleted directory: made anew, run to the end, exit 0 ($rc)" \
	all [ "$rc" -eq 0 ] -- [ -d "$D" ] -- grep -q '(duration reached)' "$T/h5gone.err"
check "defect 5: deleted directory: files written after it ($(ls "$D"/*.folded 2>/dev/null | wc -l))" \
	[ "$(ls "$D"/*.folded 2>/dev/null | wc -l)" -ge 1 ]

echo "== defect 8: directories of other users are refused; spool items are checked"
H=$T/h8; mkdir -p "$H"; chmod 1777 "$H"	# like /tmp
setpriv --reuid=nobody --regid=nogroup --clear-groups mkdir -m 0777 "$H/theirs"
mkdir -m 0777 "$H/open"; mkdir -m 1777 "$H/sticky"
expect_error "defect 8: --output-dir owned by another user (0777) refused" 1 'owned by another user' \
	"$BPFPROF" --interval 0.5 -d 1 --output-dir "$H/theirs"
expect_error "defect 8: --output-dir of ours but writable by all (0777) refused" 1 'writable by others' \
	"$BPFPROF" --interval 0.5 -d 1 --output-dir "$H/open"
expect_error "defect 8: --spool-dir owned by another user refused" 1 'spool directory .*owned by another user' \
	"$BPFPROF" --interval 0.5 -d 1 --push http://127.0.0.1:9 --spool-dir "$H/theirs"
"$BPFPROF" --interval 0.5 -d 1.2 --output-dir "$H/sticky" 2>/dev/null
check "defect 8: a sticky directory of ours (1777) is accepted" [ "$(ls "$H"/sticky/*.folded | wc -l)" -ge 1 ]

# serve DIR: an ingest server (ingest_server.py) on 127.0.0.1 recording into DIR;
# sets SRV (its pid) and URL.
serve() {
	mkdir -p "$1"; rm -f "$1/port"
	python3 tests/e2e/ingest_server.py "$1" "$1/port" & SRV=$!
	wait_for 5 [ -s "$1/port" ]
	URL=http://127.0.0.1:$(cat "$1/port")
}
# push_line ERRFILE: "SENT REFUSED DROPPED FAILED NOTOURS WAITING" of the exit line.
push_line() {
	sed -nE 's/^bpfprof: push: ([0-9]+) sent, ([0-9]+) refused, ([0-9]+) dropped from a full spool, ([0-9]+) failed attempts, ([0-9]+) spool items not ours refused, ([0-9]+) waiting in .*/\1 \2 \3 \4 \5 \6/p' "$1"
}
# intervals_at_least N LOG: the index LOG has N lines or more.
intervals_at_least() { [ "$(cat "$2" 2>/dev/null | grep -c .)" -ge "$1" ]; }
# "LARGEST MEAN": the gaps in seconds between consecutive intervals' starts (the index's
# first field, ns), from the second interval on (the first one's end symbolizes the whole
# system). A push that held the loop made one 10 s.
gaps() {
	awk 'NR > 2 { g = ($1 - p) / 1e9; if (g > m) m = g; t += g; n++ } { p = $1 }
	     END { printf "%.2f %.2f", m, n ? t / n : 99 }' "$1"
}

echo "== defect 4: a server that accepts and never answers"
S=$T/h4hang; serve "$S"; echo hang >"$S/mode"
"$EX/cpu_chain" 30 & cp=$!
# before: each interval waited for the push (10 s timeout): 1 s intervals took 10 s,
# and SIGTERM took 10-20 s
# -p: one process, so that an interval's own work (system-wide symbolization, slow under
# ASan on a loaded machine) does not stretch the gaps this measures
timeout 60 "$BPFPROF" -F 49 -p "$cp" --interval 1 -d 60 --push "$URL" --format folded --spool-dir "$T/h4hang.spool" \
	--output-dir "$T/h4hang.out" 2>"$T/h4hang.err" & bp=$!
wait_for 15 intervals_at_least 6 "$T/h4hang.out/bpfprof-intervals.log"
n=$(cat "$T/h4hang.out/bpfprof-intervals.log" 2>/dev/null | grep -c .)
read -r gap mean <<<"$(gaps "$T/h4hang.out/bpfprof-intervals.log")"
k=$(date +%s%N); kill -TERM "$bp"; wait "$bp"; rc=$?; e_ms=$(( ($(date +%s%N) - k) / 1000000 ))
kill "$cp" 2>/dev/null; wait "$cp" 2>/dev/null
read -r sent _ _ _ _ waiting <<<"$(push_line "$T/h4hang.err")"
spooled=$(ls "$T/h4hang.spool" | grep -c '\.folded$')
# a loaded machine stretches one gap to ~1.7 s, with or without --push
check "defect 4: hang: intervals keep their cadence ($n intervals, gaps $mean s on average, at most $gap s)" \
	all [ "${n:-0}" -ge 6 ] -- below "${mean:-99}" 1.25 -- below "${gap:-99}" 2.5
stop_check "defect 4: hang: SIGTERM" "$T/h4hang.out/bpfprof-intervals.log" "$k" "$e_ms" "$rc" terminated
check "defect 4: hang: nothing sent, what waits is counted (${waiting:-?}) and spooled ($spooled)" \
	all [ "${sent:-x}" = 0 ] -- [ "${waiting:-x}" = "$spooled" ] -- [ "$spooled" -ge "$n" ]
kill "$SRV"; wait "$SRV" 2>/dev/null

echo "== defect 4: a server that answers 200 with an endless body"
S=$T/h4endless; serve "$S"; echo endless >"$S/mode"
# before: the reply went to stdout: 9.6 GB in 40 s (1 MB kept here: more
# ends the run with SIGPIPE). -p: one process, so that the intervals' own
# writes stay short; the time is taken from the start line (an ASan build
# at load 20 took seconds to load its programs: 9-10.7 s counted from the
# launch, 2 profiles of whole-system writes)
"$EX/cpu_chain" 30 & cp=$!
timeout 60 "$BPFPROF" -F 49 -p "$cp" --interval 0.5 -d 2.2 --push "$URL" --spool-dir "$T/h4endless.spool" \
	2>"$T/h4endless.err" > >(head -c 1000000 | wc -c >"$T/h4endless.out") & bp=$!
wait_started "$T/h4endless.err"; s=$(date +%s.%N)
wait "$bp"; rc=$?; e=$(elapsed "$s")
kill "$cp" 2>/dev/null; wait "$cp" 2>/dev/null
wait_for 5 [ -s "$T/h4endless.out" ]
read -r sent _ _ _ _ waiting <<<"$(push_line "$T/h4endless.err")"
check "defect 4: endless reply: nothing on stdout ($(cat "$T/h4endless.out") bytes), exit 0 ($rc)" \
	all [ "$(cat "$T/h4endless.out")" -eq 0 ] -- [ "$rc" -eq 0 ]
check "defect 4: endless reply: the run lasted $e s from its start line (< 5), ${sent:-?} profiles taken (a 2xx)" \
	all below "$e" 5 -- [ "${sent:-0}" -ge 3 ]
kill "$SRV"; wait "$SRV" 2>/dev/null

echo "== defect 4: standard output a closed pipe"
S=$T/h4pipe; serve "$S"; printf 'ok\n' >"$S/reply"
# before: curl wrote the reply to stdout: SIGPIPE, exit 141
"$BPFPROF" -F 49 --interval 0.5 -d 1.2 --push "$URL" --spool-dir "$T/h4pipe.spool" \
	2>"$T/h4pipe.err" | true; rc=${PIPESTATUS[0]}
check "defect 4: closed stdout: exit 0, not 141 ($rc); $(ls "$S"/*.query 2>/dev/null | wc -l) profiles sent" \
	all [ "$rc" -eq 0 ] -- [ "$(ls "$S"/*.query 2>/dev/null | wc -l)" -ge 2 ]
kill "$SRV"; wait "$SRV" 2>/dev/null

echo "== defect 8: spool items that are not bpfprof's are refused, never sent"
S=$T/h8items; serve "$S"; P=$T/h8items.spool; mkdir -m 0700 "$P"
now=$(date +%s)
truncate -s 4G "$P/00000000000000000000-$now-$((now + 1)).folded"	# sparse: free to plant
printf 'planted;stack 1\n' >"$P/00000000000000000001-$now-$((now + 1)).folded"
# (numbered past what the run spools: an item of ours named the same in this
# 0700 directory, which only root can write, would be renamed over it)
printf 'planted;theirs 1\n' >"$P/00000000000000009999-$now-$((now + 1)).folded"
chown nobody "$P/00000000000000009999-$now-$((now + 1)).folded"
# before: the planted items were POSTed, and the 4 GiB one read into memory whole
/usr/bin/time -f '%M' -o "$T/h8items.rss" "$BPFPROF" -F 49 --interval 0.5 -d 1.2 --push "$URL" \
	--format folded --spool-dir "$P" 2>"$T/h8items.err"; rc=$?
read -r sent _ _ _ notours waiting <<<"$(push_line "$T/h8items.err")"
rss=$(tail -1 "$T/h8items.rss")
check "defect 8: items: none of the planted ones reached the server" \
	all [ "$(cat "$S"/*.body 2>/dev/null | grep -c planted)" -eq 0 ] -- [ "${sent:-0}" -ge 2 ]
check "defect 8: items: 2 of ours refused with one line each, counted (${notours:-?}), removed" \
	all [ "$(grep -c 'spool item .* refused' "$T/h8items.err")" -eq 2 ] -- [ "${notours:-x}" = 2 ] -- \
	[ "$(ls "$P" | grep -c '^0000000000000000000[01]-')" -eq 0 ]
# issue 38: another user's file is never bpfprof's to remove
check "defect 8: items: the one another user owns is left alone, said once" \
	all [ -f "$P/00000000000000009999-$now-$((now + 1)).folded" ] -- \
	[ "$(grep -c 'holds 1 file named like its items that bpfprof did not write' "$T/h8items.err")" -eq 1 ]
check "defect 8: items: the 4 GiB one was not read (max RSS ${rss:-?} KiB < 1 GiB), exit 0 ($rc)" \
	all [ "${rss:-9999999}" -lt 1048576 ] -- [ "$rc" -eq 0 ]
check "defect 8: items: what bpfprof spools has its header, the server gets the profile alone" \
	all valid_folded "$S/0000.body" -- bash -c "! grep -q bpfprof-spool '$S'/*.body"
kill "$SRV"; wait "$SRV" 2>/dev/null

echo "== issue 38: a shared directory: another user's files are never rotated, dropped or appended to"
# root's, sticky and writable by all, like /tmp: accepted by design (defect 8)
chmod o+x "$T"; H=$T/h38; mkdir -p -m 1777 "$H/out" "$H/spool"; chmod 1777 "$H/out" "$H/spool"
host=$(uname -n)
# names that sort after every real profile's, so that rotation took the real ones as
# the oldest; an index of theirs; spool items numbered after any of ours
attacker sh -c "cd '$H/out' && i=0 && while [ \$i -lt 1000 ]; do : >'$host'-9999\$i.folded; i=\$((i+1)); done &&
	printf 'forged\n' >bpfprof-intervals.log && chmod 666 bpfprof-intervals.log &&
	cd '$H/spool' && for s in 7 8 9; do printf x >0000000000000000999\$s-1-2.folded; done"
# before: 0 of the run's profiles left (every one deleted as the oldest), the index of
# theirs appended to, the 3 planted items removed as refused
"$BPFPROF" -F 49 --interval 0.5 -d 2.2 --output-dir "$H/out" --max-files 2 --format folded \
	--push http://127.0.0.1:9 --spool-dir "$H/spool" --spool-max 2 2>"$T/h38.err"; rc=$?
theirs=$(find "$H/out" -name "$host-9999*.folded" -user "$ATTACKER" | wc -l)
ours=$(find "$H/out" -name "$host-2*.folded" -user root | wc -l)
check "issue 38: rotation: 2 profiles of the run kept ($ours), the 1000 planted left alone ($theirs)" \
	all [ "$ours" -eq 2 ] -- [ "$theirs" -eq 1000 ]
check "issue 38: rotation: said once, escaped ($(grep -c 'named like its profiles' "$T/h38.err") lines)" \
	[ "$(grep -c "holds 1000 files named like its profiles that bpfprof did not write" "$T/h38.err")" -eq 1 ]
check "issue 38: their index not appended to ($(wc -c <"$H/out/bpfprof-intervals.log") bytes), refused once" \
	all [ "$(cat "$H/out/bpfprof-intervals.log")" = forged ] -- \
	[ "$(grep -c "bpfprof-intervals.log: another user's file in a shared directory: left alone" "$T/h38.err")" -eq 1 ]
mine=$(find "$H/spool" -name '*.folded' -user root | wc -l)
check "issue 38: spool: the 3 planted items left alone, 2 of ours kept ($mine), said once" \
	all [ "$(find "$H/spool" -name '0000000000000000999?-1-2.folded' -user "$ATTACKER" | wc -l)" -eq 3 ] -- \
	[ "$mine" -eq 2 ] -- [ "$(grep -c 'spool directory .* holds 3 files named like its items' "$T/h38.err")" -eq 1 ]
attacker sh -c "printf 'theirs\n' >'$H/out/theirs.folded'"
# before: renamed over it (root may, where the sticky rule stops everyone else)
expect_error "issue 38: -o another user's file in a shared directory refused" 1 \
	"theirs.folded: another user's file in a shared directory: left alone" \
	"$BPFPROF" -d 0.3 -o "$H/out/theirs.folded"
check "issue 38: -o: their file as it was" [ "$(cat "$H/out/theirs.folded")" = theirs ]
