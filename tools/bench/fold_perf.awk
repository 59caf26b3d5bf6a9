#!/usr/bin/awk -f
# `perf script` (default output, with call chains) -> folded stacks, the same
# form bpfprof writes: comm;outermost;...;innermost COUNT, kernel frames with
# the suffix _[k], lines sorted. Like stackcollapse-perf.pl, with the symbol
# offsets (+0x..) dropped.
#
# A sample is a header line, "comm pid[/tid] [cpu] time: period event:",
# then one line per frame, innermost first: "\tADDR SYMBOL (DSO)", then a
# blank line.

function flush(   stack, i) {
	if (comm != "" && n > 0) {
		stack = comm
		for (i = n; i >= 1; i--)
			stack = stack ";" frame[i]
		count[stack]++
	}
	comm = ""
	n = 0
}

/^[^ \t]|^ +[^ \t].* \[[0-9]+\] / {	# a header line
	flush()
	line = $0
	if (!sub(/ +[0-9]+(\/[0-9]+)? +\[[0-9]+\] .*$/, "", line))
		sub(/ +[0-9]+(\/[0-9]+)? +[0-9]+\.[0-9]+: .*$/, "", line)
	sub(/^ +/, "", line)
	comm = line
	next
}

/^[ \t]*$/ { flush(); next }

{					# a frame line
	line = $0
	sub(/^[ \t]+[0-9a-f]+ /, "", line)
	dso = ""
	if (match(line, / \([^()]*\)$/)) {
		dso = substr(line, RSTART + 2, RLENGTH - 3)
		line = substr(line, 1, RSTART - 1)
	}
	sub(/\+0x[0-9a-f]+$/, "", line)
	if (line == "")
		line = "[unknown]"
	if (dso ~ /^\[kernel\./ || dso ~ /vmlinux/ || dso ~ /^\[[^\]]+\]$/ && dso !~ /^\[(vdso|unknown|heap|stack|anon.*)\]$/)
		line = line "_[k]"
	frame[++n] = line
}

END {
	flush()
	for (s in count)
		print s, count[s] | "LC_ALL=C sort"
}
