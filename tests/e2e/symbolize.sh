# shellcheck shell=bash
# Symbolize later, elsewhere (issue 26): a stripped program profiled with
# --symbolize none while its debug file is out of reach gives a pprof of
# addresses (its locations no lines); bpfprof symbolize then names them from
# a debug directory's build-id tree, and every address it names is named
# as a direct run of the unstripped program names the same address (the
# function, the inline frames, their order). Sourced by run.sh.

echo "== symbolize later: --symbolize none, then bpfprof symbolize --debug-dir"
PY=/usr/bin/python3
S=$T/symlater; mkdir -p "$S/bin" "$S/pp"
protoc --python_out="$S/pp" --proto_path=user/output/proto user/output/proto/profile.proto
cp "$EX/inline_hot" "$S/bin/app"; strip -s "$S/bin/app"
id=$(readelf -n "$EX/inline_hot" | awk '/Build ID/ { print $3 }')
mkdir -p "$S/dbg/.build-id/${id:0:2}"
objcopy --only-keep-debug "$EX/inline_hot" "$S/dbg/.build-id/${id:0:2}/${id:2}.debug"

"$BPFPROF" -F 499 --symbolize none -o "$S/raw.pb.gz" -- "$S/bin/app" 2 2>"$S/raw.err"
check "--symbolize none: exit 0" [ $? -eq 0 ]
"$BPFPROF" -F 499 -o "$S/direct.pb.gz" -- "$EX/inline_hot" 2 2>/dev/null
check "the direct run of the unstripped program: exit 0" [ $? -eq 0 ]
"$BPFPROF" symbolize "$S/raw.pb.gz" -o "$S/named.pb.gz" --debug-dir "$S/dbg" 2>"$S/sym.err"
check "bpfprof symbolize: exit 0 ($(head -c 200 "$S/sym.err"))" [ $? -eq 0 ]

# each profile's locations in FILE: "file offset<TAB>names, innermost first"
names_at() {
	"$PY" - "$S/pp" "$1" "$2" <<'PYEOF'
import gzip, sys
sys.path.insert(0, sys.argv[1])
import profile_pb2
p = profile_pb2.Profile()
p.ParseFromString(gzip.open(sys.argv[2]).read())
s = p.string_table
maps = {m.id: m for m in p.mapping}
fns = {f.id: s[f.name] for f in p.function}
for loc in p.location:
    m = maps.get(loc.mapping_id)
    if not m or not s[m.filename].endswith("/" + sys.argv[3]):
        continue
    off = loc.address - m.memory_start + m.file_offset
    print("%x\t%s" % (off, ";".join(fns[l.function_id] for l in loc.line)))
PYEOF
}
names_at "$S/raw.pb.gz" app >"$S/raw.names"
names_at "$S/named.pb.gz" app >"$S/named.names"
names_at "$S/direct.pb.gz" inline_hot >"$S/direct.names"
check "--symbolize none: the program's locations carry no names ($(wc -l <"$S/raw.names") of them)" \
	all [ -s "$S/raw.names" ] -- [ "$(cut -f2 "$S/raw.names" | grep -c .)" -eq 0 ]
both=$(join -t "	" <(sort "$S/named.names") <(sort "$S/direct.names"))
same=$(awk -F'\t' '$2 == $3' <<<"$both" | wc -l)
check "symbolize: the addresses both runs sampled are named as the direct run names them ($same of $(grep -c . <<<"$both"))" \
	all [ "$(grep -c . <<<"$both")" -ge 5 ] -- [ "$same" -eq "$(grep -c . <<<"$both")" ]
check "symbolize: the inline frame is there (mix_step inside mix_rounds)" \
	grep -q '	mix_step;mix_rounds$' "$S/named.names"
check "symbolize: said what it named" grep -qE 'symbolize: [1-9][0-9]* addresses named' "$S/sym.err"

# a debug file of another build is not taken: the names stay addresses
mkdir -p "$S/wrong/.build-id/${id:0:2}"
cp "$EX/cpu_chain" "$S/wrong/.build-id/${id:0:2}/${id:2}.debug"
"$BPFPROF" symbolize "$S/raw.pb.gz" -o "$S/wrong.pb.gz" --debug-dir "$S/wrong" 2>"$S/wrong.err"
names_at "$S/wrong.pb.gz" app >"$S/wrong.names"
check "symbolize: a file whose build-id is another's is not used (app's names: $(cut -f2 "$S/wrong.names" | sort -u | head -3 | tr '\n' ' '))" \
	all [ -s "$S/wrong.names" ] -- [ "$(cut -f2 "$S/wrong.names" | grep -vc '^app+0x')" -eq 0 ]
