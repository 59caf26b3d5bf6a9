# shellcheck shell=bash
# OTLP/HTTP delivery as the OTLP specification says (opentelemetry-proto
# docs/specification.md, "Failures", "OTLP/HTTP Throttling"), against
# tests/e2e/otlp_receiver.py answering as the OTel Collector does: what is
# retried and after how long, what a refusal says; and each destination
# failing alone (a full --output-dir, OTLP still sent; OTLP failing, files
# still written). The runs go side by side: the section costs its longest.

echo "== otlp_net: retried only on 429/502/503/504, after Retry-After or a jittered backoff"
PY=/usr/bin/python3
ON=$T/otlpnet_proto
n_protos=$(proto_classes "$ON")
check "otlp_net: protoc compiles the upstream .proto files and googleapis' status.proto" \
	all [ $? -eq 0 ] -- [ -f "$ON/google/rpc/status_pb2.py" ]

# on_recv NAME: a receiver recording into $T/on_NAME (its settings files there
# first); sets ON_URL.
on_recv() {
	local d=$T/on_$1
	"$PY" tests/e2e/otlp_receiver.py "$ON" "$d" "$d/port" &
	ON_PIDS+=("$!")
	for _ in $(seq 100); do [ -s "$d/port" ] && break; sleep 0.1; done
	ON_URL=http://127.0.0.1:$(cat "$d/port" 2>/dev/null)
}
# on_run NAME SECONDS [ARGS...]: bpfprof sending to NAME's receiver, in the
# background, its stderr in $T/on_NAME.err.
on_run() {
	local name=$1 secs=$2; shift 2
	on_recv "$name"
	"$BPFPROF" -F 49 -p "$on_wl" --interval 0.5 -d "$secs" --otlp "$ON_URL" \
		--spool-dir "$T/on_$name.spool" "$@" 2>"$T/on_$name.err" &
	ON_RUNS+=("$!")
}
# otlp_line NAME: "SENT REFUSED DROPPED FAILED NOTOURS WAITING" of the exit line.
otlp_line() {
	sed -nE 's/^bpfprof: otlp: ([0-9]+) sent, ([0-9]+) refused, ([0-9]+) dropped from a full spool, ([0-9]+) failed attempts, ([0-9]+) spool items not ours refused, ([0-9]+) waiting in .*/\1 \2 \3 \4 \5 \6/p' "$T/on_$1.err"
}
# requests NAME: the receiver's requests; gaps NAME: seconds between them;
# retry_gaps NAME: the same without the last request, which may be the exit's
# one more try (it ignores the backoff, not a Retry-After).
requests() { grep -c . "$T/on_$1/requests.log" 2>/dev/null || echo 0; }
gaps() { awk 'NR > 1 { printf "%.3f ", $1 - p } { p = $1 }' "$T/on_$1/requests.log" 2>/dev/null; }
retry_gaps() { head -n -1 "$T/on_$1/requests.log" 2>/dev/null | awk 'NR > 1 { printf "%.3f ", $1 - p } { p = $1 }'; }
# within X LO HI: LO <= X <= HI; none_or_within: the same, or X is empty.
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x != "" && x >= lo && x <= hi) }'; }
none_or_within() { [ -z "$1" ] || within "$@"; }
# off X NOMINAL: X is more than 50 ms away from NOMINAL
off() { awk -v x="$1" -v n="$2" 'BEGIN { exit !(x != "" && (x - n > 0.05 || n - x > 0.05)) }'; }

ON_PIDS=(); ON_RUNS=()
"$EX/cpu_chain" 30 & on_wl=$!
for n in s500 s400 s503 s429 s502 s504 partial full; do mkdir -p "$T/on_$n"; done
echo 500 >"$T/on_s500/status"
echo 400 >"$T/on_s400/status"
printf 'bad data\n\033]2;pwned\007 in sample 3' >"$T/on_s400/message"
echo 503 >"$T/on_s503/status"; echo 2 >"$T/on_s503/retry_after"
for st in 429 502 504; do echo "$st" >"$T/on_s$st/status"; done
echo '3 some samples had no stack' >"$T/on_partial/partial"
on_run s500 1.6
on_run s400 1.6
on_run s503 5 --output-dir "$T/on_s503.out"
on_run s429 7
on_run s502 7
on_run s504 7
on_run partial 1.6
# Pyroscope's push shares the sender and its rules: a 500 is not retried either
mkdir -p "$T/on_push"; echo 500 >"$T/on_push/status"
python3 tests/e2e/ingest_server.py "$T/on_push" "$T/on_push/port" & ON_PIDS+=("$!")
for _ in $(seq 100); do [ -s "$T/on_push/port" ] && break; sleep 0.1; done
"$BPFPROF" -F 49 -p "$on_wl" --interval 0.5 -d 1.6 --format folded \
	--push "http://127.0.0.1:$(cat "$T/on_push/port")" --spool-dir "$T/on_push.spool" \
	2>"$T/on_push.err" & ON_RUNS+=("$!")
