#!/usr/bin/env python3
"""pprof files that cost a reader time or memory after decoding (issue 23,
review item 7), written raw. Usage:
  pprof_bomb.py repeat OUT N   one sample whose stack is location 1 N times
  pprof_bomb.py ids OUT N      N locations and functions whose ids are not
                               index + 1 (listed last first, id 1000 + 2i),
                               one sample of each"""
import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def num(num, value):
    return varint(num << 3) + varint(value)


def main():
    kind, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    prof = bytearray(field(1, num(1, 1) + num(2, 2)))
    if kind == "repeat":
        prof += field(2, field(1, varint(1) * n) + field(2, varint(1)))
        prof += field(4, num(1, 1) + field(4, num(1, 1)))
        prof += field(5, num(1, 1) + num(2, 3))
    else:
        ids = [1000 + 2 * i for i in range(n)]
        for i in ids:
            prof += field(2, field(1, varint(i)) + field(2, varint(1)))
        for i in reversed(ids):
            prof += field(4, num(1, i) + field(4, num(1, i)))
            prof += field(5, num(1, i) + num(2, 3))
    for s in ("", "samples", "count", "work"):
        prof += field(6, s.encode())
    with open(out, "wb") as f:
        f.write(prof)


main()
