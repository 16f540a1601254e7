#!/usr/bin/python3
"""http-huge-event: answers every request with 200 and an SSE stream whose one
event is a 200 MB JSON-RPC response (the request's id, a result padded with a
200 MB string), written 1 MiB at a time, never held whole in memory here.
mcpspec must cut it at --max-message, not buffer it."""
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_hostile  # noqa: E402

SIZE = 200 * 1000 * 1000
CHUNK = b"x" * (1 << 20)


def handle(conn, method, target, headers, body):
    conn.sendall(http_hostile.head("200 OK", [("Content-Type", "text/event-stream"),
                                              ("Cache-Control", "no-cache"),
                                              ("Connection", "close")]))
    rid = http_hostile.request_id(body)
    conn.sendall(b'event: message\ndata: {"jsonrpc":"2.0","id":%s,"result":{"pad":"'
                 % json.dumps(rid).encode())
    sent = 0
    while sent < SIZE:
        conn.sendall(CHUNK)
        sent += len(CHUNK)
    conn.sendall(b'"}}\n\n')
    return False


http_hostile.serve(handle)
