#!/usr/bin/python3
"""The compiled-in catalog (harness/engine/catalog_data.c) is what
scripts/sync-requirements makes from ../shared/spec/requirements.json, and the
check that says so fails on a catalog that differs, without writing anything.

Needs ../shared beside the checkout (users have none): exits 77 without it,
which ctest shows as skipped.
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import CATALOG, ROOT, main_needing_catalog, run  # noqa: E402

SCRIPT = os.path.join(ROOT, "scripts", "sync-requirements")
OUT = os.path.join(ROOT, "harness", "engine", "catalog_data.c")


def sync(*args):
    return run(["/usr/bin/python3", SCRIPT] + list(args), timeout=60)


class CatalogSyncTest(unittest.TestCase):
    def setUp(self):
        st = os.stat(OUT)
        self.out_before = (st.st_size, st.st_mtime_ns)

    def tearDown(self):
        st = os.stat(OUT)
        self.assertEqual((st.st_size, st.st_mtime_ns), self.out_before,
                         "--check wrote catalog_data.c")

    def test_compiled_catalog_matches_the_catalog(self):
        r = sync("--check", "--catalog", CATALOG)
        self.assertEqual(r.returncode, 0, "catalog drift: %s%s" % (r.stdout, r.stderr))
        self.assertIn("matches the catalog", r.stdout)

    def test_a_changed_row_is_drift(self):
        with open(CATALOG, encoding="utf-8") as f:
            rows = json.load(f)
        rows[0]["text"] += " (changed)"
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as t:
            json.dump(rows, t)
        try:
            r = sync("--check", "--catalog", t.name)
        finally:
            os.unlink(t.name)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("out of date", r.stderr)

    def test_an_unreadable_catalog_is_bad_input(self):
        r = sync("--check", "--catalog", os.path.join(ROOT, "no-such-catalog.json"))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("no-such-catalog.json", r.stderr)
        self.assertNotIn("Traceback", r.stderr)


if __name__ == "__main__":
    main_needing_catalog()
