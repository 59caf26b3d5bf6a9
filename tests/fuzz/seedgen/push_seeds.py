#!/usr/bin/env python3
"""Seeds of fuzz_spool (spool items: a format byte, then the file) and
fuzz_push_reply (status, excerpt size, repeat, length-prefixed chunks).
Run from the top: python3 tests/fuzz/seedgen/push_seeds.py"""
import struct
import zlib


def item(fmt, body):
    word = "pprof" if fmt else "folded"
    head = "bpfprof-spool 1 %s 7 8 %d %08x\n" % (word, len(body), zlib.crc32(body))
    return bytes([fmt]) + head.encode() + body


def reply(status, cap, repeat, chunks):
    out = struct.pack("<hBB", status, cap, repeat)
    for c in chunks:
        out += bytes([len(c)]) + c
    return out


SEEDS = {
    "spool/folded": item(0, b"app;main;work 3\napp;main;idle_[k] 1\n"),
    "spool/pprof": item(1, bytes.fromhex("1f8b0800000000000003") + b"\x00" * 8),
    "spool/empty_body": item(0, b""),
    "spool/no_header": b"\x00planted;stack 1\n",
    "spool/name": b"\x0000000000000000000003-10-11.folded",
    "push_reply/ok": reply(200, 200, 0, [b"ok\n"]),
    "push_reply/refused": reply(400, 170, 0, [b"invalid ", b"label \x1b[31mname\r\nmore"]),
    "push_reply/endless": reply(200, 20, 63, [b"x" * 255] * 6),
    "push_reply/busy": reply(429, 4, 1, [b"slow down"]),
    # header lines: a Retry-After in each of its forms, a Content-Type
    "push_reply/retry_after": reply(503, 80, 0, [
        b"HTTP/1.1 503 Service Unavailable\r\n", b"Retry-After: 120\r\n",
        b"retry-after: Sun, 06 Nov 1994 08:49:37 GMT\r\n",
        b"Retry-After: Sunday, 06-Nov-94 08:49:37 GMT\r\n",
        b"Retry-After: Sun Nov  6 08:49:37 1994\r\n",
        b"Content-Type: application/x-protobuf\r\n", b"\r\n"]),
}
for name, data in SEEDS.items():
    with open("tests/fuzz/corpus/" + name, "wb") as f:
        f.write(data)
