# shellcheck shell=bash
# OTLP profiles: -o FILE.otlp and fleet mode's --format otlp files decode
# strictly with Debian's python3-protobuf against the project's .proto
# (protoc --python_out at test time), keep the dictionary's rules and hold
# exactly the samples the run counted, labelled with their container.

echo "== otlp: files of ExportProfilesServiceRequest, decoded and checked"
# Debian's interpreter: its python3-protobuf (a pyenv shim may come first in PATH)
PY=/usr/bin/python3
OP=$T/otlp_proto; mkdir -p "$OP"
protoc --python_out="$OP" --proto_path=user/output/proto user/output/proto/otlp_*.proto
check "otlp: protoc compiles the project's .proto" [ $? -eq 0 ]
otlp_decode() { "$PY" tests/e2e/otlp_decode.py "$OP" "$@"; }
# decoded lines' counts summed (the line: FILE<TAB>STACK COUNT<TAB>ATTRS)
otlp_sum() { awk -F'\t' '{ n = split($2, w, " "); t += w[n] } END { print t + 0 }'; }

"$BPFPROF" -F 199 -o "$T/one.otlp" --stats "$T/one.json" -- "$EX/cpu_chain" 2 2>"$T/one_otlp.err"
check "otlp one-shot: exit 0" [ $? -eq 0 ]
otlp_decode "$T/one.otlp" >"$T/one.dec" 2>"$T/one_dec.err"; rc=$?
check "otlp one-shot: decodes strictly, dictionary rules hold $(head -c 300 "$T/one_dec.err")" [ "$rc" -eq 0 ]
want=$(stat_of "$T/one.json" .samples); got=$(otlp_sum <"$T/one.dec")
check "otlp one-shot: the samples decoded ($got) are the run's ($want)" \
	all [ -n "$want" ] -- [ "$got" -eq "$want" ] -- [ "$got" -gt 0 ]
# the checker itself: a string twice in the table is refused
"$PY" - "$OP" "$T/one.otlp" "$T/dup.otlp" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import otlp_profiles_service_pb2 as svc
r = svc.ExportProfilesServiceRequest()
r.ParseFromString(open(sys.argv[2], "rb").read())
r.dictionary.string_table.append(r.dictionary.string_table[1])
open(sys.argv[3], "wb").write(r.SerializeToString())
PYEOF
otlp_decode "$T/dup.otlp" >/dev/null 2>"$T/dup.err"; rc=$?
check "otlp: the checker refuses a dictionary with a string twice ($(cat "$T/dup.err"))" \
	all [ -s "$T/dup.otlp" ] -- [ "$rc" -ne 0 ]
chain=$(grep -c ';main;outer_loop;middle_step;hot_leaf ' "$T/one.dec")
check "otlp one-shot: cpu_chain's chain from main to hot_leaf ($chain stacks)" [ "$chain" -ge 1 ]

MNT=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
OCG=$MNT/bpfprof-otlp-$$
OID=$(printf 'd%.0s' $(seq 64))
if [ -z "$MNT" ] || ! mkdir -p "$OCG/docker/$OID"; then
	fail "otlp: no cgroup v2 hierarchy to make a docker-named cgroup in ($MNT)"
