#!/usr/bin/env python3
# IN OUT: a copy of the tiny PIE (ELF64 LE) where local_fn is named
# "@GLIBC_2.2.5", the tail of global_fn's new name "printf@GLIBC_2.2.5" in
# .strtab. Regression seed: cutting global_fn's version in place emptied
# local_fn's name (elf_syms.c now drops such names).
import struct
import sys

d = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', d, 0x28)
shentsize, shnum = struct.unpack_from('<HH', d, 0x3a)
shdrs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
symtab = next(s for s in shdrs if s[1] == 2)	# SHT_SYMTAB
strtab = shdrs[symtab[6]]			# sh_link
strs = bytes(d[strtab[4]:strtab[4] + strtab[5]])
at = strs.find(b'printf@')


def sym_named(name):
    for i in range(symtab[5] // 24):
        st_name, = struct.unpack_from('<I', d, symtab[4] + i * 24)
        if strs[st_name:].split(b'\0')[0] == name:
            return symtab[4] + i * 24
    raise SystemExit('no symbol ' + name.decode())


struct.pack_into('<I', d, sym_named(b'global_fn'), at)
struct.pack_into('<I', d, sym_named(b'local_fn'), at + len('printf'))
open(sys.argv[2], 'wb').write(d)
