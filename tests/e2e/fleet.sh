# shellcheck shell=bash
# Fleet mode: exact periodic drain, interval files, rotation, signals, pprof
# read by go tool pprof, and shipping to an ingest server. Sourced by run.sh.

# Sum of the counts in folded files $@.
folded_sum() { cat "$@" | awk '{ t += $NF } END { print t + 0 }'; }
# From an index log (a JSON object a line): the sum of a field (jq filter
# $2) over its lines; log_all: the field of every line, one a line.
log_sum() { jq -s "map($2) | add // 0" "$1"; }
log_all() { jq -r "$2" "$1"; }

# (30 half-second intervals: the same 30 drains as 30 one-second ones, in
# half the time; two spinning threads give each ~1000 samples at 999 Hz,
# and ~80 at load 24: at 99 Hz one interval of 30 had none there)
echo "== drain exactness: 30 half-second intervals vs the BPF-side total"
D=$T/drain; mkdir -p "$D"
"$EX/threads" 120 2 & tp=$!
sleep 0.5
until_int 30 'lines_of "$D/bpfprof-intervals.log"' -p "$tp" -F 999 --interval 0.5 --output-dir "$D" 2>"$T/drain.err"
check "drain run: exit 0 after 30 intervals and SIGINT" [ "$RC" -eq 0 ]
kill "$tp" 2>/dev/null; wait "$tp" 2>/dev/null
total=$(sed -nE 's/.*BPF-side total ([0-9]+) samples.*/\1/p' "$T/drain.err")
files=$(ls "$D"/*.folded | wc -l)
folded=$(folded_sum "$D"/*.folded)
lost=$(log_sum "$D/bpfprof-intervals.log" .lost)
logged=$(log_sum "$D/bpfprof-intervals.log" .samples)
check "drain: 30 intervals written ($files)" [ "$files" -ge 30 ]
check "drain: interval files sum ($folded) + lost ($lost) == BPF-side total ($total) exactly" \
	all [ -n "$total" ] -- [ "$((folded + lost))" -eq "$total" ]
check "drain: per-interval samples sum ($logged) == BPF-side total" [ "$logged" -eq "$total" ]
empty=$(log_all "$D/bpfprof-intervals.log" .samples | head -n 30 | grep -cx 0)
check "drain: no interval is empty ($empty empty)" [ "$empty" -eq 0 ]
maxids=$(log_all "$D/bpfprof-intervals.log" .stack_ids | sort -n | tail -1)
lines=$(log_sum "$D/bpfprof-intervals.log" .stacks); flines=$(cat "$D"/*.folded | wc -l)
check "drain: the index's stacks are the files' lines ($lines, $flines)" [ "$lines" -eq "$flines" ]
check "drain: the stack map is emptied every interval (at most $maxids ids held)" [ "$maxids" -le 200 ]
# A stack stored in one interval is stored again in the next: the BPF
# side's hints of stacks it stored (bpf/maps.bpf.h) hold for one
# generation's writing only. Had one outlived its flip, a later interval's
# counts would point at stacks drained with an earlier one.
missing=$(log_sum "$D/bpfprof-intervals.log" .stack_halves_missing)
spun=$(awk '/;thread_main;thread_work;thread_spin / { n++ } END { print n + 0 }' "$D"/*.folded)
# files of 20 samples or more (not the last, partial one) without the chain
unspun=$(for f in "$D"/*.folded; do
	[ "$(folded_sum "$f")" -lt 20 ] || grep -q ';thread_main;thread_work;thread_spin ' "$f" || echo "$f"
done | wc -l)
check "drain: no stack half missing in any interval ($missing), the workers' chain in every full file ($unspun without)" \
	all [ "$missing" -eq 0 ] -- [ "$unspun" -eq 0 ] -- [ "$spun" -ge 30 ]

echo "== fleet mode over the machine: tables for the processes sampled, when first sampled"
# At start, every running program's tables were half of fleet mode's CPU
# over 10 minutes. Now a process gets them when a sample of it asks; a
# one-shot -a run still builds them all at once (true stacks from the
# first sample). nofp_chain has no frame pointers: only its tables unwind
# it to main. It maps a library it never calls (LD_PRELOAD): no sample
# passes through it, so it gets no table (a file's is built when a walk
# needs it: the file holding a sampled pc, or one the copied stack points
# into).
# asked_for JSON: "entries asked" of the unwinder's tables (--stats, or the
# index's last line)
asked_for() { tail -1 "$1" | jq -r '.unwind_tables | "\(.process_entries) \(.asked_by_a_sample)"'; }
# In a cgroup of its own with 20 idle processes (the machine's others,
# which come and go with whatever runs beside the test, are filtered
# out): the idle ones are never sampled, so never get an entry.
D=$T/lazy; mkdir -p "$D"
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)/bpfprof-lazy-$$
mkdir "$CG" || fail "lazy: cannot make a cgroup v2 at $CG"
idle=()
for _ in $(seq 20); do sleep 60 & idle+=($!); echo $! >"$CG/cgroup.procs"; done
LD_PRELOAD="$EX/libnofp_fleet.so" "$EX/nofp_chain" 8 & np=$!
echo "$np" >"$CG/cgroup.procs"
sleep 0.3
"$BPFPROF" -F 99 --interval 1 --output-dir "$D" -d 4 --cgroup "$CG" 2>"$T/lazy.err"
check "lazy run: exit 0" [ $? -eq 0 ]
read -r entries asked <<<"$(asked_for "$D/bpfprof-intervals.log")"
# every table built (rows, frame pointers, no CFI): the preloaded libc and
# ld.so, the vDSO and nofp_chain's; libnofp_fleet.so's as well before
built=$(tail -1 "$D/bpfprof-intervals.log" |
	jq -r '.unwind_tables | .files_loaded + .files_by_frame_pointers + .files_without_cfi')
"$BPFPROF" -F 99 -a -d 1 -o "$T/eager.folded" --stats "$T/eager.json" 2>"$T/eager.err"
read -r eager_entries eager_asked <<<"$(asked_for "$T/eager.json")"
kill "$np" "${idle[@]}" 2>/dev/null; wait "$np" "${idle[@]}" 2>/dev/null
rmdir "$CG"
check "lazy: entries asked for by samples ($asked), none for the 20 idle processes beside it ($entries entries)" \
	all [ "${asked:-0}" -ge 1 ] -- [ "${entries:-999}" -lt 20 ]
check "lazy: no table for the library nofp_chain maps and never calls ($built tables built <= 4)" \
	all [ -n "$built" ] -- [ "${built:-9}" -le 4 ]
check "one-shot -a: every process's entry at start, none asked ($eager_entries entries, $eager_asked asked)" \
	all [ "${eager_asked:-1}" -eq 0 ] -- [ "${eager_entries:-0}" -ge 21 ]
# Its first sample asks for its tables, built at the next drain; from the
# interval after the first one with a sample unwound to main (its tables
# in, however late a loaded machine built them), its samples are unwound:
# 98% or more, as one of 116 was not beside two CPU hogs and a sh -c loop
# (the fourth make test under load; which walk, not known).
files=("$D"/*.folded)
read -r whole all first <<<"$(for f in "${files[@]}"; do
	awk '/^nofp_chain;/ { t += $NF; if ($0 ~ /;main;nofp_outer;nofp_middle;nofp_hot[; ]/) w += $NF }
	     END { print w + 0, t + 0 }' "$f"; done |
	awk '$1 > 0 && !k { k = NR; next } k { w += $1; t += $2 } END { print w + 0, t + 0, k + 0 }')"
check "lazy: nofp_chain unwound to main once its tables were in (interval $first of ${#files[@]}; then $whole of $all samples)" \
	all [ "$first" -ge 1 ] -- [ "$all" -ge 10 ] -- [ $((whole * 100)) -ge $((all * 98)) ]

echo "== off-CPU in fleet mode: 30 intervals of microseconds vs the BPF-side total"
# a block is stored, stacks and all, into the interval it ends in: the files
# add up to the BPF side's never-drained off-CPU total exactly
D=$T/offcpu_drain; mkdir -p "$D"
"$EX/sleeper" 6000 20 & sp=$!
sleep 0.3
until_int 30 'lines_of "$D/bpfprof-intervals.log"' -p "$sp" --off-cpu --interval 0.5 --output-dir "$D" \
	2>"$T/offcpu_drain.err"
check "off-CPU fleet run: exit 0 after 30 intervals and SIGINT" [ "$RC" -eq 0 ]
kill "$sp" 2>/dev/null; wait "$sp" 2>/dev/null
total=$(sed -nE 's/.*BPF-side off-CPU total ([0-9]+) us.*/\1/p' "$T/offcpu_drain.err")
files=$(ls "$D"/*.folded | wc -l)
folded=$(folded_sum "$D"/*.folded)
naps=$(cat "$D"/*.folded | awk '/;nap;clock_nanosleep/ { t += $NF } END { print t + 0 }')
check "off-CPU fleet: 30 intervals written ($files)" [ "$files" -ge 30 ]
check "off-CPU fleet: interval files sum ($folded us) == BPF-side off-CPU total ($total us) exactly" \
	all [ -n "$total" ] -- [ "$total" -gt 0 ] -- [ "$folded" -eq "$total" ]
check "off-CPU fleet: the naps are there, under nap ($naps us)" [ "$naps" -gt $((total / 2)) ]

echo "== interval files: atomic, well formed, rotated"
D=$T/rot; mkdir -p "$D"
"$EX/cpu_chain" 9 & cp=$!
"$BPFPROF" --interval 0.5 --output-dir "$D" --max-files 4 --format both -d 4.2 2>"$T/rot.err"
check "rotation run: exit 0" [ $? -eq 0 ]
wait "$cp"
n=$(ls "$D" | grep -cE '^[^.].*-[0-9]{8}T[0-9]{6}\.[0-9]{3}Z\.(folded|pb\.gz)$')
check "rotation: --max-files 4 keeps 4 profiles ($n)" [ "$n" -eq 4 ]
check "rotation: no temporary file left" [ "$(ls -A "$D" | grep -c '^\.')" -eq 0 ]
newest=$(log_all "$D/bpfprof-intervals.log" .start_ns | tail -1)
check "rotation: the newest interval is kept" bash -c "ls '$D' | grep -q \"\$(date -u -d @$((newest / 1000000000)) +%Y%m%dT%H%M%S)\""
# an interval with no sample (a last one of 0.04 s, say) is an empty file
empty=0; zero=$(log_all "$D/bpfprof-intervals.log" .samples | grep -cx 0)
for f in "$D"/*.folded; do
	if [ ! -s "$f" ]; then empty=$((empty + 1)); else valid_folded "$f" || fail "well-formed $f"; fi
done
check "rotation: empty interval files ($empty) only for intervals of 0 samples ($zero), not all" \
	all [ "$empty" -le "$zero" ] -- [ "$empty" -lt "$(ls "$D"/*.folded | wc -l)" ]
check "pprof files: valid gzip" bash -c "for f in '$D'/*.pb.gz; do gzip -t \"\$f\" || exit 1; done"

D=$T/bytes; mkdir -p "$D"
"$BPFPROF" --interval 0.5 --output-dir "$D" --max-bytes 1K -d 2.7 2>/dev/null
bytes=$(cat "$D"/*.folded 2>/dev/null | wc -c)
check "rotation: --max-bytes 1K keeps at most 1 KiB of profiles ($bytes bytes)" [ "$bytes" -le 1024 ]

echo "== SIGTERM writes the partial interval; SIGHUP keeps running"
D=$T/sig; mkdir -p "$D"
"$BPFPROF" --interval 1 --output-dir "$D" 2>"$T/sig.err" & bp=$!
# time from the first interval's file, not from the start (start-up under load varies)
for _ in $(seq 100); do ls "$D"/*.folded >/dev/null 2>&1 && break; sleep 0.1; done
sleep 0.6
kill -HUP "$bp"
sleep 1
check "SIGHUP: still running" kill -0 "$bp"
# the second interval's file before SIGTERM (a starved machine writes late)
for _ in $(seq 100); do [ "$(ls "$D"/*.folded | wc -l)" -ge 2 ] && break; sleep 0.1; done
kill -TERM "$bp"
wait "$bp"; rc=$?
check "SIGTERM: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "SIGTERM: the last, partial interval is written" \
	[ "$(log_all "$D/bpfprof-intervals.log" .stopped | tail -1)" = terminated ]
nfiles=$(ls "$D"/*.folded | wc -l); nlog=$(grep -c . "$D/bpfprof-intervals.log")
check "SIGTERM: one file per interval, the partial one too ($nfiles files, $nlog intervals, >= 3)" \
	all [ "$nfiles" -eq "$nlog" ] -- [ "$nfiles" -ge 3 ]

echo "== pprof: go tool pprof reads it; same top function and count as folded"
D=$T/pp; mkdir -p "$D"
"$BPFPROF" -F 99 --interval 60 --output-dir "$D" --format both -- "$EX/cpu_chain" 2 2>"$T/pp.err"
check "pprof run: exit 0" [ $? -eq 0 ]
top=$(go tool pprof -top -sample_index=samples "$D"/*.pb.gz 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && $2 ~ /%$/ { print $1, $NF; exit }')
hot=$(awk '{ line = $0; sub(/ [0-9]+$/, "", line); n = split(line, f, ";"); if (f[n] == "hot_leaf") t += $NF } END { print t + 0 }' "$D"/*.folded)
check "pprof: -top lists hot_leaf first with the folded count ($top vs $hot)" [ "$top" = "$hot hot_leaf" ]
# pprof's first Mapping is the main binary: go tool pprof's "File:" line
# (before: [kernel.kallsyms], the first file a leaf-first walk met)
main_file() { go tool pprof -top "$1" 2>/dev/null | sed -nE 's/^File: (.*)/\1/p' | head -1; }
check "pprof: the fleet file's main binary is the command ($(main_file "$D"/*.pb.gz))" \
	[ "$(main_file "$D"/*.pb.gz)" = cpu_chain ]
"$EX/cpu_chain" 3 & cp=$!
sleep 0.3
"$BPFPROF" -p "$cp" -d 1 -o "$T/pmain.pb.gz" 2>/dev/null
"$BPFPROF" -a -d 1 -o "$T/amain.pb.gz" 2>/dev/null
wait "$cp"
check "pprof: -p's main binary is the process's ($(main_file "$T/pmain.pb.gz"))" \
	[ "$(main_file "$T/pmain.pb.gz")" = cpu_chain ]
check "pprof: -a names no main binary (no File: line; $(main_file "$T/amain.pb.gz"))" \
	all [ -s "$T/amain.pb.gz" ] -- [ -z "$(main_file "$T/amain.pb.gz")" ]
"$BPFPROF" -o "$T/one.pb.gz" -- "$EX/cpu_chain" 1 2>/dev/null
check "pprof: -o FILE.pb.gz writes pprof" bash -c "go tool pprof -raw '$T/one.pb.gz' 2>/dev/null | grep -q 'PeriodType: cpu nanoseconds'"
check "pprof: labels pid, tid, comm and the kernel mapping" bash -c \
	"go tool pprof -raw '$T/one.pb.gz' | grep -q 'comm:\[cpu_chain\]' && go tool pprof -raw '$T/one.pb.gz' | grep -q 'pid:\['"

echo "== pprof types: off-CPU time as time, several events by -sample_index"
# pprof_totals FILE: "TYPE/UNIT TOTAL" a line per sample type, then
# "period TYPE/UNIT PERIOD", summed from the protobuf (protoc's classes)
PPY=$T/pprof_py; mkdir -p "$PPY"
protoc --python_out="$PPY" --proto_path=user/output/proto user/output/proto/profile.proto
pprof_totals() {
	/usr/bin/python3 - "$PPY" "$1" <<'PY'
import gzip, sys
sys.path.insert(0, sys.argv[1])
import profile_pb2
p = profile_pb2.Profile()
p.ParseFromString(gzip.open(sys.argv[2]).read())
st = p.string_table
for i, vt in enumerate(p.sample_type):
    print("%s/%s %d" % (st[vt.type], st[vt.unit], sum(s.value[i] for s in p.sample)))
print("period %s/%s %d" % (st[p.period_type.type], st[p.period_type.unit], p.period))
PY
}
# sleep 1 blocks 1 s at least, whole, in one block; a thread blocks no
# longer than it lives, within the run. The pprof total is the BPF side's
# microseconds x 1000, exactly (each block truncated to whole
# microseconds there: the pprof is at most 1 us a block under the truth).
t0=$(date +%s%N)
"$BPFPROF" --off-cpu -o "$T/off.pb.gz" --stats "$T/offpp.json" -- sleep 1 2>"$T/offpp.err"
t1=$(date +%s%N)
offtype=$(go tool pprof -top "$T/off.pb.gz" 2>/dev/null | sed -nE 's/^Type: //p')
offns=$(pprof_totals "$T/off.pb.gz" | awk '$1 == "off_cpu/nanoseconds" { print $2 }')
bpfus=$(stat_of "$T/offpp.json" .offcpu.us)
check "off-CPU pprof: type off_cpu, not cpu ($offtype); period type $(pprof_totals "$T/off.pb.gz" | sed -n 's/^period //p')" \
	all [ "$offtype" = off_cpu ] -- bash -c "go tool pprof -raw '$T/off.pb.gz' | grep -q '^PeriodType: off_cpu nanoseconds'"
check "off-CPU pprof: total ($offns ns) = BPF side's ${bpfus} us x 1000, >= 1 s, <= the run's $(((t1 - t0) / 1000000)) ms" \
	all [ -n "$offns" ] -- [ "$offns" -eq $((bpfus * 1000)) ] -- [ "$offns" -ge 1000000000 ] -- [ "$offns" -le $((t1 - t0)) ]
check "off-CPU summary: the time blocked, not 0 samples ($(grep -m1 'off-CPU in' "$T/offpp.err" | cut -c1-50))" \
	grep -qE '^bpfprof: 1\.[0-9]{2} s off-CPU in [1-9][0-9]* blocks?, ' "$T/offpp.err"
"$BPFPROF" -F 99 -e cpu-clock,page-faults --off-cpu -o "$T/multi.pb.gz" --stats "$T/multi.json" \
	-- sh -c "$EX/cpu_chain 1; sleep 0.2" 2>/dev/null
idx_ok=yes
for i in samples cpu page_faults off_cpu; do
	t=$(go tool pprof -top -sample_index=$i "$T/multi.pb.gz" 2>/dev/null | sed -nE 's/^Type: //p')
	[ "$t" = "$i" ] || idx_ok="no: $i gave '$t'"
done
mtypes=$(pprof_totals "$T/multi.pb.gz" | awk '$1 != "period" { printf "%s ", $1 }')
msamples=$(pprof_totals "$T/multi.pb.gz" | awk '$1 == "samples/count" { print $2 }')
mcpu=$(pprof_totals "$T/multi.pb.gz" | awk '$1 == "cpu/nanoseconds" { print $2 }')
moff=$(pprof_totals "$T/multi.pb.gz" | awk '$1 == "off_cpu/nanoseconds" { print $2 }')
check "several events: -sample_index samples, cpu, page_faults, off_cpu each its type ($idx_ok; $mtypes)" \
	all [ "$idx_ok" = yes ] -- [ "$mtypes" = "samples/count cpu/nanoseconds page_faults/count off_cpu/nanoseconds " ]
check "several events: cpu = samples x 10101010 ns ($mcpu, $msamples), off_cpu = BPF us x 1000 ($moff)" \
	all [ "${msamples:-0}" -gt 0 ] -- [ "$mcpu" -eq $((msamples * 10101010)) ] -- \
	[ "$moff" -eq $(($(stat_of "$T/multi.json" .offcpu.us) * 1000)) ]

echo "== push to a Pyroscope-faithful receiver on 127.0.0.1 (tests/e2e/ingest_server.py)"
S=$T/srv; mkdir -p "$S"
python3 tests/e2e/ingest_server.py "$S" "$T/port" & srv=$!
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
port=$(cat "$T/port")
# no --format: a push is pprof, whose sample labels Pyroscope makes series of
"$BPFPROF" --interval 1 --push "http://127.0.0.1:$port" --spool-dir "$T/spool" \
	-d 2.5 -- "$EX/cpu_chain" 2 2>"$T/push.err"
check "push run: exit 0" [ $? -eq 0 ]
q=$(head -1 "$S/0000.query" 2>/dev/null)
check "push: POST /push.v1.PusherService/Push, JSON ($q, $(cat "$S/0000.type" 2>/dev/null))" \
	all [ "$q" = /push.v1.PusherService/Push ] -- grep -qx application/json "$S/0000.type"
check "push: every interval taken, none refused ($(grep -o '[0-9]* sent, [0-9]* refused' "$T/push.err"))" \
	all grep -qE 'push: [2-9][0-9]* sent, 0 refused' "$T/push.err" -- \
	[ "$(ls "$S"/*.types | wc -l)" -eq "$(ls "$S"/*.query | wc -l)" ]
check "push: filed as process_cpu, cpu nanoseconds, service bpfprof ($(head -2 "$S/0000.types" | cut -d' ' -f1,2 | tr '\n' ' '))" \
	all grep -q '^process_cpu:cpu:nanoseconds:cpu:nanoseconds service_name=bpfprof ' "$S/0000.types" -- \
	grep -q '^process_cpu:samples:count:cpu:nanoseconds service_name=bpfprof ' "$S/0000.types"
# every interval's pprof decodes; cpu_chain's hot_leaf is in one of them
# (the first interval may hold only its start on a loaded machine)
bodies_ok=yes
for b in "$S"/*.s0.pb; do go tool pprof -raw "$b" >"$b.raw" 2>/dev/null || bodies_ok="no: $b"; done
check "push: every interval's pprof decodes with go tool pprof ($bodies_ok), hot_leaf in them" \
	all [ "$bodies_ok" = yes ] -- grep -q hot_leaf "$S"/*.s0.pb.raw
check "push: the samples carry fleet mode's labels (comm:[cpu_chain], a series each in Pyroscope)" \
	grep -q 'comm:\[cpu_chain\]' "$S"/*.s0.pb.raw
times=$(cat "$S"/*.types | awk '$1 ~ /^process_cpu:cpu:/ { sub(/time=/, "", $4); print $4 }' | tr '\n' ' ')
check "push: one request per interval, in order ($times)" bash -c "[ \$(ls '$S'/*.query | wc -l) -ge 2 ] && echo '$times' | tr ' ' '\n' | grep . | sort -nc"

echo "== push: every event a profile type of its own, all taken"
# cpu-clock, a counter (page faults at -F Hz), a tracepoint and off-CPU
# time in one run: a series each, named as Pyroscope names them
rm -f "$S"/*
"$BPFPROF" --interval 1 --push "http://127.0.0.1:$port" --spool-dir "$T/spool" --app shop.web-1/eu \
	-e cpu-clock,page-faults,syscalls:sys_enter_write --off-cpu -d 2.2 \
	-- sh -c 'while :; do echo x >/dev/null; sleep 0.01; done' 2>"$T/pushev.err"
check "push events: exit 0, none refused ($(grep -o '[0-9]* sent, [0-9]* refused' "$T/pushev.err"))" \
	grep -qE 'push: [2-9][0-9]* sent, 0 refused' "$T/pushev.err"
ids=$(cut -d' ' -f1 "$S"/*.types | sort -u | tr '\n' ' ')
check "push events: process_cpu, page_faults, syscalls_sys_enter_write, off_cpu ($ids)" \
	all grep -q '^process_cpu:cpu:nanoseconds:cpu:nanoseconds ' "$S/0000.types" -- \
	grep -q '^page_faults:page_faults:count:page_faults:count ' "$S/0000.types" -- \
	grep -q '^syscalls_sys_enter_write:syscalls_sys_enter_write:count:syscalls_sys_enter_write:count ' "$S/0000.types" -- \
	grep -q '^off_cpu:off_cpu:nanoseconds:off_cpu:nanoseconds ' "$S/0000.types"
check "push events: one service name, --app's, in every series ($(cut -d' ' -f2 "$S"/*.types | sort -u | tr '\n' ' '))" \
	[ "$(cut -d' ' -f2 "$S"/*.types | sort -u)" = "service_name=shop.web-1/eu" ]
"$BPFPROF" --interval 1 --push "http://127.0.0.1:$port" --app 'a b' -d 1 2>"$T/badapp.err"
rc=$?
check "push: --app outside Pyroscope's alphabet: one line, exit 2 ($rc: $(head -1 "$T/badapp.err"))" \
	all [ "$rc" -eq 2 ] -- [ "$(wc -l <"$T/badapp.err")" -le 2 ] -- grep -q 'character 2 (0x20)' "$T/badapp.err"
"$BPFPROF" --interval 1 --push "http://127.0.0.1:$port" --format folded --off-cpu -d 1 2>"$T/badfold.err"
rc=$?
check "push: --format folded with off-CPU time refused at start ($rc)" \
	all [ "$rc" -eq 2 ] -- grep -q 'CPU time only' "$T/badfold.err"

echo "== the receiver refuses what Pyroscope refuses: the old multipart push (422)"
# bpfprof before sent /ingest?...&format=pprof with a multipart body:
# Pyroscope's switch reads format=pprof first and parses the envelope as pprof
rm -f "$S"/*
name='bpfprof%7Bhostname%3Dh%7D'
old=$(curl -s -o /dev/null -w '%{http_code}' -F "profile=@$T/one.pb.gz;filename=profile.pb.gz" \
	"http://127.0.0.1:$port/ingest?name=$name&from=$(date +%s)&until=$(date +%s)&format=pprof&sampleRate=19&spyName=bpfprof")
raw=$(curl -s -o /dev/null -w '%{http_code}' --data-binary "@$T/one.pb.gz" \
	"http://127.0.0.1:$port/ingest?name=$name&format=pprof")
form=$(curl -s -o /dev/null -w '%{http_code}' -F "profile=@$T/one.pb.gz;filename=profile.pb.gz" \
	"http://127.0.0.1:$port/ingest?name=$name")
badname=$(curl -s -o /dev/null -w '%{http_code}' --data-binary 'a;b 1' \
	"http://127.0.0.1:$port/ingest?name=a%20b.cpu")
check "receiver: multipart with format=pprof 422, raw pprof 200, multipart without format 200, bad name 400 ($old $raw $form $badname)" \
	[ "$old $raw $form $badname" = "422 200 200 400" ]

echo "== push: server away -> bounded spool; back -> drained in order"
kill "$srv"; wait "$srv" 2>/dev/null
rm -f "$S"/*
# 5 intervals written, then SIGINT (a sixth, the last): more than the
# spool holds whatever each write costs (-d 3.2 once gave 2 intervals at
# load 18: an ASan build's first whole-system write took 2 s); 60 s at most
until_int 5 'grep -c "(interval), " "$T/away.err"' --interval 0.5 --push "http://127.0.0.1:$port" \
	--format folded --spool-dir "$T/spool" --spool-max 3 2>"$T/away.err"
check "server away: exit 0 ($(grep -c '(interval), ' "$T/away.err") intervals, then SIGINT)" [ "$RC" -eq 0 ]
check "server away: spool bounded to 3" [ "$(ls "$T/spool" | wc -l)" -eq 3 ]
check "server away: dropped ones are reported" grep -q 'spool full' "$T/away.err"
spooled=$(ls "$T/spool" | sed -nE 's/^[0-9]+-([0-9]+)-.*/\1/p' | tr '\n' ' ')
python3 tests/e2e/ingest_server.py "$S" "$T/port2" & srv=$!
for _ in $(seq 50); do [ -s "$T/port2" ] && break; sleep 0.1; done
port=$(cat "$T/port2")
"$BPFPROF" --interval 1 --push "http://127.0.0.1:$port" --format folded --spool-dir "$T/spool" \
	-d 1.2 2>"$T/back.err"
sent=$(cat "$S"/*.query | sed -nE 's/.*from=([0-9]+).*/\1/p' | head -3 | tr '\n' ' ')
check "server back: the spool drains first, oldest first ($sent == $spooled)" [ "$sent" = "$spooled" ]
check "server back: spool empty" [ "$(ls "$T/spool" | wc -l)" -eq 0 ]
check "folded push: text body" bash -c "valid_folded() { awk '!/^[^;]+(;[^;]+)* [1-9][0-9]*\$/ { exit 1 }' \"\$1\"; }; valid_folded '$S/0000.body'"
check "folded push: taken as process_cpu, the service name pprof's push gives ($(cut -d' ' -f1,2 "$S/0000.types" 2>/dev/null))" \
	grep -q '^process_cpu:cpu:nanoseconds:cpu:nanoseconds service_name=bpfprof ' "$S/0000.types"

echo "== push: a 4xx is reported once per interval, not retried"
rm -f "$S"/*; echo 400 >"$S/status"
"$BPFPROF" --interval 0.5 --push "http://127.0.0.1:$port" --format folded --spool-dir "$T/spool" \
	-d 1.7 2>"$T/rej.err"
reqs=$(ls "$S"/*.query | wc -l); refused=$(grep -c 'refused the profile' "$T/rej.err")
check "4xx: each interval sent once and reported once ($reqs requests, $refused reports)" \
	all [ "$reqs" -eq "$refused" ] -- [ "$reqs" -ge 2 ]
check "4xx: nothing left to retry" [ "$(ls "$T/spool" | wc -l)" -eq 0 ]
kill "$srv"; wait "$srv" 2>/dev/null
