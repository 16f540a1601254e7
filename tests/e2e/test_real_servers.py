#!/usr/bin/python3
"""mcpspec against real MCP servers from npm (pinned in tests/servers/), over
stdio, Streamable HTTP and the legacy HTTP+SSE. Each run's verdicts must equal
the committed snapshot in tests/snapshots/, so a change in what mcpspec says
about a real server shows up in review. To accept a change:
MCPSPEC_UPDATE_SNAPSHOTS=1 and run again.

Over HTTP, mcpspec itself starts the server (--server CMD --env PORT=N --url
URL) on a free port of 127.0.0.1, through tests/servers/loopback-only.cjs so
that it never listens beyond loopback, and stops it at the end.
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import MCPSPEC, ROOT, free_port  # noqa: E402

SNAPSHOTS = os.path.join(ROOT, "tests", "snapshots")
UPDATE = os.environ.get("MCPSPEC_UPDATE_SNAPSHOTS") == "1"
# MCPSPEC_KEEP_REPORTS=DIR keeps each run's reports in DIR/<snapshot name>/.
KEEP = os.environ.get("MCPSPEC_KEEP_REPORTS")


def install():
    r = subprocess.run([os.path.join(ROOT, "scripts", "real-servers")], capture_output=True,
                       text=True, timeout=900)
    if r.returncode != 0:
        raise AssertionError("cannot install the real servers: " + r.stderr)
    return r.stdout.strip()


def verdict_lines(report):
    lines = ["%s\t%s\t%s" % (c["revision"], c["id"], c["verdict"]) for c in report["cases"]]
    return sorted(lines)


LOOPBACK = os.path.join(ROOT, "tests", "servers", "loopback-only.cjs")
# A run over stdio costs a Node.js start (about half a second of CPU) for most of its cases,
# hundreds in all; over HTTP one server process serves every session. So server-everything
# runs every revision over Streamable HTTP and the oldest and newest over stdio, and the
# other stdio servers built on the same SDK (v1: filesystem, memory; v2: our own) run its
# newest handshake revision, and the v2 SDK's oldest besides: their older revisions would
# repeat server-everything's verdicts at the cost of minutes of CI.
NEWEST = ["--revision", "2025-11-25"]
HANDSHAKE_REVS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
# The tool calls server-everything consents to (over Streamable HTTP all, over HTTP+SSE all
# but sampling, over stdio none).
EVERYTHING_CALLS = {
    "tool": {"name": "get-structured-content", "arguments": {"location": "Chicago"}},
    "slow_tool": {"name": "trigger-long-running-operation",
                  "arguments": {"duration": 2, "steps": 4}},
    "task_required_tool": {"name": "simulate-research-query",
                           "arguments": {"topic": "mcpspec"}},
    # Registered only for clients that declare the capability they use.
    "sampling_tool": {"name": "trigger-sampling-request",
                      "arguments": {"prompt": "What is 2 + 2?", "maxTokens": 50}},
    "elicitation_tool": {"name": "trigger-elicitation-request", "arguments": {}},
    "url_elicitation_tool": {"name": "trigger-url-elicitation",
                             "arguments": {"url": "https://example.com/connect"}},
}
# The tool calls our own SDK v2 server (tests/servers/sdk-v2-server.mjs) consents to.
SDK_V2 = os.path.join(ROOT, "tests", "servers", "sdk-v2-server.mjs")
SDK_V2_CALLS = {
    "tool": {"name": "echo", "arguments": {"message": "hello"}},
    "slow_tool": {"name": "count-slowly", "arguments": {"duration": 2, "steps": 4}},
    "failing_tool": {"name": "always-fails", "arguments": {}},
    # Multi round-trip on 2026-07-28 (input_required); on the 2025 eras the SDK's
    # shim sends the request to the client itself.
    "elicitation_tool": {"name": "confirm-action", "arguments": {"action": "deploy"}},
    "sampling_tool": {"name": "ask-model", "arguments": {"prompt": "What is 2 + 2?",
                                                         "maxTokens": 50}},
    "toggle_tools": {"name": "toggle-extra", "arguments": {}},
}


class RealServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.install_dir = install()
        cls.modules = os.path.join(cls.install_dir, "node_modules", "@modelcontextprotocol")

    def run_server(self, name, config, extra=(), snapshot=True, timeout=5):
        """Run mcpspec with this target configuration (a dict) and compare with the snapshot."""
        with tempfile.TemporaryDirectory() as out:
            if KEEP:
                out = os.path.join(KEEP, name)
                os.makedirs(out, exist_ok=True)
            path = os.path.join(out, "target.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(config, f)
            # A loaded CI machine (ctest runs other tests beside this one) can take seconds to
            # start Node.js, answer, or exit once its stdin closes: the waits are long, and
            # cost nothing when it is quick.
            r = subprocess.run([MCPSPEC, "run", "--config", path, "--out", out, "--quiet",
                                "--format", "json", "--timeout", str(timeout),
                                "--probe-timeout", "30", "--shutdown-grace", "5"]
                               + list(extra),
                               capture_output=True, text=True, timeout=900)
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                report = json.load(f)
        self.assertIn(r.returncode, (0, 1), "the run completes: " + r.stderr)
        self.assertIsNone(report["fatal"])
        if not snapshot:
            return report
        got = verdict_lines(report)
        path = os.path.join(SNAPSHOTS, name + ".tsv")
        if UPDATE or not os.path.exists(path):
            with open(path, "w", encoding="utf-8") as f:
                f.write("# revision\tcase\tverdict (tests/e2e/test_real_servers.py)\n")
                f.write("\n".join(got) + "\n")
        with open(path, encoding="utf-8") as f:
            want = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
        if got != want:
            changed = sorted(set(got) ^ set(want))
            seen = {"%s\t%s\t%s" % (c["revision"], c["id"], c["verdict"]): c
                    for c in report["cases"]}

            def why(line):
                c = seen.get(line)
                return " (%s)" % (c.get("observed") or c.get("reason") or "")[:300] if c else ""
            self.fail("verdicts on %s changed (- snapshot, + now):\n%s" % (name, "\n".join(
                ("+ " if l in got else "- ") + l + why(l) for l in changed)))
        return report

    def run_http(self, name, command, path, transport, snapshot=True, extra=(), calls=None):
        """mcpspec starts `node --require loopback-only.cjs COMMAND` with PORT set, tests
        http://127.0.0.1:PORT/PATH over this transport, and stops it."""
        port = free_port()
        config = {"server": "node --require %s %s" % (LOOPBACK, command)}
        if calls:
            config["calls"] = calls
        # One Node.js process serves every session of the run (eight at once) on one thread:
        # on a loaded machine an answer can queue behind the others' past 5 s (seen in CI).
        # Over HTTP few cases wait a timeout out (batches over HTTP+SSE), so it costs seconds.
        report = self.run_server(name, config, snapshot=snapshot, timeout=10, extra=[
            "--env", "PORT=%d" % port, "--url", "http://127.0.0.1:%d%s" % (port, path),
            "--transport", transport] + list(extra))
        self.assertEqual(report["target"], "http://127.0.0.1:%d%s" % (port, path))
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            self.assertNotEqual(s.connect_ex(("127.0.0.1", port)), 0,
                                "the server still listens after the run: not stopped")
        return report

    def test_server_everything(self):
        """Over stdio without tool calls: the tool-call cases run over Streamable HTTP (the
        same server code behind another transport); over stdio they would add minutes of CI,
        a minute of it the sampling request left unanswered until the SDK gives up. Over
        stdio, the oldest and the newest handshake revision: each revision costs about 40
        Node.js starts (34 s of CPU, measured), and Streamable HTTP runs all four."""
        script = os.path.join(self.modules, "server-everything", "dist", "index.js")
        self.run_server("server-everything", {"server": "node %s stdio" % script},
                        extra=["--revision", "2024-11-05", "--revision", "2025-11-25"])

    def test_server_everything_http(self):
        script = os.path.join(self.modules, "server-everything", "dist", "index.js")
        report = self.run_http("server-everything-http", script + " streamableHttp", "/mcp",
                               "streamable-http", calls=EVERYTHING_CALLS)
        self.assertEqual(report["transport"], "streamable-http")

    def test_server_everything_sse(self):
        script = os.path.join(self.modules, "server-everything", "dist", "index.js")
        # Without the sampling tool: its unanswered case waits out the SDK's 60 s request
        # timeout, which the Streamable HTTP run already does.
        calls = {k: v for k, v in EVERYTHING_CALLS.items() if k != "sampling_tool"}
        report = self.run_http("server-everything-sse", script + " sse", "/sse", "sse",
                               calls=calls)
        self.assertEqual(report["transport"], "sse")
        # auto: the POST of initialize to /sse is refused, so the legacy GET is tried,
        # and 2024-11-05 (the revision of HTTP+SSE) is found there. The SDK answers the
        # later revisions over it too.
        report = self.run_http("server-everything-sse-auto", script + " sse", "/sse", "auto",
                               snapshot=False, extra=["--suite", "ping"])
        self.assertEqual(report["transport"], "sse")
        supported = [r["revision"] for r in report["revisions"] if r["supported"]]
        self.assertIn("2024-11-05", supported)
        self.assertTrue(any(c["revision"] == "2024-11-05" and c["verdict"] == "PASS"
                            for c in report["cases"] if c["suite"] == "ping"))

    def test_server_everything_versions_diff(self):
        """`mcpspec diff` between two releases of a real server: server-everything 2025.11.25
        and 2026.8.31 over Streamable HTTP, each a default run (no tool-call consent). The
        changes it lists (revision, case, old -> new verdict) equal the snapshot."""
        runs = {}
        for version, package in (("2025.11.25", "mcpspec-server-everything-2025.11.25"),
                                 ("2026.8.31", os.path.join("@modelcontextprotocol",
                                                           "server-everything"))):
            script = os.path.join(self.modules, "..", package, "dist", "index.js")
            runs[version] = self.run_http("server-everything-%s-http" % version,
                                          os.path.normpath(script) + " streamableHttp", "/mcp",
                                          "streamable-http", snapshot=False)
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for version in ("2025.11.25", "2026.8.31"):
                paths.append(os.path.join(tmp, version + ".json"))
                with open(paths[-1], "w", encoding="utf-8") as f:
                    json.dump(runs[version], f)
            r = subprocess.run([MCPSPEC, "diff"] + paths, capture_output=True, text=True,
                               timeout=60)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        got = sorted(" ".join(line.split()[:5]) for line in r.stdout.splitlines()
                     if line.startswith("  ") and " -> " in line)
        self.assertTrue(got, "two releases a year apart and no change: " + r.stdout)
        self.assertEqual(r.returncode, 1 if "New failures" in r.stdout else 0, r.stdout)
        path = os.path.join(SNAPSHOTS, "server-everything-2025.11.25-to-2026.8.31.diff")
        if UPDATE or not os.path.exists(path):
            with open(path, "w", encoding="utf-8") as f:
                f.write("# mcpspec diff between two releases, over Streamable HTTP: revision "
                        "case OLD -> NEW (tests/e2e/test_real_servers.py)\n")
                f.write("\n".join(got) + "\n")
        with open(path, encoding="utf-8") as f:
            want = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
        self.assertEqual(got, want, "the diff between the releases changed:\n" + r.stdout)

    def test_server_basic_vanillajs_http(self):
        """Stateless Streamable HTTP (no Mcp-Session-Id), from the 2.0 SDK packages."""
        script = os.path.join(self.modules, "server-basic-vanillajs", "dist", "index.js")
        report = self.run_http("server-basic-vanillajs-http", script, "/mcp", "streamable-http",
                               calls={"tool": {"name": "get-time", "arguments": {}}})
        self.assertEqual(report["transport"], "streamable-http")

    def supported(self, report):
        """The revisions the run tested: spoken, and not left out by --revision (those are
        probed all the same, for the version-negotiation cases)."""
        return [r["revision"] for r in report["revisions"] if r["tested"]]

    def assert_handshake_era_only(self, name, config):
        """Discovery alone, on every revision (a few Node.js starts): the server speaks the
        four handshake revisions, and 2026-07-28 is reported not spoken, with the evidence.
        The runs that narrow their cases to NEWEST still see what discovery finds."""
        report = self.run_server(name + "-discovery", config, extra=["--suite", "discovery"],
                                 snapshot=False)
        self.assertEqual(self.supported(report), HANDSHAKE_REVS)
        modern = [r for r in report["revisions"] if r["revision"] == "2026-07-28"][0]
        self.assertTrue(modern["probed"] and modern["detail"].startswith("not spoken: "), modern)

    def sdk_v2_stdio(self, name, extra):
        return self.run_server(name, {
            "server": "node %s %s stdio" % (SDK_V2, self.install_dir),
            "calls": SDK_V2_CALLS,
        }, extra=extra)

    def test_sdk_v2_server(self):
        """Our own server on @modelcontextprotocol/server 2.4.0, over stdio: the oldest and
        the newest handshake revision."""
        revs = ["2024-11-05", "2025-11-25"]
        report = self.sdk_v2_stdio("sdk-v2-server", [a for r in revs for a in ("--revision", r)])
        self.assertEqual(self.supported(report), revs)

    def test_sdk_v2_server_stateless(self):
        """The same server on 2026-07-28, a process per case. On stdio the SDK is not
        stateless: a notification as a process's first message ends its modern serving
        (VER-008, docs/sdk-v2-findings.md), and a process that has served many requests
        answers an unsupported protocolVersion with a result; so on a shared process a case's
        verdict would depend on the cases before it (one lane made 13 unrelated cases FAIL).
        --isolation fresh judges each case on its own."""
        report = self.sdk_v2_stdio("sdk-v2-server-2026", ["--revision", "2026-07-28",
                                                          "--isolation", "fresh"])
        # Dual-era: server/discover finds 2026-07-28 (the other revisions are excluded here).
        self.assertEqual(self.supported(report), ["2026-07-28"])

    def test_sdk_v2_server_http(self):
        """The same server over Streamable HTTP (createMcpHandler: 2026-07-28 per request,
        and the 2025 revisions served statelessly, without Mcp-Session-Id)."""
        # Without the sampling and elicitation tools: the SDK serves the 2025 revisions
        # over HTTP one request per instance, which cannot send a request to the client
        # (the tool returns isError "per-request legacy serving cannot receive
        # server-to-client requests"), so those cases could only be ERROR.
        calls = {k: v for k, v in SDK_V2_CALLS.items()
                 if k not in ("sampling_tool", "elicitation_tool")}
        report = self.run_http("sdk-v2-server-http", "%s %s http" % (SDK_V2, self.install_dir),
                               "/mcp", "streamable-http", calls=calls)
        self.assertEqual(report["transport"], "streamable-http")
        self.assertIn("2025-11-25", self.supported(report))

    def test_server_filesystem(self):
        """Traversal probes run on a root folder this test creates (tools/path-traversal)."""
        script = os.path.join(self.modules, "server-filesystem", "dist", "index.js")
        with tempfile.TemporaryDirectory() as root:
            root = os.path.realpath(root)
            os.makedirs(os.path.join(root, "docs"))
            with open(os.path.join(root, "docs", "hello.txt"), "w") as f:
                f.write("hello from the mcpspec test root\n")
            config = {
                "server": "node %s %s" % (script, root),
                "calls": {
                    "tool": {"name": "list_allowed_directories", "arguments": {}},
                    "read_tool": {"name": "read_text_file",
                                  "arguments": {"path": os.path.join(root, "docs", "hello.txt")},
                                  "path_argument": "path"},
                },
            }
            report = self.run_server("server-filesystem", config, extra=NEWEST)
            self.assert_handshake_era_only("server-filesystem", config)
        probes = [c for c in report["cases"] if c["id"] == "tools/path-traversal"]
        self.assertTrue(probes and all(c["verdict"] in ("PASS", "FAIL") for c in probes),
                        "the traversal probes ran")

    def test_server_memory(self):
        script = os.path.join(self.modules, "server-memory", "dist", "index.js")
        with tempfile.TemporaryDirectory() as d:
            config = {"server": {"command": "node %s" % script,
                                 "env": {"MEMORY_FILE_PATH": os.path.join(d, "memory.jsonl")}}}
            self.run_server("server-memory", config, extra=NEWEST)
            self.assert_handshake_era_only("server-memory", config)


if __name__ == "__main__":
    unittest.main()
