#!/usr/bin/python3
"""Hostile HTTP targets never hang or crash mcpspec: each tests/hostile/http-*.py
fixture, started by mcpspec (--server CMD --env PORT=N --url URL) on a free
port of 127.0.0.1, ends the run within the bound derived below, with exit 1
or 3, a complete report, no process left behind (the fixture, found by a
token in its environment, and its port closed) and mcpspec's peak RSS under
64 MiB (256 under ASan, as in test_hostile.py); the endless stream and the
huge event after the handshake at --jobs 8 (release), 1 and 32 (sanitizers).

Each fixture runs twice: misbehaving from the first request (discovery finds
no revision), and with the argument "handshake" (it answers initialize and
accepts notifications, then misbehaves), so that the cases, the liveness
probe and the run's stop meet the fault too."""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import MCPSPEC, ROOT, free_port, listening  # noqa: E402
from test_hostile import JOBS, MEMORY_LIMIT_KIB, RUN_ENV, SLOW, marked, wait_for  # noqa: E402

HOSTILE = os.path.join(ROOT, "tests", "hostile")
PYTHON = "/usr/bin/python3"
# The probe timeout also bounds the wait for the fixture to listen: a Python start that
# took over 2 s on a loaded CI machine (ctest beside a build and the stdio floods) left
# a run with no probes at all.
TIMEOUT, PROBE_TIMEOUT, GRACE = 2.0, 4.0, 1.0
ARGS = ["--timeout", str(TIMEOUT), "--probe-timeout", str(PROBE_TIMEOUT),
        "--shutdown-grace", str(GRACE)]
# Misbehaving from the first request: the wait until the port listens (ends
# as soon as it does, at most PROBE_TIMEOUT), the discovery probes side by
# side (PROBE_TIMEOUT each), then the server is stopped (SIGTERM, GRACE,
# SIGKILL, GRACE), with 4 s for a loaded machine (ctest runs other tests beside this one).
LOADED = 4.0
BUDGET = 2 * PROBE_TIMEOUT + 2 * GRACE + LOADED
# After the handshake: the same start, then the first --jobs cases stall side
# by side (TIMEOUT; a second round at most, for the cases a lane started
# before the last stall was counted), then the liveness probe on a fresh
# session (initialize within PROBE_TIMEOUT, ping within TIMEOUT) stops the
# run, and the server is stopped.
STALL_BUDGET = 2 * PROBE_TIMEOUT + 2 * TIMEOUT + (PROBE_TIMEOUT + TIMEOUT) + 2 * GRACE + LOADED
# A run that breaks its bound is still ended by --deadline, so that a defect
# costs this test seconds, not the run's natural length (minutes).
BACKSTOP = ["--deadline", str((STALL_BUDGET + 4.0) * SLOW)]


class HostileHttpTest(unittest.TestCase):
    def run_fixture(self, name, budget, handshake=False, extra=()):
        """Run mcpspec against tests/hostile/http-NAME.py; the report, checked."""
        token = "http-%s-%d-%f" % (name, os.getpid(), time.time())
        port = free_port()
        server = "%s %s%s" % (PYTHON, os.path.join(HOSTILE, "http-%s.py" % name),
                              " handshake" if handshake else "")
        with tempfile.TemporaryDirectory() as out:
            t0 = time.monotonic()
            r = subprocess.run([MCPSPEC, "run", "--server", server, "--env", "PORT=%d" % port,
                                "--env", "MCPSPEC_HOSTILE=" + token,
                                "--url", "http://127.0.0.1:%d/mcp" % port, "--out", out,
                                "--quiet"] + ARGS + BACKSTOP + list(extra),
                               capture_output=True, text=True, timeout=120, env=RUN_ENV)
            elapsed = time.monotonic() - t0
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                report = json.load(f)
            for fmt in ("junit.xml", "summary.md", "report.html", "report.sarif"):
                self.assertTrue(os.path.getsize(os.path.join(out, fmt)) > 0, fmt)
        self.assertTrue(wait_for(lambda: not marked(token), 1.0),
                        "processes left behind: %s" % marked(token))
        self.assertFalse(listening(port), "the fixture's port still listens")
        self.assertIn(r.returncode, (1, 3), r.stderr)
        self.assertEqual(report["summary"]["exit_code"], r.returncode)
        self.assertEqual(report["transport"], "streamable-http")
        self.assertTrue(report["cases"], "the report records the probes (fatal: %s)"
                        % report["fatal"])
        for c in report["cases"]:
            self.assertIn(c["verdict"], ("PASS", "FAIL", "WARN", "INFO", "SKIP", "ERROR"))
        rss = report["harness"]["max_rss_kib"]
        self.assertLess(elapsed, budget * SLOW,
                        "%s took %.1f s (%s)" % (name, elapsed, report["fatal"]))
        self.assertLess(rss, MEMORY_LIMIT_KIB, "%s: peak RSS %d KiB" % (name, rss))
        if handshake:
            self.assertIn("stopped responding", report["fatal"] or "")
        else:
            self.assertIn("none of the probed revisions", report["fatal"] or "")
            self.assertTrue(all(c["verdict"] == "ERROR" for c in report["cases"]))
        return report

    # Misbehaving from the first request.

    def test_never_answers(self):
        self.run_fixture("never-answers", BUDGET)

    def test_endless_sse(self):
        self.run_fixture("endless-sse", BUDGET)

    def test_huge_event(self):
        report = self.run_fixture("huge-event", BUDGET)
        wire = [e for c in report["cases"] for e in c["wire"] if e["dir"] == "http"]
        self.assertTrue(any('"oversize":true' in e["text"] for e in wire),
                        "the event is cut at --max-message")

    def test_500(self):
        self.run_fixture("500", BUDGET)

    def test_close_mid_body(self):
        self.run_fixture("close-mid-body", BUDGET)

    def test_redirect_loop(self):
        report = self.run_fixture("redirect-loop", BUDGET)
        self.assertTrue(all("HTTP 302" in c["reason"] for c in report["cases"]),
                        "the redirect is not followed")

    def test_slow_drip(self):
        self.run_fixture("slow-drip", BUDGET)

    # After the handshake.

    def test_never_answers_after_handshake(self):
        self.run_fixture("never-answers", STALL_BUDGET, handshake=True)

    def test_500_after_handshake(self):
        self.run_fixture("500", STALL_BUDGET, handshake=True)

    def test_close_mid_body_after_handshake(self):
        self.run_fixture("close-mid-body", STALL_BUDGET, handshake=True)

    def test_redirect_loop_after_handshake(self):
        self.run_fixture("redirect-loop", STALL_BUDGET, handshake=True)

    def test_slow_drip_after_handshake(self):
        self.run_fixture("slow-drip", STALL_BUDGET, handshake=True)

    def run_jobs(self, name):
        """After the handshake at each --jobs of JOBS (the release build 8, the sanitizers 1
        and 32), one after another: memory that grows
        with the sessions open at once shows at 32."""
        for jobs in JOBS:
            with self.subTest(jobs=jobs):
                self.run_fixture(name, STALL_BUDGET, handshake=True, extra=["--jobs", str(jobs)])

    def test_endless_sse_after_handshake(self):
        # Notifications are no answer, and the flood is paused, not queued.
        self.run_jobs("endless-sse")

    def test_huge_event_after_handshake(self):
        # Each answer is cut at --max-message and its transfer aborted; sessions reading a
        # large message at once share the run's budget for them.
        self.run_jobs("huge-event")


if __name__ == "__main__":
    unittest.main()
