#!/usr/bin/python3
"""Every check is proven twice: the clean reference server passes it, and a
named fault makes it fail. tests/faults.tsv is the table; this test runs it.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN_DIR, MCPSPEC, ROOT, run  # noqa: E402

REFSERVER = os.path.join(BIN_DIR, "refserver")
TABLE = os.path.join(ROOT, "tests", "faults.tsv")


def read_table():
    rows = []
    with open(TABLE, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3:
                raise AssertionError("%s:%d: want fault<TAB>check<TAB>verdict" % (TABLE, n))
            rows.append(tuple(parts))
    return rows


def run_against(server_args):
    """Run mcpspec on refserver with these extra arguments; (exit code, report)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [MCPSPEC, "run", "--server", " ".join([REFSERVER] + server_args), "--out", out,
               "--format", "json", "--quiet"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        path = os.path.join(out, "report.json")
        if not os.path.exists(path):
            raise AssertionError("no report for %s: %s" % (server_args, r.stderr))
        with open(path, encoding="utf-8") as f:
            return r.returncode, json.load(f)


def all_checks():
    listed = run([MCPSPEC, "list"]).stdout.split("\n")
    return {line.split()[0] for line in listed if line.strip()} | {"discovery/initialize"}


def all_faults():
    out = run([REFSERVER, "--list-faults"]).stdout
    return {line.split("\t")[0] for line in out.splitlines() if line.strip()}


class FaultTableTest(unittest.TestCase):
    def test_clean_refserver_is_conformant(self):
        rc, report = run_against([])
        bad = [(c["verdict"], c["revision"], c["id"], c["observed"]) for c in report["cases"]
               if c["verdict"] not in ("PASS", "SKIP")]
        self.assertEqual(bad, [])
        self.assertEqual(rc, 0)
        supported = [r["revision"] for r in report["revisions"] if r["supported"]]
        self.assertEqual(supported, ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
        for c in report["cases"]:
            if c["verdict"] == "SKIP":
                self.assertTrue(c["reason"], c["id"])

    def test_table_covers_every_fault_and_check(self):
        rows = read_table()
        faults, checks = all_faults(), all_checks()
        self.assertEqual(sorted({r[0] for r in rows} - faults), [], "rows name unknown faults")
        self.assertEqual(sorted(faults - {r[0] for r in rows}), [], "faults without a row")
        self.assertEqual(sorted({r[1] for r in rows} - checks), [], "rows name unknown checks")
        self.assertEqual(sorted(checks - {r[1] for r in rows}), [], "checks no fault proves")

    def test_each_fault_breaks_its_check(self):
        rows = read_table()
        faults = sorted({r[0] for r in rows} & all_faults())
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            reports = dict(zip(faults, pool.map(lambda f: run_against(["--fault", f]), faults)))
        missing = []
        for fault, check, verdict in rows:
            if fault not in reports:
                continue
            rc, report = reports[fault]
            got = sorted({(c["revision"], c["verdict"]) for c in report["cases"] if c["id"] == check})
            if not any(v == verdict for _, v in got):
                missing.append("%s: %s should be %s, got %s" % (fault, check, verdict, got))
            if verdict == "FAIL" and rc != 1:
                missing.append("%s: a FAIL must exit 1, got %d" % (fault, rc))
        self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
