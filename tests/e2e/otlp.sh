# shellcheck shell=bash
# OTLP profiles: -o FILE.otlp and fleet mode's --format otlp files decode
# strictly with Debian's python3-protobuf and the classes protoc generates
# from the upstream .proto files (user/output/proto/UPSTREAM), keep the
# dictionary's and the conventions' rules (otlp_decode.py) and hold exactly
# the samples the run counted, a resource per process with its executable
# and container. A process named "\xff\xfe" costs no one a profile.

echo "== otlp: files of ExportProfilesServiceRequest, decoded and checked"
# Debian's interpreter: its python3-protobuf (a pyenv shim may come first in PATH)
PY=/usr/bin/python3
OP=$T/otlp_proto
n_protos=$(proto_classes "$OP")
check "otlp: protoc compiles the upstream .proto files ($n_protos)" \
	all [ $? -eq 0 ] -- [ "${n_protos:-0}" -ge 5 ]
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
from opentelemetry.proto.collector.profiles.v1development import profiles_service_pb2 as svc
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
exe=$(grep -c 'process.executable.name=cpu_chain,process.executable.path=[^,]*/cpu_chain,.*process.pid=[0-9]' "$T/one.dec")
check "otlp one-shot: cpu_chain's samples in its process's resource, its executable named ($exe of $(wc -l <"$T/one.dec"))" \
	[ "$exe" -eq "$(wc -l <"$T/one.dec")" ]
# the checker refuses what the official rules forbid: a string twice, two
# samples of one identity, a location without its frame type, a function
# named with its line, a field the official messages do not know
"$PY" - "$OP" "$T/one.otlp" "$T/bad" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
from opentelemetry.proto.collector.profiles.v1development import profiles_service_pb2 as svc
def load():
    r = svc.ExportProfilesServiceRequest()
    r.ParseFromString(open(sys.argv[2], "rb").read())
    return r
def save(r, name, extra=b""):
    open(f"{sys.argv[3]}_{name}.otlp", "wb").write(r.SerializeToString() + extra)
r = load(); d = r.dictionary
d.string_table.append(d.string_table[1]); save(r, "dup")
r = load(); pr = r.resource_profiles[0].scope_profiles[0].profiles[0]
pr.samples.append(pr.samples[0]); save(r, "unmerged")
r = load(); del r.dictionary.location_table[1].attribute_indices[:]; save(r, "untyped")
r = load(); d = r.dictionary
d.string_table.append("run (subprocess.py:550)"); d.function_table[1].name_strindex = len(d.string_table) - 1
save(r, "lined")
r = load(); save(r, "unknown", b"\xc0\x3e\x01")  # field 1000, varint 1
PYEOF
for bad in dup unmerged untyped lined unknown; do
	otlp_decode "$T/bad_$bad.otlp" >/dev/null 2>"$T/bad_$bad.err"; rc=$?
	check "otlp: the checker refuses a request with $bad ($(cat "$T/bad_$bad.err"))" \
		all [ -s "$T/bad_$bad.otlp" ] -- [ "$rc" -ne 0 ]
done

# Python: each function one Function named without its line, the frames
# typed cpython, the interpreter the resource's executable
"$BPFPROF" -F 199 -o "$T/py.otlp" -- "$PY" -c 'import time
def leaf(n): return sum(i * i for i in range(n))
t = time.time()
while time.time() - t < 1: leaf(5000)' 2>"$T/py_otlp.err"
otlp_decode "$T/py.otlp" >"$T/py.dec" 2>"$T/py_dec.err"; rc=$?
check "otlp python: decodes, no function named with its line $(head -c 300 "$T/py_dec.err")" \
	all [ "$rc" -eq 0 ] -- grep -q ';leaf;' "$T/py.dec" -- grep -q 'process.executable.name=python3' "$T/py.dec"

MNT=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
# docker's cgroupfs layout from the root: a container label is read only where
# a runtime puts it (the id carries this run's pid: runs side by side differ)
OCG=$MNT
OID=$(printf '%08x' $$)$(printf 'd%.0s' $(seq 56))
if [ -z "$MNT" ] || ! mkdir -p "$OCG/docker/$OID"; then
	fail "otlp: no cgroup v2 hierarchy to make a docker-named cgroup in ($MNT)"
