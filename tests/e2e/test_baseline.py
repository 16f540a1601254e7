#!/usr/bin/python3
"""Expected-failure baselines (docs/baseline.md) against the reference server:
an unlisted FAIL fails the run, a listed one does not (and JUnit, SARIF and
report.json say it was baselined), entries about what this run did not run
are not judged, a stale entry and an expired one fail the run, `mcpspec
baseline --from` writes a baseline that makes the same run pass, and a broken
baseline file exits 2 naming its file and line."""
import json
import os
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN_DIR, MCPSPEC, run  # noqa: E402

REFSERVER = os.path.abspath(os.path.join(BIN_DIR, "refserver"))
FAULT = "parse-error-wrong-code"  # errors/parse-error FAIL (RPC-ERR-003)
CASE = "errors/parse-error"
REV = "2025-06-18"


def entry(match, revision=REV, reason="SDK issue #12: -32603 for unparsable lines", **more):
    key = "requirement" if "/" not in match else "case"
    return dict({key: match, "revision": revision, "reason": reason}, **more)


class BaselineTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def write_baseline(self, entries, name="baseline.json"):
        with open(self.path(name), "w") as f:
            json.dump({"schema": "mcpspec-baseline", "version": 1, "expected": entries}, f,
                      indent=2)
        return self.path(name)

    def mcpspec_run(self, out, fault=FAULT, baseline=None, extra=()):
        server = REFSERVER + (" --fault " + fault if fault else "")
        args = [MCPSPEC, "run", "--server", server, "--case", CASE, "--revision", REV,
                "--out", self.path(out), "--quiet"] + list(extra)
        if baseline:
            args += ["--baseline", baseline]
        r = run(args, timeout=120)
        report = None
        if os.path.exists(self.path(out + "/report.json")):
            with open(self.path(out + "/report.json")) as f:
                report = json.load(f)
        return r, report

    def the_case(self, report):
        return [c for c in report["cases"] if c["id"] == CASE and c["revision"] == REV][0]

    def test_unlisted_failure_fails_the_run(self):
        r, report = self.mcpspec_run("plain")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(self.the_case(report)["verdict"], "FAIL")
        self.assertIsNone(self.the_case(report)["baseline"])
        self.assertIsNone(report["baseline"])
        # A baseline that lists something else excuses nothing.
        other = self.write_baseline([entry("errors/unknown-method")])
        r, report = self.mcpspec_run("other", baseline=other)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIsNone(self.the_case(report)["baseline"])

    def test_listed_failure_passes_and_reports_say_so(self):
        # Besides the listed failure: entries about a revision and a case this run did not
        # run (--revision, --case) are not judged, so not stale.
        baseline = self.write_baseline([
            entry(CASE, expires="2999-12-31"),
            entry(CASE, revision="2024-11-05"),
            entry("ping/empty-result", revision="all"),
        ])
        r, report = self.mcpspec_run("listed", baseline=baseline)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        case = self.the_case(report)
        self.assertEqual(case["verdict"], "FAIL")
        self.assertEqual(case["baseline"]["reason"], "SDK issue #12: -32603 for unparsable lines")
        self.assertEqual(case["baseline"]["expires"], "2999-12-31")
        self.assertEqual(report["summary"]["exit_code"], 0)
        self.assertEqual(report["summary"]["baselined"], 1)
        self.assertEqual(report["baseline"]["stale"], [])
        self.assertEqual(report["baseline"]["matched"], 1)
        self.assertEqual(report["baseline"]["not_judged"], 2)

        junit = ET.parse(self.path("listed/junit.xml")).getroot()
        tc = [t for t in junit.iter("testcase") if t.get("name") == CASE][0]
        self.assertIsNone(tc.find("failure"))
        self.assertIn("SDK issue #12", tc.find("skipped").get("message"))
        self.assertEqual(junit.get("failures"), "0")

        with open(self.path("listed/report.sarif")) as f:
            sarif = json.load(f)
        results = [res for res in sarif["runs"][0]["results"]
                   if res["locations"][0]["logicalLocations"][0]["name"] == CASE]
        self.assertEqual(results[0]["suppressions"],
                         [{"kind": "external",
                           "justification": "SDK issue #12: -32603 for unparsable lines"}])
        with open(self.path("listed/summary.md")) as f:
            self.assertIn("FAIL (baselined)", f.read())
        with open(self.path("listed/report.html")) as f:
            self.assertIn('<span class="baselined">baselined</span>', f.read())

    def test_requirement_entry(self):
        baseline = self.write_baseline([entry("RPC-ERR-003", revision="all")])
        r, report = self.mcpspec_run("req", baseline=baseline)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(self.the_case(report)["baseline"]["match"], "RPC-ERR-003")

    def test_stale_entry_fails_the_run(self):
        baseline = self.write_baseline([entry(CASE)])
        r, report = self.mcpspec_run("stale", fault=None, baseline=baseline)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(self.the_case(report)["verdict"], "PASS")
        stale = report["baseline"]["stale"]
        self.assertEqual(len(stale), 1)
        self.assertEqual((stale[0]["match"], stale[0]["status"], stale[0]["line"]),
                         (CASE, "stale", 5))
        self.assertIn("no longer fails", stale[0]["detail"])
        self.assertEqual(report["summary"]["exit_code"], 1)
        junit = ET.parse(self.path("stale/junit.xml")).getroot()
        failures = [t for t in junit.iter("testcase") if t.find("failure") is not None]
        self.assertEqual([t.get("name") for t in failures], [CASE + "@" + REV])
        self.assertEqual(failures[0].find("failure").get("type"), "STALE")
        with open(self.path("stale/report.sarif")) as f:
            sarif = json.load(f)
        rules = [res["ruleId"] for res in sarif["runs"][0]["results"]]
        self.assertEqual(rules, ["mcpspec/baseline-stale"])

    def test_unknown_case_is_stale(self):
        baseline = self.write_baseline([entry(CASE), entry("errors/no-such-case")])
        r, report = self.mcpspec_run("unknown", baseline=baseline)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        stale = report["baseline"]["stale"]
        self.assertEqual([s["match"] for s in stale], ["errors/no-such-case"])

    def test_expired_entry_fails_the_run(self):
        baseline = self.write_baseline([entry(CASE, expires="2000-01-01")])
        r, report = self.mcpspec_run("expired", baseline=baseline)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIsNone(self.the_case(report)["baseline"])  # an expired entry excuses nothing
        stale = report["baseline"]["stale"]
        self.assertEqual([(s["status"], s["expires"]) for s in stale], [("expired", "2000-01-01")])

    def test_round_trip(self):
        r, _ = self.mcpspec_run("first")
        self.assertEqual(r.returncode, 1, r.stderr)
        out = self.path("made.json")
        made = run([MCPSPEC, "baseline", "--from", self.path("first/report.json"), "--out", out])
        self.assertEqual(made.returncode, 0, made.stderr)
        self.assertIn("reason", made.stderr)  # the user is told to edit the reasons
        with open(out) as f:
            text = f.read()
        baseline = json.loads(text)
        self.assertEqual(len(baseline["expected"]), 1)
        e = baseline["expected"][0]
        self.assertEqual((e["case"], e["revision"], e["verdicts"]), (CASE, REV, ["FAIL"]))
        self.assertTrue(e["reason"].startswith("known failure as of "), e["reason"])
        r, report = self.mcpspec_run("again", baseline=out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(report["summary"]["baselined"], 1)

    def test_round_trip_yaml(self):
        """A file named *.yaml is written and read as YAML; a broken one names its line."""
        r, _ = self.mcpspec_run("first")
        self.assertEqual(r.returncode, 1, r.stderr)
        out = self.path("made.yaml")
        made = run([MCPSPEC, "baseline", "--from", self.path("first/report.json"), "--out", out])
        self.assertEqual(made.returncode, 0, made.stderr)
        with open(out) as f:
            text = f.read()
        self.assertTrue(text.startswith("schema: mcpspec-baseline\nversion: 1\nexpected:\n"), text)
        self.assertIn('  - case: "%s"\n    revision: "%s"\n' % (CASE, REV), text)
        r, report = self.mcpspec_run("again", baseline=out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(report["summary"]["baselined"], 1)
        with open(out, "a") as f:
            f.write("    expire: 2030-01-01\n")
        r, _ = self.mcpspec_run("broken", baseline=out)
        self.assertEqual(r.returncode, 2)
        self.assertIn(out + ":8: expected[0].expire: unknown member", r.stderr)

    def test_baseline_command_usage(self):
        for args in ([], ["--from", "x.json"], ["--out", "y.json"],
                     ["--from", "x.json", "--out", "y.json", "--verdicts", "PASS"],
                     ["--bogus"]):
            r = run([MCPSPEC, "baseline"] + args)
            self.assertEqual(r.returncode, 2, args)
            self.assertTrue(r.stderr.strip(), args)
        not_report = self.write_baseline([])
        r = run([MCPSPEC, "baseline", "--from", not_report, "--out", self.path("o.json")])
        self.assertEqual(r.returncode, 2)
        self.assertIn("not an mcpspec report.json", r.stderr)
        self.assertFalse(os.path.exists(self.path("o.json")))

    def test_broken_baseline_exits_2(self):
        path = self.path("broken.json")
        with open(path, "w") as f:
            f.write('{\n  "schema": "mcpspec-baseline",\n  "version": 1,\n  "expected": [\n'
                    '    {"case": "errors/parse-error", "revision": "2025-06-18",\n'
                    '     "reason": "ok"},\n'
                    '    {"case": "errors/parse-error", "revision": "all",\n'
                    '     "expires": "next year", "reason": "bad date"}\n  ]\n}\n')
        r, report = self.mcpspec_run("broken", baseline=path)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn(path + ":8: expected[1].expires: is a date written YYYY-MM-DD", r.stderr)
        self.assertIsNone(report)  # stopped before the run: no report
        with open(path, "w") as f:
            f.write('{"schema": "mcpspec-baseline", "version": 1,\n"expected": [\n'
                    '{"case": "errors/parse-error", "revision": "all"}]}\n')
        r, _ = self.mcpspec_run("noreason", baseline=path)
        self.assertEqual(r.returncode, 2)
        self.assertIn(path + ":3: expected[0]: \"reason\" is required", r.stderr)
        r, _ = self.mcpspec_run("missing", baseline=self.path("nope.json"))
        self.assertEqual(r.returncode, 2)
        self.assertIn(self.path("nope.json") + ": cannot open", r.stderr)


if __name__ == "__main__":
    unittest.main()
