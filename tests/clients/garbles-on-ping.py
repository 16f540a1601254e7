#!/usr/bin/python3
"""garbles-on-ping: a minimal client (standard library) that is conformant
except that it writes a line that is not JSON before answering the server's
ping. The plain scenario never pings, so only the observer checks, judged on
every scenario played, can catch it (tests/e2e/test_clients.py).
Usage: garbles-on-ping.py SERVER [ARGS...]"""
import json
import subprocess
import sys


def main(argv):
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(msg):
        server.stdin.write(json.dumps(msg) + "\n")
        server.stdin.flush()

    def call(rid, method, params=None):
        send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}})
        for line in server.stdout:
            msg = json.loads(line)
            if "method" in msg and "id" in msg:
                if msg["method"] == "ping":
                    server.stdin.write("garbled\n")
                    send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
                else:
                    send({"jsonrpc": "2.0", "id": msg["id"],
                          "error": {"code": -32601, "message": "Method not found"}})
            elif msg.get("id") == rid:
                return msg
        return None

    init = call(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                  "clientInfo": {"name": "garbles-on-ping", "version": "1"}})
    if init and "result" in init:
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        call(2, "tools/list")
    server.stdin.close()
    server.wait(timeout=5)


if __name__ == "__main__":
    main(sys.argv[1:])
