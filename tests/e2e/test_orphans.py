#!/usr/bin/python3
"""Every part of a check joins up, and a broken join names its file and line.

A check's record is its suite case (or, for a built-in check, its observer
rule and suites/builtin.proofs line), read from `mcpspec list --json`; the
faults are refserver's (`--list-faults`, written in
targets/refserver/faults_<area>.h); the catalog and the coverage status come
from `mcpspec explain --all --json`. This fails on:

- a proof that names a fault refserver does not have;
- a fault that proves no check (but the live fuzzer's `fuzz-` faults, which must prove none);
- a check that no fault proves;
- a proof whose fault and check share no requirement ID;
- a server-side catalog ID no check cites and suites/uncovered.tsv does not
  explain (and an uncovered.tsv row for an ID a check does cite);
- the refserver README's fault table out of date (scripts/fault-table).

A finding that no observer rule tallies cannot be written (findings name a
kind from harness/codec/findings.h; tests/unit/test_findings.c); one that
somehow were would show up as an ERROR check, which test_faults' clean run
rejects.
"""
import glob
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN_DIR, MCPSPEC, ROOT, run  # noqa: E402

REFSERVER = os.path.join(BIN_DIR, "refserver")
OBSERVERS = os.path.join("harness", "engine", "observers.c")
UNCOVERED = os.path.join("suites", "uncovered.tsv")


def json_of(args):
    r = run(args)
    if r.returncode != 0:
        raise AssertionError("%s exited %d: %s" % (" ".join(args), r.returncode, r.stderr))
    return json.loads(r.stdout)


def where(path, line):
    return "%s:%d" % (os.path.relpath(os.path.join(ROOT, path), ROOT), line)


def fault_lines():
    """Fault name -> file:line of its X(...) row in targets/refserver/faults_<area>.h."""
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "targets", "refserver", "faults_*.h"))):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                m = re.search(r'X\(\s*\w+\s*,\s*"([a-z0-9-]+)"', line)
                if m:
                    out[m.group(1)] = where(path, n)
    return out


def rule_lines():
    """observe/NAME -> file:line of its entry in the observer rule table."""
    out = {}
    with open(os.path.join(ROOT, OBSERVERS), encoding="utf-8") as f:
        text = f.read()
    for m in re.finditer(r'\[MCPS_RULE_\w+\]\s*=\s*\{\s*"([a-z0-9-]+)"', text):
        out["observe/" + m.group(1)] = where(OBSERVERS, text.count("\n", 0, m.start()) + 1)
    return out


def check_where(c, rules):
    if c.get("file"):
        return where(c["file"], c["line"])
    return rules.get(c["id"], "suites/builtin.proofs")


class OrphanTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.checks = json_of([MCPSPEC, "list", "--json"])["checks"]
        cls.faults = {}
        for line in run([REFSERVER, "--list-faults"]).stdout.splitlines():
            if line.strip():
                name, reqs, _ = line.split("\t", 2)
                cls.faults[name] = set(reqs.split())
        cls.fault_at = fault_lines()
        cls.rule_at = rule_lines()

    def proofs(self):
        for c in self.checks:
            for p in c["proofs"]:
                yield c, p, where(p["file"], p["line"])

    def test_sources_found(self):
        self.assertGreater(len(self.checks), 100)
        self.assertGreater(len(self.faults), 100)
        self.assertEqual(sorted(set(self.faults) - set(self.fault_at)), [],
                         "faults whose row this test cannot find in faults_<area>.h")
        observers = {c["id"] for c in self.checks if c["kind"] == "observer"}
        self.assertEqual(sorted(observers - set(self.rule_at)), [],
                         "observer rules this test cannot find in " + OBSERVERS)

    def test_proofs_name_known_faults(self):
        bad = ["%s: proven-by names fault '%s', which refserver does not have "
               "(refserver --list-faults)" % (at, p["fault"], )
               for c, p, at in self.proofs() if p["fault"] not in self.faults]
        self.assertEqual(bad, [], "\n".join(bad))

    def test_every_fault_proves_a_check(self):
        proven = {p["fault"] for _, p, _ in self.proofs()}
        bad = ["%s: fault '%s' proves no check (add `proven-by %s VERDICT` to the case it "
               "breaks, or a line to suites/builtin.proofs)" % (self.fault_at.get(f, "?"), f, f)
               for f in sorted(self.faults) if f not in proven and not f.startswith("fuzz-")]
        self.assertEqual(bad, [], "\n".join(bad))
        # The live fuzzer's faults (faults_fuzz.h) are its own: test_fuzz_live proves them, and
        # a proof naming one would make a conformance check depend on a fuzz-only bug.
        fuzz = sorted({p["fault"] for _, p, _ in self.proofs() if p["fault"].startswith("fuzz-")})
        self.assertEqual(fuzz, [], "proofs that name fuzz-only faults")

    def test_every_check_is_proven(self):
        bad = ["%s: %s has no proven-by (a check never shown to fail)%s"
               % (check_where(c, self.rule_at), c["id"],
                  "" if c["kind"] == "case" else "; add `%s proven-by FAULT VERDICT SUITES` to "
                  "suites/builtin.proofs" % c["id"])
               for c in self.checks if not c["proofs"]]
        self.assertEqual(bad, [], "\n".join(bad))

    def test_fault_and_check_share_a_requirement(self):
        bad = []
        for c, p, at in self.proofs():
            reqs = self.faults.get(p["fault"])
            named = set(p.get("breaks", []))
            if reqs is not None and named - reqs:
                bad.append("%s: fault '%s' (%s, %s) does not break %s, which the proof names" % (
                    at, p["fault"], " ".join(sorted(reqs)), self.fault_at.get(p["fault"], "?"),
                    " ".join(sorted(named - reqs))))
            elif reqs is not None and not reqs & set(c["requirements"]):
                bad.append("%s: fault '%s' (%s, %s) shares no requirement with %s (%s)" % (
                    at, p["fault"], " ".join(sorted(reqs)), self.fault_at.get(p["fault"], "?"),
                    c["id"], " ".join(c["requirements"])))
        self.assertEqual(bad, [], "\n".join(bad))

    def test_catalog_ids_are_cited_or_explained(self):
        rows = json_of([MCPSPEC, "explain", "--all", "--json"])
        reasons = {}
        with open(os.path.join(ROOT, UNCOVERED), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.strip() and not line.startswith("#"):
                    reasons[line.split("\t")[0]] = n
        # The catalog's own rows, as compiled in: all but the RFC rows this project adds (so
        # that a checkout without ../shared runs this too).
        with open(os.path.join(ROOT, "suites", "requirements-extra.json"), encoding="utf-8") as f:
            extra = {row["id"] for row in json.load(f)}
        main = {r["id"] for r in rows} - extra
        bad = []
        for r in rows:
            cov = r["coverage"]
            # partial: checked on some of its revisions only (e.g. not yet on 2026-07-28), which
            # scripts/coverage counts per revision for the catalog's rows (not the RFC ones)
            if ((cov["status"] == "uncovered" or (cov["status"] == "partial" and r["id"] in main))
                    and cov["counted"] and r["id"] not in reasons):
                bad.append("%s: %s is cited by no check; add a row saying why (%s)" % (
                    UNCOVERED, r["id"], r["text"][:80]))
            if cov["status"] == "covered" and r["id"] in reasons:
                bad.append("%s: %s is covered by %s; delete the row" % (
                    where(UNCOVERED, reasons[r["id"]]), r["id"], r["checks"][0]["id"]))
        self.assertEqual(bad, [], "\n".join(bad))

    def test_refserver_readme_table_is_current(self):
        r = run([os.path.join(ROOT, "scripts", "fault-table"), "--check", "--mcpspec", MCPSPEC,
                 "--refserver", REFSERVER])
        self.assertEqual(r.returncode, 0, r.stderr)


class ExplainTest(unittest.TestCase):
    def test_page_006_shows_case_fault_and_coverage(self):
        r = run([MCPSPEC, "explain", "PAGE-006"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("SHOULD", r.stdout)
        self.assertIn("pagination/tools-invalid-cursor", r.stdout)
        self.assertIn("--fault cursor-unchecked -> WARN", r.stdout)
        self.assertIn("coverage: covered", r.stdout)
        doc = json.loads(run([MCPSPEC, "explain", "--json", "PAGE-006"]).stdout)[0]
        self.assertEqual(doc["levels"]["2025-06-18"], "SHOULD")
        case = [c for c in doc["checks"] if c["id"] == "pagination/tools-invalid-cursor"][0]
        self.assertIn("cursor-unchecked", [p["fault"] for p in case["proofs"]])
        self.assertEqual(doc["coverage"]["status"], "covered")

    def test_every_catalog_id(self):
        ids = [r["id"] for r in json_of([MCPSPEC, "explain", "--all", "--json"])]
        self.assertGreater(len(ids), 400)
        failed = []
        for i in range(0, len(ids), 64):  # the command takes up to 64 IDs at once
            for fmt in ([], ["--json"]):
                r = run([MCPSPEC, "explain"] + fmt + ids[i:i + 64])
                if r.returncode != 0 or r.stderr:
                    failed.append("%s..%s %s: exit %d %s" % (ids[i], ids[min(i + 63, len(ids) - 1)],
                                                            fmt, r.returncode, r.stderr))
        self.assertEqual(failed, [])
        r = run([MCPSPEC, "explain", ids[0]])
        self.assertTrue(r.stdout.startswith(ids[0] + " "), r.stdout[:200])

    def test_uncovered_reason_and_check_ids(self):
        doc = json.loads(run([MCPSPEC, "explain", "--json", "PING-003"]).stdout)[0]
        self.assertEqual(doc["coverage"]["status"], "uncovered")
        self.assertEqual(doc["coverage"]["uncovered"]["kind"], "not-observable")
        r = run([MCPSPEC, "explain", "observe/json-text"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("JSON-SYNTAX-001", r.stdout)
        self.assertIn("--fault stdout-noise", r.stdout)

    def test_unknown_id(self):
        r = run([MCPSPEC, "explain", "NO-SUCH-001"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown ID 'NO-SUCH-001'", r.stderr)
        self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main()
