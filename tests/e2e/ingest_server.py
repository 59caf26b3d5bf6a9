#!/usr/bin/env python3
"""A stand-in for a Pyroscope server's ingest endpoint, on 127.0.0.1 only.

Every POST is recorded under DIR: NNNN.query (the request line's path and
query), NNNN.type (Content-Type), NNNN.body (the body; for multipart the
'profile' part's bytes), NNNN.auth (the Authorization header, if any). The reply status is read from DIR/status (200 if
absent), so a test can make the server refuse (400) or fail (500); the reply
body from DIR/reply (empty if absent). DIR/mode makes it hostile:
  hang     reads the request and never answers (the connection stays open)
  endless  answers 200 with a body that never ends
Each connection has its own thread, so one that hangs does not stop the next.
Usage: ingest_server.py DIR PORTFILE [PORT]   (writes the port it listens on;
PORT: that one, to come back where a client still sends)
"""
import email.parser
import email.policy
import http.server
import os
import sys
import time

DIR = sys.argv[1]


def profile_part(ctype, body):
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
    for part in msg.iter_parts():
        if part.get_param("name", header="content-disposition") == "profile":
            return part.get_payload(decode=True)
    return b""


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
        if ctype.startswith("multipart/form-data"):
            body = profile_part(ctype, body)
        base = os.path.join(DIR, "%04d" % n)
        with open(base + ".body", "wb") as f:
            f.write(body)
        with open(base + ".type", "w") as f:
            f.write(ctype)
        if "Authorization" in self.headers:
            with open(base + ".auth", "w") as f:
                f.write(self.headers["Authorization"])
        with open(base + ".query", "w") as f:  # last: marks the request complete
            f.write(self.path + "\n")
        mode = read(os.path.join(DIR, "mode")).decode().strip()
        if mode == "hang":
            time.sleep(3600)
            return
        if mode == "endless":
            self.send_response(200)
            self.end_headers()
            chunk = b"x" * 65536
            while True:  # until the client goes away (BrokenPipeError)
                self.wfile.write(chunk)
        status = int(read(os.path.join(DIR, "status")) or b"200")
        reply = read(os.path.join(DIR, "reply"))
        self.send_response(status)
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
