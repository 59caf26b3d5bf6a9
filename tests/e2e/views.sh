# shellcheck shell=bash
# Views: report, flamegraph (page in headless Chromium, SVG), diff, --report
# and --format html after profiling. Sourced by run.sh.

SHOTS=${SHOTS:-build/views}
mkdir -p "$SHOTS"

# report's first data row: "self total ... symbol"
first_row() { grep -v '^#' "$1" | head -1; }

echo "== report of a cpu_chain profile: folded, pprof, stdin"
"$BPFPROF" -F 199 -o "$T/v.folded" -- "$EX/cpu_chain" 2 2>"$T/v.err"
"$BPFPROF" report "$T/v.folded" >"$T/v.rep" 2>"$T/v.rep.err"
check "report: exit 0" [ $? -eq 0 ]
row=$(first_row "$T/v.rep")
check "report: first row is hot_leaf ($row)" bash -c "[[ '$row' == *'[.] hot_leaf' ]]"
self_sum=$(grep -v '^#' "$T/v.rep" | awk '{ s += $1 } END { printf "%.2f", s }')
check "report: self shares sum to 100% ($self_sum)" \
	awk -v s="$self_sum" 'BEGIN { exit !(s >= 99.9 && s <= 100.1) }'
hot_total=$(awk -v c=cpu_chain '{ n = $NF; t += n; if ($0 ~ /;hot_leaf(;| )/) h += n } END { printf "%.2f", 100 * h / t }' "$T/v.folded")
rep_total=$("$BPFPROF" report --sort symbol "$T/v.folded" | awk '$NF == "hot_leaf" { sub(/%/, "", $2); print $2 }')
check "report: hot_leaf's total share $rep_total% = the folded file's $hot_total%" [ "$rep_total" = "$hot_total" ]
"$BPFPROF" -F 199 -o "$T/v.pb.gz" -- "$EX/cpu_chain" 1 2>/dev/null
row=$("$BPFPROF" report "$T/v.pb.gz" | grep -v '^#' | head -1)
check "report of pprof: first row hot_leaf in cpu_chain's file ($row)" \
	bash -c "[[ '$row' == *'/cpu_chain '*'[.] hot_leaf' ]]"
"$BPFPROF" report --children - <"$T/v.folded" >"$T/v.children"
check "report --children from stdin: sorted by total, rows with no self shown" \
	awk '!/^#/ { t = $2 + 0; if (n++ && t > last) bad = 1; last = t; if ($1 == "0.00%") zero = 1 } END { exit bad || !zero }' "$T/v.children"
n=$("$BPFPROF" report --percent-limit 50 "$T/v.folded" | grep -vc '^#')
check "report --percent-limit 50: one row ($n)" [ "$n" -eq 1 ]
n=$("$BPFPROF" report --comm nosuchcomm "$T/v.folded" | grep -c '^bpfprof\|^# bpfprof report: 0 samples')
check "report --comm nosuchcomm: 0 samples" [ "$n" -eq 1 ]

echo "== report of perf's folded output (stackcollapse-perf style)"
if perf record -q -F 199 -g -o "$T/perf.data" -- "$EX/syscalls" 1 >/dev/null 2>&1; then
	perf script -i "$T/perf.data" 2>/dev/null | awk -f tools/bench/fold_perf.awk >"$T/perf.folded"
	row=$("$BPFPROF" report --sort symbol "$T/perf.folded" | grep -v '^#' | head -1)
	# the leaf with the most samples, counted here, and whether it is
	# read_zero or called from it: read_zero itself where the CPU clears
	# memory with an inline rep stosb, its callee rep_stos_alternative
	# where the kernel patched in the call
	IFS=$'\t' read -r top under < <(awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); self[f[k]] += n
			if (f[k] == "read_zero_[k]" || f[k - 1] == "read_zero_[k]") zero[f[k]] = 1 }
		END { for (x in self) if (self[x] > best) { best = self[x]; top = x }
			print top "\t" ((top in zero) ? "yes" : "no") }' "$T/perf.folded")
	check "report of perf's folded: the top leaf is read_zero or its callee ($top)" [ "$under" = yes ]
	name=${top%_\[k\]}
	check "report of perf's folded: first row is that leaf, a kernel frame ($row)" \
		bash -c "[[ '$row' == *'[k] $name' ]]"
else
	fail "perf record failed"
fi

