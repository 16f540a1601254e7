#!/usr/bin/python3
"""refserver --http: the reference server's Streamable HTTP and HTTP+SSE front end.

Starts `refserver --http 0 --port-file FILE` (and once more with --auth) and
drives it with http.client: sessions and their ids, JSON and SSE answers, the
2025-11-25 priming event, 202 for notifications, the 400/403/404/405/406/415
refusals, MCP-Protocol-Version, DELETE, the GET stream and Last-Event-ID
resumption, batches per revision, the legacy /sse flow, bearer-token
authorization, and 2026-07-28 (dual-era and --modern-only: headers against
the body, status codes, no sessions, a child per request). Finally SIGTERM must leave no child process behind. Every wait
has a deadline.
"""
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN_DIR  # noqa: E402

REFSERVER = os.path.join(BIN_DIR, "refserver")
ACCEPT_BOTH = "application/json, text/event-stream"
TIMEOUT = 10


def start(*extra):
    """A refserver --http on a free port: (process, port, its temporary folder)."""
    tmp = tempfile.TemporaryDirectory()
    port_file = os.path.join(tmp.name, "port")
    proc = subprocess.Popen([REFSERVER, "--http", "0", "--port-file", port_file, *extra],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + TIMEOUT
    while not os.path.exists(port_file):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("refserver --http did not start: %s" % proc.stderr.read())
        time.sleep(0.02)
    with open(port_file) as f:
        port = int(f.read())
    return proc, port, tmp


def stop(proc):
    """SIGTERM; its exit status, after checking that neither it nor a child reported a
    sanitizer error on the shared stderr."""
    proc.send_signal(signal.SIGTERM)
    try:
        status = proc.wait(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read()
    if "Sanitizer" in err or "runtime error" in err:
        raise AssertionError("refserver --http reported:\n" + err)
    if status != 0:
        raise AssertionError("refserver --http exited %d:\n%s" % (status, err))
    return status


def children(pid):
    """Pids whose parent is pid (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry))
    return found


def read_events(resp, stop_when=None, limit=TIMEOUT):
    """SSE events of resp as dicts (id, event, data) until the stream ends, stop_when(events)
    holds, or limit seconds pass."""
    events, cur, data = [], {}, []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            raw = resp.readline()
        except (TimeoutError, OSError):
            break
        if not raw:
            break
        line = raw.decode().rstrip("\r\n")
        if line == "":
            if cur or data:
                cur["data"] = "\n".join(data)
                events.append(cur)
                cur, data = {}, []
                if stop_when and stop_when(events):
                    break
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            data.append(value)
        else:
            cur[field] = value
    return events


def messages(events):
    return [json.loads(e["data"]) for e in events if e.get("data")]


class Client:
    def __init__(self, port):
        self.port = port
        self.conns = []

    def close(self):
        for conn in self.conns:
            conn.close()
        self.conns = []

    def request(self, method, path, body=None, headers=None, timeout=TIMEOUT):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        resp.conn = conn
        self.conns.append(conn)
        return resp

    def post(self, body, sid=None, version=None, extra=None, path="/mcp"):
        headers = {"Content-Type": "application/json", "Accept": ACCEPT_BOTH}
        if sid:
            headers["Mcp-Session-Id"] = sid
        if version:
            headers["MCP-Protocol-Version"] = version
        headers.update(extra or {})
        return self.request("POST", path, body, headers)

    def initialize(self, version="2025-11-25", extra=None):
        resp = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                          "params": {"protocolVersion": version, "capabilities": {},
                                     "clientInfo": {"name": "e2e", "version": "1"}}},
                         extra=extra)
        body = json.loads(resp.read())
        sid = resp.getheader("Mcp-Session-Id")
        self_ok = resp.status == 200 and "result" in body
        if self_ok:
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid,
                      version, extra).read()
        return resp, body, sid


class ServerCase(unittest.TestCase):
    """One refserver --http (started with ARGS) and a client for the whole class."""
    ARGS = ()

    @classmethod
    def setUpClass(cls):
        cls.proc, cls.port, cls.tmp = start(*cls.ARGS)
        cls.c = Client(cls.port)

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        if cls.proc.poll() is None:
            stop(cls.proc)
        cls.proc.stderr.close()
        cls.tmp.cleanup()


class StreamableHttp(ServerCase):
    def session(self, version="2025-11-25"):
        resp, body, sid = self.c.initialize(version)
        self.assertEqual(resp.status, 200)
        return sid

    def test_initialize_json_and_session_id(self):
        resp, body, sid = self.c.initialize()
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.getheader("Content-Type"), "application/json")
        self.assertEqual(body["id"], 0)
        self.assertEqual(body["result"]["protocolVersion"], "2025-11-25")
        self.assertRegex(sid, r"^[0-9a-f]{32}$")
        self.assertNotEqual(sid, self.session())

    def test_notification_202_empty(self):
        sid = self.session()
        resp = self.c.post({"jsonrpc": "2.0", "method": "notifications/unknown"}, sid)
        self.assertEqual(resp.status, 202)
        self.assertEqual(resp.read(), b"")

    def test_ping_json(self):
        sid = self.session()
        resp = self.c.post({"jsonrpc": "2.0", "id": "p", "method": "ping"}, sid, "2025-11-25")
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.getheader("Content-Type"), "application/json")
        self.assertEqual(json.loads(resp.read()), {"jsonrpc": "2.0", "id": "p", "result": {}})

    def test_request_as_sse_with_priming(self):
        sid = self.session()
        resp = self.c.post({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}, sid, "2025-11-25")
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.getheader("Content-Type"), "text/event-stream")
        events = read_events(resp)  # ends by itself right after the response
        self.assertIn("id", events[0])
        self.assertEqual(events[0]["data"], "")
        self.assertEqual(len(events), 2)
        self.assertEqual(messages(events)[0]["id"], 7)
        self.assertIn("tools", messages(events)[0]["result"])
        ids = [e["id"] for e in events]
        self.assertEqual(len(set(ids)), len(ids))
        self.assertTrue(all(re.fullmatch(r"\d+-\d+", i) for i in ids))

    def test_no_priming_before_2025_11_25(self):
        sid = self.session("2025-03-26")
        resp = self.c.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, sid)
        events = read_events(resp)
        self.assertEqual(len(events), 1)
        self.assertEqual(messages(events)[0]["id"], 1)

    def test_progress_on_the_post_stream(self):
        sid = self.session()
        resp = self.c.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                            "params": {"name": "slow", "arguments": {"steps": 2, "interval_ms": 20},
                                       "_meta": {"progressToken": "tok"}}}, sid, "2025-11-25")
        msgs = messages(read_events(resp))
        self.assertEqual([m.get("method") for m in msgs],
                         ["notifications/progress"] * 2 + [None])
        self.assertEqual(msgs[-1]["id"], 2)

    def test_unknown_method_gets_32601(self):
        sid = self.session()
        resp = self.c.post({"jsonrpc": "2.0", "id": 3, "method": "no/such"}, sid)
        self.assertEqual(resp.status, 200)
        self.assertEqual(messages(read_events(resp))[-1]["error"]["code"], -32601)

    def test_malformed_bodies_400(self):
        sid = self.session()
        for body in ("{not json", '{"jsonrpc":"2.0","method":42}', "[1", '"text"'):
            resp = self.c.post(body, sid)
            self.assertEqual(resp.status, 400, body)
            answer = json.loads(resp.read())
            self.assertIn("error", answer)
            self.assertNotIn("id", answer)

    def test_session_id_required_and_unknown(self):
        self.session()
        resp = self.c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        self.assertEqual(resp.status, 400)
        resp = self.c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, "f" * 32)
        self.assertEqual(resp.status, 404)

    def test_delete_ends_session(self):
        sid = self.session()
        resp = self.c.request("DELETE", "/mcp", headers={"Mcp-Session-Id": sid})
        self.assertEqual(resp.status, 200)
        resp = self.c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, sid)
        self.assertEqual(resp.status, 404)
        resp = self.c.request("DELETE", "/mcp", headers={"Mcp-Session-Id": sid})
        self.assertEqual(resp.status, 404)
        self.session()  # a new initialize works

    def test_method_not_allowed_and_unknown_path(self):
        resp = self.c.request("PUT", "/mcp", "{}", {"Content-Type": "application/json"})
        self.assertEqual(resp.status, 405)
        self.assertIn("POST", resp.getheader("Allow"))
        self.assertEqual(self.c.request("GET", "/nowhere").status, 404)

    def test_origin(self):
        resp, _, _ = self.c.initialize(extra={"Origin": "https://evil.example"})
        self.assertEqual(resp.status, 403)
        resp, body, _ = self.c.initialize(extra={"Origin": "http://localhost:%d" % self.port})
        self.assertEqual(resp.status, 200)
        sid = self.session()
        resp = self.c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, sid,
                           extra={"Origin": "http://127.0.0.1:1"})
        self.assertEqual(resp.status, 403)
        self.assertNotIn("id", json.loads(resp.read()))

    def test_content_type_415_accept_406(self):
        sid = self.session()
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        resp = self.c.post(ping, sid, extra={"Content-Type": "text/plain"})
        self.assertEqual(resp.status, 415)
        resp = self.c.post(ping, sid, extra={"Accept": "application/json"})
        self.assertEqual(resp.status, 406)
        resp = self.c.post(ping, sid, extra={"Accept": "text/event-stream"})
        self.assertEqual(resp.status, 406)
        resp = self.c.request("GET", "/mcp", headers={"Mcp-Session-Id": sid,
                                                      "Accept": "application/json"})
        self.assertEqual(resp.status, 406)

    def test_protocol_version_header(self):
        sid = self.session("2025-06-18")
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        for bad in ("2099-01-01", "nonsense", "2025-11-25"):
            self.assertEqual(self.c.post(ping, sid, bad).status, 400, bad)
        self.assertEqual(self.c.post(ping, sid, "2025-06-18").status, 200)
        self.assertEqual(self.c.post(ping, sid).status, 200)  # absent: the session knows

    def test_batches_per_revision(self):
        batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"},
                 {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
        sid = self.session("2025-03-26")
        resp = self.c.post(batch, sid)
        self.assertEqual(resp.status, 200)
        self.assertEqual(sorted(m["id"] for m in json.loads(resp.read())), [1, 2])
        resp = self.c.post([{"jsonrpc": "2.0", "method": "notifications/x"}], sid)
        self.assertEqual(resp.status, 202)
        sid = self.session("2025-06-18")
        resp = self.c.post(batch, sid)
        self.assertEqual(resp.status, 400)
        self.assertNotIn("id", json.loads(resp.read()))

    def get_stream(self, sid, last=None):
        headers = {"Accept": "text/event-stream", "Mcp-Session-Id": sid,
                   "MCP-Protocol-Version": "2025-11-25"}
        if last:
            headers["Last-Event-ID"] = last
        return self.c.request("GET", "/mcp", headers=headers)

    def test_get_stream_and_resumption(self):
        sid = self.session()
        get = self.get_stream(sid)
        self.assertEqual(get.status, 200)
        self.assertEqual(get.getheader("Content-Type"), "text/event-stream")
        priming = read_events(get, lambda ev: len(ev) >= 1)
        self.assertEqual(priming[0]["data"], "")
        # A task's work runs on after its POST stream ended: its status notification
        # has no request stream left and goes on the GET stream.
        resp = self.c.post({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                            "params": {"name": "slow", "arguments": {"steps": 1, "interval_ms": 10},
                                       "task": {"ttl": 60000}}}, sid, "2025-11-25")
        post_events = read_events(resp)
        self.assertIn("task", messages(post_events)[-1]["result"])
        events = read_events(get, lambda ev: any(
            m.get("method") == "notifications/tasks/status" for m in messages(ev)))
        msgs = messages(events)
        self.assertTrue(any(m.get("method") == "notifications/tasks/status" for m in msgs))
        self.assertFalse(any("result" in m or "error" in m for m in msgs))
        get.conn.close()
        # Resume the GET stream from its priming event: its later events only.
        again = self.get_stream(sid, priming[0]["id"])
        self.assertEqual(again.status, 200)
        stream = priming[0]["id"].split("-")[0]
        replay = read_events(again, lambda ev: len(ev) >= 1 + len(events), limit=2)
        replayed = [e for e in replay if e.get("data")]
        self.assertEqual([e["data"] for e in replayed], [e["data"] for e in events])
        self.assertTrue(all(e["id"].split("-")[0] == stream for e in replayed))
        self.assertFalse(any(e.get("id") in [p["id"] for p in post_events] for e in replay))
        again.conn.close()
        self.assertEqual(self.get_stream(sid, "999999-1").status, 400)

    def test_resume_post_stream_after_disconnect(self):
        # A dropped POST stream is no cancellation: a GET with Last-Event-ID takes the
        # stream over and gets the rest of it, response included, then the stream ends.
        sid = self.session()
        resp = self.c.post({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                            "params": {"name": "slow", "arguments": {"steps": 4, "interval_ms": 100},
                                       "_meta": {"progressToken": 8}}}, sid, "2025-11-25")
        seen = read_events(resp, lambda ev: len(ev) >= 2)
        resp.conn.close()
        again = self.get_stream(sid, seen[-1]["id"])
        self.assertEqual(again.status, 200)
        rest = read_events(again)
        msgs = messages(rest)
        self.assertEqual(msgs[-1]["id"], 4)
        self.assertEqual([m["params"]["progress"] for m in msgs[:-1]], [2, 3, 4])
        number = seen[0]["id"].split("-")[0]
        self.assertTrue(all(e["id"].split("-")[0] == number for e in rest))


class LegacySse(ServerCase):
    def test_endpoint_event_then_responses_on_stream(self):
        sse = self.c.request("GET", "/sse", headers={"Accept": "text/event-stream"})
        self.assertEqual(sse.status, 200)
        self.assertEqual(sse.getheader("Content-Type"), "text/event-stream")
        first = read_events(sse, lambda ev: len(ev) >= 1)[0]
        self.assertEqual(first["event"], "endpoint")
        self.assertRegex(first["data"], r"^/messages\?session=[0-9a-f]{32}$")
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                           "clientInfo": {"name": "e2e", "version": "1"}}}
        resp = self.c.post(init, path=first["data"])
        self.assertEqual(resp.status, 202)
        msgs = messages(read_events(sse, lambda ev: len(ev) >= 1))
        self.assertEqual(msgs[0]["result"]["protocolVersion"], "2024-11-05")
        self.c.post({"jsonrpc": "2.0", "method": "notifications/initialized"},
                    path=first["data"]).read()
        self.assertEqual(self.c.post({"jsonrpc": "2.0", "id": 2, "method": "ping"},
                                     path=first["data"]).status, 202)
        events = read_events(sse, lambda ev: len(ev) >= 1)
        self.assertEqual(events[0]["event"], "message")
        self.assertEqual(json.loads(events[0]["data"]), {"jsonrpc": "2.0", "id": 2, "result": {}})
        sse.conn.close()
        bad = self.c.post({"jsonrpc": "2.0", "id": 2, "method": "ping"},
                          path="/messages?session=" + "0" * 32)
        self.assertEqual(bad.status, 404)

    def test_origin_403(self):
        resp = self.c.request("GET", "/sse", headers={"Accept": "text/event-stream",
                                                      "Origin": "https://evil.example"})
        self.assertEqual(resp.status, 403)

    def test_streams_left_end_their_sessions(self):
        # More streams opened and left than the server holds sessions (256): each one a
        # client left ends its session, so a new stream is served rather than refused 503.
        for _ in range(300):
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
            conn.request("GET", "/sse", headers={"Accept": "text/event-stream"})
            resp = conn.getresponse()
            if resp.status == 200:
                read_events(resp, lambda ev: len(ev) >= 1)
            conn.close()
        time.sleep(0.5)  # past the server's check for readers gone (every 100 ms)
        last = self.c.request("GET", "/sse", headers={"Accept": "text/event-stream"})
        self.assertEqual(last.status, 200)
        last.conn.close()


class Authorization(ServerCase):
    ARGS = ("--auth", "s3cret")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.base = "http://127.0.0.1:%d" % cls.port

    def test_401_without_or_with_wrong_token(self):
        for extra in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic czNjcmV0"}):
            resp, _, _ = self.c.initialize(extra=extra)
            self.assertEqual(resp.status, 401, extra)
            self.assertEqual(resp.getheader("WWW-Authenticate"),
                             'Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp",'
                             ' scope="mcp"' % self.base)
        resp = self.c.request("GET", "/sse", headers={"Accept": "text/event-stream"})
        self.assertEqual(resp.status, 401)

    def test_token_admits(self):
        resp, body, sid = self.c.initialize(extra={"Authorization": "Bearer s3cret"})
        self.assertEqual(resp.status, 200)
        self.assertIn("result", body)

    def test_metadata(self):
        for path in ("/.well-known/oauth-protected-resource/mcp",
                     "/.well-known/oauth-protected-resource"):
            resp = self.c.request("GET", path)
            self.assertEqual(resp.status, 200)
            doc = json.loads(resp.read())
            self.assertEqual(doc["resource"], self.base + "/mcp")
            self.assertEqual(doc["authorization_servers"], [self.base + "/"])
            self.assertEqual(doc["scopes_supported"], ["mcp"])

    def test_authorization_server_metadata(self):
        # 2025-03-26 discovery: RFC 8414 metadata at the origin; the endpoints issue nothing.
        resp = self.c.request("GET", "/.well-known/oauth-authorization-server")
        self.assertEqual(resp.status, 200)
        doc = json.loads(resp.read())
        self.assertEqual(doc["issuer"], self.base + "/")
        self.assertEqual(doc["token_endpoint"], self.base + "/token")
        self.assertEqual(doc["response_types_supported"], ["code"])
        for path in ("/authorize", "/token"):
            resp = self.c.request("POST", path, "grant_type=authorization_code",
                                  {"Content-Type": "application/x-www-form-urlencoded"})
            self.assertEqual(resp.status, 400, path)
            self.assertEqual(json.loads(resp.read())["error"], "invalid_request")


def listening_all(port):
    """Whether /proc/net/tcp shows a socket listening on 0.0.0.0:port."""
    with open("/proc/net/tcp") as f:
        rows = [line.split() for line in f.readlines()[1:]]
    return any(r[1] == "00000000:%04X" % port and r[3] == "0A" for r in rows)


class FaultBehaviour(unittest.TestCase):
    """Each HTTP fault bends exactly the behaviour its row describes (the checks rely on it)."""

    def serve(self, *args):
        proc, port, tmp = start(*args)
        c = Client(port)

        def cleanup():
            c.close()
            stop(proc)
            proc.stderr.close()
            tmp.cleanup()
        self.addCleanup(cleanup)
        return c

    def faulty(self, fault, *extra):
        c = self.serve("--fault", fault, *extra)
        return c

    def ping(self, c, sid, **kw):
        return c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, sid, **kw)

    def test_wrong_content_type(self):
        c = self.faulty("http-wrong-content-type")
        _, _, sid = c.initialize()
        self.assertEqual(self.ping(c, sid).getheader("Content-Type"), "text/plain")
        resp = c.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, sid)
        self.assertEqual(resp.getheader("Content-Type"), "text/plain")

    def test_notification_200(self):
        c = self.faulty("http-notification-200")
        _, _, sid = c.initialize()
        resp = c.post({"jsonrpc": "2.0", "method": "notifications/x"}, sid)
        self.assertEqual((resp.status, resp.read()), (200, b"{}"))

    def test_accept_invalid(self):
        c = self.faulty("http-accept-invalid")
        _, _, sid = c.initialize()
        self.assertEqual(c.post('{"jsonrpc":"2.0","method":42}', sid).status, 202)

    def test_session_id_space(self):
        c = self.faulty("http-session-id-space")
        _, _, sid = c.initialize()
        self.assertIn(" ", sid)
        self.assertEqual(self.ping(c, sid).status, 200)

    def test_no_session_check(self):
        c = self.faulty("http-no-session-check")
        c.initialize()
        self.assertEqual(self.ping(c, None).status, 200)

    def test_session_survives_delete(self):
        c = self.faulty("http-session-survives-delete")
        _, _, sid = c.initialize()
        self.assertEqual(c.request("DELETE", "/mcp", headers={"Mcp-Session-Id": sid}).status, 200)
        self.assertEqual(self.ping(c, sid).status, 200)

    def test_ignore_protocol_version(self):
        c = self.faulty("http-ignore-protocol-version")
        _, _, sid = c.initialize()
        self.assertEqual(self.ping(c, sid, version="nonsense").status, 200)

    def test_get_404(self):
        c = self.faulty("http-get-404")
        _, _, sid = c.initialize()
        resp = c.request("GET", "/mcp", headers={"Accept": "text/event-stream",
                                                 "Mcp-Session-Id": sid})
        self.assertEqual(resp.status, 404)

    def test_origin_faults(self):
        evil = {"Origin": "https://evil.example"}
        self.assertEqual(self.faulty("http-no-origin-check").initialize(extra=evil)[0].status, 200)
        self.assertEqual(self.faulty("http-origin-400").initialize(extra=evil)[0].status, 400)

    def test_no_priming(self):
        c = self.faulty("http-no-priming")
        _, _, sid = c.initialize()
        events = read_events(c.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, sid))
        self.assertEqual(len(events), 1)
        self.assertEqual(messages(events)[0]["id"], 2)

    def test_stream_lingers(self):
        c = self.faulty("http-stream-lingers")
        _, _, sid = c.initialize()
        conn = http.client.HTTPConnection("127.0.0.1", c.port, timeout=1)
        self.addCleanup(conn.close)
        conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
                     {"Content-Type": "application/json", "Accept": ACCEPT_BOTH,
                      "Mcp-Session-Id": sid})
        resp = conn.getresponse()
        start_at = time.monotonic()
        events = read_events(resp)  # the socket timeout (1 s) ends it, not the server
        self.assertEqual(messages(events)[-1]["id"], 2)
        self.assertGreater(time.monotonic() - start_at, 0.9)

    def test_response_on_get(self):
        c = self.faulty("http-response-on-get")
        _, _, sid = c.initialize()
        get = c.request("GET", "/mcp", headers={"Accept": "text/event-stream",
                                                "Mcp-Session-Id": sid})
        read_events(get, lambda ev: len(ev) >= 1)  # priming
        self.assertEqual(self.ping(c, sid).status, 200)
        msgs = messages(read_events(get, lambda ev: len(ev) >= 1))
        self.assertEqual(msgs[0]["id"], 1)

    def legacy_endpoint(self, c):
        sse = c.request("GET", "/sse", headers={"Accept": "text/event-stream"}, timeout=1)
        return sse, read_events(sse, lambda ev: len(ev) >= 1, limit=1)

    def test_sse_endpoint_not_first(self):
        c = self.faulty("sse-endpoint-not-first")
        sse, events = self.legacy_endpoint(c)
        self.assertEqual(sse.status, 200)
        self.assertEqual(events[0].get("event", "message"), "message")

    def test_sse_response_in_post(self):
        c = self.faulty("sse-response-in-post")
        _, events = self.legacy_endpoint(c)
        resp = c.post({"jsonrpc": "2.0", "id": 5, "method": "ping"}, path=events[0]["data"])
        self.assertEqual(resp.status, 200)
        self.assertEqual(json.loads(resp.read())["id"], 5)

    def test_auth_faults(self):
        c = self.faulty("auth-no-www-authenticate", "--auth", "t")
        resp = c.initialize()[0]
        self.assertEqual(resp.status, 401)
        self.assertIsNone(resp.getheader("WWW-Authenticate"))
        c = self.faulty("auth-accept-any-token", "--auth", "t")
        self.assertEqual(c.initialize(extra={"Authorization": "Bearer x"})[0].status, 200)
        self.assertEqual(c.initialize()[0].status, 401)

    def test_auth_metadata_faults(self):
        c = self.faulty("auth-no-as-metadata", "--auth", "t")
        for path in ("/.well-known/oauth-authorization-server", "/token"):
            self.assertEqual(c.request("GET", path).status, 404, path)
        c = self.faulty("auth-prm-no-servers", "--auth", "t")
        resp = c.request("GET", "/.well-known/oauth-protected-resource/mcp")
        self.assertEqual(json.loads(resp.read())["authorization_servers"], [])
        c = self.faulty("auth-no-scope", "--auth", "t")
        self.assertNotIn("scope=", c.initialize()[0].getheader("WWW-Authenticate"))
        c = self.faulty("auth-no-prm-discovery", "--auth", "t")
        self.assertEqual(c.initialize()[0].getheader("WWW-Authenticate"), 'Bearer scope="mcp"')
        for path in ("/.well-known/oauth-protected-resource",
                     "/.well-known/oauth-protected-resource/mcp"):
            resp = c.request("GET", path)
            resp.read()
            self.assertEqual(resp.status, 404, path)

    def tools_list_events(self, c, sid, rid):
        resp = c.post({"jsonrpc": "2.0", "id": rid, "method": "tools/list"}, sid)
        return read_events(resp)

    def test_event_ids_per_stream(self):
        c = self.faulty("http-event-ids-per-stream")
        _, _, sid = c.initialize()
        ids = [[e["id"] for e in self.tools_list_events(c, sid, n)] for n in (2, 3)]
        self.assertEqual(ids, [["1", "2"], ["1", "2"]])

    def test_resume_foreign(self):
        c = self.faulty("http-resume-foreign")
        _, _, sid = c.initialize()
        a = self.tools_list_events(c, sid, 2)
        self.tools_list_events(c, sid, 3)
        get = c.request("GET", "/mcp", headers={"Accept": "text/event-stream",
                                                "Mcp-Session-Id": sid, "Last-Event-ID": a[-1]["id"]})
        replay = messages(read_events(get, lambda ev: len(messages(ev)) >= 1, limit=2))
        self.assertEqual([m.get("id") for m in replay], [3])

    def test_stream_ends_early(self):
        c = self.faulty("http-stream-ends-early")
        _, _, sid = c.initialize()
        self.assertEqual(messages(self.tools_list_events(c, sid, 2)), [])

    def slow_with_get(self, fault):
        c = self.faulty(fault)
        _, _, sid = c.initialize()
        get = c.request("GET", "/mcp", headers={"Accept": "text/event-stream",
                                                "Mcp-Session-Id": sid})
        read_events(get, lambda ev: len(ev) >= 1)  # priming
        resp = c.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"name": "slow", "arguments": {"steps": 2, "interval_ms": 10},
                                  "_meta": {"progressToken": "p"}}}, sid)
        on_post = [m.get("method") for m in messages(read_events(resp))]
        on_get = [m.get("method") for m in messages(read_events(get, limit=1))]
        return on_post, on_get

    def test_progress_on_get_and_broadcast(self):
        on_post, on_get = self.slow_with_get("http-progress-on-get")
        self.assertEqual(on_post, [None])  # only the response
        self.assertEqual(on_get, ["notifications/progress"] * 2)
        on_post, on_get = self.slow_with_get("http-broadcast")
        self.assertEqual(on_post, ["notifications/progress"] * 2 + [None])
        self.assertEqual(on_get, ["notifications/progress"] * 2)

    def test_session_id_counter(self):
        c = self.faulty("http-session-id-counter")
        self.assertEqual([c.initialize()[2] for _ in range(2)], ["mcp-session-1", "mcp-session-2"])

    def test_require_protocol_version(self):
        c = self.faulty("http-require-protocol-version")
        _, _, sid = c.initialize("2025-06-18")
        self.assertEqual(self.ping(c, sid).status, 400)
        self.assertEqual(self.ping(c, sid, version="2025-06-18").status, 200)
        _, _, sid = c.initialize("2025-03-26")
        self.assertEqual(self.ping(c, sid).status, 200)

    def test_loopback_only(self):
        self.assertFalse(listening_all(self.serve().port))

    def test_modern_foreign_messages_on_a_stream(self):
        for fault, first in (("http-modern-foreign-progress", "notifications/progress"),
                             ("http-modern-stream-request", "ping")):
            msgs = messages(read_events(modern_stream(self.faulty(fault))))
            self.assertEqual(msgs[0].get("method"), first, fault)
            self.assertEqual(msgs[-1].get("id"), 3, fault)

    def test_modern_no_accel_buffering(self):
        resp = modern_stream(self.faulty("http-modern-no-accel-buffering"))
        self.assertEqual(resp.getheader("Content-Type"), "text/event-stream")
        self.assertIsNone(resp.getheader("X-Accel-Buffering"))
        read_events(resp)

    def test_modern_last_event_id(self):
        c = self.faulty("http-modern-last-event-id")
        self.assertEqual(modern(c, "server/discover", headers={"Last-Event-ID": "1-1"})[0], 400)
        self.assertEqual(modern(c, "server/discover")[0], 200)

    def test_modern_header_case(self):
        c = self.faulty("http-modern-header-case")
        status, _, body = modern(c, "server/discover",
                                 headers={"Mcp-Method": None, "mcp-method": "server/discover"})
        self.assertEqual((status, body["error"]["code"]), (400, -32020))
        self.assertEqual(modern(c, "server/discover")[0], 200)

    def test_modern_notification_200(self):
        c = self.faulty("http-notification-200")
        resp = c.post({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": "none"}},
                      extra={"MCP-Protocol-Version": MODERN,
                             "Mcp-Method": "notifications/cancelled"})
        resp.read()
        self.assertEqual(resp.status, 200)

    def test_modern_ignore_protocol_version(self):
        c = self.faulty("http-ignore-protocol-version")
        status, _, body = modern(c, "server/discover",
                                 {"_meta": {"io.modelcontextprotocol/protocolVersion":
                                            "1900-01-01"}})
        self.assertEqual((status, body["error"]["code"]), (200, -32022))


MODERN = "2026-07-28"
MODERN_META = {"io.modelcontextprotocol/protocolVersion": MODERN,
               "io.modelcontextprotocol/clientCapabilities": {}}


def modern(client, method, params=None, headers=None, rid=1):
    """POST one 2026-07-28 request with its _meta and the headers it calls for (headers
    overrides them; None drops one): (status, response headers, parsed body or None)."""
    params = dict(params or {})
    params["_meta"] = dict(MODERN_META, **params.get("_meta", {}))
    h = {"MCP-Protocol-Version": params["_meta"]["io.modelcontextprotocol/protocolVersion"],
         "Mcp-Method": method}
    if "name" in params or "uri" in params:
        h["Mcp-Name"] = params.get("name", params.get("uri"))
    h.update(headers or {})
    h = {k: v for k, v in h.items() if v is not None}
    resp = client.post({"jsonrpc": "2.0", "id": rid, "method": method, "params": params},
                       extra=h)
    raw = resp.read()
    body = json.loads(raw) if raw and resp.getheader("Content-Type") == "application/json" \
        else None
    return resp.status, resp, body


def modern_stream(client):
    """POST tools/list with a progressToken, which refserver answers on an SSE stream (id 3)."""
    params = {"_meta": dict(MODERN_META, progressToken="s")}
    return client.post({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": params},
                       extra={"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"})


class Stateless(ServerCase):
    """2026-07-28 beside the handshake era (dual-era, the default)."""

    def test_stream_carries_its_response_only(self):
        resp = modern_stream(self.c)
        self.assertEqual(resp.getheader("X-Accel-Buffering"), "no")
        self.assertEqual([m.get("id") for m in messages(read_events(resp))], [3])

    def test_header_names_any_case(self):
        for spelling in ("mcp-method", "MCP-METHOD"):
            status, _, body = modern(self.c, "server/discover",
                                     headers={"Mcp-Method": None, spelling: "server/discover"})
            self.assertEqual(status, 200, spelling)
            self.assertIn("supportedVersions", body["result"])

    def test_last_event_id_ignored(self):
        status, _, body = modern(self.c, "server/discover", headers={"Last-Event-ID": "1-1"})
        self.assertEqual(status, 200)
        self.assertIn("supportedVersions", body["result"])

    def test_discover_without_session(self):
        status, resp, body = modern(self.c, "server/discover")
        self.assertEqual(status, 200)
        self.assertIsNone(resp.getheader("Mcp-Session-Id"))
        self.assertIn(MODERN, body["result"]["supportedVersions"])
        self.assertEqual(body["result"]["resultType"], "complete")

    def test_session_id_ignored(self):
        status, resp, body = modern(self.c, "tools/list", headers={"Mcp-Session-Id": "bogus"})
        self.assertEqual(status, 200)
        self.assertIsNone(resp.getheader("Mcp-Session-Id"))
        self.assertIn("tools", body["result"])

    def test_header_mismatch(self):
        for headers in ({"Mcp-Method": "prompts/list"}, {"Mcp-Method": "TOOLS/LIST"},
                        {"MCP-Protocol-Version": None}, {"Mcp-Method": None},
                        {"MCP-Protocol-Version": "2025-11-25"}):
            status, _, body = modern(self.c, "tools/list", headers=headers)
            self.assertEqual((status, body["error"]["code"], body["id"]), (400, -32020, 1),
                             headers)
        status, _, body = modern(self.c, "prompts/get", {"name": "a"}, {"Mcp-Name": "b"})
        self.assertEqual((status, body["error"]["code"]), (400, -32020))

    def test_param_headers(self):
        """x-mcp-header arguments of route: their Mcp-Param headers must say what the body does
        (HDR-011), an integer's by value (HDR-012)."""
        def call(args, **params):
            h = {"Mcp-Param-" + k: v for k, v in params.items()}
            status, _, body = modern(self.c, "tools/call", {"name": "route", "arguments": args},
                                     h)
            return status, body.get("error", {}).get("code") if body else None
        full = {"region": "us-west1", "shard": 42}
        for headers in ({"Region": "us-west1", "Shard": "42"},
                        {"Region": "us-west1", "Shard": "42.0"},
                        {"region": "=?base64?dXMtd2VzdDE=?=", "SHARD": "4.2e1"}):
            self.assertEqual(call(full, **headers), (200, None), headers)
        self.assertEqual(call({"region": "us-west1"}, Region="us-west1"), (200, None))
        self.assertEqual(call({"region": "us-west1", "shard": None}, Region="us-west1"),
                         (200, None))
        for headers in ({"Region": "us-west1"}, {"Shard": "42"},
                        {"Region": "us-east1", "Shard": "42"},
                        {"Region": "us-west1", "Shard": "43"},
                        {"Region": "us-west1", "Shard": "0x2a"},
                        {"Region": "\u00fcs-west1", "Shard": "42"}):
            self.assertEqual(call(full, **headers), (400, -32020), headers)
        self.assertEqual(call({"region": "us-west1"}, Region="us-west1", Shard="42"),
                         (400, -32020))

    def test_sentinel_name_decoded(self):
        status, _, body = modern(self.c, "resources/read", {"uri": "file:///nowhere-\u00fc"},
                                 {"Mcp-Name": "=?base64?ZmlsZTovLy9ub3doZXJlLcO8?="})
        self.assertEqual((status, body["error"]["code"]), (400, -32602))

    def test_status_follows_the_error(self):
        status, _, body = modern(self.c, "mcpspec/no-such-method")
        self.assertEqual((status, body["error"]["code"]), (404, -32601))
        status, _, body = modern(self.c, "tools/list",
                                 {"_meta": {"io.modelcontextprotocol/protocolVersion":
                                            "1900-01-01"}})
        self.assertEqual((status, body["error"]["code"]), (400, -32022))
        self.assertEqual(body["error"]["data"]["requested"], "1900-01-01")

    def test_get_and_delete_405(self):
        for method in ("GET", "DELETE"):
            resp = self.c.request(method, "/mcp", headers={"Accept": "text/event-stream",
                                                           "MCP-Protocol-Version": MODERN})
            resp.read()
            self.assertEqual(resp.status, 405, method)

    def test_progress_on_a_stream(self):
        params = {"name": "slow", "arguments": {"steps": 2, "interval_ms": 10},
                  "_meta": dict(MODERN_META, progressToken="p")}
        h = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "slow"}
        resp = self.c.post({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                            "params": params}, extra=h)
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.getheader("Content-Type"), "text/event-stream")
        msgs = messages(read_events(resp, lambda ev: any(m.get("id") == 7
                                                         for m in messages(ev))))
        self.assertEqual(msgs[-1]["id"], 7)
        self.assertEqual(msgs[-1]["result"]["resultType"], "complete")
        self.assertTrue(any(m.get("method") == "notifications/progress" for m in msgs))

    def test_handshake_era_unchanged(self):
        resp, body, sid = self.c.initialize()
        self.assertEqual(resp.status, 200)
        self.assertNotIn("resultType", body["result"])
        self.assertTrue(sid)

    def test_no_child_left_per_request(self):
        before = set(children(self.proc.pid))  # other tests' handshake-era sessions
        for i in range(5):
            self.assertEqual(modern(self.c, "server/discover", rid=i)[0], 200)
        deadline = time.monotonic() + TIMEOUT
        while set(children(self.proc.pid)) - before and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(set(children(self.proc.pid)) - before, set())


