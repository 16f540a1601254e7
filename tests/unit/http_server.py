#!/usr/bin/python3
"""http_server.py - the scripted HTTP server test_http.c talks to.

Binds 127.0.0.1 on a free port and prints "PORT n". POST /mcp answers by the
JSON-RPC method: initialize issues a session id (and a cookie, to see it
redacted), echo reports what the request carried, sse answers as an event
stream, stall never answers, flood streams events without end; requests that
carry an unknown session id get 404. GET /sse is a legacy HTTP+SSE stream
whose endpoint event names /messages, where POSTs are answered on the stream.
"""
import http.server
import json
import queue
import sys
import threading
import time

SESSIONS = set()
LEGACY = {}  # legacy session id -> queue of SSE blocks
LOCK = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", ctype="application/json", headers=()):
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def result(self, rid, result, headers=()):
        body = json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode()
        self.reply(200, body, headers=headers)

    def stream(self, blocks, close=True):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for b in blocks:
            self.wfile.write(b.encode())
            self.wfile.flush()

    def do_GET(self):
        if self.path.startswith("/sse"):
            return self.legacy_stream()
        self.reply(405, b"", ctype=None)

    def legacy_stream(self):
        sid = "abc%d" % threading.get_ident()
        q = queue.Queue()
        with LOCK:
            LEGACY[sid] = q
        target = "http://127.0.0.2:1/x" if "foreign" in self.path else "/messages?sessionId=" + sid
        self.stream(["event: endpoint\ndata: %s\n\n" % target])
        try:
            while True:
                try:
                    block = q.get(timeout=0.5)
                except queue.Empty:
                    block = ": keep-alive\n\n"
                self.wfile.write(block.encode())
                self.wfile.flush()
        except OSError:
            pass

    def do_DELETE(self):
        self.reply(405, b"", ctype=None)

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        if self.path.startswith("/messages"):
            return self.legacy_post(raw)
        sid = self.headers.get("Mcp-Session-Id")
        if sid is not None and sid not in SESSIONS:
            return self.reply(404, b"no such session", ctype="text/plain")
        msg = json.loads(raw)
        method, rid = msg.get("method"), msg.get("id")
        if rid is None:
            return self.reply(202, b"", ctype=None)
        getattr(self, "m_" + method)(rid, raw, sid)

    def legacy_post(self, raw):
        sid = self.path.split("sessionId=")[1]
        msg = json.loads(raw)
        answer = json.dumps({"jsonrpc": "2.0", "id": msg.get("id"), "result": {"legacy": True}})
        with LOCK:
            LEGACY[sid].put("event: message\ndata: %s\n\n" % answer)
        self.reply(202, b"Accepted", ctype="text/plain")

    def m_initialize(self, rid, raw, sid):
        with LOCK:
            SESSIONS.add("sess-1")
        self.result(rid, {"protocolVersion": "2025-06-18"},
                    headers=[("Mcp-Session-Id", "sess-1"), ("Set-Cookie", "token=cookie-secret")])

    def m_echo(self, rid, raw, sid):
        h = self.headers
        self.result(rid, {"sid": sid, "x_test": h.get("X-Test"),
                          "auth_ok": h.get("Authorization") == "Bearer SECRET-TOKEN",
                          "accept": h.get("Accept"), "content_type": h.get("Content-Type"),
                          "newline": raw.endswith(b"\n")})

    def m_end(self, rid, raw, sid):
        with LOCK:
            SESSIONS.discard(sid)
        self.result(rid, {})

    def m_sse(self, rid, raw, sid):
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info"}}
        resp = {"jsonrpc": "2.0", "id": rid, "result": {}}
        self.stream(["id: p0\ndata:\n\n", "id: 1\ndata: %s\n\n" % json.dumps(note),
                     "id: 2\nevent: message\ndata: %s\n\n" % json.dumps(resp)])

    def m_flood(self, rid, raw, sid):
        block = "data: %s\n\n" % json.dumps({"jsonrpc": "2.0", "method": "n", "params": {"x": "y" * 1000}})
        try:
            self.stream([])
            while True:
                self.wfile.write(block.encode() * 64)
        except OSError:
            pass

    def m_big(self, rid, raw, sid):
        self.result(rid, {"pad": "x" * 200000})

    def m_html(self, rid, raw, sid):
        self.reply(200, b"<html>hello</html>", ctype="text/html")

    def m_redirect(self, rid, raw, sid):
        self.reply(307, b"", ctype=None, headers=[("Location", "http://127.0.0.2:%d/mcp" % PORT)])

    def m_stall(self, rid, raw, sid):
        time.sleep(60)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
PORT = server.server_address[1]
print("PORT %d" % PORT, flush=True)
sys.stdout.close()
server.serve_forever()
