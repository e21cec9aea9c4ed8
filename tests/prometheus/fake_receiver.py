#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A remote-write receiver the fault tests control.

fake_receiver.py PORT DIR [CERT KEY CLIENT_CA]
Serves POST on 127.0.0.1:PORT (HTTPS with CERT/KEY, requiring a client certificate
signed by CLIENT_CA, when given). Before each request it reads DIR/mode, one mode a
line: the first line is this request's, and is taken off when more lines follow (so a
test can script a sequence; the last line stays):
  ok            decode the body (rw_decode.py) and commit it as Prometheus does (below),
                204, or 400 "out of order sample" when Prometheus would refuse it
  500 | 400 | 404 | 413  answer that status
  429:N | 500:N | 503:N  that status with "Retry-After: N"
  stall         read the request, then answer nothing for 60 s
  late:S        commit as ok does, then answer only after S seconds (a receiver that
                took the batch but whose answer comes after the sender's timeout)
  auth:HEADER   ok when the Authorization header equals HEADER, else 401
Each request appends one JSON line to DIR/requests.log: time, mode, status, whether the
remote-write headers were right, a hash of the body (sha), and for committed ones the samples of
vigil_samples_total{source="host"} stored (values), how many samples were identical
copies of the newest one stored (dups: accepted, not stored again), the label names
seen (labels) and the label sets of the stale markers (stale).

Commit, as Prometheus 2.42's remote-write handler and head appender do
(storage/remote/write_handler.go: one appender per request, rolled back whole on the
first error, answered 400; tsdb/head_append.go, memSeries.appendable, with out-of-order
ingestion off): per series, a sample newer than the newest stored one is appended; one
at the same time with the same value bits is an accepted duplicate, not stored again;
any other (older, or same time with another value) refuses the whole request."""
import hashlib
import http.server
import json
import os
import ssl
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rw_decode  # noqa: E402

PORT, DIR = int(sys.argv[1]), sys.argv[2]
STALE_NAN = 0x7FF0000000000002  # Prometheus model/value/value.go, StaleNaN
HEAD = {}  # series (sorted label tuple) -> (newest timestamp, value bits)
HEAD_LOCK = threading.Lock()


def bits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def commit(series):
    """Append series as one Prometheus appender would; None when refused whole, else
    (the samples stored per series, duplicates accepted)."""
    with HEAD_LOCK:
        new, stored, dups = dict(HEAD), [], 0
        for labels, samples in series:
            key = tuple(sorted(labels.items()))
            for t, v in samples:
                last = new.get(key)
                if last is None or t > last[0]:
                    new[key] = (t, bits(v))
                    stored.append((labels, t, v))
                elif t == last[0] and bits(v) == last[1]:
                    dups += 1
                else:
                    return None
        HEAD.clear()
        HEAD.update(new)
        return stored, dups


def next_mode():
    path = os.path.join(DIR, "mode")
    with HEAD_LOCK:
        try:
            lines = [x.strip() for x in open(path).read().splitlines() if x.strip()]
        except OSError:
            return "ok"
        if len(lines) > 1:
            with open(path + ".tmp", "w") as f:
                f.write("\n".join(lines[1:]) + "\n")
            os.replace(path + ".tmp", path)
        return lines[0] if lines else "ok"


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
        mode = next_mode()
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        rec = {"t": time.time(), "mode": mode,
               "headers_ok": self.headers.get("Content-Encoding") == "snappy"
               and self.headers.get("Content-Type") == "application/x-protobuf"
               and self.headers.get("X-Prometheus-Remote-Write-Version") == "0.1.0",
               "sha": hashlib.sha256(body).hexdigest()[:16]}
        status, extra, delay = 204, (), 0
        if mode.startswith("auth:"):
            if self.headers.get("Authorization") != mode[5:]:
                status = 401
        elif mode.split(":")[0] in ("429", "500", "503") and ":" in mode:
            status, ra = mode.split(":")
            status, extra = int(status), (("Retry-After", ra),)
        elif mode in ("500", "400", "404", "413"):
            status = int(mode)
        elif mode.startswith("late:"):
            delay = float(mode[5:])
        elif mode == "stall":
            rec["status"] = 0
            self.log(rec)
            time.sleep(60)
            return
        if status == 204:
            series = rw_decode.decode(body)
            got = commit(series)
            if got is None:
                status = 400
            else:
                stored, rec["dups"] = got
                rec["values"] = [v for labels, _, v in stored
                                 if labels.get("__name__") == "vigil_samples_total"
                                 and labels.get("source") == "host" and bits(v) != STALE_NAN]
                rec["stale"] = sorted(json.dumps(labels, sort_keys=True)
                                      for labels, _, v in stored if bits(v) == STALE_NAN)
                rec["nseries"] = len(series)
                rec["labels"] = sorted({k for labels, _ in series for k in labels})
        rec["status"] = status
        self.log(rec)
        if delay:
            time.sleep(delay)
        try:
            if status == 400:
                self.send_response(400)
                msg = b"out of order sample\n"
                self.send_header("Content-Length", str(len(msg)))
                self.end_headers()
                self.wfile.write(msg)
            else:
                self.reply(status, extra)
        except OSError:
            pass  # the sender gave up waiting (late:S)

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
