#!/usr/bin/env python3
"""Compare bpfprof's folded stacks of one command with perf's
(`perf script -F comm,ip,sym,dso` of a `perf record --call-graph dwarf` of
the same work): the top leaf<-caller pairs by perf's share, each side's
share printed; exit 1 when one differs by more than MAX_PP points.

Both sides are reduced alike: user frames only, inline frames left out.
A stripped binary's unnamed frames are named as bpfprof names them, by
their FDE's start (BIN+0xSTART, from readelf's own .eh_frame dump).

Usage: perf_compare.py FOLDED PERF_SCRIPT COMM BINARY [TOP=5] [MAX_PP=10]
"""
import bisect
import collections
import os
import re
import subprocess
import sys


def fde_starts(binary):
    out = subprocess.run(["readelf", "-wf", binary], capture_output=True, text=True,
                         check=True).stdout
    spans = sorted((int(a, 16), int(b, 16))
                   for a, b in re.findall(r" FDE .*pc=([0-9a-f]+)\.\.([0-9a-f]+)", out))
    return spans


def fde_name(spans, base, addr):
    i = bisect.bisect_right(spans, (addr, float("inf"))) - 1
    if i >= 0 and spans[i][0] <= addr < spans[i][1]:
        return "%s+0x%x" % (base, spans[i][0])
    return "%s+?" % base


def bpfprof_stacks(path, comm):
    """(leaf-first user frames, count) of comm's lines."""
    for line in open(path):
        frames, _, n = line.rstrip("\n").rpartition(" ")
        f = frames.split(";")
        if f[0] != comm:
            continue
        user = [x for x in f[1:] if not x.endswith("_[k]") and not x.endswith("_[i]")]
        yield user[::-1], int(n)


def perf_stacks(path, comm, binary):
    spans, base = fde_starts(binary), os.path.basename(binary)
    stack, cur = [], None
    for line in list(open(path, errors="replace")) + [""]:
        if line.strip() == "":
            if cur == comm and stack:
                yield stack, 1
            stack, cur = [], None
            continue
        if not line[0].isspace():
            cur = line.split()[0]
            continue
        m = re.match(r"\s*([0-9a-f]+) (.*) \((.*)\)\s*$", line)
        if not m:
            continue
        addr, sym, dso = int(m.group(1), 16), m.group(2), m.group(3)
        if "kernel.kallsyms" in dso or sym.endswith("(inlined)"):
            continue
        sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
        if sym == "[unknown]" and os.path.realpath(dso) == os.path.realpath(binary):
            # a return address points after its call
            sym = fde_name(spans, base, addr - 1 if stack else addr)
        stack.append(sym)


def pair_shares(stacks):
    pairs, total = collections.Counter(), 0
    for frames, n in stacks:
        total += n
        if frames:
            caller = frames[1] if len(frames) > 1 else "-"
            pairs[frames[0] + " <- " + caller] += n
    return {k: v * 100.0 / total for k, v in pairs.items()} if total else {}


def main():
    folded, script, comm, binary = sys.argv[1:5]
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 5
    max_pp = float(sys.argv[6]) if len(sys.argv) > 6 else 10
    ours = pair_shares(bpfprof_stacks(folded, comm))
    theirs = pair_shares(perf_stacks(script, comm, binary))
    if not theirs or not ours:
        print("  no samples (bpfprof %d pairs, perf %d)" % (len(ours), len(theirs)))
        return 1
    bad = 0
    print("  %-44s %8s %8s" % ("leaf <- caller (top %d by perf)" % top, "perf", "bpfprof"))
    for k, v in sorted(theirs.items(), key=lambda kv: -kv[1])[:top]:
        o = ours.get(k, 0.0)
        bad += abs(o - v) > max_pp
        print("  %-44s %7.1f%% %7.1f%%%s" % (k, v, o, "  <- differs" if abs(o - v) > max_pp else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
