#!/usr/bin/python3
"""http-redirect-loop: answers every request with 302 Found to the very URL it
asked for, keeping the connection. mcpspec follows no redirect unless asked,
and a client that did would loop for ever."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_hostile  # noqa: E402


def handle(conn, method, target, headers, body):
    conn.sendall(http_hostile.head("302 Found", [("Location", target or "/"),
                                                 ("Content-Length", "0")]))
    return True


http_hostile.serve(handle)
