# Sourced by the script tests: check NAME COMMAND... counts COMMAND's exit,
# and checks_done NAME prints the tally and fails the test on any failure.
pass=0 fail=0

check() {	# check NAME COMMAND...: COMMAND exits 0
	local name=$1
	shift
	if "$@"; then
		echo "ok: $name"
		pass=$((pass + 1))
	else
		echo "FAIL: $name"
		fail=$((fail + 1))
	fi
}

checks_done() {
	echo "$1: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
