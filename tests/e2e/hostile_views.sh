# shellcheck shell=bash
# The views' input side among hostile names and files (issue 23, cases 3, 4,
# 7 and 10): any bytes but a newline in a folded name, pprof told by decoding
# it, SVG that is XML whatever the names, pages that run no name, counts
# whose sum does not fit, and files that are not profiles (a directory, a
# gzip bomb, a FIFO, /dev/zero). Sourced by run.sh (lib.sh has chromium_dom).

HV=$T/hviews; mkdir -p "$HV"
# samples_of REPORT: the sample count in report's heading.
samples_of() { sed -nE 's/^# bpfprof report.*: ([0-9]+) samples in .*/\1/p' "$1"; }
# within SECONDS CMD...: CMD ends (any status) before SECONDS; its status in $HV/rc.
within() { local s=$1; shift; timeout "$s" "$@" >"$HV/within.out" 2>"$HV/within.err"; echo $? >"$HV/rc"; [ "$(cat "$HV/rc")" -ne 124 ]; }

echo "== case 3: folded names with control bytes read back; pprof told by decoding"
printf '\001evil;main;work 5\napp;main;work 3\n' >"$HV/ctl.folded"
"$BPFPROF" report "$HV/ctl.folded" >"$HV/ctl.rep" 2>"$HV/ctl.err"; rc=$?
check "case 3: a \\x01 comm sorted first: report exit 0, 8 samples (exit $rc, $(samples_of "$HV/ctl.rep"): $(head -c 120 "$HV/ctl.err"))" \
	all [ "$rc" -eq 0 ] -- [ "$(samples_of "$HV/ctl.rep")" = 8 ]
printf 'a\033]2;X\007b;m\000x;\377w\355\240\200 4\nnext;f 1\n' >"$HV/raw.folded"
"$BPFPROF" report --sort symbol "$HV/raw.folded" >"$HV/raw.rep" 2>"$HV/raw.err"; rc=$?
check "case 3: ESC, BEL, NUL, \\xff, ED A0 80 in names: read as folded, 5 samples (exit $rc, $(samples_of "$HV/raw.rep"))" \
	all [ "$rc" -eq 0 ] -- [ "$(samples_of "$HV/raw.rep")" = 5 ]
# bpfprof's own output of a command whose name starts with \x01
ctl=$'\001chain'
cp "$EX/cpu_chain" "$HV/$ctl"
"$BPFPROF" -F 199 -o "$HV/own.folded" -- "$HV/$ctl" 1 2>"$HV/own.err"
"$BPFPROF" report "$HV/own.folded" >"$HV/own.rep" 2>"$HV/own.rep.err"; rc=$?
row=$(grep -v '^#' "$HV/own.rep" | head -1)
check "case 3: bpfprof reads its own profile of a \\x01 command: exit $rc, first row hot_leaf ($(head -c 100 "$HV/own.rep.err"))" \
	all [ "$rc" -eq 0 ] -- bash -c "[[ '$row' == *'[.] hot_leaf' ]]"
"$BPFPROF" -F 199 -o "$HV/own.pb.gz" -- "$HV/$ctl" 1 2>/dev/null
gzip -dc "$HV/own.pb.gz" >"$HV/own.pb"
row=$("$BPFPROF" report "$HV/own.pb" 2>&1 | grep -v '^#' | head -1)
check "case 3: and its raw (not gzipped) pprof: first row hot_leaf ($row)" \
	bash -c "[[ '$row' == *'[.] hot_leaf' ]]"
python3 tests/gen/craft_pprof.py "$HV/small.pb" 2 5 $'\001x'
n=$("$BPFPROF" report "$HV/small.pb" | samples_of /dev/stdin)
check "case 3: a crafted pprof with a \\x01 comm: 10 samples ($n)" [ "$n" = 10 ]

