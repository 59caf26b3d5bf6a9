#!/usr/bin/env python3
"""A pprof profile of many unnamed locations over many mappings, for
bpfprof symbolize's time (issue 38: a scan of every mapping for every
location took 16 s at 100 k locations).

usage: many_locations.py PB2_DIR OUT.pb.gz LOCATIONS APP BUILD_ID SEGMENT KNOWN EXPECTED

PB2_DIR holds profile_pb2 (protoc --python_out of user/output/proto/
profile.proto). One mapping is APP, a real file whose BUILD_ID a debug
directory holds: its executable segment SEGMENT ("OFFSET,VADDR,SIZE", hex,
as readelf -l prints them) mapped at 0x400000 as a loader maps it. KNOWN
is a file of "VADDR NAME" lines (hex, as nm prints them): each VADDR gets
a location in that mapping. The other locations are in LOCATIONS / 2
mappings, two each, of a file that exists nowhere and has no build-id
(named FILE+0xOFFSET). Mapping ids are shuffled, not index + 1, so that
no lookup can go by position. EXPECTED gets each location's name as
symbolize must give it, "FILE_OFFSET<TAB>NAME" (hex) a line.
"""
import gzip
import random
import sys

sys.path.insert(0, sys.argv[1])
import profile_pb2  # noqa: E402

out, nloc, app, build_id = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
seg_off, seg_vaddr, seg_size = (int(x, 16) for x in sys.argv[6].split(","))
known, expected = sys.argv[7], sys.argv[8]
rng = random.Random(38)
p = profile_pb2.Profile()
p.string_table.append("")


def string(s):
    p.string_table.append(s)
    return len(p.string_table) - 1


st = p.sample_type.add()
st.type, st.unit = string("samples"), string("count")

APP_START = 0x400000
nmaps = nloc // 2
ids = list(range(1, nmaps + 2))
rng.shuffle(ids)
app_map = p.mapping.add()
app_map.id, app_map.memory_start = ids[0], APP_START
app_map.memory_limit = APP_START + (seg_size + 0xfff) // 0x1000 * 0x1000
app_map.file_offset, app_map.filename, app_map.build_id = seg_off, string(app), string(build_id)
lib_name = string("/nonexistent/libmany.so")
for i in range(nmaps):
    m = p.mapping.add()
    m.id = ids[i + 1]
    m.memory_start = 0x7f0000000000 + i * 0x10000
    m.memory_limit = m.memory_start + 0x10000
    m.file_offset, m.filename = 0x1000, lib_name

locs = []  # (mapping, address, name)
for line in open(known):
    vaddr, name = line.split()
    locs.append((app_map, APP_START + int(vaddr, 16) - seg_vaddr, name))
while len(locs) < nloc:  # every other mapping in turn, twice
    m = p.mapping[1 + len(locs) % nmaps]
    off = 0x1000 + rng.randrange(0x10000)
    locs.append((m, m.memory_start + off - m.file_offset, "libmany.so+0x%x" % off))
with open(expected, "w") as f:
    for n, (m, addr, name) in enumerate(locs, 1):
        loc = p.location.add()
        loc.id, loc.mapping_id, loc.address = n, m.id, addr
        f.write("%x\t%s\n" % (addr - m.memory_start + m.file_offset, name))
with gzip.open(out, "wb") as f:
    f.write(p.SerializeToString())
