#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Decodes bpfprof's OTLP files (ExportProfilesServiceRequest) strictly with
# Debian's python3-protobuf and the project's .proto compiled by protoc into
# PROTO_DIR; checks the dictionary's rules (entry 0 the zero value in every
# table, no entry twice, every index in range); prints each file's samples
# as folded lines, "FILE\tcomm;root;...;leaf COUNT", with the sample's
# attributes after a tab. Exit 1 with the broken rule said.
import sys

sys.path.insert(0, sys.argv[1])
import otlp_profiles_service_pb2 as svc  # noqa: E402


def fail(msg):
    print("otlp_decode: " + msg, file=sys.stderr)
    sys.exit(1)


def check_table(name, table, zero):
    if not table:
        fail(f"{name} is empty: entry 0 must be the zero value")
    if table[0] != zero:
        fail(f"{name}[0] is not the zero value")
    seen = set()
    for entry in table:
        key = entry if isinstance(entry, str) else entry.SerializeToString(deterministic=True)
        if key in seen:
            fail(f"{name} holds an entry twice")
        seen.add(key)


def in_range(name, i, table):
    if not 0 <= i < len(table):
        fail(f"{name} index {i} out of range (table of {len(table)})")


def check_dictionary(d):
    check_table("string_table", list(d.string_table), "")
    check_table("mapping_table", list(d.mapping_table), type(d.mapping_table[0])())
    check_table("location_table", list(d.location_table), type(d.location_table[0])())
    check_table("function_table", list(d.function_table), type(d.function_table[0])())
    check_table("link_table", list(d.link_table), type(d.link_table[0])())
    check_table("attribute_table", list(d.attribute_table), type(d.attribute_table[0])())
    check_table("stack_table", list(d.stack_table), type(d.stack_table[0])())
    s = d.string_table
    for mp in d.mapping_table:
        in_range("mapping filename", mp.filename_strindex, s)
        for a in mp.attribute_indices:
            in_range("mapping attribute", a, d.attribute_table)
    for fn in d.function_table:
        for i in (fn.name_strindex, fn.system_name_strindex, fn.filename_strindex):
            in_range("function string", i, s)
    for loc in d.location_table:
        in_range("location mapping", loc.mapping_index, d.mapping_table)
        for ln in loc.lines:
            in_range("line function", ln.function_index, d.function_table)
    for st in d.stack_table:
        for li in st.location_indices:
            in_range("stack location", li, d.location_table)
    for kv in d.attribute_table:
        in_range("attribute key", kv.key_strindex, s)


def frame_names(d, loc):
    """Root-first names of one location: its Lines are innermost first."""
    mp = d.string_table[d.mapping_table[loc.mapping_index].filename_strindex]
    suffix = "_[k]" if mp == "[kernel.kallsyms]" else ""
    names = [d.string_table[d.function_table[ln.function_index].name_strindex] + suffix
             for ln in loc.lines]
    return list(reversed(names))


def sample_line(d, smp):
    attrs = {}
    for a in smp.attribute_indices:
        in_range("sample attribute", a, d.attribute_table)
        kv = d.attribute_table[a]
        v = kv.value
        attrs[d.string_table[kv.key_strindex]] = getattr(v, v.WhichOneof("value"))
    in_range("sample stack", smp.stack_index, d.stack_table)
    frames = []
    for li in reversed(d.stack_table[smp.stack_index].location_indices):
        frames += frame_names(d, d.location_table[li])
    comm = attrs.get("thread.name") or "[unknown]"
    return ";".join([comm] + frames), attrs


def main():
    for path in sys.argv[2:]:
        req = svc.ExportProfilesServiceRequest()
        with open(path, "rb") as f:
            req.ParseFromString(f.read())
        d = req.dictionary
        check_dictionary(d)
        for rp in req.resource_profiles:
            res = {kv.key: kv.value.string_value for kv in rp.resource.attributes}
            if not res.get("host.name") or not res.get("service.name"):
                fail(f"{path}: no host.name or service.name in the resource")
            for sp in rp.scope_profiles:
                for pr in sp.profiles:
                    for smp in pr.samples:
                        if len(smp.values) != 1:
                            fail(f"{path}: a sample with {len(smp.values)} values")
                        line, attrs = sample_line(d, smp)
                        extra = ",".join(f"{k}={attrs[k]}" for k in sorted(attrs))
                        print(f"{path}\t{line} {smp.values[0]}\t{extra}")


main()
