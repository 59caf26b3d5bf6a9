#!/usr/bin/env python3
"""Share of a command's samples whose user stack reaches its entry: the
outermost user frame's name matches ROOT_RE (_start, start_thread, clone3,
runtime.goexit...). Samples without user frames are left out.

Usage: root_share.py folded FILE COMM ROOT_RE
       root_share.py perf FILE COMM ROOT_RE   (FILE: perf script -F comm,ip,sym)
Prints "PERCENT HIT ALL" (PERCENT an integer, 0 when ALL is 0).
"""
import re
import sys

KERNEL = 0xffff800000000000


def folded(path, comm, root):
    hit = total = 0
    for line in open(path, errors="replace"):
        frames, _, n = line.rstrip("\n").rpartition(" ")
        f = frames.split(";")
        if f[0] != comm:
            continue
        user = [x for x in f[1:] if not x.endswith("_[k]")]
        if not user:
            continue
        total += int(n)
        hit += int(n) if root.match(user[0]) else 0
    return hit, total


def perf(path, comm, root):
    hit = total = 0
    head, frames = None, []

    def flush():
        nonlocal hit, total
        if head is not None and head.strip() == comm:
            user = [s for a, s in frames if a < KERNEL]
            if user:
                total += 1
                hit += 1 if root.match(user[-1]) else 0

    for line in open(path, errors="replace"):
        if not line.strip():
            flush()
            head, frames = None, []
        elif line[0] in " \t" and head is not None:
            parts = line.split(None, 1)
            try:
                addr = int(parts[0], 16)
            except ValueError:
                continue
            sym = parts[1].strip() if len(parts) > 1 else "[unknown]"
            frames.append((addr, re.sub(r"\+0x[0-9a-f]+$", "", sym)))
        else:
            flush()
            head, frames = line, []
    flush()
    return hit, total


def main():
    kind, path, comm, root = sys.argv[1:5]
    hit, total = (folded if kind == "folded" else perf)(path, comm, re.compile(root))
    print(total and hit * 100 // total, hit, total)


if __name__ == "__main__":
    main()