else
	cp "$EX/cpu_chain" "$T/wl_otlp"
	(echo "$BASHPID" >"$OCG/docker/$OID/cgroup.procs" && exec "$T/wl_otlp" 60) &
	op=$!
	sleep 0.3
	D=$T/otlp_fleet; mkdir -p "$D"
	# 4 intervals written, then SIGINT: -d 4 gave 3 at load 24
	until_int 4 'ls "$D" | grep -c "\.otlp$"' -p "$op" -F 99 --interval 1 --format otlp --output-dir "$D" \
		2>"$T/otlp_fleet.err"
	check "otlp fleet: exit 0" [ "$RC" -eq 0 ]
	kill "$op" 2>/dev/null; wait "$op" 2>/dev/null
	rmdir "$OCG/docker/$OID" && rmdir "$OCG/docker" 2>/dev/null	# another run's may stay
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
	cgl=$(grep 'thread.name=wl_otlp' "$T/fleet.dec" | grep -c "process.executable.name=wl_otlp,.*process.linux.cgroup=0::/docker/$OID,process.pid=$op,")
	check "otlp fleet: its resource names the process, its executable and cgroup as /proc/PID/cgroup does ($cgl of $wl)" \
		[ "$cgl" -eq "$wl" ]
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
# (10 written, then SIGINT: 5 s of a command gave 8 at load 24)
D=$T/otlp_dir; mkdir -p "$D"
"$EX/cpu_chain" 120 & op=$!
OTEL_EXPORTER_OTLP_HEADERS='api-key=s3cr%3Dt' OTEL_SERVICE_NAME=otlp-e2e \
	until_int 10 'ls "$D" | grep -c "\.folded$"' -p "$op" --interval 0.5 -F 199 --output-dir "$D" \
	--otlp "$URL/" --spool-dir "$T/ospool" 2>"$T/otlp_push.err"
kill "$op" 2>/dev/null; wait "$op" 2>/dev/null
check "otlp push: exit 0 $(grep -v '^bpfprof: profiling' "$T/otlp_push.err" | head -c 300)" [ "$RC" -eq 0 ]
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
from opentelemetry.proto.collector.profiles.v1development import profiles_service_pb2 as svc
r = svc.ExportProfilesServiceRequest()
r.ParseFromString(open(sys.argv[2], "rb").read())
print({kv.key: kv.value.string_value for kv in r.resource_profiles[0].resource.attributes}
      .get("service.name", ""))
PYEOF
)
check "otlp push: OTEL_SERVICE_NAME is the resource's service.name ($svc_name)" [ "$svc_name" = otlp-e2e ]

# a process that names itself "\xff\xfe" (prctl) beside another: both
# processes' profiles reach the strict receiver, and the files parse
"$PY" -c 'import ctypes, time
ctypes.CDLL(None).prctl(15, b"\xff\xfe", 0, 0, 0)
t = time.time()
while time.time() - t < 30: pass' & hostile=$!
"$EX/cpu_chain" 30 & plain=$!
sleep 0.3
rm -f "$R"/*.otlp "$R"/*.headers
D3=$T/otlp_hostile; mkdir -p "$D3"
"$BPFPROF" -p "$hostile,$plain" -F 99 --interval 0.5 -d 1.6 --format both --output-dir "$D3" \
	--otlp "$URL" --spool-dir "$T/ospool_hostile" 2>"$T/otlp_hostile.err"
"$BPFPROF" -p "$hostile" -F 99 -d 0.6 -o "$T/hostile.otlp" 2>>"$T/otlp_hostile.err"
kill "$hostile" "$plain" 2>/dev/null; wait "$hostile" "$plain" 2>/dev/null
mapfile -t got < <(ls "$R"/*.otlp 2>/dev/null)
otlp_decode "${got[@]}" "$T/hostile.otlp" >"$T/hostile.dec" 2>"$T/hostile_dec.err"; rc=$?
REPL=$'\xef\xbf\xbd\xef\xbf\xbd'	# U+FFFD twice
named=$(grep -c "thread.name=$REPL" "$T/hostile.dec")
plain_n=$(grep -c "process.executable.name=cpu_chain,.*process.pid=$plain," "$T/hostile.dec")
one=$(grep -F "$T/hostile.otlp" "$T/hostile.dec" | grep -c $'\t'"$REPL;")
refused=$(sed -nE 's/.*otlp: [0-9]+ sent, ([0-9]+) refused,.*/\1/p' "$T/otlp_hostile.err")
check "otlp push, a process named \\xff\\xfe beside another: none refused (${refused:-?}), both taken and parsed (${#got[@]} requests: $named samples of it, $plain_n of the other; $one in its one-shot file) $(head -c 200 "$T/hostile_dec.err")" \
	all [ "$rc" -eq 0 ] -- [ "${#got[@]}" -ge 2 ] -- [ "$named" -gt 0 ] -- [ "$plain_n" -gt 0 ] -- \
	    [ "${refused:-1}" -eq 0 ] -- [ "$one" -gt 0 ]
