#!/usr/bin/python3
"""The mcpspec command line: usage errors exit 2 with a clear message, a broken
suite file names its file and line, list filters, run filters and --strict."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN_DIR, MCPSPEC, run  # noqa: E402

REFSERVER = os.path.abspath(os.path.join(BIN_DIR, "refserver"))


class CliTest(unittest.TestCase):
    def test_usage_errors(self):
        for args in (["run"], ["run", "--server"], ["run", "--server", "x", "--bogus"],
                     ["run", "--server", "x", "--revision", "2031-01-01"],
                     ["run", "--server", "x", "--timeout", "-1"],
                     ["run", "--server", "'unterminated"],
                     ["run", "--server", "x", "--format", "pdf"], ["nosuchcommand"], []):
            r = run([MCPSPEC] + args)
            self.assertEqual(r.returncode, 2, args)
            self.assertTrue(r.stderr.strip(), args)

    def test_broken_suite_names_file_and_line(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "bad.suite"), "w") as f:
                f.write("suite bad\ntitle Bad\ncase x\ntitle t\nrequires PING-001\nexpect e\n"
                        "--> {\"id\":1,\n<-- {}\n")
            r = run([MCPSPEC, "run", "--server", REFSERVER, "--suites", d, "--out", d])
            self.assertEqual(r.returncode, 2)
            self.assertIn(os.path.join(d, "bad.suite") + ":8: invalid JSON (in the message from line 7)",
                          r.stderr)
            r = run([MCPSPEC, "list", "--suites", d])
            self.assertEqual(r.returncode, 2)

    def test_list_filters(self):
        r = run([MCPSPEC, "list", "--case", "ping/*"])
        self.assertEqual(r.returncode, 0)
        ids = [line.split()[0] for line in r.stdout.splitlines()]
        self.assertTrue(ids and all(i.startswith("ping/") for i in ids), ids)
        self.assertIn("PING-001", r.stdout)

    def test_run_filters_and_exit_codes(self):
        with tempfile.TemporaryDirectory() as out:
            r = run([MCPSPEC, "run", "--server", REFSERVER, "--case", "ping/*", "--revision",
                     "2025-06-18", "--out", out, "--quiet"])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(out, "report.json")) as f:
                report = json.load(f)
            cases = {c["id"] for c in report["cases"] if c["suite"] not in ("discovery", "observe")}
            self.assertEqual(cases, {"ping/empty-result", "ping/before-initialized", "ping/exact-ids",
                                     "ping/large-integer-id"})
            self.assertEqual({c["revision"] for c in report["cases"]}, {"2025-06-18"})
            for name in ("report.json", "junit.xml", "summary.md", "report.html", "report.sarif"):
                self.assertTrue(os.path.exists(os.path.join(out, name)), name)

    def test_revision_filter_keeps_negotiation_fair(self):
        """--revision narrows the cases, not what the target is known to speak: the clean server's
        fallback to its newest revision stays a pass, and the revisions left out are reported as
        probed but not tested."""
        with tempfile.TemporaryDirectory() as out:
            r = run([MCPSPEC, "run", "--server", REFSERVER, "--suite", "lifecycle", "--revision",
                     "2025-06-18", "--out", out, "--quiet", "--format", "json"])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(out, "report.json")) as f:
                report = json.load(f)
            bad = [(c["id"], c["verdict"]) for c in report["cases"]
                   if c["verdict"] not in ("PASS", "SKIP")]
            self.assertEqual(bad, [])
            self.assertEqual({c["revision"] for c in report["cases"]}, {"2025-06-18"})
            latest = [p for p in report["revisions"] if p["revision"] == "2025-11-25"][0]
            self.assertTrue(latest["supported"], latest)
            self.assertFalse(latest["tested"], latest)
            self.assertIn("excluded by --revision", latest["detail"])
            chosen = [p for p in report["revisions"] if p["revision"] == "2025-06-18"][0]
            self.assertTrue(chosen["tested"], chosen)
        # ... and the negotiation checks still fail their faults on a narrowed run.
        for fault, case, verdict in (("unsupported-version-echo", "lifecycle/unsupported-version",
                                      "FAIL"),
                                     ("fallback-oldest", "lifecycle/unsupported-version-latest",
                                      "WARN")):
            with tempfile.TemporaryDirectory() as out:
                run([MCPSPEC, "run", "--server", REFSERVER + " --fault " + fault, "--suite",
                     "lifecycle", "--revision", "2025-06-18", "--out", out, "--quiet",
                     "--format", "json"])
                with open(os.path.join(out, "report.json")) as f:
                    got = {c["id"]: c["verdict"] for c in json.load(f)["cases"]}
                self.assertEqual(got.get(case), verdict, fault)

    def test_strict_makes_warn_fail(self):
        server = REFSERVER + " --fault fallback-oldest"
        with tempfile.TemporaryDirectory() as out:
            args = [MCPSPEC, "run", "--server", server, "--case", "lifecycle/*", "--out", out, "--quiet"]
            self.assertEqual(run(args).returncode, 0)
            self.assertEqual(run(args + ["--strict"]).returncode, 1)

    def test_env_and_cwd_reach_the_target(self):
        with tempfile.TemporaryDirectory() as d:
            script = os.path.join(d, "server.sh")
            with open(script, "w") as f:
                f.write("#!/bin/sh\n[ \"$MCPSPEC_PROBE\" = yes ] && [ \"$(pwd)\" = \"%s\" ] && exec %s\nexit 7\n"
                        % (os.path.realpath(d), REFSERVER))
            os.chmod(script, 0o755)
            base = [MCPSPEC, "run", "--server", script, "--case", "ping/empty-result", "--out", d, "--quiet"]
            self.assertEqual(run(base + ["--cwd", d, "--env", "MCPSPEC_PROBE=yes"]).returncode, 0)
            self.assertEqual(run(base).returncode, 3)


if __name__ == "__main__":
    unittest.main()
