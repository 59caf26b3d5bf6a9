# shellcheck shell=bash
# The loop keeps its deadlines whatever the machine holds (issues 36, 37):
# a delegated user's flood of cgroups, one of them unnameable, does not
# stall intervals or SIGTERM, and intervals tile time in every place that
# says when they were. Sourced by run.sh.

echo "== a cgroup flood: intervals on time, SIGTERM within 1 s, intervals tile"
# What a user with a delegated cgroup (systemd's user@UID.service) can
# make: 20,000 empty cgroups and one whose path is 4,000 bytes (16 levels
# of 250-byte names), bpfprof cannot name, with a process running in it.
# Each drain once walked the whole tree for it, and the loop went from
# write to write when behind: this test (the ASan build, a 2-CPU machine
# under load 11-14) saw 1 s intervals of up to 2.8 s, 11 of 15 late, pprof
# times 2.7 s off the next interval's, OTLP's 48 ms, and SIGTERM heard
# after 24.6 s (after: 0.15-0.29 s, at most 1.05 s, none late, 0 ns).
FLOOD_N=20000
CGMNT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
FLOOD=$CGMNT/bpfprof-flood-$$
LONG=$(printf 'x%.0s' $(seq 250))
# cd down level by level: the deep path is too long for most tools at once
flood_deep() { cd "$FLOOD" && for i in $(seq 16); do cd "$LONG$i" || return 1; done; }
flood_remove() {
	[ -d "$FLOOD" ] || return 0
	( flood_deep 2>/dev/null; for i in $(seq 16 -1 1); do cd .. && rmdir "$LONG$i"; done ) 2>/dev/null
	( cd "$FLOOD" && seq -f 'e%g' 1 "$FLOOD_N" | xargs rmdir 2>/dev/null )
	rmdir "$FLOOD"
}
D=$T/flood; mkdir -p "$D"
mkdir "$FLOOD" && ( cd "$FLOOD" && seq -f 'e%g' 1 "$FLOOD_N" | xargs mkdir ) &&
	( cd "$FLOOD" && for i in $(seq 16); do mkdir "$LONG$i" && cd "$LONG$i" || exit 1; done )
check "flood: $FLOOD_N cgroups and a 4,000-byte one made under $CGMNT" [ $? -eq 0 ]
# cpu_chain in the deep cgroup (moved before its exec: all its samples are
# there), profiled alone (-p): the machine holds other tests' processes,
# whose symbols would make a write's time anyone's guess
spin=$(realpath "$EX/cpu_chain")
( flood_deep && exec sh -c "echo \$\$ >cgroup.procs && exec '$spin' 30" ) & fp=$!
"$BPFPROF" -p "$fp" -F 99 --interval 1 --format both --output-dir "$D" 2>"$T/flood.err" & bp=$!
wait_started "$T/flood.err"
sleep 5.5
t_term=$(date +%s%N); kill -TERM "$bp"
# (a run that never hears it is killed after 60 s, the check failed)
for _ in $(seq 600); do kill -0 "$bp" 2>/dev/null || break; sleep 0.05; done
term_ms=$(( ($(date +%s%N) - t_term) / 1000000 ))
kill -0 "$bp" 2>/dev/null && kill -KILL "$bp"
wait "$bp"; rc=$?
# -d 3 (counted from the start line): over within 1 s of its end
"$BPFPROF" -p "$fp" -F 99 --interval 1 -d 3 --output-dir "$T/flood_d" 2>"$T/flood_d.err" & bp=$!
wait_started "$T/flood_d.err"; t0=$(date +%s%N)
wait "$bp"; drc=$?; d_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
kill "$fp" 2>/dev/null; wait "$fp" 2>/dev/null
flood_remove
check "flood: cgroups removed" [ ! -d "$FLOOD" ]
LOG=$D/bpfprof-intervals.log
stop_check "flood: SIGTERM" "$LOG" "$t_term" "$term_ms" "$rc" terminated
# its own clock: the first interval's start to the last one's end; the
# final write and the exit after it are the machine's (as stop_check's)
ran_ms=$(jq -s '((.[-1].end_ns - .[0].start_ns) / 1000000 | floor) // 99999' "$T/flood_d/bpfprof-intervals.log")
check "flood: -d 3 sampled for $ran_ms ms (<= 4000), ended $d_ms ms after its start line (<= that + 10 s), exit $drc" \
	all [ "$drc" -eq 0 ] -- [ "$ran_ms" -le 4000 ] -- [ "$d_ms" -le $((ran_ms + 10000)) ]
# Each interval but the last (cut by SIGTERM) within 1 s of its schedule:
# 1 s asked, at most 2 s long, none said late; 5.5 s give 4 or more.
n=$(jq -s 'length' "$LOG")
longest=$(jq -s '.[:-1] | map(.duration_s) | max // 99' "$LOG")
late=$(jq -s 'map(select(.late_s)) | length' "$LOG")
check "flood: $n intervals, the longest ${longest} s (<= 2), $late said late" \
	all [ "$n" -ge 5 ] -- awk -v l="$longest" 'BEGIN { exit !(l <= 2.0) }' -- [ "$late" -eq 0 ]
