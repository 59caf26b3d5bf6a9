#!/usr/bin/env python3
# Prints the line table test vectors of tests/unit/test_python.c: run it
# with the CPython whose format is wanted (3.10, 3.11, 3.13).
import sys
src = '''
def f(a, b):
    x = a + b
    if x > 3:
        y = [i * 2
             for i in range(x)]
    else:
        y = None

    return (x,
            y)
'''
ns = {}
exec(compile(src, "gen.py", "exec"), ns)
co = ns["f"].__code__
lt = co.co_linetable
print("/* CPython %d.%d: f's co_linetable, co_firstlineno %d */" % (sys.version_info[0], sys.version_info[1], co.co_firstlineno))
print("static const uint8_t lt_%d%d[] = {" % sys.version_info[:2], ", ".join("0x%02x" % b for b in lt), "};")
# expected: (offset in code units, line) for every code unit from co_lines
pairs = []
for start, end, line in co.co_lines():
    for b in range(start, end, 2):
        pairs.append((b // 2, -1 if line is None else line))
print("static const int lines_%d%d[][2] = {" % sys.version_info[:2], ", ".join("{%d, %d}" % p for p in pairs), "};")
