#!/usr/bin/env python3
"""What a screenshot shows, row by row: png_rows.py FILE.png Y0 Y1

Prints two numbers: the share (%) of the pixels from row Y0 to row Y1
(excluded) that are coloured (a frame's hue: saturated, not the page's
white or the bar's greys), and how many of those rows are frames from
edge to edge (at least 90% of the row's pixels not white). Reads the 8-bit
RGB/RGBA non-interlaced PNGs Chromium writes; no library needed."""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG: " + path)
    pos, idat, head = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = head
    if depth != 8 or ctype not in (2, 6) or interlace:
        sys.exit("unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(b"".join(idat)), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return rows


def main():
    rows = read_png(sys.argv[1])
    y0, y1 = int(sys.argv[2]), min(int(sys.argv[3]), len(rows))
    coloured = total = full = 0
    for row in rows[y0:y1]:
        ink = 0
        for r, g, b in row:
            total += 1
            coloured += max(r, g, b) - min(r, g, b) > 40
            ink += min(r, g, b) < 235
        full += ink >= 0.9 * len(row)
    print("%.1f %d" % (100.0 * coloured / total if total else 0, full))


main()