class ModernRefusals(ServerCase):
    """401 and 403 of a 2026-07-28 request are plain text: -32000 is a legacy code there."""
    ARGS = ("--auth", "tok")

    def test_plain_text(self):
        for headers, want in (({}, 401), ({"Authorization": "Bearer tok",
                                            "Origin": "https://evil.example"}, 403)):
            status, resp, _ = modern(self.c, "server/discover", headers=headers)
            self.assertEqual(status, want)
            self.assertTrue(resp.getheader("Content-Type").startswith("text/plain"), want)
        self.assertTrue(modern(self.c, "server/discover")[1].getheader("WWW-Authenticate"))

    def test_handshake_era_json(self):
        resp, _, _ = self.c.initialize()
        self.assertEqual(resp.status, 401)
        self.assertEqual(resp.getheader("Content-Type"), "application/json")


class ModernOnly(ServerCase):
    ARGS = ("--modern-only",)

    def test_initialize_refused_naming_versions(self):
        resp, body, sid = self.c.initialize()
        self.assertEqual(resp.status, 400)
        self.assertIsNone(sid)
        self.assertIn(MODERN, body["error"]["data"]["supported"])

    def test_discover(self):
        status, resp, body = modern(self.c, "server/discover")
        self.assertEqual(status, 200)
        self.assertIsNone(resp.getheader("Mcp-Session-Id"))
        self.assertEqual(body["result"]["supportedVersions"], [MODERN])

    def test_get_and_delete_405(self):
        for method in ("GET", "DELETE"):
            resp = self.c.request(method, "/mcp", headers={"Accept": "text/event-stream"})
            resp.read()
            self.assertEqual(resp.status, 405, method)