echo "== case 4: SVG that is XML, pages that run no name"
{
	printf 'app;main;jit\377name 3\n'
	printf 'app;main;py\355\240\200lone 3\n'
	printf 'app;main;<script>document.body.dataset.pwned=1</script> 3\n'
	printf 'app;main;"><img src=x onerror=document.body.dataset.pwned=2> 3\n'
	printf "app;main;it's 3\n"
	printf 'app;main;a&b 3\n'
	printf 'app;main;]]> 3\n'
	printf 'app;main;<script>alert(1)</script> 3\n'
	printf 'app;main;"><img src=x onerror=alert(1)> 3\n'
} >"$HV/evil.folded"
"$BPFPROF" flamegraph --format svg --title $'t\377<&>"\'' "$HV/evil.folded" -o "$HV/evil.svg"
check "case 4: flamegraph --format svg: exit 0" [ $? -eq 0 ]
check "case 4: the SVG parses as XML (xmllint)" xmllint --noout "$HV/evil.svg"
check "case 4: the SVG parses as XML (python xml.etree), names kept as text" python3 -c '
import sys, xml.etree.ElementTree as E
t = E.parse(sys.argv[1])
titles = [e.text or "" for e in t.iter("{http://www.w3.org/2000/svg}title")]
want = ["<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "it\x27s", "a&b", "]]>", "jit\\xffname", "py\\xed\\xa0\\x80lone"]
miss = [w for w in want if not any(x.startswith(w + " (") for x in titles)]
print("        missing:", miss) if miss else None
sys.exit(bool(miss))' "$HV/evil.svg"
dom=$(chromium_dom "$HV/evil.svg" "")
check "case 4: Chromium renders the SVG without a parse error" \
	all bash -c "grep -q '<svg' <<<'${dom//\'/}'" -- bash -c "! grep -qi 'parsererror\|error on line' <<<'${dom//\'/}'"
"$BPFPROF" flamegraph --format svg "$HV/raw.folded" -o "$HV/raw.svg" 2>/dev/null
check "case 4: the SVG of names with ESC, BEL, NUL, \\xff, ED A0 80 parses as XML (xmllint)" \
	xmllint --noout "$HV/raw.svg"
"$BPFPROF" flamegraph "$HV/evil.folded" -o "$HV/evil.html" --title '</script><script>document.body.dataset.pwned=3</script>'
check "case 4: flamegraph page: exit 0" [ $? -eq 0 ]
dom=$(chromium_dom "$HV/evil.html" "")
check "case 4: the page ran no name: no pwned mark, no <img> element, title is text" \
	all bash -c "grep -q 'bpfprof-data' <<<'${dom//\'/}'" -- bash -c "! grep -q 'data-pwned\|<img' <<<'${dom//\'/}'"
q=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' '"><img src=x onerror=alert(1)>')
res=$(chromium_dom "$HV/evil.html" "?test=$q" | sed -n 's/.*BPFPROF-TEST \(.*\)<\/pre>.*/\1/p' | sed 's/&quot;/"/g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g')
check "case 4: the page finds the img payload as a frame name and shows it as text" \
	bash -c "jq -e '.ok == true and (.tooltip | startswith(\"\\\"><img src=x onerror=alert(1)>\"))' >/dev/null <<<'${res//\'/}'"
printf 'app;main;a 1\n' >"$HV/before.folded"
"$BPFPROF" diff "$HV/before.folded" "$HV/evil.folded" -o "$HV/diff.html" >/dev/null
dom=$(chromium_dom "$HV/diff.html" "")
check "case 4: the diff page ran no name" \
	all bash -c "grep -q 'bpfprof-data' <<<'${dom//\'/}'" -- bash -c "! grep -q 'data-pwned\|<img' <<<'${dom//\'/}'"

echo "== case 7: counts whose sum does not fit in 64 bits"
printf 'a;x 9223372036854775808\nb;y 9223372036854775808\n' >"$HV/wrap63.folded"
expect_error "case 7: two lines of 2^63" 1 "wrap63.folded:2: .*past 2\\^64" "$BPFPROF" report "$HV/wrap63.folded"
printf 'a;x 18446744073709551615\nb;y 18446744073709551615\n' >"$HV/wrap64.folded"
expect_error "case 7: two lines of 2^64-1" 1 "wrap64.folded:2: .*past 2\\^64" "$BPFPROF" report "$HV/wrap64.folded"
expect_error "case 7: flamegraph of them" 1 "past 2\\^64" "$BPFPROF" flamegraph "$HV/wrap64.folded" -o "$HV/wrap.html"
expect_error "case 7: diff with them" 1 "past 2\\^64" "$BPFPROF" diff "$HV/before.folded" "$HV/wrap64.folded"
printf 'a;x 1\na;y 18446744073709551616\n' >"$HV/big.folded"
expect_error "case 7: a count past 2^64-1" 1 "big.folded:2: .*count" "$BPFPROF" report "$HV/big.folded"
python3 tests/gen/craft_pprof.py "$HV/huge.pb.gz" 3 9223372036854775807
expect_error "case 7: pprof, three samples of 2^63-1" 1 "huge.pb.gz: .*past 2\\^64" "$BPFPROF" report "$HV/huge.pb.gz"
python3 tests/gen/craft_pprof.py "$HV/fits.pb.gz" 2 9223372036854775807
"$BPFPROF" report "$HV/fits.pb.gz" >"$HV/fits.rep"
check "case 7: pprof, two samples of 2^63-1: 18446744073709551614 samples ($(samples_of "$HV/fits.rep"))" \
	[ "$(samples_of "$HV/fits.rep")" = 18446744073709551614 ]