# its pprof, parsed strictly with the upstream profile.proto's classes: the
# comm label repaired the same way
"$PY" - "$OP" "$D3" <<'PYEOF' >"$T/hostile_pprof.out" 2>&1
import glob, gzip, sys
sys.path.insert(0, sys.argv[1])
import profile_pb2
names = set()
for f in sorted(glob.glob(sys.argv[2] + "/*.pb.gz")):
    p = profile_pb2.Profile()
    p.ParseFromString(gzip.decompress(open(f, "rb").read()))
    for s in p.sample:
        names.update(p.string_table[l.str] for l in s.label if p.string_table[l.key] == "comm")
print("\ufffd\ufffd" in names, "cpu_chain" in names)
PYEOF
check "pprof, a process named \\xff\\xfe: parses strictly, its comm is U+FFFD twice as in OTLP ($(cat "$T/hostile_pprof.out"))" \
	[ "$(cat "$T/hostile_pprof.out")" = "True True" ]

# away (503, then 429): said once, kept spooled; back: sent, oldest first
rm -f "$R"/*.otlp "$R"/*.headers "$T/ospool-otlp"/*
made=0
for st in 503 429; do
	echo "$st" >"$R/status"
	"$BPFPROF" --interval 0.5 -F 99 --otlp "$URL" --spool-dir "$T/ospool" -d 2 2>"$T/otlp_$st.err"
	warned=$(grep -c "otlp: $URL/v1development/profiles answered HTTP $st: forced; profiles stay spooled" "$T/otlp_$st.err")
	# every interval the runs made so far (a loaded machine makes fewer than 4 in 2 s)
	made=$((made + $(sed -nE 's/^bpfprof: fleet: ([0-9]+) intervals.*/\1/p' "$T/otlp_$st.err")))
	check "otlp push, receiver answering $st: said once, every interval spooled ($warned, $(otlp_waiting) of $made)" \
		all [ "$warned" -eq 1 ] -- [ "$(otlp_waiting)" -eq "$made" ] -- [ "$made" -ge 2 ]