class Lifetime(unittest.TestCase):
    def test_sigterm_leaves_no_child(self):
        proc, port, tmp = start()
        try:
            c = Client(port)
            for _ in range(3):
                c.initialize()
            sse = c.request("GET", "/sse", headers={"Accept": "text/event-stream"})
            read_events(sse, lambda ev: len(ev) >= 1)
            kids = children(proc.pid)
            self.assertEqual(len(kids), 4)
            self.assertEqual(stop(proc), 0)
            sse.conn.close()
            deadline = time.monotonic() + TIMEOUT
            while time.monotonic() < deadline and any(os.path.exists("/proc/%d" % k) for k in kids):
                time.sleep(0.05)
            self.assertFalse([k for k in kids if os.path.exists("/proc/%d" % k)])
            c.close()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stderr.close()
            tmp.cleanup()

    def test_delete_reaps_the_child(self):
        proc, port, tmp = start()
        try:
            c = Client(port)
            _, _, sid = c.initialize()
            kids = children(proc.pid)
            self.assertEqual(len(kids), 1)
            self.assertEqual(c.request("DELETE", "/mcp", headers={"Mcp-Session-Id": sid}).status,
                             200)
            deadline = time.monotonic() + TIMEOUT
            while time.monotonic() < deadline and children(proc.pid):
                time.sleep(0.05)
            self.assertEqual(children(proc.pid), [])  # exited and reaped: no zombie either
            c.close()
        finally:
            stop(proc)
            proc.stderr.close()
            tmp.cleanup()


if __name__ == "__main__":
    unittest.main()
