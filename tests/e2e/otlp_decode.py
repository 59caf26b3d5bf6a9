#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Decodes bpfprof's OTLP files (ExportProfilesServiceRequest) strictly with
# Debian's python3-protobuf and the classes protoc generates into PROTO_DIR
# from the upstream .proto files (user/output/proto/UPSTREAM; a string that
# is not UTF-8 fails the parse, as in every strict receiver), and checks
# what profiles.proto (opentelemetry-proto ac2c4b5d) and the semantic
# conventions (v1.44.0) ask of it:
# - no field the official messages do not know, anywhere;
# - every dictionary table: entry 0 the zero value (link_table[0]: ids of
#   16 and 8 zero bytes), no entry twice, none that nothing refers to;
# - every index in range;
# - a resource per process (no two of one pid and cgroup, none empty):
#   process.pid, process.executable.name where the path is known,
#   host.name, service.name, a schema_url;
# - profile.frame.type on every location, one of the conventions' values;
# - no function named with its line ("run (subprocess.py:550)");
# - no two samples of a profile with one identity {stack, attributes, link}.
# Prints each file's samples as folded lines, "FILE\tcomm;root;...;leaf
# COUNT", then a tab and the sample's and its resource's attributes.
# Exit 1 with the broken rule said.
import re
import sys

sys.path.insert(0, sys.argv[1])
from opentelemetry.proto.collector.profiles.v1development import (  # noqa: E402
    profiles_service_pb2 as svc,
)

FRAME_TYPES = {"dotnet", "jvm", "kernel", "native", "perl", "php", "cpython", "ruby",
               "v8js", "beam", "go", "rust", "luajit"}
LINE_IN_NAME = re.compile(r" \([^()]*:[0-9]+\)$")


def fail(msg):
    print("otlp_decode: " + msg, file=sys.stderr)
    sys.exit(1)


def no_unknown_fields(msg, where):
    if len(msg.UnknownFields()):
        fail(f"{where}: {len(msg.UnknownFields())} fields the official messages do not know")
    for fd, value in msg.ListFields():
        if fd.type != fd.TYPE_MESSAGE:
            continue
        for i, sub in enumerate(value if fd.label == fd.LABEL_REPEATED else [value]):
            no_unknown_fields(sub, f"{where}.{fd.name}[{i}]")


def check_table(name, table, zero):
    if not table:
        fail(f"{name} is empty: entry 0 must be the zero value")
    if table[0] not in zero:
        fail(f"{name}[0] is not the zero value")
    seen = set()
    for entry in table:
        key = entry if isinstance(entry, str) else entry.SerializeToString(deterministic=True)
        if key in seen:
            fail(f"{name} holds an entry twice")
        seen.add(key)


def in_range(name, i, table, used=None):
    if not 0 <= i < len(table):
        fail(f"{name} index {i} out of range (table of {len(table)})")
    if used is not None:
        used.add(i)


def zero_link(d):
    link = type(d.link_table[0])
    return [link(), link(trace_id=bytes(16), span_id=bytes(8))]


class Uses:
    """The indices something refers to, table by table."""

    def __init__(self):
        self.strings, self.attrs, self.functions = {0}, {0}, {0}
        self.mappings, self.locations, self.stacks = {0}, {0}, {0}


def check_dictionary(d, u):
    z = lambda t: [type(t[0])()]  # noqa: E731
    check_table("string_table", list(d.string_table), [""])
    check_table("mapping_table", list(d.mapping_table), z(d.mapping_table))
    check_table("location_table", list(d.location_table), z(d.location_table))
    check_table("function_table", list(d.function_table), z(d.function_table))
    check_table("link_table", list(d.link_table), zero_link(d))
    check_table("attribute_table", list(d.attribute_table), z(d.attribute_table))
    check_table("stack_table", list(d.stack_table), z(d.stack_table))
    s, a = d.string_table, d.attribute_table
    for mp in d.mapping_table:
        in_range("mapping filename", mp.filename_strindex, s, u.strings)
        for i in mp.attribute_indices:
            in_range("mapping attribute", i, a, u.attrs)
    for fn in d.function_table:
        for i in (fn.name_strindex, fn.system_name_strindex, fn.filename_strindex):
            in_range("function string", i, s, u.strings)
        if LINE_IN_NAME.search(s[fn.name_strindex]):
            fail(f"a function named with its line: {s[fn.name_strindex]!r}")
    for n, loc in enumerate(d.location_table):
        in_range("location mapping", loc.mapping_index, d.mapping_table, u.mappings)
        for ln in loc.lines:
            in_range("line function", ln.function_index, d.function_table, u.functions)
        types = []
        for i in loc.attribute_indices:
            in_range("location attribute", i, a, u.attrs)
            if s[a[i].key_strindex] == "profile.frame.type":
                types.append(a[i].value.string_value)
        if n and (len(types) != 1 or types[0] not in FRAME_TYPES):
            fail(f"location {n} has the frame types {types}, not one of the conventions'")
    for st in d.stack_table:
        for i in st.location_indices:
            in_range("stack location", i, d.location_table, u.locations)
    for kv in a:
        in_range("attribute key", kv.key_strindex, s, u.strings)
        in_range("attribute unit", kv.unit_strindex, s, u.strings)