# no debug directory: a debuginfod server (Debian's) has the debug file
mkdir -p "$S/srv"; cp "$S/dbg/.build-id/${id:0:2}/${id:2}.debug" "$S/srv/app.debug"
port=$((20000 + RANDOM % 20000))
debuginfod -F "$S/srv" -p "$port" -d "$S/db.sqlite" >"$S/server.log" 2>&1 & srv=$!
for _ in $(seq 50); do
	curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$id/debuginfo" && break
	sleep 0.2
done
DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$S/cache" \
	"$BPFPROF" symbolize "$S/raw.pb.gz" -o "$S/dbgd.pb.gz" --debuginfod-timeout 20 2>"$S/dbgd.err"
check "symbolize from debuginfod: exit 0 ($(head -c 200 "$S/dbgd.err"))" [ $? -eq 0 ]
kill "$srv"; wait "$srv" 2>/dev/null
names_at "$S/dbgd.pb.gz" app >"$S/dbgd.names"
check "symbolize from debuginfod: the same names as from the debug directory" \
	all [ -s "$S/dbgd.names" ] -- cmp -s <(sort "$S/dbgd.names") <(sort "$S/named.names")
check "symbolize from debuginfod: said it fetched the file" \
	grep -q 'debuginfod: 1 fetched' "$S/dbgd.err"
expect_error "symbolize with a bad --debuginfod-timeout" 2 "expected seconds" \
	"$BPFPROF" symbolize "$S/raw.pb.gz" -o "$S/x.pb.gz" --debuginfod-timeout soon

echo "== symbolize as root with a user's debug tree: links to what that user cannot read"
# Issue 38: the tree is the attacker's; its build-id link leads to root's 0700
# program (unstripped: its names), its NAME place to /etc/shadow. Both are
# refused and counted, the output names nothing; a link to a debug file the
# user may read is taken (the rule refuses what the user could not read, not
# every link).
K=$S/trust; mkdir -p "$K/secret" "$K/pub"; chmod 755 "$T" "$S" "$K" "$K/pub"
cp "$EX/inline_hot" "$K/secret/app"; chmod 700 "$K/secret" "$K/secret/app"
cp "$S/dbg/.build-id/${id:0:2}/${id:2}.debug" "$K/pub/app.debug"; chmod 644 "$K/pub/app.debug"
attacker true && mkdir "$K/atk" "$K/atk2" && chown "$ATTACKER" "$K/atk" "$K/atk2"
attacker sh -c "mkdir -p '$K/atk/.build-id/${id:0:2}' '$K/atk2/.build-id/${id:0:2}' &&
	ln -s '$K/secret/app' '$K/atk/.build-id/${id:0:2}/${id:2}.debug' &&
	ln -s /etc/shadow '$K/atk/app' &&
	ln -s '$K/pub/app.debug' '$K/atk2/.build-id/${id:0:2}/${id:2}.debug'"
"$BPFPROF" symbolize "$S/raw.pb.gz" -o "$K/leak.pb.gz" --debug-dir "$K/atk" 2>"$K/leak.err"
check "symbolize with the hostile tree: exit 0 ($(head -c 200 "$K/leak.err"))" [ $? -eq 0 ]
names_at "$K/leak.pb.gz" app >"$K/leak.names"
check "the 0700 program's names are not copied ($(cut -f2 "$K/leak.names" | sort -u | head -3 | tr '\n' ' '))" \
	all [ -s "$K/leak.names" ] -- [ "$(cut -f2 "$K/leak.names" | grep -vc '^app+0x')" -eq 0 ]
check "both links refused and said (the build-id link, DIR/NAME -> /etc/shadow)" \
	grep -q ' 2 debug files refused' "$K/leak.err"
"$BPFPROF" symbolize "$S/raw.pb.gz" -o "$K/ok.pb.gz" --debug-dir "$K/atk2" 2>"$K/ok.err"
names_at "$K/ok.pb.gz" app >"$K/ok.names"
check "a link to a debug file the user may read is taken: the names of the debug directory" \
	all grep -q ' 0 debug files refused' "$K/ok.err" -- cmp -s <(sort "$K/ok.names") <(sort "$S/named.names")