else
	cp "$EX/cpu_chain" "$T/wl_otlp"
	(echo "$BASHPID" >"$OCG/docker/$OID/cgroup.procs" && exec "$T/wl_otlp" 60) &
	op=$!
	sleep 0.3
	D=$T/otlp_fleet; mkdir -p "$D"
	"$BPFPROF" -p "$op" -F 99 --interval 1 -d 4 --format otlp --output-dir "$D" 2>"$T/otlp_fleet.err"
	check "otlp fleet: exit 0" [ $? -eq 0 ]
	kill "$op" 2>/dev/null; wait "$op" 2>/dev/null
	rmdir "$OCG/docker/$OID" "$OCG/docker" "$OCG" 2>/dev/null
	mapfile -t files < <(ls "$D"/*.otlp 2>/dev/null)
	check "otlp fleet: an .otlp file an interval (${#files[@]})" [ "${#files[@]}" -ge 4 ]
	otlp_decode "${files[@]}" >"$T/fleet.dec" 2>"$T/fleet_dec.err"; rc=$?
	check "otlp fleet: every file decodes strictly, dictionary rules hold $(head -c 300 "$T/fleet_dec.err")" \
		[ "$rc" -eq 0 ]
	# each file's samples, in time order, against the index's line of its interval
	per_file=$(for f in "${files[@]}"; do grep -F "$f	" "$T/fleet.dec" | otlp_sum; done | tr '\n' ' ')
	per_log=$(jq -r 'select(.written) | .samples' "$D/bpfprof-intervals.log" | tr '\n' ' ')
	check "otlp fleet: each interval's samples decoded are the index's ($per_file / $per_log)" \
		[ "$per_file" = "$per_log" ]
	wl=$(grep -c 'thread.name=wl_otlp' "$T/fleet.dec")
	other=$(grep 'thread.name=wl_otlp' "$T/fleet.dec" | grep -vc "container.id=$OID,")
	check "otlp fleet: the docker-named cgroup's samples carry its container.id ($wl samples decoded, $other without)" \
		all [ "$wl" -gt 0 ] -- [ "$other" -eq 0 ]
fi

echo "== otlp: --otlp URL, OTLP/HTTP to a receiver built on python3-protobuf"
R=$T/otlp_recv; mkdir -p "$R"
"$PY" tests/e2e/otlp_receiver.py "$OP" "$R" "$T/otlp_port" & recv=$!
for _ in $(seq 100); do [ -s "$T/otlp_port" ] && break; sleep 0.1; done
oport=$(cat "$T/otlp_port" 2>/dev/null)
# a base URL (the signal's path added) and an API key header, percent-encoded
OTEL_EXPORTER_OTLP_HEADERS='api-key=s3cr%3Dt' OTEL_SERVICE_NAME=otlp-e2e \
	"$BPFPROF" --interval 1 -F 199 --otlp "http://127.0.0.1:$oport/" --spool-dir "$T/ospool" \
	--stats "$T/otlp_push.json" -- "$EX/cpu_chain" 3 2>"$T/otlp_push.err"
check "otlp push: exit 0 $(head -c 300 "$T/otlp_push.err")" [ $? -eq 0 ]
mapfile -t got < <(ls "$R"/*.otlp 2>/dev/null)
sent=$(sed -nE 's/.*otlp: ([0-9]+) sent,.*/\1/p' "$T/otlp_push.err")
check "otlp push: a request an interval, each taken by the receiver (${#got[@]} taken, ${sent:-?} sent)" \
	all [ "${#got[@]}" -ge 3 ] -- [ "${sent:-0}" -eq "${#got[@]}" ]
otlp_decode "${got[@]}" >"$T/push.dec" 2>"$T/push_dec.err"; rc=$?
check "otlp push: every request decodes strictly, dictionary rules hold $(head -c 300 "$T/push_dec.err")" \
	[ "$rc" -eq 0 ]
check "otlp push: cpu_chain's chain to hot_leaf in the requests" \
	grep -q ';main;outer_loop;middle_step;hot_leaf ' "$T/push.dec"
check "otlp push: gzip bodies, the API key header decoded (s3cr=t)" \
	all [ "$(grep -c '^Content-Encoding: gzip$' "$R"/*.headers | grep -vc ':1$')" -eq 0 ] -- \
	    [ "$(grep -c '^api-key: s3cr=t$' "$R"/*.headers | grep -vc ':1$')" -eq 0 ]
check "otlp push: the key is never printed" [ "$(grep -c 's3cr' "$T/otlp_push.err")" -eq 0 ]
svc_name=$("$PY" - "$OP" "${got[0]}" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import otlp_profiles_service_pb2 as svc
r = svc.ExportProfilesServiceRequest()
r.ParseFromString(open(sys.argv[2], "rb").read())
print({kv.key: kv.value.string_value for kv in r.resource_profiles[0].resource.attributes}
      .get("service.name", ""))
PYEOF
)
check "otlp push: OTEL_SERVICE_NAME is the resource's service.name ($svc_name)" [ "$svc_name" = otlp-e2e ]

# the receiver away (503): said once, kept spooled, sent in order when it is back
rm -f "$R"/*.otlp "$R"/*.headers
echo 503 >"$R/status"
"$BPFPROF" --interval 1 -F 99 --otlp "http://127.0.0.1:$oport" --spool-dir "$T/ospool" \
	-d 2.5 2>"$T/otlp_down.err"
warned=$(grep -c 'otlp: http://127.0.0.1:[0-9]*/v1development/profiles answered HTTP 503; profiles stay spooled' "$T/otlp_down.err")
spooled=$(ls "$T/ospool-otlp" | grep -c '\.otlp$')
check "otlp push, receiver answering 503: said once, the profiles spooled ($warned, $spooled)" \
	all [ "$warned" -eq 1 ] -- [ "$spooled" -ge 2 ]
rm -f "$R/status"
"$BPFPROF" --interval 1 -F 99 --otlp "http://127.0.0.1:$oport" --spool-dir "$T/ospool" \
	-d 1.2 2>"$T/otlp_back.err"
back=$(ls "$R"/*.otlp 2>/dev/null | wc -l)
check "otlp push, receiver back: the spool drains into it ($back requests, $(ls "$T/ospool-otlp" | wc -l) left)" \
	all [ "$back" -ge $((spooled + 1)) ] -- [ "$(ls "$T/ospool-otlp" | grep -c '\.otlp$')" -eq 0 ]
kill "$recv" 2>/dev/null; wait "$recv" 2>/dev/null

# bad input: one line, exit 2 (usage) or 1, nothing quoted from the headers
"$BPFPROF" --interval 1 --otlp ftp://127.0.0.1/ -d 1 2>"$T/otlp_bad1.err"; rc1=$?
env -u OTEL_EXPORTER_OTLP_ENDPOINT -u OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT \
	"$BPFPROF" --interval 1 --otlp env -d 1 2>"$T/otlp_bad2.err"; rc2=$?
OTEL_EXPORTER_OTLP_HEADERS='bad key=t0ps3cret' "$BPFPROF" --interval 1 --otlp http://127.0.0.1:9/ \
	-d 1 2>"$T/otlp_bad3.err"; rc3=$?
check "otlp: a URL not http(s), --otlp env without an endpoint, bad headers: an error line each, non-zero ($rc1 $rc2 $rc3)" \
	all [ "$rc1" -ne 0 ] -- [ "$rc2" -ne 0 ] -- [ "$rc3" -ne 0 ] -- \
	    grep -q 'http:// or https://' "$T/otlp_bad1.err" -- \
	    grep -q 'OTEL_EXPORTER_OTLP_ENDPOINT is set' "$T/otlp_bad2.err" -- \
	    grep -q 'OTEL_EXPORTER_OTLP_HEADERS: a key that is not an HTTP header name' "$T/otlp_bad3.err" -- \
	    [ "$(grep -c t0ps3cret "$T/otlp_bad3.err")" -eq 0 ]
