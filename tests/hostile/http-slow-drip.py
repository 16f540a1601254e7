#!/usr/bin/python3
"""http-slow-drip: answers every request correctly (initialize with a valid
result for the revision asked, anything else with an empty result, a
notification with 202), but sends the whole response, status line and
headers included, one byte every 50 ms. Bytes arriving must not extend a
deadline."""
import json
import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_hostile  # noqa: E402


def answer(body):
    try:
        msg = json.loads(body)
    except ValueError:
        msg = None
    if not isinstance(msg, dict) or "id" not in msg:
        return http_hostile.head("202 Accepted", [("Content-Length", "0")])
    result = {}
    if msg.get("method") == "initialize":
        params = msg.get("params") or {}
        result = {"protocolVersion": params.get("protocolVersion", "2025-03-26"),
                  "capabilities": {}, "serverInfo": {"name": "slow-drip", "version": "1"}}
    data = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode()
    return http_hostile.head("200 OK", [("Content-Type", "application/json"),
                                        ("Content-Length", str(len(data)))]) + data


def handle(conn, method, target, headers, body):
    for b in answer(body):
        conn.sendall(bytes([b]))
        time.sleep(0.05)
    return True


http_hostile.serve(handle)