echo "== symbolize: many mappings of one file open it once"
# Issue 38: a profile of 3,000 mappings of one file (12,000 locations, about
# 75 KB) opened its symbols and DWARF once per mapping. Once per build-id, the
# ASan binary's peak stays far below 100 MB (about 40 MB here; 1.2 GB before).
"$PY" - "$S/pp" "$S/raw.pb.gz" "$S/many.pb.gz" 3000 <<'PYEOF'
import gzip, sys
sys.path.insert(0, sys.argv[1])
import profile_pb2
p = profile_pb2.Profile()
p.ParseFromString(gzip.open(sys.argv[2]).read())
s = p.string_table
app = next(m for m in p.mapping if s[m.filename].endswith("/app"))
locs = [l for l in p.location if l.mapping_id == app.id][:4]
span = app.memory_limit - app.memory_start
next_map = max(m.id for m in p.mapping) + 1
next_loc = max(l.id for l in p.location) + 1
for k in range(1, int(sys.argv[4]) + 1):
    m = p.mapping.add()
    m.CopyFrom(app)
    m.id, next_map = next_map, next_map + 1
    m.memory_start = app.memory_start + k * 16 * (span + 4096)
    m.memory_limit = m.memory_start + span
    for l in locs:
        c = p.location.add()
        c.CopyFrom(l)
        c.id, next_loc = next_loc, next_loc + 1
        c.mapping_id = m.id
        c.address = l.address - app.memory_start + m.memory_start
with gzip.open(sys.argv[3], "wb") as f:
    f.write(p.SerializeToString())
PYEOF
/usr/bin/time -f %M -o "$S/many.kb" "$BPFPROF" symbolize "$S/many.pb.gz" -o "$S/many.out.pb.gz" \
	--debug-dir "$S/dbg" 2>"$S/many.err"
kb=$(cat "$S/many.kb")
# Every copied address is named: what stays FILE+0xOFFSET is what the plain
# run left (a sample may land in ld.so's unnamed start-up code: luck, not ours).
left_of() { grep -oE '[0-9]+ left FILE' "$1" | cut -d' ' -f1; }
check "3,000 mappings of one file: peak RSS $((kb / 1024)) MB (< 100), every copied address named ($(grep -o '[0-9]* addresses named' "$S/many.err"), left $(left_of "$S/many.err") = $(left_of "$S/sym.err"))" \
	all [ "$kb" -lt 102400 ] -- [ "$(left_of "$S/many.err")" = "$(left_of "$S/sym.err")" ] -- grep -qE '^bpfprof: symbolize: 1[0-9]{4} addresses named' "$S/many.err"

expect_error "symbolize without -o" 2 "needs|OUT is needed" "$BPFPROF" symbolize "$S/raw.pb.gz"
expect_error "symbolize of a file that is no pprof" 1 "not a pprof profile" \
	"$BPFPROF" symbolize "$S/raw.err" -o "$S/x.pb.gz"
expect_error "--symbolize none with folded output" 2 "pprof or otlp only" \
	"$BPFPROF" --symbolize none -o "$S/x.folded" -d 1

# 100 k locations over 50 k mappings (issue 38): each location's mapping
# found by an index of ids, not a scan of every mapping (4 s of CPU before,
# 8-25 s for the ASan build on a busy machine; about 1 s now). CPU
# seconds, not wall: a busy machine stretches the wall, not the work.
# The app's symbol starts are named by their symbols, every other
# location as FILE+0xOFFSET of its own mapping.
nm "$EX/inline_hot" | awk '$2 ~ /^[tT]$/ { print $1, $3 }' >"$S/known"
seg=$(readelf -lW "$EX/inline_hot" | awk '$1 == "LOAD" && / R E / { print $2 "," $3 "," $6 }')
"$PY" tests/gen/many_locations.py "$S/pp" "$S/many.pb.gz" 100000 /usr/bin/app "$id" "$seg" \
	"$S/known" "$S/many.expected"
/usr/bin/time -f '%U %S' -o "$S/many.cpu" \
	"$BPFPROF" symbolize "$S/many.pb.gz" -o "$S/many_named.pb.gz" --debug-dir "$S/dbg" 2>"$S/many.err"
nknown=$(wc -l <"$S/known")
check "symbolize of 100 k locations, 50 k mappings: $nknown named, the rest FILE+0xOFFSET ($(head -c 200 "$S/many.err"))" \
	grep -q "symbolize: $nknown addresses named, $((100000 - nknown)) left FILE+0xOFFSET" "$S/many.err"
cpu=$(awk '{ print $1 + $2 }' "$S/many.cpu")
check "symbolize of 100 k locations: under 5 s of CPU ($cpu s)" awk -v c="$cpu" 'BEGIN { exit !(c < 5) }'
names_at "$S/many_named.pb.gz" app >"$S/many.names"
names_at "$S/many_named.pb.gz" libmany.so >>"$S/many.names"
check "symbolize of 100 k locations: each named as its own mapping says ($(sort "$S/many.names" | comm -3 - <(sort "$S/many.expected") | wc -l) differ)" \
	cmp -s <(sort "$S/many.names") <(sort "$S/many.expected")
