#!/usr/bin/python3
"""fuzz/seeds.py - write the hand-made seed corpora into corpus/<target>/.

Seeds are data; this script is how they were made, so they can be read and
regenerated. It only writes its own named files (seed-*, jts-*) and leaves
the rest of corpus/<target>/ (merged fuzzer finds, regression inputs) alone.
Every seed must pass its target's well-formedness check: the fuzz.seeds.*
ctests replay them with that check on.

usage: fuzz/seeds.py [--shared DIR]   (DIR: shared/ with testdata/JSONTestSuite)
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "corpus")
MAX_LEN = {"json": 4096, "rpc": 4096, "frame": 65536, "observe": 16384,
           "uri": 4096, "traverse": 4096, "uritemplate": 4096, "suite": 16384,
           "regex": 4096, "schema": 8192, "sse": 16384}


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    assert len(data) <= MAX_LEN[target], (target, name)
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def j(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


# ---- MCP traffic: one request or notification per method of the catalog's
# method inventory (shared/spec/requirements.md), and a result for each request.
META26 = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
          "io.modelcontextprotocol/clientInfo": {"name": "mcpspec", "version": "0.1.0"}}
TOOL = {"name": "get_weather", "title": "Weather", "description": "Current weather",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
                        "required": ["city"]},
        "annotations": {"readOnlyHint": True}}
CALLS = [
    ("initialize", {"protocolVersion": "2025-06-18",
                    "capabilities": {"roots": {"listChanged": True}, "sampling": {}},
                    "clientInfo": {"name": "mcpspec", "version": "0.1.0"}},
     {"protocolVersion": "2025-06-18",
      "capabilities": {"tools": {"listChanged": True}, "resources": {"subscribe": True},
                       "prompts": {}, "logging": {}, "completions": {}},
      "serverInfo": {"name": "srv", "version": "1.2.3"}, "instructions": "Be nice."}),
    ("server/discover", {"_meta": META26},
     {"resultType": "complete", "supportedVersions": ["2026-07-28"],
      "capabilities": {"tools": {}, "extensions": {"io.example/x": {}}},
      "serverInfo": {"name": "srv", "version": "2"}, "ttlMs": 60000}),
    ("ping", None, {}),
    ("logging/setLevel", {"level": "warning"}, {}),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "code_review"},
                             "argument": {"name": "language", "value": "py"},
                             "context": {"arguments": {"x": "y"}}},
     {"completion": {"values": ["python", "pytorch"], "total": 2, "hasMore": False}}),
    ("prompts/list", {"cursor": "b2Zmc2V0PTEw"},
     {"prompts": [{"name": "code_review", "arguments": [{"name": "code", "required": True}]}],
      "nextCursor": "next"}),
    ("prompts/get", {"name": "code_review", "arguments": {"code": "def f(): pass"}},
     {"description": "Review", "messages": [{"role": "user",
                                             "content": {"type": "text", "text": "Review this"}}]}),
    ("resources/list", {}, {"resources": [{"uri": "file:///srv/data/a.txt", "name": "a.txt",
                                          "mimeType": "text/plain", "size": 12}]}),
    ("resources/templates/list", {},
     {"resourceTemplates": [{"uriTemplate": "file:///logs/{date}{?level}", "name": "logs"}]}),
    ("resources/read", {"uri": "file:///srv/data/a.txt"},
     {"contents": [{"uri": "file:///srv/data/a.txt", "mimeType": "text/plain", "text": "hi"},
                   {"uri": "mem://blob", "blob": "AAEC/w=="}]}),
    ("resources/subscribe", {"uri": "file:///srv/data/a.txt"}, {}),
    ("resources/unsubscribe", {"uri": "file:///srv/data/a.txt"}, {}),
    ("subscriptions/listen", {"_meta": META26, "resourceSubscriptions": ["file:///srv/a"],
                              "toolsListChanged": True}, {"resultType": "complete"}),
    ("tools/list", {"_meta": META26}, {"tools": [TOOL], "resultType": "complete"}),
    ("tools/call", {"name": "get_weather", "arguments": {"city": "Z\u00fcrich \u2713 \U0001d11e"},
                    "_meta": {"progressToken": "t1"}},
     {"content": [{"type": "text", "text": "18\u00b0C"},
                  {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}],
      "structuredContent": {"temp": 18.5}, "isError": False}),
    ("roots/list", None, {"roots": [{"uri": "file:///home/u/project", "name": "project"}]}),
    ("sampling/createMessage",
     {"messages": [{"role": "user", "content": {"type": "text", "text": "2+2?"}}],
      "maxTokens": 100, "modelPreferences": {"hints": [{"name": "claude"}], "speedPriority": 0.5},
      "includeContext": "thisServer", "temperature": 0.7, "stopSequences": ["\n\n"]},
     {"role": "assistant", "content": {"type": "text", "text": "4"}, "model": "m",
      "stopReason": "endTurn"}),
    ("elicitation/create",
     {"mode": "form", "message": "Name?", "requestedSchema": {
         "type": "object", "properties": {"name": {"type": "string", "minLength": 1}}}},
     {"action": "accept", "content": {"name": "Ada"}}),
    ("tasks/get", {"taskId": "task-1"},
     {"taskId": "task-1", "status": "working", "createdAt": "2025-11-25T10:00:00Z",
      "ttl": 60000, "pollInterval": 1000}),
    ("tasks/result", {"taskId": "task-1"}, {"content": [{"type": "text", "text": "done"}]}),
    ("tasks/list", {"cursor": "c"}, {"tasks": [], "nextCursor": None}),
    ("tasks/cancel", {"taskId": "task-1"}, {"taskId": "task-1", "status": "cancelled"}),
]
NOTIFICATIONS = [
    ("notifications/initialized", None),
    ("notifications/cancelled", {"requestId": 30, "reason": "probe"}),
    ("notifications/progress", {"progressToken": "t1", "progress": 50, "total": 100,
                                "message": "half"}),
    ("notifications/message", {"level": "error", "logger": "db", "data": {"err": "x"}}),
    ("notifications/prompts/list_changed", {}),
    ("notifications/subscriptions/acknowledged", {"_meta": {}}),
    ("notifications/resources/updated", {"uri": "file:///srv/data/a.txt"}),
    ("notifications/resources/list_changed", None),
    ("notifications/tools/list_changed", None),
    ("notifications/roots/list_changed", None),
    ("notifications/elicitation/complete", {"elicitationId": "e-1"}),
    ("notifications/tasks/status", {"taskId": "task-1", "status": "completed"}),
]


def request(i, method, params):
    m = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        m["params"] = params
    return j(m)


def notification(method, params):
    m = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        m["params"] = params
    return j(m)


def result(i, res):
    return j({"jsonrpc": "2.0", "id": i, "result": res})


def error(i, code, message, data=None):
    e = {"code": code, "message": message}
    if data is not None:
        e["data"] = data
    return j({"jsonrpc": "2.0", "id": i, "error": e})


def safe(method):
    return method.replace("/", "_")


messages = {}  # name -> one JSON-RPC message (text)
for n, (method, params, res) in enumerate(CALLS, 1):
    messages["req-" + safe(method)] = request(n if n % 2 else "r%d" % n, method, params)
    messages["res-" + safe(method)] = result(n if n % 2 else "r%d" % n, res)
for method, params in NOTIFICATIONS:
    messages["note-" + safe(method)] = notification(method, params)

messages.update({
    "err-parse": error(None, -32700, "Parse error"),
    "err-parse-noid": '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}',
    "err-invalid-request": error(None, -32600, "Invalid Request"),
    "err-method-not-found": error(8, -32601, "Method not found", {"method": "x/y"}),
    "err-invalid-params": error("c", -32602, "Invalid params", {"cursor": "bogus"}),
    "err-internal": error(9, -32603, "Internal error"),
    "err-resource-not-found": error(5, -32002, "Resource not found", {"uri": "file:///nope"}),
    "err-url-elicitation": error(6, -32042, "URL elicitation required", {"elicitations": [
        {"mode": "url", "elicitationId": "e", "url": "https://example.com/x", "message": "m"}]}),
    "err-unsupported-version": error("d1", -32022, "Unsupported protocol version",
                                     {"supported": ["2025-11-25"], "requested": "2026-07-28"}),
    "err-header-mismatch": error(2, -32020, "Header mismatch"),
    "err-missing-capability": error(3, -32021, "Missing capability",
                                    {"requiredCapabilities": {"elicitation": {}}}),
    "res-input-required": result(40, {"resultType": "input_required", "inputRequests": {
        "r": {"method": "roots/list"},
        "e": {"method": "elicitation/create", "params": {"message": "ok?", "requestedSchema": {
            "type": "object", "properties": {}}}}}, "requestState": "opaque"}),
    "req-inputResponses": request(41, "tools/call", {"name": "t", "arguments": {},
                                  "inputResponses": {"r": {"roots": []}},
                                  "requestState": "opaque", "_meta": META26}),
    # Hostile and edge envelopes.
    "bad-jsonrpc-1.0": '{"jsonrpc":"1.0","id":1,"method":"ping"}',
    "bad-jsonrpc-number": '{"jsonrpc":2.0,"id":1,"method":"ping"}',
    "bad-no-jsonrpc": '{"id":1,"method":"ping"}',
    "bad-id-null": '{"jsonrpc":"2.0","id":null,"method":"ping"}',
    "bad-id-float": '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
    "bad-id-1.0": '{"jsonrpc":"2.0","id":1.0,"method":"ping"}',
    "bad-id-exp": '{"jsonrpc":"2.0","id":1e3,"method":"ping"}',
    "bad-id-bool": '{"jsonrpc":"2.0","id":true,"method":"ping"}',
    "bad-id-object": '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
    "bad-id-array": '{"jsonrpc":"2.0","id":[1],"result":{}}',
    "id-big": '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
    "id-negative-zero": '{"jsonrpc":"2.0","id":-0,"method":"ping"}',
    "id-huge": '{"jsonrpc":"2.0","id":123456789012345678901234567890123456789012345678901234567890'
               '12345678901234567890,"method":"ping"}',
    "id-empty-string": '{"jsonrpc":"2.0","id":"","method":"ping"}',
    "bad-method-number": '{"jsonrpc":"2.0","id":1,"method":42}',
    "bad-method-and-result": '{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}',
    "bad-result-and-error": '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}',
    "bad-neither": '{"jsonrpc":"2.0","id":1}',
    "bad-result-array": '{"jsonrpc":"2.0","id":1,"result":[]}',
    "bad-result-null": '{"jsonrpc":"2.0","id":1,"result":null}',
    "bad-result-noid": '{"jsonrpc":"2.0","result":{}}',
    "bad-error-string": '{"jsonrpc":"2.0","id":1,"error":"boom"}',
    "bad-error-code-float": '{"jsonrpc":"2.0","id":1,"error":{"code":-32600.5,"message":"m"}}',
    "bad-error-code-string": '{"jsonrpc":"2.0","id":1,"error":{"code":"-32600","message":"m"}}',
    "bad-error-no-message": '{"jsonrpc":"2.0","id":1,"error":{"code":-32600}}',
    "bad-error-id-bool": '{"jsonrpc":"2.0","id":false,"error":{"code":1,"message":"m"}}',
    "bad-params-array": '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["a"]}',
    "bad-params-string": '{"jsonrpc":"2.0","method":"notifications/x","params":"s"}',
    "bad-notification-with-id": '{"jsonrpc":"2.0","id":7,"method":"notifications/initialized"}',
    "bad-not-object-string": '"jsonrpc"',
    "bad-not-object-number": "42",
    "bad-not-object-null": "null",
    "batch-two": "[" + request(10, "ping", None) + "," + request(11, "tools/list", None) + "]",
    "batch-responses": "[" + result(10, {}) + "," + error(11, -32601, "nope") + "]",
    "batch-notifications": "[" + notification("notifications/x-probe", None) + "]",
    "batch-empty": "[]",
    "batch-nested": "[[" + request(1, "ping", None) + "]]",
    "batch-garbage": '[1,"a",null,{},{"jsonrpc":"2.0"}]',
    "batch-initialize": "[" + request(1, "initialize", CALLS[0][1]) + "]",
    "dup-keys": '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping","method":"tools/list"}',
    "dup-keys-many": "{" + ",".join('"k":%d' % i for i in range(20)) + ',"jsonrpc":"2.0"}',
    "result-no-resulttype": result(1, {"tools": []}),
    "surrogate-lone": '{"jsonrpc":"2.0","id":"\\ud800","method":"tools/call",'
                      '"params":{"name":"\\udc00x","arguments":{"\\ud83d":1}}}',
    "surrogate-pair": '{"jsonrpc":"2.0","id":"\\ud83d\\ude00","method":"ping"}',
    "nul-escape": '{"jsonrpc":"2.0","id":"a\\u0000b","method":"to\\u0000ols/list",'
                  '"params":{"k\\u0000":"\\u0000"}}',
    "escapes-all": '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":'
                   '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\\u00e9\\u20ac"}}',
    "unicode-raw": j({"jsonrpc": "2.0", "id": "\u00e9\u4e2d\U0001f600", "method": "ping"}),
    "numbers": '{"jsonrpc":"2.0","id":1,"result":{"a":[0,-0,1.0,1e5,1E+5,-1.5e-10,'
               '123456789012345678901234567890,1e400,-1e-400,0.1,9007199254740993]}}',
    "whitespace": ' \t\r\n{ "jsonrpc" : "2.0" , "id" : 1 , "method" : "ping" } \n',
    "protocol-version-odd": request(1, "initialize", {"protocolVersion": "2025-03-26+",
                                                      "capabilities": {}}),
    "protocol-version-range": result(1, {"protocolVersion": "2024-11-05..2025-06-18"}),
    "protocol-version-list": result(1, {"protocolVersion": "2024-11-05, 2026-07-28"}),
    "protocol-version-all": result(1, {"protocolVersion": "all"}),
    "deep-params": '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":' +
                   "[" * 200 + "]" * 200 + "}}",
})

# ---- json: every message above, JSONTestSuite's parsing files, and more edges.
for name, text in messages.items():
    write("json", "seed-" + name, text)
write("json", "seed-deep-1000", "[" * 1000 + "]" * 1000)
write("json", "seed-deep-1001", "[" * 1001 + "]" * 1001)
write("json", "seed-deep-objects", '{"a":' * 300 + "1" + "}" * 300)
write("json", "seed-long-number-top", "1" * 80)
write("json", "seed-long-number-array", "[" + "1" * 80 + "]")
write("json", "seed-long-fraction", "0." + "0" * 70 + "1")
write("json", "seed-bom", b"\xef\xbb\xbf{}")
write("json", "seed-bad-utf8", b'["\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"]')
write("json", "seed-raw-control", b'["a\x01b"]')
write("json", "seed-raw-newline", b'{"a":"x\ny"}')
write("json", "seed-trailing-garbage", "{} x")
write("json", "seed-trailing-nul", b"{}\x00")
write("json", "seed-leading-control", b"\x01[]")
write("json", "seed-trailing-comma", "[1,]")
write("json", "seed-truncated", '{"jsonrpc":"2.0","id":1,"method":"pi')
write("json", "seed-leading-zero", "[01]")
write("json", "seed-hex", "0x10")
write("json", "seed-big-object", "{" + ",".join('"k%d":%d' % (i, i) for i in range(200)) + "}")
write("json", "seed-empty", b"")
write("json", "seed-ws-only", " \n\t")

shared = os.path.join(os.path.dirname(ROOT), "shared")
if len(sys.argv) == 3 and sys.argv[1] == "--shared":
    shared = sys.argv[2]
suite = os.path.join(shared, "testdata", "JSONTestSuite", "test_parsing")
if os.path.isdir(suite):
    for f in sorted(os.listdir(suite)):
        with open(os.path.join(suite, f), "rb") as fh:
            data = fh.read()
        if len(data) <= MAX_LEN["json"]:
            write("json", "jts-" + f, data)
else:
    print("seeds.py: no JSONTestSuite at %s; skipped those seeds" % suite, file=sys.stderr)

# ---- rpc: every message (each parses; the target checks them under all revisions).
for name, text in messages.items():
    write("rpc", "seed-" + name, text)

# ---- observe: transcripts with a header line (see fuzz_observe.c).
def transcript(header, lines):
    return header + "\n" + "".join(l + "\n" for l in lines)


handshake = [
    "--> " + request(1, "initialize", CALLS[0][1]),
    "<-- " + result(1, CALLS[0][2]),
    "--> " + notification("notifications/initialized", None),
]
session = list(handshake)
for n, (method, params, res) in enumerate(CALLS[1:], 2):
    server_to_client = method in ("roots/list", "sampling/createMessage", "elicitation/create")
    ask, answer = ("<-- ", "--> ") if server_to_client else ("--> ", "<-- ")
    session.append(ask + request(n, method, params))
    session.append(answer + result(n, res))
for method, params in NOTIFICATIONS[1:]:
    session.append("<-- " + notification(method, params))
transcripts = {
    "handshake": ("0", handshake),
    "session-all-methods": ("3", session),
    "learn-revision": ("@", handshake + ["--> " + request(2, "tools/list", None),
                                         "<-- " + result(2, {"tools": [TOOL]})]),
    "modern": ("5", ["--> " + request("d1", "server/discover", {"_meta": META26}),
                     "<-- " + result("d1", CALLS[1][2]),
                     "--> " + request(2, "tools/call", {"name": "t", "_meta": META26}),
                     "<-- " + result(2, {"content": []})]),
    "id-mismatch": ("3", ["--> " + request(1, "ping", None), "<-- " + result("1", {}),
                          "<-- " + result(2, {}), "<-- " + result(1, {}), "<-- " + result(1, {})]),
    "id-reuse": ("1", ["--> " + request(7, "ping", None), "--> " + request(7, "ping", None),
                       "<-- " + result(7, {}), "--> " + request(7, "tools/list", None)]),
    "id-reuse-modern": ("5", ["--> " + request(7, "tools/list", None),
                              "--> " + request(7, "tools/list", None), "<-- " + result(7, {})]),
    "unmarked": ("0", [request(1, "ping", None), result(1, {}), notification("x", None)]),
    "pretty-printed": ("2", ["<-- {", '  "jsonrpc": "2.0",', '  "id": 1,', '  "result": {}',
                             "}", "--> " + request(2, "ping", None)]),
    "pretty-never-ends": ("2", ["<-- {", '"jsonrpc": "2.0",'] + ['"k": 1,'] * 40),
    "garbage": ("3", ["<-- Server starting on stdio...", "", "--> not json", "<-- {]",
                      "# comment", "// comment", "<--", "-->", "<--{}", "-->[]"]),
    "batches": ("2", ["--> [" + request(10, "ping", None) + "," + request(11, "tools/list", None)
                      + "]", "<-- [" + result(10, {}) + "," + result(11, {"tools": []}) + "]",
                      "--> []", "--> [1,[2]]"]),
    "batches-removed": ("3", ["--> [" + request(10, "ping", None) + "]"]),
    "small-limits": ("8", ["--> " + request(i, "ping", None) for i in range(1, 8)] +
                     ["<-- " + result(i, {}) for i in range(1, 8)] +
                     ["<-- " + result(1, {"x": "y" * 300})]),
    "small-held": (";", ["<-- {", '"jsonrpc": "2.0", "pad": "' + "z" * 250 + '",', '"id": 1}']),
    "json-findings": ("4", ["<-- " + messages["dup-keys"], "<-- " + messages["surrogate-lone"],
                            "<-- " + messages["dup-keys-many"]]),
    "crlf": ("3", ["--> " + request(1, "ping", None) + "\r", "<-- " + result(1, {}) + "\r"]),
}
for name, (header, lines) in transcripts.items():
    write("observe", "seed-" + name, transcript(header, lines))
write("observe", "seed-bad-utf8",
      b"1\n<-- " + b'{"jsonrpc":"2.0","id":1,"result":{"t":"\xff"}}\n' + b"--> \xef\xbb\xbf{}\n")
write("observe", "seed-no-final-newline", "0\n--> " + request(1, "ping", None))
write("observe", "seed-oversize", "9\n<-- " + result(1, {"x": "y" * 400}) + "\n--> " +
      request(2, "ping", None) + "\n<-- " + "q" * 500)

# ---- frame: two header bytes (max_line, chunking), then a stream.
streams = {
    "transcript": "".join(l + "\n" for l in handshake).encode(),
    "empty-lines": b"\n\n\na\n\nb",
    "oversize": b"short\n" + b"x" * 300 + b"\nafter\n" + b"y" * 300,
    "no-newline": b"z" * 200,
    "crlf": b"a\r\nb\r\n\r\n",
    "binary": bytes(range(256)) * 2,
}
headers = [(b"\x10\x05", "max16-gen"), (b"\x00\x83", "max0-bytes"), (b"\x40\xc7", "max64-bytes-empty"),
           (b"\xff\x1f", "max255-gen"), (b"\x08\x40", "max8-gen-empty")]
for sname, data in streams.items():
    for head, hname in headers:
        write("frame", "seed-%s-%s" % (sname, hname), head + data)
write("frame", "seed-header-only", b"\x05\x01")

# ---- sse: two header bytes (max_event, chunking; fuzz_sse.c), then an event stream.
# Each stream covers one point of the WHATWG event-stream grammar; MCP's own shapes first.
RESPONSE = result(1, {"tools": []})
sse_streams = {
    "mcp-response": "event: message\nid: s1-1\ndata: " + RESPONSE + "\n\n",
    "mcp-notify-then-response": "data: " + notification("notifications/progress", {
        "progressToken": "t1", "progress": 1}) + "\n\ndata: " + RESPONSE + "\n\n",
    "priming-event": "id: s1-0\nretry: 3000\ndata:\n\n",
    "legacy-endpoint": "event: endpoint\ndata: /messages?sessionId=abc\n\n",
    "keep-alive-comments": ": ping\n\n:\n\ndata: x\n: between\n\n",
    "crlf": "event: message\r\ndata: a\r\ndata: b\r\n\r\n",
    "cr-only": "data: a\rdata: b\r\rid: 2\r\r",
    "mixed-line-ends": "data:a\n\rdata:b\r\r\ndata:c\r\n\n",
    "bom": "\ufeffdata: after bom\n\n",
    "bom-twice": "\ufeff\ufeffdata: x\n\ndata: y\n\n",
    "bom-later": "data: x\n\n\ufeffdata: y\n\n",
    "multiline-data": "data: {\"a\":\ndata:\ndata: 1}\n\n",
    "no-colon-fields": "data\ndata\nevent\nid\nretry\n\n",
    "space-after-colon": "data:x\ndata: x\ndata:  x\nevent:  t\n\n",
    "id-persists": "id: 7\ndata: a\n\ndata: b\n\nid:\ndata: c\n\n",
    "id-with-nul": "id: 1\n\nid: a\x00b\ndata: x\n\n",
    "retry-variants": "retry: 10\nretry: 1a\nretry: -1\nretry:\nretry: 99999999999999999999\n\n",
    "unknown-fields": "foo: bar\nData: x\ndata : y\nretryx: 1\n\n",
    "event-types": "event: a\nevent: b\ndata: 1\n\nevent:\ndata: 2\n\nevent: c\n\n",
    "unterminated": "data: done\n\ndata: cut off",
    "unterminated-line": "data: x\n\ndata: y\n",
    "blank-lines-only": "\n\n\r\n\r\r",
    "long-data": "data: " + "x" * 600 + "\ndata: " + "y" * 300 + "\n\n",
    "long-id-and-type": "id: " + "i" * 400 + "\nevent: " + "t" * 400 + "\ndata: z\n\n",
    "long-comment": ":" + "c" * 2000 + "\ndata: ok\n\n",
}
# Each stream twice: without a limit (generated chunks), and under one of three small
# limits in turn: 16 bytes with byte-led chunks, 0 (taken as 1) with empty feeds, 64.
sse_small = [(b"\x10\x83", "max16"), (b"\x00\x47", "max0-empty-feeds"), (b"\x40\x00", "max64")]
for i, (sname, text) in enumerate(sse_streams.items()):
    body = text.encode("utf-8", "surrogatepass")
    write("sse", "seed-%s-nolimit" % sname, b"\xff\x05" + body)
    head, hname = sse_small[i % len(sse_small)]
    write("sse", "seed-%s-%s" % (sname, hname), head + body)
write("sse", "seed-header-only", b"\xff\x01")

# ---- uri: "BASE\nREF" or REF alone (resolved against RFC 3986 5.4's base).
RFC_REFS = ["g:h", "g", "./g", "g/", "/g", "//g", "?y", "g?y", "#s", "g#s", "g?y#s", ";x", "g;x",
            "g;x?y#s", "", ".", "./", "..", "../", "../g", "../..", "../../", "../../g",
            "../../../g", "../../../../g", "/./g", "/../g", "g.", ".g", "g..", "..g", "./../g",
            "./g/.", "g/./h", "g/../h", "g;x=1/./y", "g;x=1/../y", "g?y/./x", "g?y/../x",
            "g#s/./x", "g#s/../x", "http:g"]
for i, ref in enumerate(RFC_REFS):
    write("uri", "seed-rfc5.4-%02d" % i, ref)
URIS = [
    "http://example.com/a/b?c=d#e", "HTTP://User:Pw@Example.COM:080/%7euser/%2e%2E/x?%41#%5a",
    "https://[2001:db8::7]:443/", "http://[::ffff:192.0.2.1]/", "http://[v7.fe80::1+x]/",
    "http://[fe80::1%25eth0]/", "http://[::1", "http://192.168.0.1:8080/", "http://1.2.3.04/",
    "http://256.1.1.1/", "file:///srv/data/a%20b.txt", "file://localhost/etc/passwd",
    "file:/tmp/x", "file://host/share", "file:///a/%2F/b", "file:///a/%00", "file:///a?q",
    "mem://blob", "urn:isbn:0451450523", "mailto:a@b.c", "data:text/plain;base64,SGk=",
    "a:", "a:/", "a://", "//", "///", "?", "#", "a b", "http://a/%", "http://a/%zz",
    "http://a:b/", "http://a:80:80/", "\xc3\xa9", "http://a/\x00b", "%61:b", "./a:b",
    "a:b:c", "http://a/b/../../../../c", "http://a//b//../c", "x:/.//y", "x:..//y",
    "ws://h:80", "wss://h:443/", "http://h:", "http://h:00080/", "HTTPS://H/",
]
for i, u in enumerate(URIS):
    write("uri", "seed-uri-%02d" % i, u.encode("latin-1"))
PAIRS = [("http://a/b/c/d;p?q", "../../g"), ("http://a", "g"), ("http://a", "?q"),
         ("file:///srv/data/", "../../etc/passwd"), ("a:b", "c"), ("a:", "//h"),
         ("http://a/b/../c", "?q"), ("http://a/b/..", "e"), ("x:/a", "..//y"),
         ("x:", ".//y"), ("http://a/b/c/d", "x/%2E%2E/../y"), ("mem://h/docs/", "%2e%2e/x"),
         ("http://u@[::1]:8/p?q#f", "#g"), ("rel/base", "g"), ("HTTP://A/B/", "C/./D/../E")]
for i, (base, ref) in enumerate(PAIRS):
    write("uri", "seed-pair-%02d" % i, base + "\n" + ref)

# ---- traverse: "ROOT\nCANDIDATE" or CANDIDATE (judged against file:///srv/data).
CANDS = ["file:///srv/data/a.txt", "file:///srv/data/../../etc/passwd", "file:///srv/data/%2e%2e/x",
         "file:///srv/data/%252e%252e/%252e%252e/etc/passwd", "file:///srv/data/..%2f..%2fetc",
         "file:///srv/data/..%5c..%5cetc", "file:///srv/data/..\\..\\etc", "file:///srv/data/a%00/../../x",
         "file:///srv/data/%c0%ae%c0%ae/x", "file:///srv/data/....//....//etc",
         "file:///srv/data//etc/passwd", "file:///srv/data/x?/../../../etc#/../..",
         "file://localhost/srv/data/x", "file://evil/srv/data/x", "FILE:///srv/data/x",
         "http://h/srv/data", "file:///srv/datax", "file:///srv/data", "file:/srv/data/../x",
         "file:srv/data", "", "no-scheme/x", "file:///srv/data/\xc0\xae\xc0\xae/x",
         "file://%6cocalhost/srv/data/../../x", "file:///srv/data/ ../x"]
for i, c in enumerate(CANDS):
    write("traverse", "seed-cand-%02d" % i, c.encode("latin-1"))
ROOTS = [("file:///srv/data/", "file:///srv/data/../secret"), ("/srv/My Docs", "file:///srv/My%20Docs/x"),
         ("/srv/a%20b", "file:///srv/a%2520b/../x"), ("mem://host/docs", "mem://host/docs/../x"),
         ("mem://host/docs", "mem://HOST/docs/x"), ("file:///", "file:///etc/passwd"),
         ("file:///etc", "file:///etc/passwd"), ("file://localhost/srv", "file:///srv/x"),
         ("file:///srv/a/..", "file:///srv/x"), ("file:///srv/%2e%2e/data", "file:///data/x"),
         ("relative/root", "file:///x"), ("file:///srv/data?q#f", "file:///srv/data/x"),
         ("file:///srv/data", "file:///srv/data/%2F%2Fetc/passwd")]
for i, (r, c) in enumerate(ROOTS):
    write("traverse", "seed-root-%02d" % i, r + "\n" + c)

# ---- uritemplate: "TEMPLATE\nVALUES" (space-separated words, or a JSON object).
TEMPLATES = [
    ("file:///logs/{date}{?level}", "2025-01-01 warn"), ("{var}", "value"), ("{+path}/here", "foo"),
    ("{#frag}", "x"), ("map?{x,y}", "1024 768"), ("{x,hello,y}", "1024 Hello 768"),
    ("{/var,x}/here", "value 1024"), ("{;x,y,empty}", "1024 768 "), ("{?x,y,empty}", "1024 768 "),
    ("?fixed=yes{&x}", "1024"), ("{.dom*}", "example com"), ("{var:3}", "value"),
    ("{/list*}", "red green"), ("X{.var}", "value"), ("{a}{b}", "x y"), ("{a}-{b}", "x-y z"),
    ("mem://h/{a}/{a}", "same same"), ("{ a}", "bad"), ("{a", "bad"), ("{=a}", "bad"),
    ("{a:0}", "bad"), ("{a:10000}", "bad"), ("%zz{a}", "x"), ("{a*,b}", "x y"),
    ("http://example.com/{+path}{?q*}", "/a/b q"), ("resource://{server}/{+rest}", "s x/y"),
    ("", ""), ("no-vars", "x"), ("{%41}", "x"), ("{a.b}", "x"), ("{a_1,B2}", "x y"),
]
JSON_VALUES = [
    ("{list}", '{"list":["red","green","blue"]}'), ("{keys*}", '{"keys":{"semi":";","dot":"."}}'),
    ("{?keys}", '{"keys":{"a":"1","b":"2"}}'), ("{n}", '{"n":42}'), ("{b}", '{"b":true}'),
    ("{x:3}", '{"x":["a","b"]}'), ("{nested}", '{"nested":[["a"]]}'), ("{u}", '{"u":null}'),
    ("{e}", '{"e":[]}'), ("{+r}", '{"r":"a/b?c#d%20"}'), ("{s}", '{"s":"\\u00e9 \\u0000"}'),
]
for i, (t, v) in enumerate(TEMPLATES + JSON_VALUES):
    write("uritemplate", "seed-%02d" % i, t + "\n" + v)
MORE_TEMPLATES = [
    ("caf\u00e9/{x}", "v"), ("\u00e9\u0301{x}", "v"), ("a}b", "x"), ("{x.}", "v"), ("{x.y.z}", "a"),
    ("{x,y}", "a b c d"), ("{/x,y*}", "a b c"), ("{?k*}", '{"k":{"a":"1","b":""}}'),
    ("{;k*}", '{"k":{"a":"1"}}'), ("{&k*}", '{"k":["x","y"]}'), ("{#k*}", '{"k":{"a":"/"}}'),
    ("{+k*}", '{"k":{"a":"b/c"}}'), ("{.k}", '{"k":{"a":"1","b":"2"}}'),
    ("x{a}y{b}z", "1 2"), ("{a}{a}", "q q"), ("{a}/{a:2}", "abc abc"), ("{/a}{/b}", "x y"),
    ("{?a}{&b}", "1 2"), ("{x}\xff", "v"), ("{x\xc3\xa9}", "v"), ("{x%41}", "v"), ("{x%4}", "v"),
]
for i, (t, v) in enumerate(MORE_TEMPLATES):
    write("uritemplate", "seed-more-%02d" % i, t.encode("utf-8", "surrogateescape") + b"\n" + v.encode())

# ---- observe: the observer's newer judgements (_meta keys, progress, subscriptions, -32042).
META_BAD = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "example.com/x": 1,
            "com.example/ok": 2, "bad key": 3, "/x": 4, "a..b/c": 5, "-a/b": 6, "x/": 7}
extra_transcripts = {
    "meta-keys": ("5", ["--> " + request(1, "tools/call", {"name": "t", "_meta": META_BAD}),
                        "<-- " + result(1, {"content": [], "_meta": {"example.io/y": True}})]),
    "progress": ("3", ["--> " + request(1, "tools/call", {"name": "t", "_meta": {"progressToken": "p"}}),
                       "<-- " + notification("notifications/progress", {"progressToken": "p", "progress": 5}),
                       "<-- " + notification("notifications/progress", {"progressToken": "p", "progress": 3}),
                       "<-- " + notification("notifications/progress", {"progressToken": "q", "progress": 1}),
                       "<-- " + notification("notifications/progress", {"progressToken": 1.5, "progress": "x"}),
                       "<-- " + result(1, {"content": []}),
                       "<-- " + notification("notifications/progress", {"progressToken": "p", "progress": 9,
                                                                         "total": "t", "message": 1})]),
    "subscriptions": ("3", ["--> " + request(1, "resources/subscribe", {"uri": "file:///a/"}),
                            "<-- " + result(1, {}),
                            "<-- " + notification("notifications/resources/updated", {"uri": "file:///a/b"}),
                            "<-- " + notification("notifications/resources/updated", {"uri": "file:///z"}),
                            "--> " + request(2, "resources/unsubscribe", {"uri": "file:///a/"}),
                            "<-- " + result(2, {}),
                            "<-- " + notification("notifications/resources/updated", {"uri": "file:///a/b"})]),
    "url-elicitation": ("4", ["--> " + request(1, "tools/call", {"name": "t"}),
                              "<-- " + error(1, -32042, "need url", {"elicitations": [{"mode": "form"}]}),
                              "--> " + request(2, "tools/call", {"name": "t"}),
                              "<-- " + error(2, -32042, "need url", {"elicitations": [
                                  {"mode": "url", "elicitationId": "e", "url": "https://x", "message": "m"}]}),
                              "--> " + request(3, "tools/call", {"name": "t"}),
                              "<-- " + error(3, -32042, "need url")]),
}
for name, (header, lines) in extra_transcripts.items():
    write("observe", "seed-" + name, transcript(header, lines))

# ---- suite: every shipped suite file that fits, and small broken ones (each names a line).
SUITES = os.path.join(ROOT, "suites")
for fname in sorted(os.listdir(SUITES)):
    if fname.endswith(".suite"):
        with open(os.path.join(SUITES, fname), "rb") as f:
            text = f.read()
        if len(text) <= MAX_LEN["suite"]:
            write("suite", "seed-" + fname[:-len(".suite")], text)
HEAD = "suite s\ntitle t\n"
BROKEN_SUITES = {
    "no-suite-line": "case c\n--> {}\n",
    "no-cases": HEAD,
    "bad-json": HEAD + "case c\ntitle t\nrequires LIFE-INIT-001\n--> {\"a\":\n<-- {}\n",
    "split-json": HEAD + "case c\ntitle t\nrequires PING-001\n--> {\"jsonrpc\":\"2.0\",\n   \"id\":1,\"method\":\"ping\"}\n<-- {\"id\":1,\"result\":{}}\n",
    "duplicate-case": HEAD + "case c\ntitle t\nrequires PING-001\n<-- nothing for 1s\ncase c\ntitle u\nrequires PING-001\n<-- nothing for 1s\n",
    "unclosed-repeat": HEAD + "case c\ntitle t\nrequires PING-001\nrepeat max 3 while ${x}\n--> {}\n",
    "stray-end": HEAD + "case c\ntitle t\nrequires PING-001\nend\n",
    "nested-loops": HEAD + "case c\ntitle t\nrequires PING-001\nforeach a in ${l} max 3 else skip \"none\"\nrepeat max 2 while ${k}\n--> {\"id\":\"${a}-${i}\"}\n<-- {\"id\":\"${a}-${i}\",\"result\":\"$capture?:k\"}\nend\nend\n",
    "alternatives": HEAD + "case c\ntitle t\nrequires RPC-ERR-003\n--> raw {\\x00}\n<-- {\"error\":{\"code\":-32700}}\n<-- else warn \"other code\" {\"error\":\"$object\"}\n<-- else fail \"no answer\" silence\n",
    "let-and-require": HEAD + "case c\ntitle t\nrequires TOOL-001\nneeds call_tool\nlet p = traversal_probes(${root})\nlet v = {\"a\":[1,2]}\nrequire ${v.a.0} else skip \"no\"\n<-- no {\"method\":\"x\"} for 1s\n<-- each {\"jsonrpc\":\"2.0\"}\n",
    "bad-revisions": HEAD + "case c\ntitle t\nrequires PING-001\nrevisions 2024-11-05..1999-01-01\n<-- nothing for 1s\n",
    "crlf": (HEAD + "case c\ntitle t\nrequires PING-001\n<-- nothing for 1s\n").replace("\n", "\r\n"),
}
for name, text in BROKEN_SUITES.items():
    write("suite", "seed-" + name, text)

# ---- schema: every group of the official JSON Schema Test Suite (tests/data/json-schema-suite)
# that fits: "FLAGS\n[schema, instance...]". Flags (fuzz_schema.c): 1 format assertion,
# 2 draft-07 rules without $schema, 4 small limits, 8 the schema also as a document.
SUITE_TESTS = os.path.join(ROOT, "tests", "data", "json-schema-suite", "tests")
for draft, dflag in (("draft2020-12", 0), ("draft7", 2)):
    base = os.path.join(SUITE_TESTS, draft)
    for dirpath, _, files in sorted(os.walk(base)):
        for fname in sorted(files):
            rel = os.path.relpath(os.path.join(dirpath, fname), base)[:-len(".json")]
            with open(os.path.join(dirpath, fname), encoding="utf-8") as f:
                groups = json.load(f)
            flags = dflag | (1 if rel.startswith("optional/format") else 0)
            for i, g in enumerate(groups):
                body = j([g["schema"]] + [t["data"] for t in g["tests"]])
                name = "seed-%s-%s-%02d" % (draft, rel.replace("/", "-"), i)
                text = "%d\n%s" % (flags, body)
                if len(text.encode("utf-8")) <= MAX_LEN["schema"]:
                    write("schema", name, text)
SCHEMA_EXTRA = {
    "small-limits": (4, [{"$defs": {"n": {"anyOf": [{"type": "integer"}, {"items": {"$ref": "#/$defs/n"}}]}},
                          "$ref": "#/$defs/n"}, [[[[1]]]], [[["x"]]]]),
    "document": (8, [{"$id": "http://fuzz.example/doc.json", "$defs": {"s": {"type": "string"}},
                      "properties": {"a": {"$ref": "doc.json#/$defs/s"}}}, {"a": "x"}, {"a": 1}]),
    "dynamic": (0, [{"$dynamicAnchor": "t", "type": "object", "properties": {"k": {"$dynamicRef": "#t"}},
                     "unevaluatedProperties": False}, {"k": {"k": {}}}, {"k": 1, "z": 2}]),
    "not-array": (0, {"type": "null"}),
}
for name, (flags, body) in SCHEMA_EXTRA.items():
    write("schema", "seed-" + name, "%d\n%s" % (flags, j(body)))

# ---- regex: "PATTERN\nSUBJECT"; the suite's patterns, ECMA-262 corners, and hostile ones.
REGEX_SEEDS = [
    ("^[a-z]+$", "abc"), ("^\\d{3}-\\d{4}$", "555-1234"), ("a|b|c", "zzc"), ("(a*)*b", "aaaa"),
    ("^(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"), ("\\bword\\b", "a word here"),
    ("^\\p{Letter}+$", "\u00e9t\u00e9"), ("^[\\p{Nd}x]+$", "x4"), ("\\P{L}", "abc1"),
    ("x{2,5}?", "xxx"), ("a{", "a{"), ("}]", "}]"), ("[^]", "q"), ("[]", "q"), ("(?<n>ab)+", "abab"),
    ("(?=a)", "a"), ("(a)\\1", "aa"), ("[\\w.-]+@[\\w-]+\\.[a-z]{2,}", "me@x.org"),
    ("\\u00e9|\\u{1F600}", "\U0001F600"), ("^.$", "\U0001F600"), ("^.$", "\r"), ("\\cJ", "\n"),
    ("[\\b]", "\b"), ("\\B", "ab"), ("^$", ""), ("\\x41\\0", "A\x00"), ("[z-a]", "x"),
    ("(x{1000}){1000}", "x"), ("((a|b)*c|d)+e?$", "abababcd"), ("^(?:[a-z0-9-]+\\.)+[a-z]{2,}$", "a.b.example"),
    ("[\\s\\S]*?end", "the end"), ("^[^\\n]*$", "line\nnext"), ("\\a", "a"), ("a$|^b", "b\n"),
]
for i, (pat, subj) in enumerate(REGEX_SEEDS):
    write("regex", "seed-%02d" % i, pat + "\n" + subj)
SUITES_DIR = os.path.join(ROOT, "suites")
k = 0
for fname in sorted(os.listdir(SUITES_DIR)):
    if fname.endswith(".suite"):
        with open(os.path.join(SUITES_DIR, fname), encoding="utf-8") as f:
            for m in sorted(set(__import__("re").findall(r'\$regex:((?:[^"\\]|\\.)*)"', f.read()))):
                write("regex", "seed-suite-%02d" % k, json.loads('"' + m + '"') + "\n")
                k += 1
