#!/usr/bin/python3
"""http-close-mid-body: answers every request with 200, a Content-Length of
4096 and the first bytes of a JSON-RPC response (the request's id), then
closes the connection: the body is cut short."""
import json
import os
import socket
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_hostile  # noqa: E402


def handle(conn, method, target, headers, body):
    part = '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"' % json.dumps(
        http_hostile.request_id(body))
    conn.sendall(http_hostile.head("200 OK", [("Content-Type", "application/json"),
                                              ("Content-Length", "4096")]) + part.encode())
    conn.shutdown(socket.SHUT_RDWR)
    return False


http_hostile.serve(handle)