# a full filesystem under --output-dir; OTLP's spool elsewhere
M=$T/on_full.mnt; mkdir -p "$M"; full_rc=x
if mount -t tmpfs -o size=64k,mode=0755 bpfprof-e2e-otlp "$M"; then
	# ENOSPC from now on: one large file, then small ones for the pages the
	# per-CPU counters of tmpfs may still give
	head -c 1M /dev/zero >"$M/fill" 2>/dev/null
	for i in $(seq 64); do echo x >"$M/fill$i" 2>/dev/null || break; done
	on_run full 2.2 --output-dir "$M/out"
	wait "$!"; full_rc=$?
else
	fail "otlp_net: cannot mount a tmpfs here"
fi
wait "${ON_RUNS[@]}"
kill "$on_wl" "${ON_PIDS[@]}" 2>/dev/null; wait "$on_wl" "${ON_PIDS[@]}" 2>/dev/null

# 500: refused at once, never sent again (before: retried with backoff)
read -r sent refused _ failed _ waiting <<<"$(otlp_line s500)"
check "otlp_net: a 500 is not retried: $(requests s500) requests for ${refused:-?} refused profiles, ${failed:-?} failed attempts, ${waiting:-?} waiting" \
	all [ "${refused:-0}" -ge 1 ] -- [ "$(requests s500)" -eq "${refused:-0}" ] -- \
	    [ "${failed:-x}" = 0 ] -- [ "${waiting:-x}" = 0 ] -- \
	    grep -q "(HTTP 500: forced); dropped, not retried" "$T/on_s500.err"

