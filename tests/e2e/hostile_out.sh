# shellcheck shell=bash
# Hostile surroundings of what bpfprof writes (issue 11): FIFOs planted where it
# writes, files that must survive a failed run, directories of other users,
# full filesystems, servers that never answer. Sourced by run.sh.

# elapsed SECONDS_SINCE: wall time since a `date +%s.%N` stamp, 2 decimals.
elapsed() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }'; }
# below SECONDS LIMIT: true when SECONDS < LIMIT (decimals allowed).
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
# all CMD1 -- CMD2 ...: every command true (for check, which runs one command).
all() { local c=(); for a in "$@" --; do if [ "$a" = -- ]; then "${c[@]}" || return 1; c=(); else c+=("$a"); fi; done; }

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
