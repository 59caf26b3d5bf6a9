#!/usr/bin/env python3
"""craft_elf.py MODE SRC DST SIZE [PAIRS]

A copy of the x86-64 ELF executable SRC that still runs (the kernel reads
only its program headers) but whose section headers declare tables as big
as a sparse file of SIZE bytes can hold, costing its owner nothing:
  strtab  the symbols' string table spans the file
  symtab  the symbol table spans the file
  shnum   e_shnum 0, and the extended section count (section 0's sh_size)
          as many sections as fit
  ehframe .eh_frame is one CIE and one FDE to the end of the file whose
          instructions are PAIRS (default 5000) advance_loc/def_cfa_offset
          pairs spread evenly through DW_CFA_nop (the sparse file's zeros):
          each row makes a CFI interpreter replay the FDE up to it, through
          the nops (.eh_frame_hdr is renamed away, so nothing else names
          the old FDEs); SIZE 0: the pairs alone, back to back
The crafted sizes are checked to lie inside the file, so that only a
reader without bounds of its own is fooled.
"""
import os
import shutil
import struct
import sys

SHDR = '<IIQQQQIIQQ'    # Elf64_Shdr
SHT_SYMTAB = 2


def section_named(data, hdrs, name):
    shstr = hdrs[struct.unpack_from('<H', data, 0x3e)[0]]
    for i, h in enumerate(hdrs):
        end = data.index(b'\0', shstr[4] + h[0])
        if data[shstr[4] + h[0]:end] == name:
            return i
    sys.exit('craft_elf: no section %s' % name.decode())


def uleb(n):
    out = b''
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def craft_eh_frame(f, data, hdrs, shentsize, shoff, size, pairs):
    """One CIE and one FDE at the end of the file, the FDE to its end."""
    eh = section_named(data, hdrs, b'.eh_frame')
    text = section_named(data, hdrs, b'.text')
    off = (len(data) + 7) & ~7
    addr = hdrs[eh][3]                          # sh_addr: base of pc-relative fields
    # CIE "zR", code align 1, data align -8, ra r16, FDE pointers pcrel|sdata4;
    # CFA = rsp + 8, ra at CFA - 8
    body = b'\0\0\0\0' + b'\x01zR\0' + uleb(1) + b'\x78' + b'\x10' + uleb(1) + b'\x1b'
    body += b'\x0c\x07\x08' + b'\x90\x01'
    body += b'\0' * (-(len(body) + 4) % 8)
    cie = struct.pack('<I', len(body)) + body
    fde_at = off + len(cie)
    insns = b'\x41\x0e\x10' * pairs           # its size: each pair is 3 bytes
    fde_len = size - fde_at - 4                 # to the end of the file: nops after the pairs
    if not size:                                # SIZE 0: the pairs alone, no nops
        size = fde_at + 4 + 13 + len(insns)
        f.truncate(size)
        fde_len = size - fde_at - 4
    if fde_len >= 0xffffffff:
        sys.exit('craft_elf: ehframe: SIZE must stay under 4 GiB')
    pc_field = addr + (fde_at - off) + 8
    head = struct.pack('<IIiI', fde_len, fde_at + 4 - off, hdrs[text][3] - pc_field, pairs) + b'\0'
    f.seek(off)
    f.write(cie + head)
    # the pairs spread evenly through the FDE, nops (holes) between: every
    # row's replay runs through the nops before it
    at, gap = f.tell(), (size - f.tell()) // pairs - 3
    if gap < 0:
        gap = 0
    for i in range(pairs):
        f.seek(at + i * (3 + gap))
        f.write(b'\x41\x0e' + uleb(16 + 8 * (i % 2)))
    hdrs[eh][4] = off                           # sh_offset
    hdrs[eh][5] = size - off                    # sh_size: to the end
    f.seek(shoff + eh * shentsize)
    f.write(struct.pack(SHDR, *hdrs[eh]))
    try:
        i = section_named(data, hdrs, b'.eh_frame_hdr')
    except SystemExit:
        return
    hdrs[i][0] += 1                             # "eh_frame_hdr": not the table any more
    f.seek(shoff + i * shentsize)
    f.write(struct.pack(SHDR, *hdrs[i]))


def main():
    mode, src, dst, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    pairs = int(sys.argv[5]) if len(sys.argv) > 5 else 5000
    shutil.copyfile(src, dst)
    os.chmod(dst, 0o755)
    with open(dst, 'r+b') as f:
        data = f.read()
        if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
            sys.exit('craft_elf: %s: not a little-endian ELF64 file' % src)
        shoff, = struct.unpack_from('<Q', data, 0x28)
        shentsize, shnum = struct.unpack_from('<HH', data, 0x3a)
        hdrs = [list(struct.unpack_from(SHDR, data, shoff + i * shentsize)) for i in range(shnum)]
        if size:
            f.truncate(size)    # sparse: no block is written
        if mode == 'ehframe':
            craft_eh_frame(f, data, hdrs, shentsize, shoff, size, pairs)
            return
        symtab = next(i for i, h in enumerate(hdrs) if h[1] == SHT_SYMTAB)
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
