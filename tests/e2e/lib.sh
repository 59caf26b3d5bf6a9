# Helpers for the end-to-end tests: run bpfprof, read folded output.
# shellcheck shell=bash

PASS=0
FAIL=0
FAILED=()

ok()   { PASS=$((PASS + 1)); printf '  ok    %s\n' "$1"; }
fail() { FAIL=$((FAIL + 1)); FAILED+=("$1"); printf '  FAIL  %s\n' "$1"; [ -n "${2:-}" ] && printf '        %s\n' "$2"; }

# all CMD... -- CMD...: true when every command is. For check, whose one
# condition would otherwise end at a shell '&&' (the rest ran unchecked).
all() { local c=(); for a in "$@" --; do if [ "$a" = -- ]; then "${c[@]}" || return 1; c=(); else c+=("$a"); fi; done; }

# check NAME CONDITION...: run the condition, record pass or fail.
check() {
	local name=$1; shift
	if "$@"; then ok "$name"; else fail "$name" "failed: $*"; fi
}

# Total count of folded lines whose comm is $2 (all lines if $2 is empty).
comm_total() {
	awk -v c="$2" '{ n = $NF; split($0, f, ";"); if (c == "" || f[1] == c) t += n } END { print t + 0 }' "$1"
}

# Count of comm $2's lines that contain frame $3 anywhere in the stack.
frame_total() {
	awk -v c="$2" -v fr="$3" '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
		if (f[1] != c) next
		for (i = 2; i <= k; i++) if (f[i] == fr) { t += n; break }
	} END { print t + 0 }' "$1"
}

# Percentage (integer) of comm $2's samples that contain frame $3.
frame_share() {
	local all part
	all=$(comm_total "$1" "$2")
	part=$(frame_total "$1" "$2" "$3")
	[ "$all" -gt 0 ] || { echo 0; return; }
	echo $((part * 100 / all))
}

# The function with the most self samples (the innermost frame) of comm $2.
top_self() {
	awk -v c="$2" '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
		if (f[1] == c) self[f[k]] += n
	} END { for (s in self) if (self[s] > best) { best = self[s]; top = s }; print top }' "$1"
}

# True when some line of comm $2 contains the ';'-joined chain $3 in order, adjacent.
has_chain() {
	awk -v c="$2" -v ch=";$3" '{
		line = $0; sub(/ [0-9]+$/, "", line); split(line, f, ";")
		if (f[1] == c && index(line ";", ch ";")) found = 1
	} END { exit !found }' "$1"
}

# Every line is "frame;frame;... COUNT" with a positive count.
valid_folded() {
	[ -s "$1" ] && awk '!/^[^;]+(;[^;]+)* [1-9][0-9]*$/ { bad = 1; print "bad line: " $0 > "/dev/stderr" } END { exit bad }' "$1"
}

# chromium_dom FILE QUERY [FLAGS]: the page's DOM after load, its ?test= results in it.
chromium_dom() {
	local prof; prof=$(mktemp -d "$T/chrome.XXXXXX")
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--no-first-run --user-data-dir="$prof" "${@:3}" --dump-dom "file://$(realpath "$1")$2" 2>/dev/null
}
# The JSON the page's ?test= hook wrote.
page_test() { chromium_dom "$1" "?test=$2" | sed -n 's/.*BPFPROF-TEST \(.*\)<\/pre>.*/\1/p' | sed 's/&quot;/"/g'; }

# From the short summary line in stderr file $1: samples taken, samples lost
# (scripts read --stats FILE's JSON: stat_of).
summary_samples() { sed -nE 's/^bpfprof: ([0-9]+) samples, .*/\1/p' "$1" | tail -1; }
summary_lost()    { sed -nE 's/^bpfprof: [0-9]+ samples, ([0-9]+) lost, .*/\1/p' "$1" | tail -1; }

# stat_of FILE FILTER: a value of the JSON --stats FILE wrote (jq -r FILTER;
# empty when the file is missing or not JSON).
stat_of() { jq -r "$2" "$1" 2>/dev/null; }
# stat_true FILE FILTER: true when jq FILTER holds of --stats FILE (quietly)
stat_true() { jq -e "$2" "$1" >/dev/null 2>&1; }

# complete_stacks FOLDED STATS: the summary's complete stacks, read two
# ways, as "COMPLETE USER COMPLETE' USER'": the folded file's own (the
# samples whose outermost frame after the root is a thread's or the
# process's entry, of those with a user frame) and --stats' (user_stacks.*).
# A stack a runtime frame, a frame pointer of 0 or a cut ended elsewhere
# is not complete (symbols/resolve.c's entries).
complete_stacks() {
	awk '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
		user = 0; for (i = 2; i <= k; i++) if (f[i] !~ /_\[k\]$/) user = 1
		if (!user) next
		all += n
		if (f[2] ~ /^(_start|clone3|__clone3|clone|__clone|start_thread|runtime\.(goexit|rt0_go|mstart)(\.abi0)?)$/) c += n }
		END { printf "%d %d ", c, all }' "$1"
	jq -r '"\(.user_stacks.complete) \(.user_stacks.samples)"' "$2" 2>/dev/null
}