def check_orphans(d, u):
    for name, table, used in (("string_table", d.string_table, u.strings),
                              ("attribute_table", d.attribute_table, u.attrs),
                              ("function_table", d.function_table, u.functions),
                              ("mapping_table", d.mapping_table, u.mappings),
                              ("location_table", d.location_table, u.locations),
                              ("stack_table", d.stack_table, u.stacks)):
        orphans = set(range(len(table))) - used
        if orphans:
            fail(f"{name}: {len(orphans)} entries nothing refers to (e.g. {sorted(orphans)[:5]})")


def frame_names(d, loc):
    """Root-first names of one location: its Lines are innermost first."""
    mp = d.string_table[d.mapping_table[loc.mapping_index].filename_strindex]
    suffix = "_[k]" if mp == "[kernel.kallsyms]" else ""
    names = [d.string_table[d.function_table[ln.function_index].name_strindex] + suffix
             for ln in loc.lines]
    return list(reversed(names))


def attr_value(v):
    return getattr(v, v.WhichOneof("value"))


def sample_line(d, smp, u):
    attrs = {}
    for a in smp.attribute_indices:
        in_range("sample attribute", a, d.attribute_table, u.attrs)
        kv = d.attribute_table[a]
        attrs[d.string_table[kv.key_strindex]] = attr_value(kv.value)
    in_range("sample stack", smp.stack_index, d.stack_table, u.stacks)
    in_range("sample link", smp.link_index, d.link_table)
    frames = []
    for li in reversed(d.stack_table[smp.stack_index].location_indices):
        frames += frame_names(d, d.location_table[li])
    comm = attrs.get("thread.name") or "[unknown]"
    return ";".join([comm] + frames), attrs


def check_resource(path, rp, res, seen):
    if not rp.schema_url or not all(sp.schema_url for sp in rp.scope_profiles):
        fail(f"{path}: a resource or scope without a schema_url")
    if not res.get("host.name") or not res.get("service.name"):
        fail(f"{path}: no host.name or service.name in the resource")
    if "process.pid" in res:
        who = (res["process.pid"], res.get("process.linux.cgroup"))
        if who in seen:
            fail(f"{path}: two resources of one process (pid {who[0]}, cgroup {who[1]})")
        seen.add(who)
        if not any(len(pr.samples) for sp in rp.scope_profiles for pr in sp.profiles):
            fail(f"{path}: a process's resource without samples (pid {who[0]})")
    if any(len(pr.samples) for sp in rp.scope_profiles for pr in sp.profiles):
        if not isinstance(res.get("process.pid"), int):
            fail(f"{path}: a resource with samples and no process.pid")
        if "process.executable.path" in res and \
                res.get("process.executable.name") != res["process.executable.path"].rsplit("/", 1)[-1]:
            fail(f"{path}: process.executable.name is not the path's file name")


def profile_lines(path, d, pr, res, u):
    in_range("sample type", pr.sample_type.type_strindex, d.string_table, u.strings)
    in_range("sample unit", pr.sample_type.unit_strindex, d.string_table, u.strings)
    in_range("period type", pr.period_type.type_strindex, d.string_table, u.strings)
    in_range("period unit", pr.period_type.unit_strindex, d.string_table, u.strings)
    for i in pr.attribute_indices:
        in_range("profile attribute", i, d.attribute_table, u.attrs)
    identities = set()
    for smp in pr.samples:
        if len(smp.values) != 1:
            fail(f"{path}: a sample with {len(smp.values)} values")
        ident = (smp.stack_index, tuple(sorted(smp.attribute_indices)), smp.link_index)
        if ident in identities:
            fail(f"{path}: two samples of one identity (stack {smp.stack_index}): not merged")
        identities.add(ident)
        line, attrs = sample_line(d, smp, u)
        attrs.update(res)
        extra = ",".join(f"{k}={attrs[k]}" for k in sorted(attrs))
        print(f"{path}\t{line} {smp.values[0]}\t{extra}")


def main():
    for path in sys.argv[2:]:
        req = svc.ExportProfilesServiceRequest()
        with open(path, "rb") as f:
            req.ParseFromString(f.read())
        no_unknown_fields(req, path)
        d, u, procs = req.dictionary, Uses(), set()
        check_dictionary(d, u)
        for rp in req.resource_profiles:
            res = {kv.key: attr_value(kv.value) for kv in rp.resource.attributes}
            check_resource(path, rp, res, procs)
            for sp in rp.scope_profiles:
                for pr in sp.profiles:
                    profile_lines(path, d, pr, res, u)
        check_orphans(d, u)


main()
