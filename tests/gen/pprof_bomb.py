#!/usr/bin/env python3
"""pprof files that cost a reader time or memory after decoding (issue 23,
review item 7), written raw. Usage:
  pprof_bomb.py repeat OUT N   one sample whose stack is location 1 N times
  pprof_bomb.py ids OUT N      N locations and functions whose ids are not
                               index + 1 (listed last first, id 1000 + 2i),
                               one sample of each"""
import os
import sys

# the protobuf wire helpers of craft_pprof.py, beside this file
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from craft_pprof import field, num, varint  # noqa: E402


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
