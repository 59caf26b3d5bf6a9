# shellcheck shell=bash
# make install / uninstall into a DESTDIR, the installed binary run, the
# man page rendered without warnings, the bash completion driven through
# its function as bash's TAB would. Sourced by run.sh.

echo "== make install DESTDIR, the installed files"
R=$T/root
make -s install DESTDIR="$R" PREFIX=/usr/local >"$T/inst.log" 2>&1
check "make install: exit 0" [ $? -eq 0 ]
for f in bin/bpfprof share/man/man1/bpfprof.1 share/bash-completion/completions/bpfprof \
	 lib/systemd/system/bpfprof.service; do
	check "installed: /usr/local/$f" [ -s "$R/usr/local/$f" ]
done
check "the installed binary runs: $("$R/usr/local/bin/bpfprof" --version)" "$R/usr/local/bin/bpfprof" --version
"$R/usr/local/bin/bpfprof" -d 0.3 -o "$T/inst.folded" 2>/dev/null
check "the installed binary profiles" valid_folded "$T/inst.folded"
make -s install DESTDIR="$R" PREFIX=/opt/bp >/dev/null 2>&1
check "PREFIX: the unit runs PREFIX/bin/bpfprof" grep -q '^ExecStart=/opt/bp/bin/bpfprof ' "$R/opt/bp/lib/systemd/system/bpfprof.service"

echo "== man page"
MANWIDTH=80 man --warnings -l "$R/usr/local/share/man/man1/bpfprof.1" >"$T/man.txt" 2>"$T/man.err"
check "man renders with no warnings ($(wc -l <"$T/man.err") lines of warnings)" [ ! -s "$T/man.err" ] && [ -s "$T/man.txt" ]
# every long option of --help is in the man page
missing=$(./bpfprof --help | grep -oE -- '--[a-z][a-z-]+' | sort -u | while read -r o; do
	grep -q -- "$o" "$T/man.txt" || echo "$o"; done)
check "man page has every option of --help (missing: ${missing:-none})" [ -z "$missing" ]
for s in 'EXIT STATUS' FILES EXAMPLES SIGNALS; do
	check "man page section $s" grep -q "^$s" "$T/man.txt"
done

echo "== bash completion"
complete_words() {	# the words bash offers for the command line "$@" (last one: being typed)
	bash -c '. /usr/share/bash-completion/bash_completion; . "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_bpfprof "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$R/usr/local/share/bash-completion/completions/bpfprof" "$@"
}
OLDPATH=$PATH; PATH=$R/usr/local/bin:$PATH
check "bpfprof --dur<TAB>: --duration" [ "$(complete_words bpfprof --dur)" = "--duration" ]
ev=$(complete_words bpfprof -e page- | tr '\n' ' ')
check "bpfprof -e page-<TAB>: page-faults (from --list: $ev)" [ "$ev" = "page-faults " ]
ev=$(complete_words bpfprof -e cpu-clock,page- | tr '\n' ' ')
check "bpfprof -e cpu-clock,page-<TAB>: the list goes on ($ev)" [ "$ev" = "cpu-clock,page-faults " ]
offers_pid() { complete_words bpfprof -p '' | grep -qx "$1"; }
check "bpfprof -p <TAB>: pids (this shell's is there)" offers_pid "$$"
touch "$T/comp-probe.folded"
offers_file() { (cd "$T" && complete_words bpfprof -o comp-pr | grep -qx comp-probe.folded); }
check "bpfprof -o <TAB>: files" offers_file
PATH=$OLDPATH

echo "== make uninstall"
make -s uninstall DESTDIR="$R" PREFIX=/usr/local >/dev/null 2>&1
check "uninstall: nothing of ours left" [ -z "$(find "$R/usr/local" -type f)" ]
