# shellcheck shell=bash
# Push credentials (issue 23, case 5): the server gets them, whether from the
# URL's userinfo, --push-auth-file or BPFPROF_PUSH_AUTH; not one byte of the
# secret reaches stderr (the systemd unit sends it to the journal): not the
# start line, not the failure warning (server down), not the recovery line
# (server back), not the fleet index. Sourced by run.sh.

echo "== push credentials: the server gets them, stderr never shows them"
C=$T/cred; mkdir -p "$C/srv"
SECRET=s3cr3tPW$$x
B64=$(printf %s "u:$SECRET" | base64)
# cred_serve [PORT]: the ingest server recording into $C/srv, its port in $C/port
cred_serve() {
	rm -f "$C/port"
	python3 tests/e2e/ingest_server.py "$C/srv" "$C/port" ${1:+"$1"} & CSRV=$!
	for _ in $(seq 100); do [ -s "$C/port" ] && break; sleep 0.1; done
}
# wait_grep FILE PATTERN SECS: true once FILE has a line matching PATTERN
wait_grep() {
	local end=$((SECONDS + $3))
	while [ $SECONDS -lt "$end" ]; do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
# no_secret FILE...: neither the secret nor its base64 form
no_secret() { ! grep -qF -e "$SECRET" -e "$B64" "$@"; }

cred_serve; port=$(cat "$C/port")
"$BPFPROF" --interval 0.5 -d 1.2 --push "http://u:$SECRET@127.0.0.1:$port" \
	--output-dir "$C/dir" --spool-dir "$C/spool" 2>"$C/ok.err"
check "userinfo: the server got it as basic auth ($(cat "$C/srv/0000.auth" 2>/dev/null | head -c 40))" \
	grep -qx "Basic $B64" "$C/srv/0000.auth"
check "userinfo: the start line shows the URL as http://***@127.0.0.1:$port ($(grep -o 'to http[^;]*' "$C/ok.err" | head -1))" \
	grep -qF "to http://***@127.0.0.1:$port; " "$C/ok.err"
check "userinfo: said to be readable by every user (cmdline)" grep -q 'every user can read the credentials' "$C/ok.err"
check "userinfo: no byte of the secret on stderr or in the index" no_secret "$C/ok.err" "$C/dir/bpfprof-intervals.log"

# the server goes away, then comes back on the same port during the run
kill "$CSRV"; wait "$CSRV" 2>/dev/null
"$BPFPROF" --interval 0.5 -d 8 --push "http://u:$SECRET@127.0.0.1:$port" \
	--spool-dir "$C/spool" 2>"$C/down.err" & bp=$!
wait_grep "$C/down.err" 'retrying with backoff' 15
cred_serve "$port"
wait "$bp"
check "server down: the failure warning names http://***@127.0.0.1:$port ($(grep -m1 'retrying' "$C/down.err"))" \
	grep -qF "push: http://***@127.0.0.1:$port: " "$C/down.err"
check "server back: the recovery line names http://***@127.0.0.1:$port ($(grep -m1 'again' "$C/down.err"))" \
	grep -qF "push: http://***@127.0.0.1:$port takes profiles again" "$C/down.err"
check "down and back: no byte of the secret on stderr" no_secret "$C/down.err"

# credentials off the command line
rm -f "$C/srv"/*
printf 'Bearer %s\n' "$SECRET" >"$C/token"; chmod 600 "$C/token"
"$BPFPROF" --interval 0.5 -d 1.2 --push "http://127.0.0.1:$port" --push-auth-file "$C/token" \
	--spool-dir "$C/spool" 2>"$C/file.err"
check "--push-auth-file: the server got the bearer token" grep -qx "Bearer $SECRET" "$C/srv/0000.auth"
# (no warning about the file; a starved agent may rightly warn of a long interval)
check "--push-auth-file: no byte of the secret on stderr, no warning about the file" \
	all no_secret "$C/file.err" -- bash -c "! grep -q 'warning: push' '$C/file.err'"
rm -f "$C/srv"/*
BPFPROF_PUSH_AUTH="u:$SECRET" "$BPFPROF" --interval 0.5 -d 1.2 --push "http://127.0.0.1:$port" \
	--spool-dir "$C/spool" 2>"$C/env.err"
check "BPFPROF_PUSH_AUTH: the server got basic auth" grep -qx "Basic $B64" "$C/srv/0000.auth"
check "BPFPROF_PUSH_AUTH: no byte of the secret on stderr" no_secret "$C/env.err"
chmod 644 "$C/token"
"$BPFPROF" --interval 0.5 -d 0.6 --push "http://127.0.0.1:$port" --push-auth-file "$C/token" \
	--spool-dir "$C/spool" 2>"$C/wide.err"
check "--push-auth-file readable by others: a warning ($(grep -m1 readable "$C/wide.err"))" \
	all grep -q 'is readable by other users (mode 0644): chmod 600 it' "$C/wide.err" -- no_secret "$C/wide.err"
kill "$CSRV"; wait "$CSRV" 2>/dev/null

echo "== push credentials: files bpfprof refuses"
chmod 600 "$C/token"
ln -sf "$C/token" "$C/link"
expect_error "--push-auth-file a symlink" 1 'push-auth-file .*/link: a symbolic link' \
	"$BPFPROF" --interval 0.5 -d 0.5 --push http://127.0.0.1:9 --push-auth-file "$C/link" --spool-dir "$C/spool"
chmod 755 "$T"; mkdir -p "$T/x"; chmod 1777 "$T/x"
attacker sh -c "printf 'u:theirs\n' >'$T/x/auth'; chmod 600 '$T/x/auth'"
expect_error "--push-auth-file another user's" 1 'push-auth-file .*/auth: owned by another user' \
	"$BPFPROF" --interval 0.5 -d 0.5 --push http://127.0.0.1:9 --push-auth-file "$T/x/auth" --spool-dir "$C/spool"
printf 'Bearer %s\r\nX-Injected: 1\n' "$SECRET" >"$C/crlf"; chmod 600 "$C/crlf"
expect_error "--push-auth-file with a second line (header injection)" 1 'push-auth-file .*/crlf: holds a control character' \
	"$BPFPROF" --interval 0.5 -d 0.5 --push http://127.0.0.1:9 --push-auth-file "$C/crlf" --spool-dir "$C/spool"
check "refusals quote no byte of the secret" no_secret "$T/bad.err"
BPFPROF_PUSH_AUTH="u:x" expect_error "credentials twice (URL and BPFPROF_PUSH_AUTH)" 1 'carries credentials and BPFPROF_PUSH_AUTH gives others' \
	"$BPFPROF" --interval 0.5 -d 0.5 --push "http://u:$SECRET@127.0.0.1:9" --spool-dir "$C/spool"
