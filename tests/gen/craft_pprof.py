#!/usr/bin/env python3
"""A minimal pprof profile for the hostile views tests (issue 23): NSAMPLES
samples of one stack "main;work" in the command COMM, each of VALUE (an
int64), written raw (OUT.pb) or gzip-compressed (OUT.pb.gz), as Go's pprof
lays one out: string_table[0] is "", every sample has one value per sample
type. Usage: craft_pprof.py OUT NSAMPLES VALUE [COMM]"""
import gzip
import os
import sys


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num, payload):
    """A length-delimited field (wire type 2)."""
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def num(num, value):
    """A varint field (wire type 0)."""
    return varint(num << 3) + varint(value)


def main():
    out, nsamples, value = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    comm = sys.argv[4] if len(sys.argv) > 4 else "app"
    strings = ["", "samples", "count", "main", "work", "comm", comm]
    s = {name: i for i, name in enumerate(strings)}
    prof = field(1, num(1, s["samples"]) + num(2, s["count"]))
    label = field(3, num(1, s["comm"]) + num(2, s[comm]))
    for _ in range(nsamples):
        # leaf first: location 2 (work), then 1 (main)
        prof += field(2, field(1, varint(2) + varint(1)) + field(2, varint(value)) + label)
    for loc, fn in ((1, 1), (2, 2)):
        prof += field(4, num(1, loc) + field(4, num(1, fn)))
    for fn, name in ((1, "main"), (2, "work")):
        prof += field(5, num(1, fn) + num(2, s[name]))
    for name in strings:
        prof += field(6, os.fsencode(name))  # argv bytes as given
    with open(out, "wb") as f:
        f.write(gzip.compress(prof) if out.endswith(".gz") else prof)


if __name__ == "__main__":
    main()