unnamed=$(jq -s 'map(.labels.cgroups_unnamed // 0) | max' "$LOG")
spun=$(cat "$D"/*.folded | awk '/^cpu_chain;/ { t += $NF } END { print t + 0 }')
check "flood: the 4,000-byte cgroup counted unnamed ($unnamed), its process's $spun samples kept" \
	all [ "$unnamed" -ge 1 ] -- [ "$spun" -gt 0 ]
# Tiling: an interval's end is the next one's start (the generation
# flip), in the index, in the file names, in pprof's time_nanos and
# duration_nanos (decoded by protoc from profile.proto); within 20 ms.
gaps=$(jq -s "[range(1; length) as \$i | (.[\$i].start_ns - (.[\$i - 1].end_ns // 0)) | fabs] | max // 1e18" "$LOG")
check "index: each interval starts where the one before ended (largest gap $gaps ns)" \
	awk -v g="$gaps" 'BEGIN { exit !(g <= 20000000) }'
named=0
for f in "$D"/*.pb.gz; do
	gunzip -c "$f" | protoc --decode=perftools.profiles.Profile --proto_path=user/output/proto \
		profile.proto | awk -v f="$(basename "$f")" '
		/^time_nanos:/ { t = $2 } /^duration_nanos:/ { d = $2 }
		END { print substr(f, length(f) - 25, 19), t, d }'
done >"$T/flood.times"
pgaps=$(awk 'NR > 1 { g = $2 - end; if (g < 0) g = -g; if (g > m) m = g } { end = $2 + $3 } END { print m + 0 }' "$T/flood.times")
# the name's time (UTC, to the millisecond) is time_nanos's
while read -r stem t _; do
	[ "$stem" = "$(date -u -d "@$((t / 1000000000))" +%Y%m%dT%H%M%S).$(printf %03d $((t / 1000000 % 1000)))" ] &&
		named=$((named + 1))
done <"$T/flood.times"
check "pprof: $(wc -l <"$T/flood.times") files, time_nanos + duration_nanos is the next time_nanos (largest gap $pgaps ns), $named named by it" \
	all [ "$(wc -l <"$T/flood.times")" -eq "$n" ] -- [ "$pgaps" -le 20000000 ] -- [ "$named" -eq "$n" ]

echo "== intervals tile in OTLP files and in a push's from/until"
# OTLP: time_unix_nano + duration_nano (decoded by protoc from the official
# .proto files) is the next time_unix_nano. Pyroscope's from/until (whole
# seconds): each interval's until is the next one's from, read from the
# spool's names (SEQ-FROM-UNTIL), a server that is not there keeping them.
# Each run: 3 intervals written, then SIGINT (a fourth, cut short), so
# that 3 or more tile whatever each write costs (-d 3.5 gave 2 at load 28)
"$EX/cpu_chain" 120 & cp=$!
D=$T/tile_otlp; mkdir -p "$D"
until_int 3 'ls "$D" | grep -c "\.otlp$"' -p "$cp" -F 99 --interval 1 --format otlp --output-dir "$D" \
	2>"$T/tile_otlp.err"
orc=$RC
until_int 3 'ls "$T/tile_spool" | wc -l' -p "$cp" -F 99 --interval 1 --format folded --push http://127.0.0.1:1 \
	--spool-dir "$T/tile_spool" --spool-max 100 2>"$T/tile_push.err"
prc=$RC
kill "$cp" 2>/dev/null; wait "$cp" 2>/dev/null
for f in "$D"/*.otlp; do
	protoc --decode=opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest \
		--proto_path=user/output/proto \
		opentelemetry/proto/collector/profiles/v1development/profiles_service.proto <"$f" |
		awk '$1 == "time_unix_nano:" { t = $2 } $1 == "duration_nano:" { d = $2 } END { print t, d }'
done >"$T/otlp.times"
# every file decoded, both times read (a wrong .proto path once gave empty
# lines, whose gaps were 0)
odecoded=$(grep -cE '^[1-9][0-9]* [1-9][0-9]*$' "$T/otlp.times")
ogaps=$(awk 'NR > 1 { g = $1 - end; if (g < 0) g = -g; if (g > m) m = g } { end = $1 + $2 } END { print m + 0 }' "$T/otlp.times")
check "OTLP: $(wc -l <"$T/otlp.times") files (exit $orc), $odecoded decoded, time_unix_nano + duration_nano is the next time_unix_nano (largest gap $ogaps ns)" \
	all [ "$orc" -eq 0 ] -- [ "$(wc -l <"$T/otlp.times")" -ge 3 ] -- \
	    [ "$odecoded" -eq "$(wc -l <"$T/otlp.times")" ] -- [ "$ogaps" -le 20000000 ]
ls "$T/tile_spool" | sed -nE 's/^[0-9]+-([0-9]+)-([0-9]+)\..*/\1 \2/p' >"$T/spool.times"
untiled=$(awk 'NR > 1 && $1 != until { n++ } { until = $2 } END { print n + 0 }' "$T/spool.times")
check "push: $(wc -l <"$T/spool.times") intervals spooled (exit $prc), each one's until the next one's from ($untiled not)" \
	all [ "$prc" -eq 0 ] -- [ "$(wc -l <"$T/spool.times")" -ge 3 ] -- [ "$untiled" -eq 0 ]
