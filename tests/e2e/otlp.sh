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
