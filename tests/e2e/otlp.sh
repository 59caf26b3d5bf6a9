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
URL=http://127.0.0.1:$oport
otlp_taken() { ls "$R"/*.otlp 2>/dev/null | wc -l; }
otlp_waiting() { ls "$T/ospool-otlp" 2>/dev/null | grep -c '\.otlp$'; }
# 10 intervals to a directory (folded) and the receiver: a base URL (the
# signal's path added), an API key header, percent-encoded
D=$T/otlp_dir; mkdir -p "$D"
OTEL_EXPORTER_OTLP_HEADERS='api-key=s3cr%3Dt' OTEL_SERVICE_NAME=otlp-e2e \
	"$BPFPROF" --interval 0.5 -F 199 --output-dir "$D" --otlp "$URL/" --spool-dir "$T/ospool" \
	-- "$EX/cpu_chain" 5 2>"$T/otlp_push.err"
check "otlp push: exit 0 $(grep -v '^bpfprof: profiling' "$T/otlp_push.err" | head -c 300)" [ $? -eq 0 ]
mapfile -t folded < <(ls "$D"/*.folded)
mapfile -t got < <(ls "$R"/*.otlp 2>/dev/null)
sent=$(sed -nE 's/.*otlp: ([0-9]+) sent,.*/\1/p' "$T/otlp_push.err")
# what the exit's half second did not send stays spooled for the next run
check "otlp push: a request an interval, taken or left spooled (${#folded[@]} intervals, ${#got[@]} taken, ${sent:-?} sent, $(otlp_waiting) waiting)" \
	all [ "${#folded[@]}" -ge 10 ] -- [ "${sent:-0}" -eq "${#got[@]}" ] -- \
	    [ $((${#got[@]} + $(otlp_waiting))) -eq "${#folded[@]}" ]
otlp_decode "${got[@]}" >"$T/push.dec" 2>"$T/push_dec.err"; rc=$?
check "otlp push: every request decodes strictly, dictionary rules hold $(head -c 300 "$T/push_dec.err")" \
	[ "$rc" -eq 0 ]
# each request against its interval's folded file: the same stacks, the
# same counts (inline frames are marked _[i] in folded text only)
stacks() { awk '{ c = $NF; $NF = ""; sub(/ $/, ""); n[$0] += c } END { for (k in n) print k " " n[k] }' | sort; }
same=0
for i in "${!got[@]}"; do
	a=$(grep -F "${got[$i]}	" "$T/push.dec" | cut -f2 | stacks)
	b=$(sed 's/_\[i\]//g' "${folded[$i]}" | stacks)
	# (an interval of no sample, a last one of a few ms: both empty)
	[ "$a" = "$b" ] && { [ -n "$a" ] || [ ! -s "${folded[$i]}" ]; } && same=$((same + 1))
done
check "otlp push: each request holds exactly its interval's folded stacks and counts ($same of ${#got[@]})" \
	all [ "${#got[@]}" -gt 0 ] -- [ "$same" -eq "${#got[@]}" ]
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

# away (503, then 429): said once, kept spooled; back: sent, oldest first
rm -f "$R"/*.otlp "$R"/*.headers "$T/ospool-otlp"/*
for st in 503 429; do
	echo "$st" >"$R/status"
	"$BPFPROF" --interval 0.5 -F 99 --otlp "$URL" --spool-dir "$T/ospool" -d 2 2>"$T/otlp_$st.err"
	warned=$(grep -c "otlp: $URL/v1development/profiles answered HTTP $st; profiles stay spooled" "$T/otlp_$st.err")
	check "otlp push, receiver answering $st: said once, the profiles spooled ($warned, $(otlp_waiting))" \
		all [ "$warned" -eq 1 ] -- [ "$(otlp_waiting)" -ge 3 ]
done
spooled=$(otlp_waiting)
rm -f "$R/status"
"$BPFPROF" --interval 0.5 -F 99 --otlp "$URL" --spool-dir "$T/ospool" -d 1.5 2>"$T/otlp_back.err"
froms=$(for f in "$R"/*.otlp; do "$PY" - "$OP" "$f" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import otlp_profiles_service_pb2 as svc
r = svc.ExportProfilesServiceRequest()
r.ParseFromString(open(sys.argv[2], "rb").read())
print(r.resource_profiles[0].scope_profiles[0].profiles[0].time_unix_nano)
PYEOF
done | tr '\n' ' ')
check "otlp push, receiver back: the spool drained into it, oldest first ($(otlp_taken) taken of $spooled spooled and more, $(otlp_waiting) left)" \
	all [ "$(otlp_taken)" -ge $((spooled + 1)) ] -- [ "$(otlp_waiting)" -eq 0 ] -- \
	    [ "$froms" = "$(tr ' ' '\n' <<<"$froms" | sed '/^$/d' | sort -n | tr '\n' ' ')" ]

# refused (400): dropped, counted, said with the reply's first line
echo 400 >"$R/status"
"$BPFPROF" --interval 0.5 -F 99 --otlp "$URL" --spool-dir "$T/ospool" -d 1.2 2>"$T/otlp_400.err"
refused=$(sed -nE 's/.*otlp: [0-9]+ sent, ([0-9]+) refused,.*/\1/p' "$T/otlp_400.err")
check "otlp push, receiver refusing (400): dropped and counted ($refused), said with its reply, nothing left" \
	all [ "${refused:-0}" -ge 2 ] -- grep -q 'HTTP 400: forced); dropped' "$T/otlp_400.err" -- \
	    [ "$(otlp_waiting)" -eq 0 ]
rm -f "$R/status"

# a partial success: not sent again, counted, the receiver's words escaped
printf '3 bad\033]2;X\007stack' >"$R/partial"
n0=$(otlp_taken)
"$BPFPROF" --interval 0.5 -F 99 --otlp "$URL" --spool-dir "$T/ospool" -d 1.2 2>"$T/otlp_partial.err"
check "otlp push, a partial success: said once, escaped, counted at exit, not sent again" \
	all [ "$(grep -cF 'took a request in part: 3 profiles rejected: bad\x1b]2;X\x07stack' "$T/otlp_partial.err")" -eq 1 ] -- \
	    grep -q 'taken in part, [0-9]* profiles rejected by the receiver' "$T/otlp_partial.err" -- \
	    [ "$(grep -c "$(printf '\033')" "$T/otlp_partial.err")" -eq 0 ] -- \
	    [ "$(otlp_waiting)" -eq 0 ] -- [ "$(otlp_taken)" -gt "$n0" ]
rm -f "$R/partial"

# slow (2 s an answer): sampling and the directory never wait for it
echo 2 >"$R/delay"
D2=$T/otlp_slow; mkdir -p "$D2"
"$BPFPROF" --interval 0.5 -F 99 --output-dir "$D2" --otlp "$URL" --spool-dir "$T/ospool" -d 3 \
	2>"$T/otlp_slow.err"
check "otlp push, a slow receiver: every interval written on time ($(ls "$D2"/*.folded | wc -l) files), the rest spooled ($(otlp_waiting))" \
	all [ "$(ls "$D2"/*.folded | wc -l)" -ge 5 ] -- [ "$(otlp_waiting)" -ge 1 ]
rm -f "$R/delay"

# examples/bpfprof-daemonset.yaml's command line, its collector here
mapfile -t ds_args < <("$PY" - examples/bpfprof-daemonset.yaml "$URL" "$T/ds_spool" <<'PYEOF'
import sys, yaml
ds = yaml.safe_load(open(sys.argv[1]))
c = ds["spec"]["template"]["spec"]["containers"][0]
for a in c["args"]:
    if a.startswith("--otlp="):
        a = "--otlp=" + sys.argv[2]
    elif a.startswith("--spool-dir="):
        a = "--spool-dir=" + sys.argv[3]
    print(a)
PYEOF
)
n0=$(otlp_taken)
NODE_NAME=node-e2e OTEL_RESOURCE_ATTRIBUTES='k8s.node.name=node-e2e' \
	"$BPFPROF" "${ds_args[@]}" -d 1.5 2>"$T/ds.err"
check "the DaemonSet example's arguments (${ds_args[*]}): exit 0, its interval sent" \
	all [ $? -eq 0 ] -- [ "${#ds_args[@]}" -ge 3 ] -- [ "$(otlp_taken)" -gt "$n0" ]
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