read -r sent refused _ failed _ waiting <<<"$(sed -nE 's/^bpfprof: push: ([0-9]+) sent, ([0-9]+) refused, ([0-9]+) dropped from a full spool, ([0-9]+) failed attempts, ([0-9]+) spool items not ours refused, ([0-9]+) waiting in .*/\1 \2 \3 \4 \5 \6/p' "$T/on_push.err")"
pushed=$(ls "$T/on_push"/*.query 2>/dev/null | wc -l)
check "otlp_net: nor is a 500 from a Pyroscope server: $pushed requests for ${refused:-?} refused profiles, ${failed:-?} failed attempts, ${waiting:-?} waiting" \
	all [ "${refused:-0}" -ge 1 ] -- [ "$pushed" -eq "${refused:-0}" ] -- [ "${failed:-x}" = 0 ] -- \
	    [ "${waiting:-x}" = 0 ]

# 400: the Status message decoded, escaped, one line a refusal (before: raw bytes)
read -r sent refused _ failed _ waiting <<<"$(otlp_line s400)"
said=$(grep -cF 'HTTP 400: bad data\n\x1b]2;pwned\x07 in sample 3); dropped, not retried' "$T/on_s400.err")
check "otlp_net: a 400's google.rpc.Status message said decoded and escaped, one line each ($said lines, $(requests s400) requests, ${refused:-?} refused)" \
	all [ "$said" -ge 1 ] -- [ "$said" -eq "$(requests s400)" ] -- [ "$said" -eq "${refused:-0}" ] -- \
	    [ "$(grep -c "$(printf '\033')" "$T/on_s400.err")" -eq 0 ] -- [ "${failed:-x}" = 0 ]

# 503 with Retry-After: 2: the next try 2 s later, not the backoff's 0.5-1.5 s
# (before: 1.0 s whatever it asked)
read -r g1 _ <<<"$(gaps s503)"
check "otlp_net: a 503 with Retry-After: 2 is tried again after 2 s (${g1:-none} s; said: $(grep -o 'the next try in [^)]*' "$T/on_s503.err"))" \
	all within "${g1:-}" 1.95 2.9 -- grep -q 'answered HTTP 503: forced; profiles stay spooled, retrying with backoff (the next try in 2.0 s, as its Retry-After asks)' "$T/on_s503.err"
# ... and the files never waited for it
files=$(ls "$T/on_s503.out"/*.folded 2>/dev/null | wc -l)
written=$(jq -r 'select(.written) | .start_ns' "$T/on_s503.out/bpfprof-intervals.log" 2>/dev/null | wc -l)
lines=$(grep -c . "$T/on_s503.out/bpfprof-intervals.log" 2>/dev/null)
check "otlp_net: while OTLP fails, every interval is written to --output-dir ($files files, $written of ${lines:-0} index lines written)" \
	all [ "$files" -ge 6 ] -- [ "$files" -eq "$written" ] -- [ "$written" -eq "${lines:-0}" ]

# 429, 502, 504 without Retry-After: retried, the n-th wait drawn from
# [d/2, 3d/2), d = 1 s, 2 s ...; the three runs come back apart (before: 1.0 s, 2.0 s each)
apart=0; all_gaps=""
for st in 429 502 504; do
	read -r g1 g2 _ <<<"$(retry_gaps "s$st")"
	all_gaps="$all_gaps $st: ${g1:-none} ${g2:-}"
	check "otlp_net: a $st is retried after a jittered backoff (gaps ${g1:-none} ${g2:-}s; first in [0.5, 1.5), second in [1, 3))" \
		all within "${g1:-}" 0.45 2.3 -- none_or_within "${g2:-}" 0.95 3.8
	off "${g1:-}" 1 && apart=$((apart + 1))
	off "${g2:-}" 2 && apart=$((apart + 1))
done
check "otlp_net: the retries are jittered, not at exactly 1 s and 2 s ($apart gaps off by over 50 ms:$all_gaps)" \
	[ "$apart" -ge 1 ]

# a partial success: not sent again, each one's rejected profiles counted
ok200=$(grep -c ' 200$' "$T/on_partial/requests.log" 2>/dev/null)
check "otlp_net: partial successes counted: $ok200 requests taken in part, $((ok200 * 3)) profiles rejected ($(grep -o 'otlp: [0-9]* of the sent were taken in part, [0-9]* profiles rejected' "$T/on_partial.err"))" \
	all [ "${ok200:-0}" -ge 1 ] -- \
	    grep -q "otlp: $ok200 of the sent were taken in part, $((ok200 * 3)) profiles rejected by the receiver" "$T/on_partial.err" -- \
	    [ "$(requests partial)" -eq "$ok200" ]

# a full --output-dir: its files stop, the OTLP requests do not (before: none sent)
if mountpoint -q "$M"; then
	read -r sent refused _ failed _ waiting <<<"$(otlp_line full)"
	read -r taken lostn <<<"$(sed -nE 's/^bpfprof: fleet: ([0-9]+) intervals, [0-9]+ samples in them; ([0-9]+) intervals .*/\1 \2/p' "$T/on_full.err")"
	files=$(ls "$M/out" | grep -c '\.folded$')
	mapfile -t got < <(ls "$T/on_full"/*.otlp 2>/dev/null)
	"$PY" tests/e2e/otlp_decode.py "$ON" "${got[@]}" >/dev/null 2>"$T/on_full_dec.err"; rc=$?
	check "otlp_net: a full --output-dir: said once, the run exits 1 ($full_rc), ${lostn:-?} intervals not written, the files only of the ${taken:-?} that were ($files)" \
		all [ "$(grep -c "cannot write an interval's profile into $M/out" "$T/on_full.err")" -eq 1 ] -- \
		    [ "$full_rc" = 1 ] -- [ "${lostn:-0}" -ge 2 ] -- [ "$files" -eq "${taken:--1}" ]
	check "otlp_net: a full --output-dir: every interval still sent by OTLP (${#got[@]} requests taken, ${sent:-?} sent, ${waiting:-?} waiting of $((${taken:-0} + ${lostn:-0})) intervals), each decodes" \
		all [ "${#got[@]}" -ge 3 ] -- [ "${sent:-0}" -eq "${#got[@]}" ] -- [ "$rc" -eq 0 ] -- \
		    [ "$((${sent:-0} + ${waiting:-0}))" -eq "$((${taken:-0} + ${lostn:--1}))" ] -- \
		    [ "$(grep -c "cannot write an interval's profile into $T/on_full.spool-otlp" "$T/on_full.err")" -eq 0 ]
	umount "$M"
fi
