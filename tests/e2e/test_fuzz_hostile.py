#!/usr/bin/python3
"""`mcpspec fuzz` against every hostile stdio target in tests/hostile/ (issue 16: "the
fuzzer ends within its time, leaves no process and stays under 64 MiB").

Each target is fuzzed for two seconds (--time 2, short probe and liveness waits), four
at a time. For each: the run exits 0, 1 or 3 (nothing found, a finding such as a crash
or a hang, or no session to fuzz, the report saying why); report.json is written; the run ends within --time
plus its waits and shutdown; no process the target started (marked through --env, so
grandchildren count too) is left; and mcpspec's own peak RSS (wait4) stays under 64 MiB
in the release build (ASan's shadow memory makes that figure meaningless under the
sanitizers, where the rest is checked all the same)."""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN_DIR, MCPSPEC, ROOT  # noqa: E402
from test_hostile import marked, wait_for  # noqa: E402

HOSTILE = os.path.join(ROOT, "tests", "hostile")
REFSERVER = os.path.abspath(os.path.join(BIN_DIR, "refserver"))
SANITIZED = os.environ.get("MCPSPEC_BUILD_TYPE", "") == "Sanitize"
SLOW = 3.0 if SANITIZED else 1.0
SECONDS = 2
# --time, then one execution's waits (probe 1 s, liveness 0.3 s, shutdown) and the report.
BUDGET = (SECONDS + 4) * SLOW
# The stdio targets; the HTTP ones wait for `mcpspec fuzz --url`.
TARGETS = {
    "binary-garbage": [], "byte-trickle": [], "close-stdout": [], "exit-at-once": [],
    "flood-no-newline": [], "fork-keeps-pipes": [], "fork-keeps-pipes stay": [],
    "ignore-sigterm": [], "never-answers": [], "slow-trickle": [],
    "stderr-flood": [REFSERVER], "stops-itself": [], "stops-reading": [],
}


class FuzzHostileTest(unittest.TestCase):
    def one(self, name):
        token = "fuzz-hostile-%d-%s-%f" % (os.getpid(), name.replace(" ", "-"), time.time())
        with tempfile.TemporaryDirectory() as out:
            words = name.split()
            server = " ".join([os.path.join(HOSTILE, words[0])] + words[1:] + TARGETS[name])
            args = [MCPSPEC, "fuzz", "--server", server, "--time", str(SECONDS),
                    "--probe-timeout", "1", "--hang-timeout", "0.3", "--seed", "1", "--quiet",
                    "--out", out, "--env", "MCPSPEC_HOSTILE=" + token]
            t0 = time.monotonic()
            p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = t0 + 60
            while True:
                pid, status, usage = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > deadline:
                    p.kill()
                    pid, status, usage = os.wait4(p.pid, 0)
                    break
                time.sleep(0.02)
            p.returncode = os.waitstatus_to_exitcode(status)
            elapsed = time.monotonic() - t0
            report = None
            path = os.path.join(out, "report.json")
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    report = json.load(f)
        left = [] if wait_for(lambda: not marked(token), 2.0) else marked(token)
        return p.returncode, elapsed, usage.ru_maxrss, report, left

    def test_every_hostile_target(self):
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            results = dict(zip(TARGETS, pool.map(self.one, TARGETS)))
        for name, (rc, elapsed, rss, report, left) in sorted(results.items()):
            with self.subTest(target=name):
                self.assertIn(rc, (0, 1, 3), "exit %d" % rc)
                self.assertIsNotNone(report, "no report.json")
                self.assertEqual(report["exit_code"], rc)
                if rc == 3:
                    self.assertTrue(report.get("error"), "exit 3 and the report says not why")
                self.assertLess(elapsed, BUDGET, "took %.1f s" % elapsed)
                self.assertEqual(left, [], "processes left behind")
                if not SANITIZED:
                    self.assertLess(rss, 64 * 1024, "peak RSS %d KiB" % rss)


if __name__ == "__main__":
    unittest.main()
