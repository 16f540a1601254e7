#!/usr/bin/python3
"""mcpspec against real MCP servers from npm (pinned in tests/servers/), over
stdio. Each run's verdicts must equal the committed snapshot in
tests/snapshots/, so a change in what mcpspec says about a real server shows
up in review. To accept a change: MCPSPEC_UPDATE_SNAPSHOTS=1 and run again.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import MCPSPEC, ROOT  # noqa: E402

SNAPSHOTS = os.path.join(ROOT, "tests", "snapshots")
UPDATE = os.environ.get("MCPSPEC_UPDATE_SNAPSHOTS") == "1"


def install():
    r = subprocess.run([os.path.join(ROOT, "scripts", "real-servers")], capture_output=True,
                       text=True, timeout=900)
    if r.returncode != 0:
        raise AssertionError("cannot install the real servers: " + r.stderr)
    return r.stdout.strip()


def verdict_lines(report):
    lines = ["%s\t%s\t%s" % (c["revision"], c["id"], c["verdict"]) for c in report["cases"]]
    return sorted(lines)


class RealServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.modules = os.path.join(install(), "node_modules", "@modelcontextprotocol")

    def run_server(self, name, command, extra=()):
        with tempfile.TemporaryDirectory() as out:
            r = subprocess.run([MCPSPEC, "run", "--server", command, "--out", out, "--quiet",
                                "--format", "json", "--timeout", "3"] + list(extra),
                               capture_output=True, text=True, timeout=600)
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                report = json.load(f)
        self.assertIn(r.returncode, (0, 1), "the run completes: " + r.stderr)
        self.assertIsNone(report["fatal"])
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
            self.fail("verdicts on %s changed (- snapshot, + now):\n%s" % (name, "\n".join(
                ("+ " if l in got else "- ") + l for l in changed)))
        return report

    def test_server_everything(self):
        script = os.path.join(self.modules, "server-everything", "dist", "index.js")
        self.run_server("server-everything", "node %s stdio" % script)


if __name__ == "__main__":
    unittest.main()
