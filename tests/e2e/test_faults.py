#!/usr/bin/python3
"""Every check is proven twice: the clean reference server passes it, and a
named fault makes it fail. tests/faults/*.tsv are the tables; this test runs them.

The reference server runs the way the demo runs it (targets/refserver/
mcpspec.json: a root folder of files, and consent for every kind of tool call
the suites know), so that no check is skipped for want of a fixture. Checks
of what a server without a capability does run against clean servers started
with --without CAP. Each fault runs only the suites its rows name, to keep the
table fast.
"""
import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN_DIR, MCPSPEC, ROOT, run  # noqa: E402

REFSERVER = os.path.abspath(os.path.join(BIN_DIR, "refserver"))
# MCPSPEC_FAULT_TABLES=tools:content runs only those tables' rows (while working on them).
TABLES = sorted(glob.glob(os.path.join(ROOT, "tests", "faults", "*.tsv")))
ONLY = [t for t in os.environ.get("MCPSPEC_FAULT_TABLES", "").split(":") if t]
# Capabilities a clean server can be started without, and the suites that check that.
WITHOUT = ("tools", "resources", "prompts", "logging", "completions", "tasks")
WITHOUT_SUITES = ("capabilities", "tasks", "lifecycle")
VERDICTS = ("PASS", "FAIL", "WARN", "INFO", "SKIP", "ERROR")


def read_table():
    """Rows of (fault, check, verdict, suites, table name)."""
    rows = []
    for table in TABLES:
        name = os.path.splitext(os.path.basename(table))[0]
        with open(table, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if line and not line.startswith("#"):
                    rows.append(read_row(table, n, line) + (name,))
    return rows


def read_row(table, n, line):
    parts = line.split("\t")
    if len(parts) not in (3, 4) or parts[2] not in VERDICTS:
        raise AssertionError("%s:%d: want fault<TAB>check<TAB>verdict[<TAB>suites]" % (table, n))
    check = parts[1]
    if len(parts) == 4:
        suites = parts[3].split(",")
    elif check.startswith("observe/"):
        raise AssertionError("%s:%d: an observer row names the suites that feed it" % (table, n))
    else:
        suites = [check.split("/")[0]]
    return (parts[0], check, parts[2], suites)


class Fixture:
    """A root folder of files and a target configuration consenting to every call."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="mcpspec-faults-")
        # Relative paths in the configuration (root/...) resolve next to this copy of it.
        self.root = os.path.join(self.dir, "root")
        shutil.copytree(os.path.join(ROOT, "targets", "refserver", "root"), self.root)
        with open(os.path.join(ROOT, "targets", "refserver", "mcpspec.json"), encoding="utf-8") as f:
            config = json.load(f)
        config["server"] = {"command": "%s --root %s" % (REFSERVER, self.root)}
        self.config = os.path.join(self.dir, "mcpspec.json")
        with open(self.config, "w", encoding="utf-8") as f:
            json.dump(config, f)

    def run(self, faults=(), suites=(), without=()):
        """Run mcpspec against refserver with these faults; (exit code, report)."""
        server = " ".join([REFSERVER, "--root", self.root] + ["--fault %s" % f for f in faults] +
                          ["--without %s" % c for c in without])
        with tempfile.TemporaryDirectory() as out:
            cmd = [MCPSPEC, "run", "--config", self.config, "--server", server, "--out", out,
                   "--format", "json", "--quiet"]
            for s in suites:
                cmd += ["--suite", s]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            path = os.path.join(out, "report.json")
            if not os.path.exists(path):
                raise AssertionError("no report for %s: %s" % (faults, r.stderr))
            with open(path, encoding="utf-8") as f:
                return r.returncode, json.load(f)


def all_checks():
    listed = run([MCPSPEC, "list"]).stdout.split("\n")
    return {line.split()[0] for line in listed if line.strip()} | {"discovery/initialize"}


def all_faults():
    out = run([REFSERVER, "--list-faults"]).stdout
    return {line.split("\t")[0] for line in out.splitlines() if line.strip()}


class FaultTableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fixture = Fixture()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.fixture.dir, ignore_errors=True)

    def test_clean_refserver_is_conformant(self):
        rc, report = self.fixture.run()
        self.assertEqual(self.not_clean(report), [])
        self.assertEqual(rc, 0)
        supported = [r["revision"] for r in report["revisions"] if r["supported"]]
        self.assertEqual(supported, ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
        for c in report["cases"]:
            if c["verdict"] == "SKIP":
                self.assertTrue(c["reason"], c["id"])
        # Every suite case runs somewhere: a check the reference server always skips proves nothing.
        ran = {c["id"] for c in report["cases"] if c["verdict"] == "PASS"}
        with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
            runs = list(pool.map(lambda cap: (cap, self.fixture.run(suites=WITHOUT_SUITES,
                                                                     without=[cap])), WITHOUT))
        for cap, (rc, rep) in runs:
            self.assertEqual(self.not_clean(rep), [], "--without " + cap)
            self.assertEqual(rc, 0, "--without " + cap)
            ran |= {c["id"] for c in rep["cases"] if c["verdict"] == "PASS"}
        never = sorted(c for c in all_checks() if c not in ran and not c.startswith("observe/"))
        self.assertEqual(never, [], "cases the clean reference server skips on every revision")

    @staticmethod
    def not_clean(report):
        return [(c["verdict"], c["revision"], c["id"], c["observed"]) for c in report["cases"]
                if c["verdict"] not in ("PASS", "SKIP")]

    def test_table_covers_every_fault_and_check(self):
        rows = read_table()
        faults, checks = all_faults(), all_checks()
        self.assertEqual(sorted({r[0] for r in rows} - faults), [], "rows name unknown faults")
        self.assertEqual(sorted(faults - {r[0] for r in rows}), [], "faults without a row")
        self.assertEqual(sorted({r[1] for r in rows} - checks), [], "rows name unknown checks")
        self.assertEqual(sorted(checks - {r[1] for r in rows}), [], "checks no fault proves")

    def test_each_fault_breaks_its_check(self):
        rows = read_table()
        if ONLY:
            rows = [r for r in rows if r[4] in ONLY]
        suites = {}
        for fault, _, _, s, _ in rows:
            suites.setdefault(fault, set()).update(s)
        faults = sorted(set(suites) & all_faults())
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            reports = dict(zip(faults, pool.map(
                lambda f: self.fixture.run([f], sorted(suites[f])), faults)))
        missing = []
        for fault, check, verdict, _, _ in rows:
            if fault not in reports:
                continue
            rc, report = reports[fault]
            got = sorted({(c["revision"], c["verdict"]) for c in report["cases"] if c["id"] == check})
            if not any(v == verdict for _, v in got):
                missing.append("%s: %s should be %s, got %s" % (fault, check, verdict, got))
            if verdict == "FAIL" and rc != 1:
                missing.append("%s: a FAIL must exit 1, got %d" % (fault, rc))
        self.assertEqual(missing, [], "\n".join(missing))


if __name__ == "__main__":
    unittest.main()