# check_complete NAME FOLDED STATS ERR: the exit line's "N% complete
# stacks" and --stats' counts are the folded file's own reading (above).
check_complete() {
	local a b c d said want
	read -r a b c d <<<"$(complete_stacks "$2" "$3")"
	said=$(sed -nE 's/^bpfprof: .* ([0-9.]+)% complete stacks, .*/\1/p' "$4" | tail -1)
	want=$(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.1f", 100 * a / b }')
	echo "  $1: $a of $b samples with a user stack reach an entry (said: $said%)"
	check "$1: the exit line's complete stacks ($said%) and --stats' ($c of $d) are the folded file's ($a of $b)" \
		all [ "${b:-0}" -gt 0 ] -- [ "$a" = "$c" ] -- [ "$b" = "$d" ] -- [ "$said" = "$want" ]
}

# wait_started ERRFILE [SECS]: until a bpfprof in the background wrote its
# start line there (it samples from then on), SECS (30) at most: a workload
# that must be sampled starts after it, however long a loaded machine took
# to load the BPF programs (an ASan build under load: over 1.5 s).
wait_started() {
	local deadline=$((SECONDS + ${2:-30}))
	until grep -q '^bpfprof: profiling' "$1" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; do
		sleep 0.1
	done
}

# expect_error NAME STATUS PATTERN ARGS...: exit status, exactly one stderr line
# matching PATTERN (besides the summary of what was sampled, for late errors).
# The run's own lines are not the error: its banner, its summary, and the
# advice a whole-system run on a busy machine may add (CI main11: another
# test's JIT processes beside it left 24.8% of frames unresolved).
EXPECT_ERROR_OWN='^bpfprof: ([0-9]+ samples, |profiling |unwind tables: |warning: [0-9.]+% of frames unresolved)'
expect_error() {
	local name=$1 want=$2 pat=$3; shift 3
	"$@" >"$T/bad.out" 2>"$T/bad.err"; local rc=$?
	local lines; lines=$(grep -cvE "$EXPECT_ERROR_OWN" "$T/bad.err")
	if [ "$rc" -eq "$want" ] && [ "$lines" -eq 1 ] && grep -qE "$pat" "$T/bad.err"; then
		ok "$name: exit $rc: $(grep -vE "$EXPECT_ERROR_OWN" "$T/bad.err")"
	else
		fail "$name" "exit $rc (want $want), $lines stderr lines: $(head -3 "$T/bad.err")"
	fi
}

# The unprivileged user of the hostile tests, where the real attacker is one:
# "attacker CMD..." runs CMD as that user, made on first use; run.sh's trap
# calls attacker_remove (its processes killed, the user deleted). The name
# carries run.sh's pid: runs side by side do not share one.
ATTACKER=bpfprof-atk$$
attacker() {
	id -u "$ATTACKER" >/dev/null 2>&1 ||
		useradd -M -N -d /nonexistent -s /usr/sbin/nologin "$ATTACKER" || return 1
	setpriv --reuid="$ATTACKER" --regid=nogroup --clear-groups "$@"
}
attacker_remove() {
	id -u "$ATTACKER" >/dev/null 2>&1 || return 0
	pkill -KILL -u "$ATTACKER" 2>/dev/null; sleep 0.1
	userdel "$ATTACKER" 2>/dev/null
}

# proto_classes DIR: protoc's Python classes of every upstream .proto in
# user/output/proto (OTLP, pprof, google.rpc.Status) into DIR; prints how
# many files it compiled, and fails as protoc does.
proto_classes() {
	local protos
	mkdir -p "$1" || return 1
	mapfile -t protos < <(find user/output/proto -name '*.proto')
	protoc --python_out="$1" --proto_path=user/output/proto "${protos[@]}" || return 1
	echo "${#protos[@]}"
}

# heard_ms FILE KILL_NS: ms from a stop signal (KILL_NS: date +%s%N when it
# was sent) to the end of what the run sampled, by its own clock: end_ns of
# --stats FILE, or of the last line of an interval log.
heard_ms() {
	local end; end=$(jq -s '.[-1].end_ns // empty' "$1" 2>/dev/null)
	if [ -n "$end" ]; then echo $(( (end - $2) / 1000000 )); else echo 99999; fi
}

# stop_check NAME FILE KILL_NS EXIT_MS RC WHY: a deadline's promise, of a
# run stopped by a signal: heard and sampling over within 1 s (heard_ms of
# FILE, whose last stop reason is WHY: terminated, interrupted), whatever
# a drain, a table build or a write was under way, and exit 0. The final
# write and the exit after it take what the machine gives (a 2-CPU VM at
# load 20 gives a process a tenth of a CPU: an ASan build's end took 0.3-
# 3.6 s there, its exit alone up to 1.9 s with 250 MiB of quarantine to
# free); they must end within 10 s of it (a teardown paying an RCU grace
# period a table once took 17.9 s).
stop_check() {
	local heard why
	heard=$(heard_ms "$2" "$3"); why=$(jq -rs '.[-1].stopped // empty' "$2" 2>/dev/null)
	check "$1: heard in $heard ms (<= 1000), sampling stopped ($why), exit $5 after $4 ms (<= heard + 10 s)" \
		all [ "$5" -eq 0 ] -- [ "$why" = "$6" ] -- [ "$heard" -ge -20 ] -- [ "$heard" -le 1000 ] -- \
		    [ "$4" -le $((heard + 10000)) ]
}

# until_int N COUNT ARGS...: bpfprof ARGS in the background until the shell
# command COUNT prints N or more (90 s at most), then SIGINT; its exit
# status in RC. N intervals whatever each write costs: a fixed -d gave
# fewer at load 18-28 (an interval whose write runs past a grid point ends
# at the next one ahead, as documented in doc/fleet.md).
until_int() {
	local n=$1 count=$2 bp; shift 2
	"$BPFPROF" "$@" & bp=$!
	for _ in $(seq 900); do
		[ "$(eval "$count" 2>/dev/null)" -ge "$n" ] 2>/dev/null && break
		kill -0 "$bp" 2>/dev/null || break
		sleep 0.1
	done
	kill -INT "$bp" 2>/dev/null; wait "$bp"; RC=$?
}
# lines_of FILE: its non-empty lines (an interval log's intervals)
lines_of() { cat "$1" 2>/dev/null | grep -c .; }