echo "== --report and --format html|svg right after profiling"
"$BPFPROF" --report -F 199 -- "$EX/cpu_chain" 1 >"$T/v.rep2" 2>/dev/null
check "--report: exit 0, first row hot_leaf" bash -c "[[ '$(first_row "$T/v.rep2")' == *'[.] hot_leaf' ]]"
"$BPFPROF" -F 199 -o "$T/run.html" -- "$EX/cpu_chain" 1 2>/dev/null
check "-o x.html: the page" grep -q 'bpfprof-data' "$T/run.html"
"$BPFPROF" -F 199 --format svg -o "$T/run.out" -- "$EX/cpu_chain" 1 2>/dev/null
check "--format svg: an SVG with hot_leaf" grep -q '<title>hot_leaf' "$T/run.out"

echo "== the flame graph page in headless Chromium"
"$BPFPROF" flamegraph "$T/v.folded" -o "$T/v.html"
check "flamegraph: exit 0" [ $? -eq 0 ]
check "flamegraph: one file, no network (no src=/href= to anything)" \
	bash -c "! grep -qiE '(src|href)=|https?://[a-z]|@import|url\\(' '$T/v.html'"
res=$(page_test "$T/v.html" hot_leaf)
echo "        page: $res"
check "page: search, zoom, tooltip, icicle toggle, reset on hot_leaf" \
	bash -c "echo '$res' | jq -e '.ok == true' >/dev/null"
"$BPFPROF" -F 199 -o "$T/s.folded" -- "$EX/syscalls" 1 2>/dev/null
"$BPFPROF" flamegraph "$T/s.folded" -o "$T/s.html" --title "bpfprof flamegraph: examples/syscalls"
rz=$("$BPFPROF" report --sort symbol "$T/s.folded" | awk '$NF == "read_zero" && $(NF-1) == "[k]" { sub(/%/, "", $2); print $2 }')
res=$(page_test "$T/s.html" read_zero)
pct=$(echo "$res" | jq -r '.match_pct')
check "page: search share of the kernel's read_zero ($pct%) = report's total share ($rz%)" \
	awk -v a="$pct" -v b="$rz" 'BEGIN { d = a - b; exit !(b > 0 && d < 0.01 && d > -0.01) }'
check "page: read_zero's tooltip says kernel" bash -c "echo '$res' | jq -r .tooltip | grep -q '^read_zero  \\[kernel\\]'"
timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
	--user-data-dir="$(mktemp -d "$T/chrome.XXXXXX")" --hide-scrollbars --window-size=900,420 \
	--screenshot="$(realpath "$SHOTS")/flamegraph.png" "file://$(realpath "$T/s.html")" >/dev/null 2>&1
check "page: screenshot kept in $SHOTS/flamegraph.png" [ -s "$SHOTS/flamegraph.png" ]
"$BPFPROF" flamegraph --format svg "$T/v.folded" >"$T/v.svg"
check "flamegraph --format svg: well-formed XML with hot_leaf" \
	python3 -c "import sys, xml.etree.ElementTree as E; t = E.parse(sys.argv[1]); sys.exit(not any('hot_leaf' in (e.text or '') for e in t.iter()))" "$T/v.svg"

echo "== a tall graph opens on its root (issue 25): 1400x900, flame orientation"
# page_opening NAME HTML FRAME: the ?test= hook (the root's row in the
# window, frames drawn there) and a 1400x900 screenshot's pixels: rows of
# frames from edge to edge (the root's, the widest), the share coloured.
page_opening() {
	local res shot="$(realpath "$SHOTS")/$1.png" px full
	res=$(chromium_dom "$2" "?test=$3" --window-size=1400,900)
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--no-first-run --user-data-dir="$(mktemp -d "$T/chrome.XXXXXX")" --hide-scrollbars \
		--window-size=1400,900 --screenshot="$shot" "file://$(realpath "$2")" >/dev/null 2>&1
	res=$(echo "$res" | sed -n 's/.*BPFPROF-TEST \(.*\)<\/pre>.*/\1/p' | sed 's/&quot;/"/g')
	read -r px full <<<"$(python3 tests/e2e/png_rows.py "$shot" 0 900)"
	echo "        $1: $(echo "$res" | jq -c '{rows, window_h, root_y, root_in_view, visible_frames}'), screenshot: $px% coloured, $full full-width pixel rows"
	check "$1: $(echo "$res" | jq .rows) rows, the root's row in view (y $(echo "$res" | jq .root_y) of $(echo "$res" | jq .window_h))" \
		bash -c "echo '$res' | jq -e '.root_in_view == true and .visible_frames >= 3' >/dev/null"
	check "$1: the screenshot shows the root's row and the widest frames ($full rows edge to edge, $px% coloured)" \
		awk -v f="$full" -v p="$px" 'BEGIN { exit !(f >= 16 && p >= 1) }'
}
# a 120-deep stack (2% of the samples) beside shallow wide ones
deep=$(seq -f 'deep%g' 1 120 | paste -sd';')
{ echo "app;main;$deep 20"; echo "app;main;hot;spin 600"; echo "app;main;warm 300"
  echo "app;main;cool;a;b 80"; echo "other;main;x 50"; } >"$T/tall.folded"
{ echo "app;main;$deep 40"; echo "app;main;hot;spin 400"; echo "app;main;warm 400"
  echo "other;main;x 50"; } >"$T/tall_before.folded"
