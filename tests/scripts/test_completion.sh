#!/usr/bin/env bash
# make script-tests: completion/bpfprof.bash, driven as bash does it (with
# bash-completion), offers every command of main.c's cmds[] and, for the
# profile run and each command, every option of the struct option table that
# command parses with. The tables are read from the sources here, not asked
# of bpfprof, so a table the completion does not reach fails: each table of
# user/ must be one this test maps to its commands.
set -uo pipefail
cd "$(dirname "$0")/../.."
BPFPROF=$(readlink -f "${BPFPROF:-./bpfprof}")
COMPLETION=$PWD/completion/bpfprof.bash

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ln -s "$BPFPROF" "$T/bpfprof"	# found by PATH as bpfprof, as installed
PATH=$T:$PATH
. tests/scripts/check.sh

# The words bash offers for the command line "$@" (the last one being typed).
complete_words() {
	bash -c '. /usr/share/bash-completion/bash_completion; . "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_bpfprof "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$@"
}

# The names of a C table's rows, `{ "name", ...`, in FILE between the line
# that opens TABLE and its "};".
table_names() {
	awk -v t="$2" 'index($0, t) && /=[ \t]*\{[ \t]*$/ { on = 1; next }
		on && /^[ \t]*\};/ { exit }
		on && match($0, /^[ \t]*\{[ \t]*"[^"]+"/) { s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s); sub(/"$/, "", s); print s }' "$1"
}

# missing WANTED OFFERED: the words of WANTED (lines) not among OFFERED's
missing() {
	comm -23 <(sort -u <<<"$1") <(sort -u <<<"$2") | tr '\n' ' '
}

# Every struct option table of user/: the test knows where each one is used.
tables=$(grep -lE 'struct option [a-z_]+\[\] = \{' -r user | LC_ALL=C sort | tr '\n' ' ')
check "the option tables of user/ are the three this test maps ($tables)" \
	[ "$tables" = "user/cli/cli.c user/offline/symbolize.c user/views/views.c " ]

commands=$(table_names user/main.c 'cmds[]')
check "main.c's cmds[] read ($(tr '\n' ' ' <<<"$commands"))" grep -qx symbolize <<<"$commands"
offered=$(complete_words bpfprof '')
gap=$(missing "$commands" "$offered")
check "bpfprof <TAB>: every command of cmds[] (missing: ${gap:-none})" \
	[ -z "$gap" -a -n "$commands" ]
check "bpfprof sym<TAB>: symbolize" [ "$(complete_words bpfprof sym)" = symbolize ]

# a profile run's: cli.c's table, then each runtime's off option, from its row
run_opts=$( { table_names user/cli/cli.c 'long_opts[]'
	grep -rhoE '\.off_option = "[^"]+"' user | sed -E 's/.*"([^"]+)"/\1/'; } | sed 's/^/--/')
check "the runtimes' rows give their off options (--no-python among them)" grep -qx -- --no-python <<<"$run_opts"
view_opts=$(table_names user/views/views.c 'view_opts[]' | sed 's/^/--/')
sym_opts=$(table_names user/offline/symbolize.c 'opts[]' | sed 's/^/--/')
for c in "" top report flamegraph diff symbolize; do
	case $c in
	"" | top) want=$run_opts ;;
	symbolize) want=$sym_opts ;;
	*) want=$view_opts ;;
	esac
	offered=$(complete_words bpfprof $c --)
	gap=$(missing "$want" "$offered")
	extra=$(missing "$offered" "$want")
	check "bpfprof ${c:+$c }--<TAB>: its $(wc -l <<<"$want") options, no other (missing: ${gap:-none}; other: ${extra:-none})" \
		[ -z "$gap" -a -z "$extra" -a "$(wc -l <<<"$want")" -gt 1 ]
done
check "bpfprof symbolize --deb<TAB>: --debug-dir, --debuginfod-timeout" \
	[ "$(complete_words bpfprof symbolize --deb | sort | tr '\n' ' ')" = "--debug-dir --debuginfod-timeout " ]
mkdir "$T/dbgdir" && touch "$T/prof.pb.gz"
offers() { (cd "$T" && complete_words "${@:2}" | grep -qx "$1"); }
check "bpfprof symbolize --debug-dir <TAB>: directories" offers dbgdir bpfprof symbolize --debug-dir dbg
check "bpfprof symbolize <TAB>: the profile to read" offers prof.pb.gz bpfprof symbolize pro
check "bpfprof report <TAB>: the profile to read" offers prof.pb.gz bpfprof report pro
check "bpfprof flamegraph --format <TAB>: html, svg" \
	[ "$(complete_words bpfprof flamegraph --format '' | sort | tr '\n' ' ')" = "html svg " ]
check "bpfprof --format o<TAB>: otlp (a profile run's formats)" \
	[ "$(complete_words bpfprof --format o)" = otlp ]

checks_done test_completion
