#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""An OTLP/HTTP profiles receiver on 127.0.0.1, built on Debian's
python3-protobuf and the upstream .proto files (user/output/proto/UPSTREAM)
compiled by protoc into PROTO_DIR
(with googleapis' google/rpc/status.proto, user/output/proto/google/rpc/),
as the OpenTelemetry Collector's otlp receiver takes the signal (written from
its receiver/otlpreceiver/otlphttp.go, commit b0200f37, and
internal/httphelper's NewStatusFromMsgAndHTTPCode): POST
/v1development/profiles only (else 404), Content-Type application/x-protobuf
(else 415, text/plain), the body gzip when Content-Encoding says so (inflated
to 64 MiB at most), parsed strictly as an ExportProfilesServiceRequest (else
400 with a google.rpc.Status body saying why), and answered with an
ExportProfilesServiceResponse. Each request taken is kept under DIR:
NNNN.otlp (the request, uncompressed), NNNN.headers (the Content-Encoding and
api-key headers, one per line); every POST on the path adds a line to
DIR/requests.log, "MONOTONIC_SECONDS STATUS" (CLOCK_MONOTONIC, as the client's).
Files in DIR change its answer:
  status       a number: that status instead, its body a google.rpc.Status
               (Content-Type application/x-protobuf) whose code is the
               Collector's for the status and whose message is DIR/message
               ("forced" if absent)
  retry_after  with status 429 or 503 (as the Collector, which sets it for
               these alone): the Retry-After header's value, as written
  partial      "N MESSAGE": a partial success, N profiles rejected
  delay        seconds to wait before answering: a slow receiver
Usage: otlp_receiver.py PROTO_DIR DIR PORTFILE
"""
import gzip
import http.server
import os
import sys
import time

sys.path.insert(0, sys.argv[1])
from opentelemetry.proto.collector.profiles.v1development import (  # noqa: E402
    profiles_service_pb2 as svc,
)
from google.rpc import status_pb2  # noqa: E402

DIR = sys.argv[2]
PATH = "/v1development/profiles"
MAX = 64 << 20


def setting(name):
    try:
        with open(os.path.join(DIR, name)) as f:
            return f.read().strip()
    except OSError:
        return ""


def forced_status():
    try:
        return int(setting("status") or "200")
    except ValueError:
        return 200


# google.golang.org/grpc/codes, as NewStatusFromMsgAndHTTPCode maps them
GRPC_CODE = {400: 3, 401: 16, 403: 7, 404: 12, 429: 8, 502: 14, 503: 14, 504: 14}
UNKNOWN = 2


def log_request(status):
    with open(os.path.join(DIR, "requests.log"), "a") as f:
        f.write(f"{time.monotonic():.3f} {status}\n")


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self, status, body=b"", ctype="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def status(self, status, message, headers=()):
        """writeStatusResponse: the error as a google.rpc.Status."""
        st = status_pb2.Status(code=GRPC_CODE.get(status, UNKNOWN), message=message)
        log_request(status)
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        body = st.SerializeToString()
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if 0 < length <= MAX else b""
        if self.path != PATH:
            return self.answer(404, b"404 page not found")
        if self.headers.get("Content-Type") != "application/x-protobuf":
            return self.answer(415, b"415 unsupported media type, supported: "
                               b"[application/json, application/x-protobuf]")
        time.sleep(float(setting("delay") or 0))
        status = forced_status()
        if status != 200:
            after = setting("retry_after")
            headers = [("Retry-After", after)] if after and status in (429, 503) else []
            return self.status(status, setting("message") or "forced", headers)
        try:
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
                if len(body) > MAX:
                    raise ValueError("over 64 MiB")
            req = svc.ExportProfilesServiceRequest()
            req.ParseFromString(body)
        except Exception as e:  # noqa: BLE001 (any bad body is a 400)
            return self.status(400, str(e)[:200])
        n = len([x for x in os.listdir(DIR) if x.endswith(".otlp")])
        base = os.path.join(DIR, f"{n:04d}")
        with open(base + ".otlp", "wb") as f:
            f.write(body)
        with open(base + ".headers", "w") as f:
            for h in ("Content-Encoding", "api-key"):
                f.write(f"{h}: {self.headers.get(h, '')}\n")
        answer = svc.ExportProfilesServiceResponse()
        partial = setting("partial")
        if partial:
            n, _, msg = partial.partition(" ")
            answer.partial_success.rejected_profiles = int(n)
            answer.partial_success.error_message = msg
        reply = answer.SerializeToString()
        log_request(200)
        self.answer(200, reply, "application/x-protobuf")

    def log_message(self, *args):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[3] + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
srv.serve_forever()
