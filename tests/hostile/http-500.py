#!/usr/bin/python3
"""http-500: answers every request, whatever it is, with 500 Internal Server
Error and a short text body, keeping the connection for the next."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_hostile  # noqa: E402

BODY = b"internal error\n"


def handle(conn, method, target, headers, body):
    conn.sendall(http_hostile.head("500 Internal Server Error", [
        ("Content-Type", "text/plain"), ("Content-Length", str(len(BODY)))]) + BODY)
    return True


http_hostile.serve(handle)
