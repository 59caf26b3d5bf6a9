#!/usr/bin/env python3
"""craft_elf.py MODE SRC DST SIZE

A copy of the x86-64 ELF executable SRC that still runs (the kernel reads
only its program headers) but whose section headers declare tables as big
as a sparse file of SIZE bytes can hold, costing its owner nothing:
  strtab  the symbols' string table spans the file
  symtab  the symbol table spans the file
  shnum   e_shnum 0, and the extended section count (section 0's sh_size)
          as many sections as fit
The crafted sizes are checked to lie inside the file, so that only a
reader without bounds of its own is fooled.
"""
import os
import shutil
import struct
import sys

SHDR = '<IIQQQQIIQQ'    # Elf64_Shdr
SHT_SYMTAB = 2


def main():
    mode, src, dst, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    shutil.copyfile(src, dst)
    os.chmod(dst, 0o755)
    with open(dst, 'r+b') as f:
        data = f.read()
        if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
            sys.exit('craft_elf: %s: not a little-endian ELF64 file' % src)
        shoff, = struct.unpack_from('<Q', data, 0x28)
        shentsize, shnum = struct.unpack_from('<HH', data, 0x3a)
        hdrs = [list(struct.unpack_from(SHDR, data, shoff + i * shentsize)) for i in range(shnum)]
        symtab = next(i for i, h in enumerate(hdrs) if h[1] == SHT_SYMTAB)
        f.truncate(size)        # sparse: no block is written
        if mode == 'strtab':
            i = hdrs[symtab][6]                 # sh_link
            hdrs[i][5] = size - hdrs[i][4]      # sh_size = to the end
        elif mode == 'symtab':
            i = symtab
            hdrs[i][5] = (size - hdrs[i][4]) // 24 * 24
        elif mode == 'shnum':
            i = 0
            hdrs[0][5] = (size - shoff) // shentsize
            f.seek(0x3c)
            f.write(struct.pack('<H', 0))       # e_shnum 0: the count is in section 0
        else:
            sys.exit('craft_elf: unknown mode ' + mode)
        f.seek(shoff + i * shentsize)
        f.write(struct.pack(SHDR, *hdrs[i]))


if __name__ == '__main__':
    main()
