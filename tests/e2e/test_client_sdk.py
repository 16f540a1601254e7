#!/usr/bin/python3
"""Real clients: tests/clients/sdk-client.mjs on the TypeScript SDK v1
(@modelcontextprotocol/sdk 1.32.2) and v2 (@modelcontextprotocol/client 2.4.0),
both pinned in tests/servers/package.json, judged by `mcpspec run --client`
over stdio ({server}) and Streamable HTTP ({url}: the SDKs'
StreamableHTTPClientTransport), and the v1 SDK over 2024-11-05's HTTP+SSE
({sse-url}: its SSEClientTransport). Each SDK's verdicts on each transport must
equal its snapshot, tests/snapshots/client-sdk-v1.tsv, client-sdk-v2.tsv,
client-sdk-v1-http.tsv, client-sdk-v2-http.tsv and client-sdk-v1-sse.tsv; the v2 SDK with
versionNegotiation "auto" (2026-07-28: server/discover first) over stdio,
client-sdk-v2-2026.tsv, and over Streamable HTTP, client-sdk-v2-2026-http.tsv
(MCPSPEC_UPDATE_SNAPSHOTS=1 to accept a change). The SDKs come from
scripts/real-servers' install (.cache/servers, or MCPSPEC_NODE_MODULES):
without it, or without node, exit 77 (skipped).

The scenarios listed in CASES, to stay fast (node starts in a second or two
here, once per scenario); the two SDKs run side by side."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import json
import concurrent.futures

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import MCPSPEC, ROOT  # noqa: E402

MODULES = os.environ.get("MCPSPEC_NODE_MODULES",
                         os.path.join(ROOT, ".cache", "servers", "node_modules"))
CLIENT = os.path.join(ROOT, "tests", "clients", "sdk-client.mjs")
SNAPSHOT = os.path.join(ROOT, "tests", "snapshots", "client-sdk-%s.tsv")
UPDATE = os.environ.get("MCPSPEC_UPDATE_SNAPSHOTS") == "1"
CASES = ["client/initialize-*", "client/initialized-notification", "client/request-ids",
         "client/jsonrpc-lines", "client/shutdown", "client/unsupported-version", "client/ping",
         "client/roots-list", "client/sampling*", "client/survives-invalid-json",
         "client/parse-error-answered",
         "client/cursor-unchanged", "client/cancel-survived", "client/batch*",
         "client/progress-tokens", "client/unknown-method", "client/responses",
         # observers of the plain scenario: no start of their own
         "client/meta-keys", "client/uses-declared", "client/tool-calls", "client/own-version",
         # the tasks and oddities scenarios (stdio; not played over HTTP)
         "client/task-*", "client/unknown-meta-key", "client/elicit-complete-unknown",
         "client/elicit-mode-undeclared", "client/schema-2020-12-handshake",
         # an observer of the unknown scenario's (client_cases_modern_client.c)
         "client/error-ids"]
HTTP_CASES = CASES + ["client/http-*", "client/auth-*"]
# Over HTTP+SSE (v1 only): the handshake, a ping, a line that is not JSON and the endpoint.
SSE_CASES = ["client/initialize-*", "client/initialized-notification", "client/request-ids",
             "client/jsonrpc-lines", "client/ping", "client/responses",
             "client/survives-invalid-json", "client/sse-endpoint"]
# The 2026-07-28 checks, and the handshake ones of the plain scenario (its fallback).
MODERN_CASES = ["client/discover-first", "client/no-initialize-after-discover",
                "client/meta-*", "client/discover-version", "client/version-retry",
                "client/no-responses", "client/modern-methods", "client/tool-calls",
                "client/input-required", "client/modern-paging", "client/extension-fallback",
                "client/opaque-codes", "client/probe-fallback",
                # client_cases_modern_client.c's: an observer, and scenario modern-deprecated
                "client/deprecated-capabilities", "client/modern-unknown-meta", "client/input-*",
                "client/initialize-first", "client/initialized-notification",
                "client/request-ids", "client/jsonrpc-lines", "client/shutdown"]
# What the scripted 2026-07-28 server serves (modern-serve, modern-drop; stdio only).
SERVE_CASES = ["client/listen-*", "client/notification-unanswered", "client/structured-array",
               "client/schema-2020-12", "client/no-remote-ref", "client/deep-schema",
               "client/server-restart", "client/relisten"]
# Over Streamable HTTP: those that apply there, and 2026-07-28's HTTP ones.
MODERN_HTTP_CASES = [c for c in MODERN_CASES if c not in (
    "client/discover-first", "client/no-responses", "client/shutdown",
    "client/probe-fallback")] + [
    "client/http-version-header", "client/http-method-header", "client/http-param-headers",
    "client/http-stream-retry", "client/http-bodies", "client/http-era-fallback",
    "client/http-one-post", "client/http-modern-answers", "client/http-no-legacy-fallback",
    "client/http-bearer", "client/auth-resource-metadata", "client/auth-register",
    "client/auth-issuer", "client/http-name-encoded", "client/http-header-relist"]


class SdkClientTest(unittest.TestCase):
    def run_client(self, sdk, cases=CASES, codes=(0, 1), http=False, extra=()):
        """The client on one SDK under mcpspec run --client (http: True for {url}, "sse" for
        {sse-url}): its report."""
        where = ("--sse-url {sse-url}" if http == "sse" else "--url {url}" if http
                 else "-- {server}")
        args = [MCPSPEC, "run", "--client", "node %s %s %s" % (CLIENT, sdk, where), "--quiet",
                "--env", "MCPSPEC_NODE_MODULES=" + MODULES, *extra]
        for c in cases:
            args += ["--case", c]
        with tempfile.TemporaryDirectory() as out:
            r = subprocess.run(args + ["--out", out], capture_output=True, text=True,
                               timeout=120)
            self.assertIn(r.returncode, codes, r.stderr)
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                return json.load(f)

    def verdicts(self, run):
        sdk, http = run
        cases = SSE_CASES if http == "sse" else HTTP_CASES if http else CASES
        report = self.run_client(sdk, cases, http=http)
        return sorted("%s\t%s\t%s" % (c["revision"], c["id"], c["verdict"])
                      for c in report["cases"])

    def snapshot(self, name, title, report):
        text = ("# revision\tcase\tverdict (tests/e2e/test_client_sdk.py, %s)\n" % title
                + "\n".join(sorted("%s\t%s\t%s" % (c["revision"], c["id"], c["verdict"])
                                   for c in report["cases"])) + "\n")
        if UPDATE:
            with open(SNAPSHOT % name, "w", encoding="utf-8") as f:
                f.write(text)
        with open(SNAPSHOT % name, encoding="utf-8") as f:
            self.assertEqual(f.read(), text)

    def test_2026_client(self):
        """The v2 SDK in its "auto" mode asks server/discover first (2026-07-28): judged on
        the 2026-07-28 checks (the scripted server answers the probe with a DiscoverResult,
        or with -32022 first), and, where the server answers the probe -32601 as a legacy one
        does, on the handshake it falls back to, and on what modern-serve and modern-drop
        serve (snapshot client-sdk-v2-2026.tsv)."""
        report = self.run_client("v2 --era auto", MODERN_CASES + SERVE_CASES)
        self.snapshot("v2-2026", "SDK v2 --era auto", report)

    def test_2026_client_http(self):
        """The same over Streamable HTTP (snapshot client-sdk-v2-2026-http.tsv): a legacy
        endpoint answers the probe 400 without a modern error, and the SDK falls back to
        initialize (HTTP-058). --timeout 2: after a broken 2026-07-28 stream the SDK waits on
        its GET (HTTP-057), and the case ends on silence."""
        report = self.run_client("v2 --era auto", MODERN_HTTP_CASES, http=True,
                                 extra=("--timeout", "2"))
        self.snapshot("v2-2026-http", "SDK v2 --era auto, Streamable HTTP", report)

    def test_sdk_clients(self):
        runs = (("v1", False), ("v2", False), ("v1", True), ("v2", True), ("v1", "sse"))
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = dict(zip(runs, pool.map(self.verdicts, runs)))
        for sdk, http in runs:
            with self.subTest(sdk=sdk, http=http):
                name = sdk + ("-sse" if http == "sse" else "-http" if http else "")
                transport = (", HTTP+SSE" if http == "sse" else ", Streamable HTTP" if http
                             else "")
                text = ("# revision\tcase\tverdict (tests/e2e/test_client_sdk.py, SDK %s%s)\n"
                        % (sdk, transport)
                        + "\n".join(results[(sdk, http)]) + "\n")
                if UPDATE:
                    with open(SNAPSHOT % name, "w", encoding="utf-8") as f:
                        f.write(text)
                with open(SNAPSHOT % name, encoding="utf-8") as f:
                    self.assertEqual(f.read(), text)


if __name__ == "__main__":
    if not shutil.which("node") or not all(os.path.isdir(os.path.join(MODULES, *p)) for p in (
            ("@modelcontextprotocol", "sdk"), ("mcpspec-sdk-v2-client",))):
        print("SKIP: node or the SDK (%s) is missing; scripts/real-servers installs it" % MODULES,
              file=sys.stderr)
        sys.exit(77)
    unittest.main()