"$BPFPROF" flamegraph "$T/tall.folded" -o "$T/tall.html"
page_opening tall "$T/tall.html" warm
"$BPFPROF" diff "$T/tall_before.folded" "$T/tall.folded" -o "$T/tall_diff.html" >/dev/null
page_opening tall_diff "$T/tall_diff.html" warm
# a real system-wide profile: whatever its depth, it opens on its root
"$BPFPROF" -a -d 5 -F 99 -o "$T/sys.folded" 2>"$T/sys.err"
"$BPFPROF" flamegraph "$T/sys.folded" -o "$T/sys.html"
sys_leaf=all	# the root: the hook measures the opening, whatever it searches
page_opening system "$T/sys.html" "$sys_leaf"
"$BPFPROF" diff "$T/v.folded" "$T/sys.folded" -o "$T/sys_diff.html" >/dev/null
page_opening system_diff "$T/sys_diff.html" "$sys_leaf"

echo "== diff: grow grows by 22.5 points"
printf 'app;main;stay 40\napp;main;grow 20\napp;main;shrink 30\napp;main;other 10\n' >"$T/before.folded"
printf 'app;main;stay 160\napp;main;grow 170\napp;main;shrink 40\napp;main;other 30\n' >"$T/after.folded"
"$BPFPROF" diff "$T/before.folded" "$T/after.folded" -o "$T/diff.html" >"$T/diff.txt"
check "diff: exit 0" [ $? -eq 0 ]
row=$(first_row "$T/diff.txt")
check "diff: first row '+22.50 ... grow' ($row)" bash -c "[[ '$row' =~ ^\ *\+22\.50\ .*\ grow$ ]]"
row=$(grep -v '^#' "$T/diff.txt" | sed -n 2p)
check "diff: second row '-20.00 ... shrink' ($row)" bash -c "[[ '$row' =~ ^\ *-20\.00\ .*\ shrink$ ]]"
res=$(page_test "$T/diff.html" grow)
check "diff page renders and answers in Chromium" bash -c "echo '$res' | jq -e '.ok == true' >/dev/null"
check "diff page tooltip: +22.50 points for grow" bash -c "echo '$res' | jq -r .tooltip | grep -q 'change: +22.50 points'"

echo "== bad input to the views"
expect_error "report: missing file" 1 "cannot open" "$BPFPROF" report "$T/nonexistent"
printf 'this is not a profile\n' >"$T/garbage"
expect_error "report: not folded" 1 "garbage:1: not a folded stack line" "$BPFPROF" report "$T/garbage"
head -c 100 "$T/v.pb.gz" >"$T/trunc.pb.gz"
expect_error "report: truncated gzip" 1 "corrupt or truncated" "$BPFPROF" report "$T/trunc.pb.gz"
head -c 3000 /dev/urandom | gzip >"$T/rand.pb.gz"
expect_error "report: random protobuf bytes" 1 "neither folded stacks nor a pprof" "$BPFPROF" report "$T/rand.pb.gz"
expect_error "report: no file" 2 "needs a profile file" "$BPFPROF" report
expect_error "report: bad --sort" 2 "invalid --sort key 'bogus'" "$BPFPROF" report --sort comm,bogus "$T/v.folded"
expect_error "diff: one file" 2 "needs a profile file" "$BPFPROF" diff "$T/v.folded"
expect_error "flamegraph: unwritable -o" 1 "cannot write" "$BPFPROF" flamegraph "$T/v.folded" -o /nonexistent/x.html
