#!/usr/bin/python3
"""Hostile targets never hang or crash mcpspec: for each fixture in
tests/hostile/, the run ends within its timeouts plus 2 s, exits 1 or 3, writes
a complete report, leaves no process behind and stays under 64 MiB."""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import MCPSPEC, ROOT  # noqa: E402

HOSTILE = os.path.join(ROOT, "tests", "hostile")
TIMEOUT, PROBE_TIMEOUT, GRACE = 2.0, 2.0, 1.0
# Probes run at once; each may wait its timeout, then the shutdown ladder
# (close stdin, grace, SIGTERM, grace, SIGKILL).
BUDGET = PROBE_TIMEOUT + 2 * GRACE + 2.0
SANITIZED = os.environ.get("MCPSPEC_BUILD_TYPE", "") == "Sanitize"
# ASan's shadow memory and quarantine count in RSS; the bound that matters is
# the release build's.
MEMORY_LIMIT_KIB = (256 if SANITIZED else 64) * 1024


def leftovers(fixture):
    out = subprocess.run(["ps", "-eo", "pid,stat,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines()[1:]
            if fixture in line and " Z" not in line and "ps -eo" not in line]


class HostileTest(unittest.TestCase):
    def run_fixture(self, name):
        fixture = os.path.join(HOSTILE, name)
        with tempfile.TemporaryDirectory() as out:
            t0 = time.monotonic()
            r = subprocess.run([MCPSPEC, "run", "--server", fixture, "--out", out, "--quiet",
                                "--timeout", str(TIMEOUT), "--probe-timeout", str(PROBE_TIMEOUT),
                                "--shutdown-grace", str(GRACE)],
                               capture_output=True, text=True, timeout=120)
            elapsed = time.monotonic() - t0
            self.assertIn(r.returncode, (1, 3), r.stderr)
            self.assertLess(elapsed, BUDGET, "%s took %.1f s" % (name, elapsed))
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                report = json.load(f)
            self.assertEqual(report["summary"]["exit_code"], r.returncode)
            self.assertTrue(report["cases"], "the report records the probes")
            for c in report["cases"]:
                self.assertIn(c["verdict"], ("PASS", "FAIL", "WARN", "INFO", "SKIP", "ERROR"))
            self.assertLess(report["harness"]["max_rss_kib"], MEMORY_LIMIT_KIB)
            for fmt in ("junit.xml", "summary.md", "report.html", "report.sarif"):
                self.assertTrue(os.path.getsize(os.path.join(out, fmt)) > 0, fmt)
        time.sleep(0.2)
        self.assertEqual(leftovers(fixture), [], "processes left behind")
        return report

    def test_exit_at_once(self):
        report = self.run_fixture("exit-at-once")
        self.assertTrue(all(c["verdict"] == "ERROR" for c in report["cases"]))

    def test_never_answers(self):
        self.run_fixture("never-answers")

    def test_flood_no_newline(self):
        self.run_fixture("flood-no-newline")

    def test_binary_garbage(self):
        self.run_fixture("binary-garbage")

    def test_close_stdout(self):
        self.run_fixture("close-stdout")

    def test_ignore_sigterm(self):
        self.run_fixture("ignore-sigterm")

    def test_fork_keeps_pipes(self):
        self.run_fixture("fork-keeps-pipes")

    def test_slow_trickle(self):
        self.run_fixture("slow-trickle")

    def test_cannot_start(self):
        with tempfile.TemporaryDirectory() as out:
            r = subprocess.run([MCPSPEC, "run", "--server", "/nonexistent/server", "--out", out,
                                "--quiet"], capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 3)
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                report = json.load(f)
            self.assertIn("cannot start", report["fatal"])


if __name__ == "__main__":
    unittest.main()