done
spooled=$(otlp_waiting)
rm -f "$R/status"
"$BPFPROF" --interval 0.5 -F 99 --otlp "$URL" --spool-dir "$T/ospool" -d 1.5 2>"$T/otlp_back.err"
froms=$(for f in "$R"/*.otlp; do "$PY" - "$OP" "$f" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
from opentelemetry.proto.collector.profiles.v1development import profiles_service_pb2 as svc
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

echo "== pprof: mapping flags say what the profile holds"
# as pprof's own symbolizer sets them (go tool pprof -raw): cpu_chain's
# mapping, whose locations have source lines, [FN][FL][LN][IN]; Debian's
# python3.11, named by its symbols alone (python3.11-dbg is not in make
# deps), [FN]
for f in "$D3"/*.pb.gz; do go tool pprof -raw "$f"; done >"$T/flags.raw" 2>&1
lines=$(sed -n '/^Locations/,/^Mappings/p' "$T/flags.raw" | grep -c 'hot_leaf .*cpu_chain\.c:[0-9]')
full=$(grep -cE '/cpu_chain [0-9a-f]* ?\[FN\]\[FL\]\[LN\]\[IN\]$' "$T/flags.raw")
py=$(grep -cE '/python3\.11 [0-9a-f]* ?\[FN\]$' "$T/flags.raw")
pyl=$(grep -E '/python3\.11 ' "$T/flags.raw" | grep -c 'LN')
check "pprof: cpu_chain's mapping, with lines ($lines locations), flagged [FN][FL][LN][IN] ($full files); python3.11's [FN] alone ($py, $pyl with [LN])" \
	all [ "$lines" -gt 0 ] -- [ "$full" -gt 0 ] -- [ "$py" -gt 0 ] -- [ "$pyl" -eq 0 ]

echo "== pprof and OTLP: build ids of Go binaries and of the kernel"
# a Go binary has no GNU build-id: its .note.go.buildid names it (what `go
# tool buildid` prints), in pprof's Mapping and as OTLP's
# process.executable.build_id.go, its frames typed go; the kernel's mapping
# carries the kernel's build-id from /sys/kernel/notes
if (cd examples/go_chain && GOCACHE=$T/gocache GOFLAGS=-mod=mod go build -o "$T/go_bid" .); then
	gid=$(go tool buildid "$T/go_bid")
	"$BPFPROF" -F 199 -o "$T/go_bid.pb.gz" -- "$T/go_bid" 0.6 2>/dev/null
	"$BPFPROF" -F 199 -o "$T/go_bid.otlp" -- "$T/go_bid" 0.6 2>/dev/null
	go tool pprof -raw "$T/go_bid.pb.gz" >"$T/go_bid.raw" 2>&1
	"$PY" - "$OP" "$T/go_bid.otlp" <<'PYEOF' >"$T/go_bid.attrs"
import sys
sys.path.insert(0, sys.argv[1])
from opentelemetry.proto.collector.profiles.v1development import profiles_service_pb2 as svc
r = svc.ExportProfilesServiceRequest()
r.ParseFromString(open(sys.argv[2], "rb").read())
d = r.dictionary
for loc in d.location_table[1:]:
    m = d.mapping_table[loc.mapping_index]
    if not d.string_table[m.filename_strindex].endswith("/go_bid"):
        continue
    kv = {d.string_table[d.attribute_table[i].key_strindex]: d.attribute_table[i].value.string_value
          for i in list(m.attribute_indices) + list(loc.attribute_indices)}
    print(kv.get("process.executable.build_id.go"), kv.get("profile.frame.type"))
PYEOF
	check "Go: pprof's mapping names the Go build ID ($gid), OTLP's too, its frames typed go ($(sort -u "$T/go_bid.attrs" | tr '\n' ' '))" \
		all [ -n "$gid" ] -- grep -qF "/go_bid $gid " "$T/go_bid.raw" -- \
		    [ "$(sort -u "$T/go_bid.attrs")" = "$gid go" ]
else
	fail "Go: go build of examples/go_chain failed"
fi
kid=$("$PY" - <<'PYEOF'
import struct
b = open("/sys/kernel/notes", "rb").read()
o = 0
while o + 12 <= len(b):
    n, d, t = struct.unpack_from("<III", b, o)
    o += 12
    name, o = b[o:o + n], o + ((n + 3) & ~3)
    desc, o = b[o:o + d], o + ((d + 3) & ~3)
    if t == 3 and name == b"GNU\0":
        print(desc.hex())
PYEOF
)
"$BPFPROF" -F 199 -o "$T/kbid.pb.gz" -- dd if=/dev/zero of=/dev/null bs=64k count=100000 2>/dev/null
check "kernel: its mapping in pprof carries the build-id of /sys/kernel/notes ($kid)" \
	all [ -n "$kid" ] -- grep -qE "\[kernel\.kallsyms\] $kid " <(go tool pprof -raw "$T/kbid.pb.gz" 2>&1)
