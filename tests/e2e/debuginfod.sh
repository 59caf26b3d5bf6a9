# shellcheck shell=bash
# A hostile debuginfod server (issue 23, case 9): what it can make root's
# bpfprof keep on disk and how many requests it can draw are bounded. An
# answer over DEBUGINFOD_MAXSIZE (bpfprof's default 512 MiB when unset) is
# refused whether announced (Content-Length) or not, and leaves nothing in
# the cache; at most 3 redirects per lookup; a redirect to another server
# (here another port) is refused before its request is sent. Each refusal
# is said. Sourced by run.sh.

echo "== a hostile debuginfod server: size, redirect loop, redirect elsewhere"
G=$T/dbgd-hostile; mkdir -p "$G/srv"
cp "$EX/inline_hot" "$G/app"; strip -s "$G/app"	# its debug file: only a server's
echo big >"$G/srv/mode"
python3 tests/e2e/hostile_debuginfod.py "$G/srv" & gsrv=$!
for _ in $(seq 100); do [ -s "$G/srv/port" ] && break; sleep 0.1; done
gport=$(cat "$G/srv/port"); oport=$(cat "$G/srv/other_port")
# hostile_run MODE [ENV=VALUE...] -- BPFPROF ARGS: one run against the server in MODE,
# a fresh cache; its stderr in $G/MODE.err, its time in ms in $G/MODE.ms
hostile_run() {
	local m=$1 start; shift
	local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
	echo "$m" >"$G/srv/mode"; rm -rf "$G/cache"; : >"$G/srv/requests"
	start=$(date +%s%N)
	env DEBUGINFOD_URLS="http://127.0.0.1:$gport" DEBUGINFOD_CACHE_PATH="$G/cache" "${envs[@]}" \
		timeout 60 "$BPFPROF" "$@" -o "$G/$m.folded" --stats "$G/$m.json" -- "$G/app" 1 2>"$G/$m.err"
	echo $? >"$G/$m.rc"
	echo $((($(date +%s%N) - start) / 1000000)) >"$G/$m.ms"
}
# bytes of the files kept per build-id (not the cache's own settings file)
cache_bytes() { find "$G/cache" -mindepth 2 -type f -printf '%s\n' 2>/dev/null | awk '{ t += $1 } END { print t + 0 }'; }
# failed ERR: the failed lookups the run's --stats (beside ERR) counts
failed() { stat_of "${1%.err}.json" .debuginfod.failed; }

hostile_run big -- --debuginfod-timeout 20
b=$(cache_bytes)
check "1 GiB announced: refused at once, ${b:-0} bytes in the cache (< 1 MiB), $(cat "$G/big.ms") ms ($(grep -m1 refused "$G/big.err"))" \
	all [ "${b:-0}" -lt 1048576 ] -- grep -q "answer refused: over DEBUGINFOD_MAXSIZE (536870912 bytes)" "$G/big.err"
# the user's DEBUGINFOD_MAXSIZE: libdebuginfod 0.188 then leaks a stdio buffer
# per lookup (dprintf to fd -1 when not verbose): not bpfprof's, not counted here
hostile_run stream DEBUGINFOD_MAXSIZE=8388608 ASAN_OPTIONS=detect_leaks=0 -- --debuginfod-timeout 20
b=$(cache_bytes)
check "64 MiB unannounced, DEBUGINFOD_MAXSIZE=8M: cut, ${b:-0} bytes in the cache (< 1 MiB), $(cat "$G/stream.ms") ms" \
	all [ "${b:-0}" -lt 1048576 ] -- grep -q "answer refused: over DEBUGINFOD_MAXSIZE (8388608 bytes)" "$G/stream.err"
hostile_run loop -- --debuginfod-timeout 5
n=$(wc -l <"$G/srv/requests"); f=$(failed "$G/loop.err")
check "redirect loop: $n requests for ${f:-no} failed lookups (<= 4 each: 1 + 3 redirects) ($(grep -m1 refused "$G/loop.err"))" \
	all [ "${f:-0}" -ge 1 ] -- [ "$n" -le $((4 * ${f:-0})) ] -- grep -q 'answer refused: more than 3 redirects' "$G/loop.err"
hostile_run other -- --debuginfod-timeout 5
n=$(grep -c "^$oport " "$G/srv/requests"); b=$(cache_bytes)
check "redirect to another port: $n requests there, ${b:-0} bytes in the cache ($(grep -m1 refused "$G/other.err"))" \
	all [ "$n" -eq 0 ] -- [ "${b:-0}" -eq 0 ] -- grep -q 'answer refused: a redirect to a server not in DEBUGINFOD_URLS' "$G/other.err"
check "every hostile run: exit 0, the profile written ($(cat "$G"/*.rc | tr '\n' ' '))" \
	all [ "$(cat "$G"/*.rc | sort -u)" = 0 ] -- grep -q . "$G/big.folded" -- grep -q . "$G/stream.folded" \
	-- grep -q . "$G/loop.folded" -- grep -q . "$G/other.folded"
kill "$gsrv"; wait "$gsrv" 2>/dev/null
