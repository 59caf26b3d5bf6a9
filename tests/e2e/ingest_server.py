#!/usr/bin/python3
"""A Grafana Pyroscope stand-in on 127.0.0.1 that takes or refuses a request
as Pyroscope's own handlers do: written from grafana/pyroscope at commit
3fe6a457a32004efc46da819cbc114472d07415e (2026-08-21), read for this file:

  pkg/ingester/pyroscope/ingest_handler.go   POST /ingest: the query
      (parseInputMetadataFromRequest), the format switch of
      readInputRawDataFromRequest in its order, the statuses of ServeHTTP
  api/model/labelset/labelset.go, validate.go   the name=APP{k=v,...} parser
  pkg/og/convert/pprof/profile.go   pprof by format=pprof (raw body) or a
      multipart form (field "profile"), metricName()'s guess of __name__
  pkg/og/convert/parser.go ParseGroups, pkg/og/convert/profile/profile.go,
  pkg/ingester/pyroscope/ingest_adapter.go   folded: the app's last ".type"
  pkg/distributor/distributor.go Push/pushSeries   POST
      /push.v1.PusherService/Push (connect; protojson: unknown fields
      dropped, bytes in base64), then what every profile goes through:
  pkg/validation/validate.go ValidateProfile, ValidateLabels (defaults of
      pkg/validation/limits.go), pkg/phlaredb/labels/labels.go (profile type
      ids: NAME:TYPE:UNIT:PERIOD_TYPE:PERIOD_UNIT, one per sample type)

Statuses, as Pyroscope answers: /ingest: a bad name 400; pprof that does
not parse, or that the distributor refuses, 422 (ServeHTTP: not an
ingestion.Error); folded whose profile type is unknown or refused 400
(ingestion.Error -> connect InvalidArgument); a folded line whose count is
not a number 422. Push: JSON that does not parse 400, a pprof that does not
decode 500 (connect's "unknown"), a profile or labels refused 400. Errors
are connect's JSON {"code":..., "message":...}. Not modelled (answered 501,
never sent by bpfprof): /ingest's trie, tree, lines, jfr and speedscope,
and Push in application/proto.

Every POST is recorded under DIR: NNNN.query (the path and query),
NNNN.type (Content-Type), NNNN.body (the body; for a multipart form its
'profile' part), NNNN.auth (the Authorization header, if any), and, of what
was accepted, NNNN.types (a line per profile type id Pyroscope files it
under: "ID service_name=S total=T time=NS", T the sum of that sample
type's values, NS the profile's start) and NNNN.sK.pb (series K's pprof, uncompressed). The reply status is
forced by DIR/status (absent: Pyroscope's verdict), its body by DIR/reply
(either there: that body, else Pyroscope's).
DIR/mode makes it hostile:
  hang     reads the request and never answers (the connection stays open)
  endless  answers 200 with a body that never ends
Each connection has its own thread, so one that hangs does not stop the next.
Usage: ingest_server.py DIR PORTFILE [PORT]   (writes the port it listens on;
PORT: that one, to come back where a client still sends)
"""
import base64
import binascii
import email.parser
import email.policy
import gzip
import http.server
import json
import os
import subprocess
import sys
import time
import urllib.parse

try:
    import google.protobuf  # noqa: F401
except ImportError:  # a pyenv shim came first in PATH: Debian's has python3-protobuf
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)

DIR = sys.argv[1]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
PROTO_OUT = os.path.join(DIR, ".proto")  # hidden: tests list DIR's requests
os.makedirs(PROTO_OUT, exist_ok=True)
# Pyroscope's decoder (vtproto) takes any bytes in a string and
# ValidateProfile refuses invalid UTF-8 after (400); python's would refuse
# them at parse time: the string table is read as bytes, checked below.
with open(os.path.join(ROOT, "user/output/proto/profile.proto")) as f:
    proto = f.read().replace("repeated string string_table", "repeated bytes string_table")
with open(os.path.join(PROTO_OUT, "profile.proto"), "w") as f:
    f.write(proto)
subprocess.run(["protoc", "--python_out=" + PROTO_OUT, "--proto_path=" + PROTO_OUT,
                "profile.proto"], check=True)