echo "== case 10: files that are not profiles"
expect_error "case 10: a directory" 1 "$HV: is a directory" "$BPFPROF" report "$HV"
head -c $((1100 << 20)) /dev/zero | gzip -1 >"$HV/bomb.gz"
expect_error "case 10: a gzip bomb ($(stat -c %s "$HV/bomb.gz") bytes)" 1 \
	"bomb.gz: decompresses past the 1 GiB limit" "$BPFPROF" report "$HV/bomb.gz"
# /usr/bin/time: elapsed seconds, peak RSS KiB
/usr/bin/time -f '%e %M' -o "$HV/zero.time" "$BPFPROF" report /dev/zero >/dev/null 2>"$HV/zero.err"
read -r secs kb < <(tail -1 "$HV/zero.time")
check "case 10: /dev/zero: refused in $secs s, $kb KiB ($(grep -v 'Command exited' "$HV/zero.err"))" \
	all grep -q '/dev/zero: not a regular file' "$HV/zero.err" -- [ "${kb:-999999}" -lt 204800 ]
truncate -s 2G "$HV/sparse.folded"
/usr/bin/time -f '%e %M' -o "$HV/sparse.time" "$BPFPROF" report "$HV/sparse.folded" >/dev/null 2>"$HV/sparse.err"
read -r secs kb < <(tail -1 "$HV/sparse.time")
check "case 10: a 2 GiB file: refused in $secs s, $kb KiB ($(grep -v 'Command exited' "$HV/sparse.err"))" \
	all grep -q 'larger than 1 GiB' "$HV/sparse.err" -- [ "${kb:-999999}" -lt 204800 ]
rm -f "$HV/sparse.folded"
mkfifo "$HV/own.fifo"
within 20 "$BPFPROF" report "$HV/own.fifo"
check "case 10: our FIFO with no writer: report ends, 0 samples (exit $(cat "$HV/rc"))" \
	all [ "$(cat "$HV/rc")" -eq 0 ] -- [ "$(samples_of "$HV/within.out")" = 0 ]
chmod 755 "$T" "$HV"; mkdir -p "$HV/pub"; chmod 1777 "$HV/pub"
attacker mkfifo "$HV/pub/x.folded"
attacker sh -c "exec 3<>'$HV/pub/x.folded'; sleep 60" &
atk=$!
within 20 "$BPFPROF" report "$HV/pub/x.folded"
check "case 10: another user's FIFO held open: refused, no hang (exit $(cat "$HV/rc"): $(head -c 150 "$HV/within.err"))" \
	all [ "$(cat "$HV/rc")" -eq 1 ] -- grep -q "x.folded: a FIFO of another user" "$HV/within.err"
kill "$atk" 2>/dev/null; wait "$atk" 2>/dev/null
n=$(printf 'app;main 7\n' | "$BPFPROF" report - | samples_of /dev/stdin)
check "case 10: a pipe on standard input still reads (7 samples: $n)" [ "$n" = 7 ]
n=$("$BPFPROF" report <(printf 'app;main 9\n') | samples_of /dev/stdin)
check "case 10: a process substitution still reads (9 samples: $n)" [ "$n" = 9 ]
# a pprof of 50 M empty samples (100 MB): protobuf-c took 60 bytes of memory
# a byte of it (6.2 GB, 17 s before); decoding stops at the 1 GiB limit
python3 -c 'import sys; sys.stdout.buffer.write(b"\x0a\x04\x08\x01\x10\x02" + b"\x12\x00" * (50 << 20) + b"\x32\x00")' >"$HV/empty.pb"
/usr/bin/time -f '%e %M' -o "$HV/empty.time" "$BPFPROF" report "$HV/empty.pb" >/dev/null 2>"$HV/empty.err"
read -r secs kb < <(tail -1 "$HV/empty.time")
check "case 10: a pprof that decodes to 60x its size: refused in $secs s, $kb KiB ($(grep -v 'Command exited' "$HV/empty.err"))" \
	all grep -q 'empty.pb: a pprof profile that takes more than 1 GiB of memory to decode' "$HV/empty.err" -- \
	[ "${kb:-99999999}" -lt 1638400 ]
