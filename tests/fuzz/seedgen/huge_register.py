#!/usr/bin/env python3
# IN OUT: a copy of the tiny PIE whose first FDE's padding (DW_CFA_nop x 7)
# becomes DW_CFA_same_value r137754760. libdw sized its register table by
# the largest register number a CFI program names: building this file's
# unwind table allocated and zeroed ~1.1 GB before unwind_table.c pre-checked
# the CFI (a regression seed now).
import struct
import sys

d = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', d, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
shdrs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
names = shdrs[shstrndx]
eh = next(s for s in shdrs
          if d[names[4] + s[0]:].split(b'\0')[0] == b'.eh_frame')
fde = eh[4] + 0x18		# the first FDE, after the 0x18-byte CIE
ins = fde + 17			# length, CIE pointer, pc begin, pc range, aug length 0
assert d[ins:ins + 7] == b'\0' * 7, 'not the expected padding'


def uleb(v):
    out = bytearray()
    while True:
        b, v = v & 0x7f, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


d[ins:ins + 5] = b'\x08' + uleb(137754760)	# DW_CFA_same_value
open(sys.argv[2], 'wb').write(d)
