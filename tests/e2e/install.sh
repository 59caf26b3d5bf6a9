# shellcheck shell=bash
# make install / uninstall into a DESTDIR, the installed binary run, the
# man page rendered without warnings, the bash completion driven through
# its function as bash's TAB would; make deb: lintian, dpkg -i, the installed
# package run, dpkg --purge. Sourced by run.sh.

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
check "man renders with no warnings ($(wc -l <"$T/man.err") lines of warnings)" all [ ! -s "$T/man.err" ] -- [ -s "$T/man.txt" ]
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
lb=$(complete_words bpfprof --labels pid,con | tr '\n' ' ')
check "bpfprof --labels pid,con<TAB>: the list goes on ($lb)" [ "$lb" = "pid,container " ]
check "bpfprof --group-by c<TAB>: container, cgroup" \
	[ "$(complete_words bpfprof --group-by c | sort | tr '\n' ' ')" = "cgroup container " ]
offers_pid() { complete_words bpfprof -p '' | grep -qx "$1"; }
check "bpfprof -p <TAB>: pids (this shell's is there)" offers_pid "$$"
touch "$T/comp-probe.folded"
offers_file() { (cd "$T" && complete_words bpfprof -o comp-pr | grep -qx comp-probe.folded); }
check "bpfprof -o <TAB>: files" offers_file
PATH=$OLDPATH

echo "== make uninstall"
make -s uninstall DESTDIR="$R" PREFIX=/usr/local >/dev/null 2>&1
check "uninstall: nothing of ours left" [ -z "$(find "$R/usr/local" -type f)" ]

echo "== make deb: lintian, dpkg -i, /usr/bin/bpfprof, dpkg --purge"
make -s deb >"$T/deb.log" 2>&1
check "make deb: exit 0" [ $? -eq 0 ]
DEB=$(ls build/deb/bpfprof_*.deb 2>/dev/null | head -1)
check "make deb: ${DEB:-no .deb}" [ -s "$DEB" ]
lintian "$DEB" >"$T/lintian.txt" 2>/dev/null
sed -n 's/^W: /  lintian warning: /p' "$T/lintian.txt"
check "lintian: no errors ($(grep -c '^E: ' "$T/lintian.txt") errors, $(grep -c '^W: ' "$T/lintian.txt") warnings)" \
	all [ -s "$DEB" ] -- [ "$(grep -c '^E: ' "$T/lintian.txt")" -eq 0 ]
grep '^E: ' "$T/lintian.txt"
# every library the binary links to comes from a package its Depends names
depends=$(dpkg-deb -f "$DEB" Depends)
undeclared=$(objdump -p build/deb/bpfprof/usr/bin/bpfprof | awk '/NEEDED/ { print $2 }' | while read -r lib; do
	path=$(ldd build/deb/bpfprof/usr/bin/bpfprof | awk -v l="$lib" '$1 == l { print $3 }')
	pkg=$( { dpkg -S "$path" || dpkg -S "$(readlink -f "$path")"; } 2>/dev/null | head -1 | cut -d: -f1)
	case ", $depends" in *", $pkg "*) ;; *) echo "$lib(${pkg:-no package})" ;; esac
done)
check "Depends names every linked library's package (undeclared: ${undeclared:-none}): $depends" \
	all [ -n "$depends" ] -- [ -z "$undeclared" ]
# dpkg -i would take over a bpfprof installed here by other means: only on a machine without one
if dpkg-query -W -f='${Status}' bpfprof 2>/dev/null | grep -q installed || [ -e /usr/bin/bpfprof ]; then
	fail "dpkg -i: a bpfprof is already installed here ($(dpkg-query -W -f='${Version}' bpfprof 2>/dev/null), /usr/bin/bpfprof); not touching it"
else
	dpkg -i "$DEB" >"$T/dpkg.log" 2>&1
	check "dpkg -i: exit 0" [ $? -eq 0 ]
	check "the package's /usr/bin/bpfprof --version: $(/usr/bin/bpfprof --version 2>&1)" /usr/bin/bpfprof --version
	man_found() { man -aw bpfprof 2>/dev/null | grep -qx /usr/share/man/man1/bpfprof.1.gz; }
	check "man bpfprof finds /usr/share/man/man1/bpfprof.1.gz" man_found
	man_renders() { MANPATH=/usr/share/man MANWIDTH=80 man bpfprof 2>/dev/null | grep -q '^NAME'; }
	check "man bpfprof renders the package's page" man_renders
	check "the package has the completion and the unit" \
		all [ -s /usr/share/bash-completion/completions/bpfprof ] -- [ -s /usr/lib/systemd/system/bpfprof.service ]
	dpkg --purge bpfprof >>"$T/dpkg.log" 2>&1
	check "dpkg --purge: exit 0" [ $? -eq 0 ]
	purged() { ! dpkg-query -W -f='${Status}' bpfprof 2>/dev/null | grep -q installed; }
	check "purged: no package, no /usr/bin/bpfprof, no man page" \
		all purged -- [ ! -e /usr/bin/bpfprof ] -- [ ! -e /usr/share/man/man1/bpfprof.1.gz ]
fi
