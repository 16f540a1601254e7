#!/usr/bin/python3
"""http-endless-sse: answers every request with 200 and an SSE stream that
never ends: JSON-RPC notifications (a log message) about 10,000 a second,
never the response. Events arriving must not extend a deadline, and the
stream must not grow mcpspec's memory."""
import json
import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_hostile  # noqa: E402


def handle(conn, method, target, headers, body):
    conn.sendall(http_hostile.head("200 OK", [("Content-Type", "text/event-stream"),
                                              ("Cache-Control", "no-cache"),
                                              ("Connection", "close")]))
    n = 0
    while True:
        batch = []
        for _ in range(100):
            n += 1
            note = {"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "tick %d" % n}}
            batch.append("id: %d\nevent: message\ndata: %s\n\n" % (n, json.dumps(note)))
        conn.sendall("".join(batch).encode())
        time.sleep(0.01)


http_hostile.serve(handle)
