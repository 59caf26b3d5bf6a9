#!/usr/bin/env python3
"""A stand-in for a Pyroscope server's ingest endpoint, on 127.0.0.1 only.

Every POST is recorded under DIR: NNNN.query (the request line's path and
query), NNNN.type (Content-Type), NNNN.body (the body; for multipart the
'profile' part's bytes). The reply status is read from DIR/status (200 if
absent), so a test can make the server refuse (400) or fail (500).
Usage: ingest_server.py DIR PORTFILE   (writes the port it listens on)
"""
import email.parser
import email.policy
import http.server
import os
import sys

DIR = sys.argv[1]


def profile_part(ctype, body):
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
    for part in msg.iter_parts():
        if part.get_param("name", header="content-disposition") == "profile":
            return part.get_payload(decode=True)
    return b""


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = len([f for f in os.listdir(DIR) if f.endswith(".query")])
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        ctype = self.headers.get("Content-Type", "")
        if ctype.startswith("multipart/form-data"):
            body = profile_part(ctype, body)
        base = os.path.join(DIR, "%04d" % n)
        with open(base + ".body", "wb") as f:
            f.write(body)
        with open(base + ".type", "w") as f:
            f.write(ctype)
        with open(base + ".query", "w") as f:  # last: marks the request complete
            f.write(self.path + "\n")
        status = 200
        try:
            with open(os.path.join(DIR, "status")) as f:
                status = int(f.read().strip())
        except OSError:
            pass
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[2], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
