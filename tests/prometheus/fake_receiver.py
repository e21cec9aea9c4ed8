#!/usr/bin/env python3
"""A remote-write receiver the fault tests control.

fake_receiver.py PORT DIR [CERT KEY CLIENT_CA]
Serves POST on 127.0.0.1:PORT (HTTPS with CERT/KEY, requiring a client certificate
signed by CLIENT_CA, when given). Before each request it reads DIR/mode:
  ok            decode the body (rw_decode.py), 204
  500 | 400     answer that status
  429:N         429 with "Retry-After: N"
  stall         read the request, then answer nothing for 60 s
  auth:HEADER   ok when the Authorization header equals HEADER, else 401
Each request appends one JSON line to DIR/requests.log: time, mode, status, whether the
remote-write headers were right, and for accepted ones the samples of
vigil_samples_total{source="host"} (values) and the label sets seen."""
import http.server
import json
import os
import ssl
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rw_decode  # noqa: E402

PORT, DIR = int(sys.argv[1]), sys.argv[2]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        try:
            mode = open(os.path.join(DIR, "mode")).read().strip()
        except OSError:
            mode = "ok"
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        rec = {"t": time.time(), "mode": mode,
               "headers_ok": self.headers.get("Content-Encoding") == "snappy"
               and self.headers.get("Content-Type") == "application/x-protobuf"
               and self.headers.get("X-Prometheus-Remote-Write-Version") == "0.1.0"}
        status, extra = 204, ()
        if mode.startswith("auth:"):
            if self.headers.get("Authorization") != mode[5:]:
                status = 401
        elif mode.startswith("429:"):
            status, extra = 429, (("Retry-After", mode[4:]),)
        elif mode in ("500", "400"):
            status = int(mode)
        elif mode == "stall":
            rec["status"] = 0
            self.log(rec)
            time.sleep(60)
            return
        if status == 204:
            series = rw_decode.decode(body)
            rec["values"] = [v for labels, samples in series
                             if labels.get("__name__") == "vigil_samples_total"
                             and labels.get("source") == "host" for _, v in samples]
            rec["nseries"] = len(series)
            rec["labels"] = sorted({k for labels, _ in series for k in labels})
        rec["status"] = status
        self.log(rec)
        self.reply(status, extra)

    def log(self, rec):
        with open(os.path.join(DIR, "requests.log"), "a") as f:
            f.write(json.dumps(rec) + "\n")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", PORT), Handler)
if len(sys.argv) > 3:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(sys.argv[5])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
open(os.path.join(DIR, "ready"), "w").close()
srv.serve_forever()
