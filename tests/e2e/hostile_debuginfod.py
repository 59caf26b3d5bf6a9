#!/usr/bin/env python3
"""A hostile debuginfod server on 127.0.0.1, for tests/e2e/debuginfod.sh.

Two listeners: MAIN answers every GET as DIR/mode says; OTHER (another
port) answers any GET with 200 and 4 KiB, to see whether a redirect there
was followed. Each request appends "PORT PATH" to DIR/requests.
  big       Content-Length: 1 GiB, zeros sent as fast as the client takes them
  stream    no Content-Length (the connection's end ends it), 64 MiB of zeros
  loop      302 to the same path: a redirect loop
  other     302 to the same path on OTHER
Usage: hostile_debuginfod.py DIR   (writes DIR/port and DIR/other_port)
"""
import http.server
import os
import sys
import threading

DIR = sys.argv[1]
ZEROS = b"\0" * (1 << 20)


def mode():
    with open(os.path.join(DIR, "mode")) as f:
        return f.read().strip()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        port = self.server.server_address[1]
        with open(os.path.join(DIR, "requests"), "a") as f:
            f.write("%d %s\n" % (port, self.path))
        if self.server is other:
            return self.reply(200, b"x" * 4096)
        m = mode()
        if m in ("loop", "other"):
            host = "127.0.0.1:%d" % (other.server_address[1] if m == "other" else port)
            self.send_response(302)
            self.send_header("Location", "http://%s%s" % (host, self.path))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        if m == "big":
            self.send_header("Content-Length", str(1 << 30))
        self.end_headers()
        for _ in range(1024 if m == "big" else 64):
            self.wfile.write(ZEROS)   # until done or the client goes away

    def reply(self, status, body):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that went away mid-answer is expected


main = Server(("127.0.0.1", 0), Handler)
other = Server(("127.0.0.1", 0), Handler)
threading.Thread(target=other.serve_forever, daemon=True).start()
for name, srv in (("other_port", other), ("port", main)):  # port last: ready
    with open(os.path.join(DIR, name + ".tmp"), "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(os.path.join(DIR, name + ".tmp"), os.path.join(DIR, name))
main.serve_forever()
