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
log_sum_lost() { sed -nE 's/^bpfprof: [0-9]+ samples, [0-9]+ stacks, ([0-9]+) lost .*/\1/p' "$1" | awk '{ t += $1 } END { print t + 0 }'; }
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
