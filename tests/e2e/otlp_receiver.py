#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""An OTLP/HTTP profiles receiver on 127.0.0.1, built on Debian's
python3-protobuf and the upstream .proto files (user/output/proto/UPSTREAM)
compiled by protoc into PROTO_DIR,
as a collector's otlphttp receiver takes the signal: POST
/v1development/profiles only (else 404), Content-Type application/x-protobuf
(else 415), the body gzip when Content-Encoding says so (inflated to 64 MiB
at most), parsed strictly as an ExportProfilesServiceRequest (else 400), and
answered with an ExportProfilesServiceResponse. Each request taken is kept
under DIR: NNNN.otlp (the request, uncompressed), NNNN.headers (the
Content-Encoding and api-key headers, one per line). Files in DIR change
its answer: status (a number: that status instead, with the body
"forced"; 503 and 429 ask the client to retry, 400 to drop), partial ("N
MESSAGE": a partial success, N profiles rejected), delay (seconds to wait
before answering: a slow receiver).
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


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self, status, body=b"", ctype="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if 0 < length <= MAX else b""
        if self.path != PATH:
            return self.answer(404, b"not found")
        if self.headers.get("Content-Type") != "application/x-protobuf":
            return self.answer(415, b"unsupported media type")
        time.sleep(float(setting("delay") or 0))
        status = forced_status()
        if status != 200:
            return self.answer(status, b"forced")
        try:
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
                if len(body) > MAX:
                    raise ValueError("over 64 MiB")
            req = svc.ExportProfilesServiceRequest()
            req.ParseFromString(body)
        except Exception as e:  # noqa: BLE001 (any bad body is a 400)
            return self.answer(400, str(e).encode()[:200])
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
        self.answer(200, reply, "application/x-protobuf")

    def log_message(self, *args):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[3] + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
srv.serve_forever()
