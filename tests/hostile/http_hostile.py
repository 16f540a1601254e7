"""http_hostile.py - what the tests/hostile/http-*.py fixtures share (not a
fixture itself): a bare HTTP/1.1 server on 127.0.0.1, written on raw sockets
so that each fixture controls every byte it sends and when. The port is the
first argument, else the PORT environment variable (as mcpspec's --env sets
it). One thread per connection; SIGTERM ends the process (the default).

With the argument "handshake", a fixture first behaves: it answers
initialize (the revision asked) and accepts notifications with 202, and
misbehaves on every other request, so that mcpspec gets past discovery and
meets the fault in its cases, its stall probe and its shutdown."""
import json
import os
import socket
import sys
import threading


HANDSHAKE = "handshake" in sys.argv[1:]


def _listen():
    ports = [a for a in sys.argv[1:] if a.isdigit()]
    port = int(ports[0]) if ports else int(os.environ["PORT"])
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(128)
    return srv


def read_request(f):
    """(method, target, headers with lower-case names, body) or None at the end."""
    line = f.readline(65536)
    if not line.strip():
        return None
    method, target = (line.decode("latin-1").split() + ["", ""])[:2]
    headers = {}
    while True:
        h = f.readline(65536)
        if h in (b"\r\n", b"\n", b""):
            break
        name, _, value = h.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length") or 0)
    return method, target, headers, f.read(length) if length else b""


def request_id(body):
    """The JSON-RPC id of the request in body, or None (a notification, not JSON)."""
    try:
        msg = json.loads(body)
    except ValueError:
        return None
    return msg.get("id") if isinstance(msg, dict) else None


def head(status, headers):
    lines = ["HTTP/1.1 %s" % status] + ["%s: %s" % kv for kv in headers] + ["", ""]
    return "\r\n".join(lines).encode("latin-1")


def handshake_answer(body):
    """The well-behaved answer to initialize or to a notification (bytes), else None."""
    try:
        msg = json.loads(body)
    except ValueError:
        return None
    if not isinstance(msg, dict):
        return None
    if "id" not in msg and "method" in msg:
        return head("202 Accepted", [("Content-Length", "0")])
    if msg.get("method") != "initialize":
        return None
    params = msg.get("params") or {}
    data = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {
        "protocolVersion": params.get("protocolVersion", "2025-03-26"), "capabilities": {},
        "serverInfo": {"name": os.path.basename(sys.argv[0]), "version": "1"}}}).encode()
    return head("200 OK", [("Content-Type", "application/json"),
                           ("Content-Length", str(len(data)))]) + data


def _connection(conn, handle):
    f = conn.makefile("rb")
    try:
        while True:
            req = read_request(f)
            if req is None:
                break
            polite = handshake_answer(req[3]) if HANDSHAKE else None
            if polite is not None:
                conn.sendall(polite)
            elif not handle(conn, *req):
                break
    except OSError:
        pass
    finally:
        conn.close()


def serve(handle):
    """handle(conn, method, target, headers, body) answers one request; it returns
    True to read the next request on the same connection."""
    srv = _listen()
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=_connection, args=(conn, handle), daemon=True).start()