rm -f "$HV/empty.pb"

echo "== review 2: folded text whose NULs expand past the limit"
# 300 MiB of NULs (~300 KB of gzip): each NUL is read as the 4 bytes \x00,
# 1.2 GiB of text: refused before it is made (before: 1.2 GiB of text and as
# much again for a line's copy, then "not folded")
head -c $((300 << 20)) /dev/zero | gzip -1 >"$HV/nul.gz"
/usr/bin/time -f '%e %M' -o "$HV/nul.time" "$BPFPROF" report "$HV/nul.gz" >/dev/null 2>"$HV/nul.err"
read -r secs kb < <(tail -1 "$HV/nul.time")
check "review 2: a NUL bomb ($(stat -c %s "$HV/nul.gz") bytes of gzip): refused in $secs s, $kb KiB ($(grep -v 'Command exited' "$HV/nul.err"))" \
	all grep -q 'nul.gz: folded text past the 1 GiB limit once its NUL bytes are written \\x00' "$HV/nul.err" -- \
	[ "$(grep -vc 'Command exited' "$HV/nul.err")" -eq 1 ] -- [ "${kb:-99999999}" -lt 716800 ]
rm -f "$HV/nul.gz"

echo "== review 7: pprof samples that cost time or memory after decoding"
python3 tests/gen/pprof_bomb.py repeat "$HV/repeat.pb" 1000000
within 60 "$BPFPROF" report "$HV/repeat.pb"
check "review 7: a sample of location 1 repeated 10^6 times: refused past 4096 frames (exit $(cat "$HV/rc"): $(head -c 150 "$HV/within.err"))" \
	all [ "$(cat "$HV/rc")" -eq 1 ] -- grep -q 'repeat.pb: sample 1 has more than 4096 frames' "$HV/within.err"
python3 tests/gen/pprof_bomb.py ids "$HV/ids.pb" 200000
within 30 "$BPFPROF" report "$HV/ids.pb"
check "review 7: 200000 locations whose ids are not index + 1: read in 30 s, 200000 samples (exit $(cat "$HV/rc"), $(samples_of "$HV/within.out"))" \
	all [ "$(cat "$HV/rc")" -eq 0 ] -- [ "$(samples_of "$HV/within.out")" = 200000 ]
rm -f "$HV/repeat.pb" "$HV/ids.pb"

echo "== review 3: the page's names carry no byte that drives a terminal"
python3 tests/gen/craft_pprof.py "$HV/c1.pb" 2 5 $'\xc2\x9b6n\xe2\x80\xaeab\xff\x1b]2;x\x07'
"$BPFPROF" flamegraph "$HV/c1.pb" --title $'t\xc2\x9b' >"$HV/c1.html" 2>"$HV/c1.err"; rc=$?
check "review 3: flamegraph of a pprof with a CSI (\\xc2\\x9b), RLO, \\xff, ESC comm to standard output: exit $rc, no C1/C0/mark byte, \\u009b \\u202e and the text \\xff in its JSON" \
	python3 -c '
import re, sys
b = open(sys.argv[1], "rb").read()
t = b.decode("utf-8")  # strict: no invalid UTF-8
bad = [hex(ord(c)) for c in t if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f or 0x200e <= ord(c) <= 0x200f or 0x2028 <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069]
want = [w for w in (r"\u009b6n\u202eab\\xff\u001b]2;x\u0007", r"t\u009b") if w not in t]
print("        bad:", sorted(set(bad)), "missing:", want) if bad or want else None
sys.exit(bool(bad or want))' "$HV/c1.html"
script -q -e -c "$BPFPROF flamegraph $HV/c1.pb" /dev/null >"$HV/c1.tty" 2>&1; rc=$?
check "review 3: flamegraph to a terminal is refused, no page written to it (exit $rc: $(head -c 150 "$HV/c1.tty" | tr -d '\r' | head -1))" \
	all [ "$rc" -eq 2 ] -- grep -q 'a flame graph page is not for a terminal' "$HV/c1.tty" -- bash -c "! grep -q '<html\|<svg' '$HV/c1.tty'"
"$BPFPROF" flamegraph "$HV/c1.pb" -o "$HV/c1b.html" 2>/dev/null
dom=$(chromium_dom "$HV/c1b.html" "")
check "review 3: the page of those names renders" bash -c "grep -q 'bpfprof-data' <<<'${dom//\'/}'"