sys.path.insert(0, PROTO_OUT)
import profile_pb2  # noqa: E402

# pkg/validation/limits.go defaults
MAX_PROFILE_BYTES = 4 << 20
MAX_SAMPLES = 16000
MAX_SAMPLE_LABELS = 100
MAX_LABEL_NAMES = 30
MAX_LABEL_NAME_LEN = 1024
MAX_LABEL_VALUE_LEN = 2048
REJECT_OLDER_S = 3600
REJECT_NEWER_S = 600
# connect's codes by HTTP status and back (connectrpc.com/connect)
STATUS_CODE = {400: "invalid_argument", 408: "deadline_exceeded",
               413: "resource_exhausted", 422: "invalid_argument",
               429: "resource_exhausted", 500: "unknown", 501: "unimplemented"}


class Refused(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


# -- api/model/labelset: ValidateServiceName, ValidateLabelName, Parse
def label_rune_ok(c):
    return c.isascii() and (c.isalnum() or c in "_.")


def validate_service_name(n):
    if not n:
        raise Refused(400, "name: service name is required")
    for c in n:
        if not (c in "-./" or label_rune_ok(c)):
            raise Refused(400, "name: invalid service name: %s: character is not "
                          "allowed: %r" % (n, c))


def validate_label_name(k):
    if not k:
        raise Refused(400, "name: label name is required")
    for c in k:
        if not label_rune_ok(c):
            raise Refused(400, "name: invalid label name: %s: character is not "
                          "allowed: %r" % (k, c))
    if k == "__name__":
        raise Refused(400, "name: label name is reserved: " + k)


def parse_labelset(name):
    """labelset.Parse: APP{k=v,...}; the app is labels['__name__']."""
    labels, state, key, value = {}, "name", "", ""
    for c in name + "{":
        if state == "name":
            if c == "{":
                state = "tags"
                app = value.strip()
                validate_service_name(app)
                labels["__name__"] = app
            else:
                value += c
        elif state == "tags":
            if c == "}":
                state = "done"
            elif c == "=":
                state, value = "value", ""
            else:
                key += c
        elif state == "value":
            if c in ",}":
                state = "tags"
                k = key.strip()
                if k != "__name__":
                    validate_label_name(k)
                labels[k] = value.strip()
                key = ""
            else:
                value += c
    return labels


# -- pkg/pprof RawFromBytesWithLimit
def decode_pprof(raw):
    data = raw
    if raw[:2] == b"\x1f\x8b":
        try:
            data = gzip.GzipFile(fileobj=__import__("io").BytesIO(raw)).read(
                MAX_PROFILE_BYTES + 1)
        except (OSError, EOFError) as e:
            raise Refused(500, "gzip: %s" % e)
    if len(data) > MAX_PROFILE_BYTES:
        raise Refused(400, "uncompressed profile payload size exceeds limit")
    p = profile_pb2.Profile()
    try:
        p.ParseFromString(data)
    except Exception as e:  # google.protobuf.message.DecodeError
        raise Refused(500, "failed to parse pprof: %s" % e)
    return p, data


# -- pkg/validation/validate.go ValidateProfile
def strings(p):
    return [b.decode("utf-8", "replace") for b in p.string_table]


def validate_profile(p):
    st = strings(p)
    if not p.sample_type:
        raise Refused(400, "empty profile")
    now = time.time()
    if p.time_nanos > 0:
        t = p.time_nanos / 1e9
        if not (now - REJECT_OLDER_S < t < now + REJECT_NEWER_S):
            raise Refused(400, "profile outside the ingestion window")
    if len(p.sample) > MAX_SAMPLES:
        raise Refused(400, "too many samples")
    for s in p.sample:
        if len(s.label) > MAX_SAMPLE_LABELS:
            raise Refused(400, "too many sample labels")
    if any(loc.id == 0 for loc in p.location):
        raise Refused(400, "location id is 0")
    if any(fn.id == 0 for fn in p.function):
        raise Refused(400, "function id is 0")
    for s in p.sample:
        if len(s.value) != len(p.sample_type):
            raise Refused(400, "sample value length mismatch")
    if not st or st[0] != "":
        raise Refused(400, "string 0 should be empty string")
    n = len(st)
    if any(vt.type >= n for vt in p.sample_type) or \
            any(lb.str >= n or lb.key >= n for s in p.sample for lb in s.label) or \
            any(f.name >= n or f.system_name >= n or f.filename >= n for f in p.function) or \
            any(m.filename >= n or m.build_id >= n for m in p.mapping):
        raise Refused(400, "string index out of range")
    for vt in p.sample_type:
        if "-" in st[vt.type]:
            raise Refused(400, "sample type contains -")
    for b in p.string_table:
        try:
            b.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(400, "invalid utf8 string hex: " + b.hex())


# -- pkg/validation/validate.go ValidateLabels (label sanitization is off
# by default: names are any UTF-8)
def validate_labels(labels):
    if not labels:
        raise Refused(400, "no labels")
    if len(labels) > MAX_LABEL_NAMES:
        raise Refused(400, "too many label names")
    if not labels.get("__name__"):
        raise Refused(400, "invalid labels: invalid metric name")
    if not labels.get("service_name"):
        raise Refused(400, "invalid labels: service name is not provided")
    for k, v in labels.items():
        if len(k) > MAX_LABEL_NAME_LEN or len(v) > MAX_LABEL_VALUE_LEN:
            raise Refused(400, "label name or value too long")
        if not k:
            raise Refused(400, "invalid label name ''")


def series_labels(p, labels):
    """distributor: service_name defaults; each sample's string labels join
    the series' (visitSampleSeries) and every set is validated."""
    labels = dict(labels)
    labels.setdefault("service_name", "unknown_service")
    st = strings(p)
    sets = {tuple(sorted((st[lb.key], st[lb.str]) for lb in s.label if lb.str))
            for s in p.sample} or {()}
    for extra in sets:
        validate_labels({**labels, **dict(extra)})
    return labels


def profile_types(p, labels):
    """phlaredb/labels CreateProfileLabels: an id per sample type."""
    st = strings(p)
    pt = (st[p.period_type.type], st[p.period_type.unit]) if p.HasField("period_type") else ("", "")
    out = []
    for i, vt in enumerate(p.sample_type):
        total = sum(s.value[i] for s in p.sample)
        out.append("%s:%s:%s:%s:%s service_name=%s total=%d time=%d" % (
            labels["__name__"], st[vt.type], st[vt.unit], pt[0], pt[1],
            labels["service_name"], total, p.time_nanos))
    return out


def accept(p, labels):
    validate_profile(p)
    return profile_types(p, series_labels(p, labels))


# -- /push.v1.PusherService/Push
def push(ctype, body):
    media = ctype.split(";")[0].strip().lower()
    if media == "application/proto":
        raise Refused(501, "application/proto: not modelled by this receiver")
    if media != "application/json":
        raise Refused(415, "unsupported content type " + ctype)
    try:
        req = json.loads(body)
    except ValueError as e:
        raise Refused(400, "unmarshal into *v1.PushRequest: %s" % e)
    if not isinstance(req, dict):
        raise Refused(400, "unmarshal into *v1.PushRequest: not an object")
    accepted, pprofs, first_err = [], [], None
    for series in req.get("series") or []:
        labels = {}
        for lp in series.get("labels") or []:
            labels[lp.get("name", "")] = lp.get("value", "")
        for sample in series.get("samples") or []:
            raw = sample.get("rawProfile", sample.get("raw_profile", ""))
            try:
                raw = base64.b64decode(raw + "=" * (-len(raw) % 4),
                                       altchars=b"-_" if ("-" in raw or "_" in raw) else None,
                                       validate=True)
            except (binascii.Error, ValueError) as e:
                raise Refused(400, "unmarshal into *v1.PushRequest: bad base64: %s" % e)
            try:
                p, data = decode_pprof(raw)
                accepted += accept(p, labels)
                pprofs.append(data)
            except Refused as e:
                first_err = first_err or e
    if first_err:
        raise first_err
    if not pprofs:
        raise Refused(400, "no profiles received")
    return accepted, pprofs


# -- /ingest
def pprof_metric_name(p):
    """convert/pprof metricName(): the guess from the sample types (the
    default sample type config: "samples" reads as "cpu")."""
    st = strings(p)
    names = [st[vt.type] for vt in p.sample_type]
    if "wall" in names:
        return "wall"
    name = ""
    for name in names:
        if name == "samples":
            name = "cpu"
        elif name == "contentions":
            name = "mutex_count"
        elif name == "delay":
            name = "mutex_duration"
        elif name == "goroutine":
            name = "goroutines"
        if "cpu" in name:
            return "process_cpu"
        if "alloc_" in name or "inuse_" in name or name in ("space", "objects"):
            return "memory"
        if "mutex_" in name:
            return "mutex"
        if "block_" in name:
            return "block"
        if "goroutines" in name:
            return "goroutines"
    return name


FOLDED_TYPES = {  # ingest_adapter.go convertMetadata: suffix -> metric, type, unit
    "cpu": ("process_cpu", "samples", "count"), "itimer": ("process_cpu", "samples", "count"),
    "wall": ("wall", "samples", "count"),
    "seconds": ("wall", "samples", "count"), "nanoseconds": ("wall", "samples", "count"),
    "microseconds": ("wall", "samples", "count"), "milliseconds": ("wall", "samples", "count"),
    "inuse_objects": ("memory", "inuse_objects", "count"),
    "inuse_space": ("memory", "inuse_space", "bytes"),
    "alloc_objects": ("memory", "alloc_objects", "count"),
    "alloc_space": ("memory", "alloc_space", "bytes"),
    "goroutines": ("goroutine", "goroutines", "count"),
    "mutex_count": ("mutex", "contentions", "count"),
    "mutex_duration": ("mutex", "delay", "nanoseconds"),
    "block_count": ("block", "contentions", "count"),
    "block_duration": ("block", "delay", "nanoseconds"),
    "lock_count": ("block", "contentions", "count"),
    "lock_duration": ("block", "delay", "nanoseconds"),
    "exceptions": ("exceptions", "samples", "count"),
    "bytes": ("memory", "samples", "bytes"), "live": ("memory", "live", "count"),
}


def ingest_folded(meta, body):
    total = 0
    for line in body.split(b"\n"):  # convert.ParseGroups
        line = line.rstrip(b"\r")
        i = line.rfind(b" ")
        if i < 0:
            continue
        try:
            total += int(line[i + 1:])
        except ValueError as e:  # strconv.Atoi: not an ingestion.Error
            raise Refused(422, "strconv.Atoi: %s" % e)
    app = meta["labels"]["__name__"]
    parts = app.split(".")
    kind = "cpu" if len(parts) <= 1 else parts[-1]
    if len(parts) > 1:
        app = ".".join(parts[:-1])
    if kind not in FOLDED_TYPES:  # ingestion.Error(connect InvalidArgument)
        raise Refused(400, "pyroscopeIngesterAdapter failed to convert metadata: "
                      "unknown profile type: " + kind)
    metric, stype, sunit = FOLDED_TYPES[kind]
    ptype = punit = ""
    if meta["sample_rate"] and metric in ("wall", "process_cpu"):
        period = 1000000000 // meta["sample_rate"]
        stype, sunit, ptype, punit = ("wall" if metric == "wall" else "cpu", "nanoseconds",
                                      "cpu", "nanoseconds")
        total *= period
    labels = {k: v for k, v in meta["labels"].items() if not k.startswith("__")}
    labels.setdefault("service_name", app)
    labels["__name__"] = metric
    try:
        validate_labels(labels)
    except Refused as e:
        raise Refused(400, "pyroscopeIngesterAdapter failed to push: %s" % e)
    return ["%s:%s:%s:%s:%s service_name=%s total=%d time=%d" % (
        metric, stype, sunit, ptype, punit, labels["service_name"], total,
        meta["from"] * 1000000000)], []


def form_field(ctype, body, name):
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
    if not msg.is_multipart():
        raise Refused(422, "failed to parse pprof /ingest multipart form")
    for part in msg.iter_parts():
        if part.get_param("name", header="content-disposition") == name and \
                part.get_filename() is not None:  # form.ReadField: files only
            return part.get_payload(decode=True)
    return None


def ingest_pprof(meta, raw):
    try:
        if not raw:
            return [], []
        p, data = decode_pprof(raw)
        labels = {k: v for k, v in meta["labels"].items() if not k.startswith("__")}
        labels["__name__"] = pprof_metric_name(p)
        labels.setdefault("service_name", meta["labels"]["__name__"])
        return accept(p, labels), [data]
    except Refused as e:  # parseToPprof's errors are no ingestion.Error: 422
        raise Refused(422, str(e))


def ingest(query, ctype, body):
    q = urllib.parse.parse_qs(query, keep_blank_values=True)

    def get(k):
        return q.get(k, [""])[0]

    meta = {"labels": parse_labelset(get("name"))}
    try:  # attime.Parse: UNIX seconds here (bpfprof's)
        meta["from"] = int(get("from"))
    except ValueError:
        meta["from"] = int(time.time())
    try:
        meta["sample_rate"] = int(get("sampleRate") or "100")
        if meta["sample_rate"] < 0:
            raise ValueError
    except ValueError:
        meta["sample_rate"] = 100
    fmt = get("format")
    # readInputRawDataFromRequest's switch, in its order
    if fmt == "trie" or ctype == "binary/octet-stream+trie" or \
            fmt == "tree" or ctype == "binary/octet-stream+tree" or \
            fmt in ("lines", "jfr", "speedscope"):
        raise Refused(501, "format %r: not modelled by this receiver" % fmt)
    if fmt == "pprof":
        return ingest_pprof(meta, body)
    if "multipart/form-data" in ctype:
        raw = form_field(ctype, body, "profile")
        if form_field(ctype, body, "prev_profile"):
            raise Refused(422, "unsupported client version")
        return ingest_pprof(meta, raw or b"")
    return ingest_folded(meta, body)


def verdict(path, ctype, body):
    url = urllib.parse.urlsplit(path)
    if url.path == "/ingest":
        return ingest(url.query, ctype, body)
    if url.path == "/push.v1.PusherService/Push":
        return push(ctype, body)
    raise Refused(404, "404 page not found")


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = len([f for f in os.listdir(DIR) if f.endswith(".query")])
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        ctype = self.headers.get("Content-Type", "")
        base = os.path.join(DIR, "%04d" % n)
        mode = read(os.path.join(DIR, "mode")).decode().strip()
        try:
            if mode:  # hostile: no verdict, nothing to weigh
                raise Refused(200, "")
            types, pprofs = verdict(self.path, ctype, body)
            status, reply = 200, b"{}"
        except Refused as e:
            types, pprofs = [], []
            status = e.status
            reply = json.dumps({"code": STATUS_CODE.get(e.status, "unknown"),
                                "message": str(e)}).encode()
        kept = body
        if ctype.startswith("multipart/form-data"):
            try:
                kept = form_field(ctype, body, "profile") or b""
            except Refused:
                kept = b""
        with open(base + ".body", "wb") as f:
            f.write(kept)
        with open(base + ".type", "w") as f:
            f.write(ctype)
        if types:
            with open(base + ".types", "w") as f:
                f.write("".join(t + "\n" for t in types))
        for k, data in enumerate(pprofs):
            with open("%s.s%d.pb" % (base, k), "wb") as f:
                f.write(data)
        if "Authorization" in self.headers:
            with open(base + ".auth", "w") as f:
                f.write(self.headers["Authorization"])
        with open(base + ".query", "w") as f:  # last: marks the request complete
            f.write(self.path + "\n")
        if mode == "hang":
            time.sleep(3600)
            return
        if mode == "endless":
            self.send_response(200)
            self.end_headers()
            chunk = b"x" * 65536
            while True:  # until the client goes away (BrokenPipeError)
                self.wfile.write(chunk)
        forced, forced_reply = read(os.path.join(DIR, "status")), read(os.path.join(DIR, "reply"))
        if forced:
            status = int(forced)
        if forced or forced_reply:
            reply = forced_reply
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that went away mid-reply (endless) is expected


server = Server(("127.0.0.1", int(sys.argv[3]) if len(sys.argv) > 3 else 0), Handler)
with open(sys.argv[2], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
