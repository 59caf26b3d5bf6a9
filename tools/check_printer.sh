#!/usr/bin/env bash
# make layers, second part: user/base/errors.c is the one printer of stderr.
# Reads every file of user/ (but errors.c), its comments and string literals
# left out, and prints each line that writes to stderr another way:
#   user/a/b.c:12: writes to stderr: fprintf(stderr, ...)
# stderr, STDERR_FILENO or fd 2 named at all (fprintf, fputs, write, dprintf,
# isatty(STDERR_FILENO) aside: asking is not writing), perror, psignal,
# err.h's err/warn family, error.h's error(). Exits 1 when there is one,
# else says so in one line and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t sources < <(find user -name '*.[ch]' ! -path user/base/errors.c | LC_ALL=C sort)
awk '
# the line with its comments and the insides of its string and character
# literals blanked; in_comment carries a /* */ over lines
function code_of(line,   out, i, c, n, q) {
	out = ""
	n = length(line)
	for (i = 1; i <= n; i++) {
		c = substr(line, i, 1)
		if (in_comment) {
			if (c == "*" && substr(line, i + 1, 1) == "/") {
				in_comment = 0
				i++
			}
			continue
		}
		if (c == "/" && substr(line, i + 1, 1) == "*") {
			in_comment = 1
			i++
			out = out " "
			continue
		}
		if (c == "/" && substr(line, i + 1, 1) == "/")
			break
		if (c == "\"" || c == "\x27") {
			q = c
			out = out q
			for (i++; i <= n; i++) {
				c = substr(line, i, 1)
				if (c == "\\") {
					i++
					continue
				}
				if (c == q)
					break
			}
			out = out q
			continue
		}
		out = out c
	}
	return out
}
FNR == 1 { in_comment = 0; files++ }
{
	code = code_of($0)
	what = ""
	if (code ~ /#[ \t]*include[ \t]*<(err|error)\.h>/)
		what = "includes <err.h>/<error.h>"
	else if (code ~ /(^|[^A-Za-z0-9_])(v?fprintf|fputs|fputc|putc|fwrite|vdprintf|dprintf|fflush|setvbuf|setbuf)[ \t]*\([^;]*stderr/)
		what = "writes to stderr"
	else if (code ~ /(^|[^A-Za-z0-9_])(write|dprintf|vdprintf|writev)[ \t]*\([ \t]*(2|STDERR_FILENO)[ \t]*,/)
		what = "writes to file descriptor 2"
	else if (code ~ /(^|[^A-Za-z0-9_.>])(perror|psignal|psiginfo|verrx?|errx?|vwarnx?|warnx?|error|error_at_line)[ \t]*\(/)
		what = "prints to stderr by itself"
	else if (code ~ /(^|[^A-Za-z0-9_])(stderr|STDERR_FILENO)([^A-Za-z0-9_]|$)/ && code !~ /isatty[ \t]*\([ \t]*STDERR_FILENO[ \t]*\)/)
		what = "names stderr"
	if (what == "")
		next
	sub(/^[ \t]+/, "", $0)
	print FILENAME ":" FNR ": " what ": " $0
	bad++
}
END {
	if (bad) {
		print "check_printer: " bad " line(s) write to stderr outside user/base/errors.c " \
		      "(print with p_err, p_warn, p_info, p_usage: base/errors.h)"
		exit 1
	}
	print "printer: " files " files of user/ leave stderr to user/base/errors.c"
}
' "${sources[@]}"
