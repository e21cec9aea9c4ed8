#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An independent reader of Prometheus remote-write requests, for the tests.

decode(body) takes a request body (snappy block format, then a protobuf WriteRequest)
and returns [(labels dict, [(timestamp_ms, value), ...]), ...]. Written from the
snappy format description (github.com/google/snappy/blob/main/format_description.txt)
and the protobuf wire format (protobuf.dev/programming-guides/encoding), with
WriteRequest from Prometheus's prompb/remote.proto and types.proto; it shares no code
with vigil's encoder.

As a program: decode the request bodies named on the command line (or stdin) and print
one line per sample: labels as JSON, timestamp, value."""
import json
import struct
import sys


def varint(b, i):
    shift = result = 0
    while True:
        c = b[i]
        i += 1
        result |= (c & 0x7F) << shift
        if not c & 0x80:
            return result, i
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def unsnappy(b):
    n, i = varint(b, 0)
    out = bytearray()
    while i < len(b):
        tag = b[i]
        i += 1
        kind = tag & 3
        if kind == 0:
            ln = tag >> 2
            if ln >= 60:
                nb = ln - 59
                ln = int.from_bytes(b[i:i + nb], "little")
                i += nb
            ln += 1
            out += b[i:i + ln]
            i += ln
            continue
        if kind == 1:
            ln = ((tag >> 2) & 7) + 4
            off = ((tag >> 5) << 8) | b[i]
            i += 1
        elif kind == 2:
            ln = (tag >> 2) + 1
            off = int.from_bytes(b[i:i + 2], "little")
            i += 2
        else:
            ln = (tag >> 2) + 1
            off = int.from_bytes(b[i:i + 4], "little")
            i += 4
        if off == 0 or off > len(out):
            raise ValueError("bad snappy offset")
        for _ in range(ln):
            out.append(out[-off])
    if len(out) != n:
        raise ValueError("snappy length %d, header says %d" % (len(out), n))
    return bytes(out)


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        field, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v = b[i:i + 8]
            i += 8
        elif wt == 2:
            ln, i = varint(b, i)
            v = b[i:i + ln]
            if len(v) != ln:
                raise ValueError("truncated field")
            i += ln
        else:
            raise ValueError("unexpected wire type %d" % wt)
        yield field, wt, v


def decode(body):
    series = []
    for f, wt, ts in fields(unsnappy(body)):
        if f != 1 or wt != 2:
            raise ValueError("WriteRequest field %d" % f)
        labels, samples = {}, []
        for g, wt2, v in fields(ts):
            if g == 1:
                kv = {h: x.decode() for h, _, x in fields(v)}
                labels[kv[1]] = kv.get(2, "")
            elif g == 2:
                val, t = 0.0, 0
                for h, _, x in fields(v):
                    if h == 1:
                        val = struct.unpack("<d", x)[0]
                    elif h == 2:
                        t = x - (1 << 64) if x >= 1 << 63 else x
                samples.append((t, val))
        names = list(labels)
        if names != sorted(names):
            raise ValueError("labels not sorted: %s" % names)
        series.append((labels, samples))
    return series


if __name__ == "__main__":
    for path in sys.argv[1:] or ["-"]:
        data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
        for labels, samples in decode(data):
            for t, v in samples:
                print(json.dumps(labels, sort_keys=True), t, v)
