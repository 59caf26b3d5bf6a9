# shellcheck shell=bash
# Runs killed or stopped (issue 23, case 10): a SIGKILLed run's temporary
# beside -o is removed by the next run, and nothing else is (not another
# user's file, not a symlink, not a live writer's); a fleet agent stopped
# for 3 s says the interval's real span in the index. Sourced by run.sh.

# wait_for SECS CMD...: true once CMD is, within SECS
wait_for() {
	local end=$((SECONDS + $1)); shift
	while [ $SECONDS -lt "$end" ]; do "$@" && return 0; sleep 0.1; done
	return 1
}
# temps DIR: the temporaries of out.folded there, one a line
temps() { ls -A "$1" | grep -E '^\.out\.folded\..*\.tmp$'; }
has_temps() { [ "$(temps "$1" | wc -l)" -ge "$2" ]; }

echo "== a SIGKILLed run's temporary beside -o: removed by the next run, only ours"
chmod 755 "$T"; mkdir -p "$T/x"; chmod 1777 "$T/x"
K=$T/x/killed; mkdir -p "$K"; chmod 1777 "$K"	# shared, as /tmp is
# a live writer first (its temporary must stay), then one killed mid-run
"$BPFPROF" -F 19 -p $$ -o "$K/out.folded" -d 60 2>/dev/null & live=$!
wait_for 30 has_temps "$K" 1
before=$(temps "$K")
"$BPFPROF" -F 19 -p $$ -o "$K/out.folded" -d 60 2>/dev/null & kp=$!
wait_for 30 has_temps "$K" 2
kill -KILL "$kp"; wait "$kp" 2>/dev/null
killed=$(temps "$K" | grep -vxF "$before")
# decoys that must stay: a dead pid is one that just exited
dead=$(sh -c 'echo $$')
attacker sh -c "ln -s /etc/passwd '$K/.out.folded.$dead.0badc0de.tmp'; printf x >'$K/.out.folded.$dead.0000beef.tmp'"
printf x >"$K/.out.folded.$$.00000001.tmp"	# ours, its writer (this shell) alive
"$BPFPROF" -F 19 -p $$ -o "$K/out.folded" -d 0.5 2>"$K.err"
left=$(temps "$K" | wc -l)
kill -TERM "$live"; wait "$live"; live_rc=$?
check "killed run: it left one temporary (${killed:-none})" [ -n "$killed" ]
check "the next run removed it and said so ($(grep removed "$K.err"))" \
	all [ ! -e "$K/$killed" ] -- grep -q 'removed 1 temporary file of .*out.folded that killed runs left' "$K.err"
check "another user's symlink and file with a dead pid stay" \
	all [ -L "$K/.out.folded.$dead.0badc0de.tmp" ] -- [ -f "$K/.out.folded.$dead.0000beef.tmp" ]
check "ours whose writer lives stays" [ -f "$K/.out.folded.$$.00000001.tmp" ]
check "a live writer's temporary stays ($left of 5 left), and it commits (exit $live_rc)" \
	all [ "$left" -eq 4 ] -- [ "$live_rc" -eq 0 ] -- [ -f "$K/out.folded" ]
rm -f "$K"/.out.folded.*

echo "== fleet: what a killed agent was writing in its directory is removed at start"
D=$T/killed-fleet; mkdir -p "$D"
printf x >"$D/.$(hostname)-20261126T000000.000Z.folded.$dead.0123abcd.tmp"
"$BPFPROF" -F 19 --interval 0.5 --output-dir "$D" -d 0.6 2>"$D.err"
check "fleet: the dead writer's temporary is gone ($(grep removed "$D.err"))" \
	all [ -z "$(ls -A "$D" | grep '\.tmp$')" ] -- grep -q 'removed 1 temporary file that killed runs left in' "$D.err"

echo "== fleet: an agent stopped 3 s says its interval's real span"
S=$T/stopped
"$BPFPROF" -F 19 --interval 0.5 --output-dir "$S" -d 60 2>"$S.err" & sp=$!
lines() { [ "$(cat "$S/bpfprof-intervals.log" 2>/dev/null | wc -l)" -ge "$1" ]; }
wait_for 30 lines 2
kill -STOP "$sp"; sleep 3; kill -CONT "$sp"
n=$(wc -l <"$S/bpfprof-intervals.log")
wait_for 30 lines $((n + 2))
kill -TERM "$sp"; wait "$sp"
span=$(jq -r 'select(.late_s) | .duration_s' "$S/bpfprof-intervals.log" | sort -n | tail -1)
check "the stopped interval: its span in the index (${span:-nothing said}, >= 3.0 s)" \
	awk -v s="${span:-0}" 'BEGIN { exit !(s >= 3.0) }'
check "said on stderr once, counted at exit ($(grep -m1 'longer than asked' "$S.err"))" \
	all [ "$(grep -c 'an interval lasted' "$S.err")" -eq 1 ] -- grep -qE '^bpfprof: fleet: [1-9][0-9]* intervals much longer than asked' "$S.err"
