#!/usr/bin/python3
"""scripts/coverage: every uncovered server-side row (stdio or HTTP) has a reason
in suites/uncovered.tsv, no reason there is stale, both headlines reach 90% on
the handshake-era revisions (2026-07-28: its testable HTTP rows too; its stdio
rows above a floor), the client side is counted per revision and transport
(reasons for stdio rows in uncovered-client.tsv, for HTTP rows in
uncovered-client-http.tsv, both gated), and a malformed reasons file is
reported with its file and line."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import CATALOG, MCPSPEC, ROOT, main_needing_catalog, run  # noqa: E402

SCRIPT = os.path.join(ROOT, "scripts", "coverage")
TSV = os.path.join(ROOT, "suites", "uncovered.tsv")
CLIENT_TSV = os.path.join(ROOT, "suites", "uncovered-client.tsv")
CLIENT_HTTP_TSV = os.path.join(ROOT, "suites", "uncovered-client-http.tsv")


def coverage(*args):
    return run(["/usr/bin/python3", SCRIPT, "--catalog", CATALOG, "--mcpspec", MCPSPEC] + list(args),
               timeout=180)


class CoverageTest(unittest.TestCase):
    def test_every_uncovered_row_has_a_reason_and_none_is_stale(self):
        r = coverage("--check")
        self.assertEqual(r.stderr.count("Traceback"), 0, r.stderr)
        self.assertIn("Headline:", r.stdout)
        head = r.stdout[r.stdout.index("Headline:"):].split("\n\n")[0]
        print("\n" + head, file=sys.stderr)
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr)

        r = coverage("--check", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["no_reason"], [], "uncovered rows without a reason in uncovered.tsv")
        self.assertEqual(doc["stale"], [], "reasons for rows that need none")
        self.assertTrue(doc["ok"])
        for rev in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"):
            h = doc["revisions"][rev]["headline"]
            self.assertLessEqual(h["covered"], h["total"], rev)
            # Issue 5: at least 90% of the stdio-observable server MUST..SHOULD NOT rows.
            self.assertGreaterEqual(100.0 * h["covered"] / h["total"], 90.0, rev)
            # Issue 13: at least 90% of the testable HTTP MUST..SHOULD NOT rows.
            h = doc["revisions"][rev]["http_headline"]
            self.assertLessEqual(h["covered"], h["testable"], rev)
            self.assertGreaterEqual(h["percent"], 90.0, rev)
            for row in doc["revisions"][rev]["uncovered"]:
                self.assertIn(row["reason_kind"], doc["reason_kinds"], row)
                self.assertTrue(row["reason"], row)
        # Issue 14: 2026-07-28 (stdio rows), judged on the testable ones. The 90% target is not
        # reached yet (subscriptions/listen and per-request logging are missing from refserver):
        # the test holds the floor reached so far and prints the shortfall, without pretending.
        h = doc["revisions"]["2026-07-28"]["headline"]
        self.assertEqual(h["judged_on"], "testable")
        self.assertLessEqual(h["covered"], h["testable"])
        self.assertGreaterEqual(h["percent_testable"], 80.0, "2026-07-28 coverage went down")
        if h["percent_testable"] < 90.0:
            print(f"\n2026-07-28: {h['covered']}/{h['testable']} testable stdio rows "
                  f"({h['percent_testable']}%), short of the 90% target", file=sys.stderr)
        for row in doc["revisions"]["2026-07-28"]["uncovered"]:
            self.assertTrue(row["reason"], row)
        # 2026-07-28 over Streamable HTTP (suites/stateless-http.suite): at least 90% of the
        # testable HTTP MUST..SHOULD NOT rows, as on the handshake era.
        h = doc["revisions"]["2026-07-28"]["http_headline"]
        self.assertLessEqual(h["covered"], h["testable"])
        self.assertGreaterEqual(h["percent"], 90.0, "2026-07-28 HTTP")
        # Issue 15, the client side: counted per revision and transport from the revisions
        # `mcpspec list --client --json` gives each check. Over HTTP, 2024-11-05 is its HTTP+SSE
        # ({sse-url}: client/sse-endpoint, SSE-003), later revisions Streamable HTTP ({url}).
        client = doc["client"]
        for rev, cells in client.items():
            for g in ("stdio", "http"):
                self.assertLessEqual(cells[g]["covered"], cells[g]["total"], (rev, g))
        self.assertGreater(client["2026-07-28"]["stdio"]["covered"], 0)
        self.assertGreater(client["2026-07-28"]["http"]["covered"], 0)
        self.assertGreater(client["2024-11-05"]["http"]["covered"], 0)
        self.assertGreater(client["2025-11-25"]["http"]["covered"], 0)
        # Every uncovered stdio client row has a reason in uncovered-client.tsv, none stale;
        # the percentage is over the testable rows (those without an untestable reason).
        self.assertEqual(doc["client_no_reason"], [], "client rows without a reason")
        self.assertEqual(doc["client_stale"], [], "stale client reasons")
        for rev, cells in client.items():
            c = cells["stdio"]
            self.assertLessEqual(c["covered"], c["testable"], rev)
            self.assertLessEqual(c["testable"], c["total"], rev)
            for row in c["uncovered"]:
                self.assertIn(row["reason_kind"], doc["client_reason_kinds"], (rev, row))
                self.assertTrue(row["reason"], (rev, row))
            print(f"client {rev} stdio: {c['covered']}/{c['testable']} testable "
                  f"({c['percent']}%)", file=sys.stderr)
        # ...and every uncovered HTTP client row one in uncovered-client-http.tsv, gated the
        # same way.
        self.assertEqual(doc["client_http_no_reason"], [], "HTTP client rows without a reason")
        self.assertEqual(doc["client_http_stale"], [], "stale HTTP client reasons")
        for rev, cells in client.items():
            c = cells["http"]
            self.assertLessEqual(c["covered"], c["testable"], rev)
            for row in c["uncovered"]:
                self.assertIn(row["reason_kind"], doc["client_http_reason_kinds"], (rev, row))
                self.assertTrue(row["reason"], (rev, row))
            print(f"client {rev} HTTP: {c['covered']}/{c['testable']} testable "
                  f"({c['percent']}%)", file=sys.stderr)
        self.assertEqual(client["2024-11-05"]["http"]["uncovered"], [])

    def test_revision_filter(self):
        r = coverage("--json", "--revision", "2025-06-18")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(list(json.loads(r.stdout)["revisions"]), ["2025-06-18"])

    def test_missing_and_stale_reasons_fail_the_check(self):
        with open(TSV, encoding="utf-8") as f:
            lines = [ln for ln in f if ln.strip() and not ln.startswith("#")]
        dropped = lines[0].split("\t")[0]
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as t:
            t.writelines(lines[1:])
            # PING-001 is checked by ping/empty-result: a reason for it is stale.
            t.write("PING-001\tnot-yet-written\tstale on purpose\n")
        try:
            r = coverage("--check", "--json", "--uncovered", t.name)
            self.assertEqual(r.returncode, 1, r.stdout[-2000:] + r.stderr)
            doc = json.loads(r.stdout)
            self.assertIn(dropped, doc["no_reason"])
            self.assertEqual([s["id"] for s in doc["stale"]], ["PING-001"])
            self.assertFalse(doc["ok"])
        finally:
            os.unlink(t.name)

    def test_missing_and_stale_client_reasons_fail_the_check(self):
        with open(CLIENT_TSV, encoding="utf-8") as f:
            lines = [ln for ln in f if ln.strip() and not ln.startswith("#")]
        dropped = lines[0].split("\t")[0]
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as t:
            t.writelines(lines[1:])
            # LIFE-INIT-001 is checked by client/initialize-first: a reason for it is stale;
            # client-only is the server file's kind, refused here.
            t.write("LIFE-INIT-001\tnot-yet-written\tstale on purpose\n")
        try:
            r = coverage("--check", "--json", "--client-uncovered", t.name)
            self.assertEqual(r.returncode, 1, r.stdout[-2000:] + r.stderr)
            doc = json.loads(r.stdout)
            self.assertIn(dropped, doc["client_no_reason"])
            self.assertEqual([s["id"] for s in doc["client_stale"]], ["LIFE-INIT-001"])
            self.assertFalse(doc["ok"])
            with open(t.name, "a", encoding="utf-8") as f:
                f.write("PING-001\tclient-only\tx\n")
            r = coverage("--client-uncovered", t.name)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("reason kind 'client-only'", r.stderr)
        finally:
            os.unlink(t.name)

    def test_missing_and_stale_client_http_reasons_fail_the_check(self):
        with open(CLIENT_HTTP_TSV, encoding="utf-8") as f:
            lines = [ln for ln in f if ln.strip() and not ln.startswith("#")]
        dropped = lines[0].split("\t")[0]
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as t:
            t.writelines(lines[1:])
            # HTTP-036 is checked over HTTP by client/http-session-id; PING-003 is a stdio row
            # (its reason belongs in uncovered-client.tsv): both stale here.
            t.write("HTTP-036\tnot-yet-written\tstale on purpose\n")
            t.write("PING-003\tnot-observable\tthe wrong file on purpose\n")
        try:
            r = coverage("--check", "--json", "--client-http-uncovered", t.name)
            self.assertEqual(r.returncode, 1, r.stdout[-2000:] + r.stderr)
            doc = json.loads(r.stdout)
            self.assertEqual(doc["client_http_no_reason"], [dropped])
            stale = {s["id"]: s["why"] for s in doc["client_http_stale"]}
            self.assertEqual(set(stale), {"HTTP-036", "PING-003"})
            self.assertIn("not an HTTP row", stale["PING-003"])
            self.assertEqual(doc["client_no_reason"], [])  # the stdio file is untouched
            self.assertFalse(doc["ok"])
            r = coverage("--check", "--client-http-uncovered", t.name)
            self.assertEqual(r.returncode, 1)
            self.assertIn("Stale reasons (2; delete them from", r.stdout)
        finally:
            os.unlink(t.name)
        # An HTTP row's reason in the stdio file is stale there.
        with open(CLIENT_TSV, encoding="utf-8") as f:
            stdio = f.read()
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as t:
            t.write(stdio + "HTTP-012\tnot-yet-written\tthe wrong file on purpose\n")
        try:
            r = coverage("--check", "--json", "--client-uncovered", t.name)
            self.assertEqual(r.returncode, 1, r.stderr)
            stale = {s["id"]: s["why"] for s in json.loads(r.stdout)["client_stale"]}
            self.assertIn("an HTTP row", stale.get("HTTP-012", ""))
        finally:
            os.unlink(t.name)

    def test_malformed_reason_names_file_and_line(self):
        for bad, why in (("PING-001\tlater\tx", "reason kind 'later'"),
                         ("NOPE-001\tnot-yet-written\tx", "'NOPE-001' is not a requirement ID"),
                         ("PING-001 not-yet-written x", "expected 3 tab-separated fields")):
            with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as t:
                t.write("# comment\n\n" + bad + "\n")
            try:
                r = coverage("--uncovered", t.name)
                self.assertEqual(r.returncode, 2, bad)
                self.assertIn(":3: ", r.stderr, bad)
                self.assertIn(os.path.basename(t.name), r.stderr, bad)
                self.assertIn(why, r.stderr, bad)
            finally:
                os.unlink(t.name)


if __name__ == "__main__":
    main_needing_catalog()
