#!/usr/bin/python3
"""mcpspec diff OLD NEW: every kind of change (new failure, new warning, fix,
other changed verdict, new and removed case, revision support, fatal) in plain
text and Markdown, the exit codes (0 no new failure, 1 new failures, 2 usage or
bad input), bad input named by file (and line, for invalid JSON), and one
realistic diff: a clean run of the reference server against a run with a fault."""
import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN_DIR, MCPSPEC, run  # noqa: E402

REFSERVER = os.path.abspath(os.path.join(BIN_DIR, "refserver"))
REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
VERDICTS = ["PASS", "FAIL", "WARN", "INFO", "SKIP", "ERROR"]
R = "2025-11-25"  # the revision both hand-written reports support


def case(rev, cid, verdict, observed=None, reason=None, broken=None):
    """One cases[] entry as mcpspec run writes it (docs/report-format.md)."""
    c = {"id": cid, "suite": cid.split("/")[0], "title": "what " + cid + " checks",
         "section": "basic", "revision": rev,
         "requirements": [{"id": "PING-001", "level": "MUST", "text": "t", "source": "s"}],
         "level": "MUST", "verdict": verdict, "expected": "conformance",
         "observed": observed, "reason": reason, "seconds": 0.001234, "notes": [],
         "wire": [{"t": 0.0001, "dir": "sent", "text": "{}", "bytes": 2, "truncated": False}],
         "wire_dropped": 0}
    if broken:
        c["broken"] = broken
    return c


def report(cases, supported=(R,), fatal=None, strict=False):
    """A whole report.json around cases, with its summary computed as run does."""
    counts = {v: 0 for v in VERDICTS}
    for c in cases:
        counts[c["verdict"]] += 1
    code = (1 if counts["FAIL"] else 3 if fatal or counts["ERROR"]
            else 1 if strict and counts["WARN"] else 0)
    revisions = [{"revision": r, "probed": True, "supported": r in supported,
                  "detail": ("initialize %s answered %s" % (r, r)) if r in supported
                  else "initialize %s answered 2025-11-25 instead: not supported" % r}
                 for r in REVISIONS]
    return {"schema": "mcpspec-report", "schema_version": 1, "tool": "mcpspec",
            "tool_version": "0.1.0", "target": "./server --stdio", "transport": "stdio",
            "started_at": "2026-11-27T20:00:00Z", "seconds": 1.5, "strict": strict,
            "fatal": fatal,
            "harness": {"max_rss_kib": 4096, "cpu_seconds": 0.1, "messages_sent": 3,
                        "messages_received": 3, "isolation": "shared", "processes_started": 2},
            "revisions": revisions,
            "summary": {"total": len(cases), "counts": counts, "exit_code": code,
                        "outcome": {0: "pass", 1: "fail", 3: "incomplete"}[code],
                        "exit_meaning": "..."},
            "cases": cases}


# The two reports of the main scenario: OLD supports 2025-03-26 and 2025-11-25, NEW
# 2025-11-25 and 2026-07-28. Each case says what it becomes.
OLD_CASES = [
    case(R, "ping/empty-result", "PASS", observed="answered {}"),
    case(R, "tools/list-result", "PASS", observed="a list"),
    case(R, "lifecycle/version", "PASS", observed="2025-11-25"),
    case(R, "rpc/error-code", "FAIL", observed="code -1", broken=["RPC-ERR-006"]),
    case(R, "rpc/warned", "WARN", observed="a SHOULD broken", broken=["RPC-ERR-007"]),
    case(R, "tools/skipped", "PASS", observed="called"),
    case(R, "prompts/get", "SKIP", reason="no prompts"),
    case(R, "lifecycle/shutdown", "FAIL", observed="kept running", broken=["LIFE-SHUT-001"]),
    case(R, "ping/exact-ids", "PASS", observed="same ids"),
    case(R, "resources/gone", "PASS", observed="read"),
    case("2025-03-26", "ping/empty-result", "PASS", observed="answered {}"),
]
NEW_CASES = [
    case(R, "ping/empty-result", "FAIL", observed="answered null", broken=["PING-002"]),
    case(R, "tools/list-result", "ERROR", reason="cut short: the run deadline passed"),
    case(R, "tools/new-check", "FAIL", observed="no inputSchema", broken=["TOOL-003"]),
    case(R, "lifecycle/version", "WARN", observed="answered late", broken=["LIFE-VER-009"]),
    case(R, "rpc/error-code", "PASS", observed="code -32601"),
    case(R, "rpc/warned", "PASS", observed="fine now"),
    case(R, "tools/skipped", "SKIP", reason="no tool call configured"),
    case(R, "prompts/get", "PASS", observed="a prompt"),
    case(R, "lifecycle/shutdown", "WARN", observed="slow to exit", broken=["LIFE-SHUT-002"]),
    case(R, "ping/exact-ids", "PASS", observed="same ids"),
    case(R, "resources/added", "PASS", observed="read"),
    case("2026-07-28", "ping/empty-result", "PASS", observed="answered {}"),
]
OLD = report(OLD_CASES, supported=("2025-03-26", R))
NEW = report(NEW_CASES, supported=(R, "2026-07-28"))

# (group title, revision, case, "OLD -> NEW") of every change in the main scenario.
EXPECTED = {
    ("New failures", R, "ping/empty-result", "PASS -> FAIL"),
    ("New failures", R, "tools/list-result", "PASS -> ERROR"),
    ("New failures", R, "tools/new-check", "absent -> FAIL"),
    ("New warnings", R, "lifecycle/version", "PASS -> WARN"),
    ("Fixes", R, "rpc/error-code", "FAIL -> PASS"),
    ("Fixes", R, "rpc/warned", "WARN -> PASS"),
    ("Other changed verdicts", R, "tools/skipped", "PASS -> SKIP"),
    ("Other changed verdicts", R, "prompts/get", "SKIP -> PASS"),
    ("Other changed verdicts", R, "lifecycle/shutdown", "FAIL -> WARN"),
    ("New cases", R, "resources/added", "absent -> PASS"),
    ("New cases", "2026-07-28", "ping/empty-result", "absent -> PASS"),
    ("Removed cases", R, "resources/gone", "PASS -> absent"),
    ("Removed cases", "2025-03-26", "ping/empty-result", "PASS -> absent"),
}

CHANGE_LINE = re.compile(r"^  (\S+) +(\S+) +(\S+ -> \S+) *(.*)$")
GROUP_TITLE = re.compile(r"^(New failures|New warnings|Fixes|Other changed verdicts|New cases|"
                         r"Removed cases) \((\d+)(?:; [^)]*)?\):$")


def text_groups(out):
    """{group title: [(revision, case, "OLD -> NEW", rest of line)]} from the text format."""
    groups, current = {}, None
    for line in out.splitlines():
        m = GROUP_TITLE.match(line)
        if m:
            current = groups.setdefault(m.group(1), [])
            continue
        m = CHANGE_LINE.match(line)
        if current is not None and m:
            current.append(m.groups())
        elif not line.strip():
            current = None
    return groups


class DiffTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, name, doc):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return path

    def diff(self, old, new, *args):
        return run([MCPSPEC, "diff"] + list(args) + [self.write("old.json", old),
                                                      self.write("new.json", new)])

    # ---- every kind of change --------------------------------------------------------

    def test_text_groups_every_kind_of_change(self):
        r = self.diff(OLD, NEW)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        groups = text_groups(r.stdout)
        got = {(g, rev, cid, move) for g, rows in groups.items() for rev, cid, move, _ in rows}
        self.assertEqual(got, EXPECTED, r.stdout)
        rows = {(rev, cid): rest for rws in groups.values() for rev, cid, _, rest in rws}
        self.assertEqual(rows[(R, "ping/empty-result")], "[PING-002]  answered null")
        self.assertEqual(rows[(R, "tools/list-result")], "cut short: the run deadline passed")
        self.assertEqual(rows[("2025-03-26", "ping/empty-result")],
                         "(its revision is no longer supported)")
        self.assertEqual(rows[(R, "resources/gone")], "")
        self.assertRegex(r.stdout, r"\n  2025-03-26  supported -> not supported +initialize "
                                   r"2025-03-26 answered 2025-11-25 instead")
        self.assertRegex(r.stdout, r"\n  2026-07-28  not supported -> supported +initialize "
                                   r"2026-07-28 answered 2026-07-28")
        lines = r.stdout.rstrip("\n").splitlines()
        self.assertEqual(lines[-2], "3 new failures, 1 new warning, 2 fixes, 3 changed verdicts, "
                                    "2 new cases, 2 removed cases, 1 unchanged, 1 revision newly "
                                    "supported, 1 revision no longer supported")
        self.assertEqual(lines[-1], "exit 1: new failures")
        self.assertIn("old.json", lines[1])
        self.assertIn("new.json", lines[2])

    def test_markdown_tables_per_kind(self):
        r = self.diff(OLD, NEW, "--format", "markdown")
        self.assertEqual(r.returncode, 1, r.stderr)
        md = r.stdout
        self.assertTrue(md.startswith("## \u274c mcpspec diff: 3 new failures\n"), md[:200])
        self.assertIn("**3 new failures** \u00b7 1 new warning \u00b7 2 fixes \u00b7 3 changed "
                      "verdicts \u00b7 2 new cases \u00b7 2 removed cases \u00b7 1 unchanged", md)
        for title, n in (("New failures", 3), ("Fixes", 2), ("Other changed verdicts", 3),
                         ("New cases", 2), ("Removed cases", 2)):
            self.assertIn("\n### %s (%d)\n" % (title, n), md)
        self.assertIn("\n### New warnings (1; they fail the gate only with --strict)\n", md)
        self.assertIn("| 2025-11-25 | ping/empty-result | PASS \u2192 FAIL | PING-002 | "
                      "answered null |", md)
        self.assertIn("| 2025-11-25 | tools/new-check | \u2014 \u2192 FAIL | TOOL-003 | "
                      "no inputSchema |", md)
        self.assertIn("| 2025-03-26 | ping/empty-result | PASS \u2192 \u2014 |  | its revision "
                      "is no longer supported |", md)
        self.assertIn("### Revisions (discovery)", md)
        self.assertIn("| 2026-07-28 | not supported | supported | initialize 2026-07-28 "
                      "answered 2026-07-28 |", md)
        self.assertNotIn("<details>", md)  # short lists stay open

    def test_out_writes_the_file(self):
        out = os.path.join(self.tmp.name, "comment.md")
        r = self.diff(OLD, NEW, "--format", "markdown", "--out", out)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn(out, r.stderr)
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), self.diff(OLD, NEW, "--format", "markdown").stdout)
        r = self.diff(OLD, NEW, "--out", os.path.join(self.tmp.name, "no", "such", "dir"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot write", r.stderr)

    def test_markdown_collapses_long_lists(self):
        old = report([case(R, "ping/p%02d" % i, "PASS") for i in range(12)])
        new = report([case(R, "ping/p%02d" % i, "FAIL", observed="x") for i in range(12)] +
                     [case(R, "tools/t%02d" % i, "PASS") for i in range(15)])
        md = self.diff(old, new, "--format", "markdown").stdout
        failures = md[md.index("### New failures (12)"):md.index("### New cases")]
        self.assertEqual(failures.count("| 2025-11-25 | ping/"), 12)
        self.assertIn("<details><summary>2 more new failures</summary>", failures)
        self.assertLess(failures.index("ping/p09"), failures.index("<details>"))
        self.assertGreater(failures.index("ping/p10"), failures.index("<details>"))
        self.assertIn("### New cases (15)\n\n<details><summary>15 new cases</summary>", md)
        self.assertEqual(md.count("<details>"), md.count("</details>"))

    def test_markdown_stays_under_githubs_comment_limit(self):
        n = 3000
        old = report([case(R, "ping/p%04d" % i, "PASS") for i in range(n)])
        new = report([case(R, "ping/p%04d" % i, "FAIL", observed="| x " * 300) for i in range(n)])
        r = self.diff(old, new, "--format", "markdown")
        self.assertEqual(r.returncode, 1)
        md = r.stdout
        self.assertLessEqual(len(md), 65536)
        m = re.search(r"\*\*Cut:\*\* (\d+) rows are not shown", md)
        self.assertTrue(m, md[-500:])
        self.assertEqual(md.count("| 2025-11-25 | ping/") + int(m.group(1)), n)
        self.assertEqual(md.count("<details>"), md.count("</details>"))
        # The text format has no limit: every change is there.
        self.assertEqual(len(text_groups(self.diff(old, new).stdout)["New failures"]), n)

    def test_target_text_is_made_safe_and_cut(self):
        hostile = "\x1b[31mred\x1b[0m | pipe\nnext line <b>bold</b> " + "y" * 400
        old = report([case(R, "ping/empty-result", "PASS")])
        new = report([case(R, "ping/empty-result", "FAIL", observed=hostile)])
        text = self.diff(old, new).stdout
        self.assertNotIn("\x1b", text)
        line = [ln for ln in text.splitlines() if "ping/empty-result" in ln][0]
        self.assertIn("\u241b[31mred\u241b[0m | pipe next line <b>bold</b> yyy", line)
        self.assertTrue(line.endswith("y\u2026"), line)
        self.assertLess(len(line), 260)
        md = self.diff(old, new, "--format", "markdown").stdout
        row = [ln for ln in md.splitlines() if "ping/empty-result" in ln][0]
        self.assertIn("\u241b\\[31mred\u241b\\[0m \\| pipe next line &lt;b&gt;bold&lt;/b&gt;", row)
        self.assertTrue(row.endswith("\u2026 |"), row)

    # ---- exit codes ----------------------------------------------------------------------

    def test_exit_0_without_new_failures(self):
        r = self.diff(OLD, OLD)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("No changes: every case has the verdict it had.", r.stdout)
        self.assertTrue(r.stdout.endswith("\nexit 0: no new failure\n"), r.stdout)
        md = self.diff(OLD, OLD, "--format", "markdown").stdout
        self.assertTrue(md.startswith("## \u2705 mcpspec diff: no new failure\n"), md)
        # A fix alone does not gate.
        fixed = report([case(R, "ping/empty-result", "PASS", observed="answered {}")])
        r = self.diff(report([case(R, "ping/empty-result", "ERROR", reason="timed out")]), fixed)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(text_groups(r.stdout),
                         {"Fixes": [(R, "ping/empty-result", "ERROR -> PASS", "answered {}")]})

    def test_warn_fails_the_gate_only_when_strict(self):
        old = report([case(R, "ping/empty-result", "PASS")])
        new = report([case(R, "ping/empty-result", "WARN", observed="late")])
        r = self.diff(old, new)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(list(text_groups(r.stdout)), ["New warnings"])
        for args, new_report in ((["--strict"], new),
                                 ([], report(new["cases"], strict=True))):
            r = self.diff(old, new_report, *args)
            self.assertEqual(r.returncode, 1, (args, r.stdout))
            self.assertEqual(text_groups(r.stdout),
                             {"New failures": [(R, "ping/empty-result", "PASS -> WARN", "late")]})
            self.assertIn("WARN fails the gate", r.stdout)
        # Without --strict, WARN -> FAIL is newly failing the gate; under it, it already was.
        fail = report([case(R, "ping/empty-result", "FAIL")])
        self.assertEqual(self.diff(new, fail).returncode, 1)
        r = self.diff(new, fail, "--strict")
        self.assertEqual(r.returncode, 0)
        self.assertIn("Other changed verdicts", text_groups(r.stdout))

    def test_fatal_changes(self):
        cases = [case(R, "ping/empty-result", "PASS")]
        ok, stopped = report(cases), report(cases, fatal="cannot start the target: ENOENT")
        r = self.diff(ok, stopped)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("\nRun:\n  the new run stopped early: cannot start the target: ENOENT\n",
                      r.stdout)
        self.assertTrue(r.stdout.endswith("the new run stopped early\nexit 1: the new run "
                                          "stopped early\n"), r.stdout)
        md = self.diff(ok, stopped, "--format", "markdown").stdout
        self.assertTrue(md.startswith("## \u274c mcpspec diff: the new run stopped early"), md)
        self.assertIn("**The new run stopped early:** cannot start the target: ENOENT", md)
        r = self.diff(stopped, ok)
        self.assertEqual(r.returncode, 0)
        self.assertIn("the new run ran to the end; the old one stopped early: cannot start", r.stdout)
        other = report(cases, fatal="the run deadline passed")
        r = self.diff(stopped, other)
        self.assertEqual(r.returncode, 0)
        self.assertIn("both runs stopped early", r.stdout)

    # ---- bad input -------------------------------------------------------------------------

    def assert_bad(self, old, new, *needles):
        r = self.diff(old, new)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "")
        for needle in needles:
            self.assertIn(needle, r.stderr)
        return r

    def test_bad_input_exits_2_naming_the_file(self):
        new = os.path.join(self.tmp.name, "new.json")
        old = os.path.join(self.tmp.name, "old.json")
        missing = os.path.join(self.tmp.name, "missing.json")
        r = run([MCPSPEC, "diff", missing, self.write("new.json", NEW)])
        self.assertEqual(r.returncode, 2)
        self.assertIn(missing + ": cannot open: No such file", r.stderr)
        self.assert_bad(OLD, '{\n  "schema": "mcpspec-report",\n  "cases": [1,,2]\n}\n',
                        new + ":3: invalid JSON")
        self.assert_bad("", NEW, old + ":1: invalid JSON")
        self.assert_bad(OLD, {"foo": 1}, new + ": not an mcpspec report")
        self.assert_bad([1, 2], NEW, old + ": not an mcpspec report")
        self.assert_bad(dict(OLD, schema_version=2), NEW, "schema_version 2")
        self.assert_bad(OLD, dict(NEW, cases=[{"id": "x", "revision": R}]), "cases[0]")
        self.assert_bad(OLD, dict(NEW, cases=[case(R, "x/y", "MAYBE")]), "cases[0]")
        self.assert_bad(OLD, dict(NEW, revisions=[{"revision": R}]), "revisions[0]")
        self.assert_bad(OLD, dict(NEW, fatal=3), "fatal")
        self.assert_bad(OLD, dict(NEW, cases=[case(R, "x/y", "PASS"), case(R, "x/y", "FAIL")]),
                        "case x/y appears twice on revision 2025-11-25")
        r = self.assert_bad({"a": 1}, "nope", old + ": not an mcpspec report", new + ":1:")

    def test_usage(self):
        r = run([MCPSPEC, "diff", "--help"])
        self.assertEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith("usage: mcpspec diff "), r.stdout)
        for word in ("--format", "--out", "--strict", "exit:"):
            self.assertIn(word, r.stdout)
        self.assertIn("diff", run([MCPSPEC, "--help"]).stdout)
        a, b = self.write("a.json", OLD), self.write("b.json", NEW)
        for args in ([], [a], [a, b, b], ["--bogus", a, b], ["--format", "pdf", a, b],
                     [a, b, "--out"]):
            r = run([MCPSPEC, "diff"] + args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn("usage: mcpspec diff", r.stderr, args)

    def test_report_folders_stand_for_their_report_json(self):
        dirs = []
        for name, doc in (("old", OLD), ("new", NEW)):
            os.mkdir(os.path.join(self.tmp.name, name))
            dirs.append(os.path.join(self.tmp.name, name))
            self.write(os.path.join(name, "report.json"), doc)
        r = run([MCPSPEC, "diff"] + dirs)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(os.path.join(dirs[0], "report.json"), r.stdout)

    # ---- a realistic diff -----------------------------------------------------------------------

    def test_a_fault_shows_as_new_failures(self):
        """Two real reports: the reference server clean, then with ping-result-null (ping
        answered with a null result), which ping/empty-result proves."""
        reports = []
        for name, server in (("clean", REFSERVER), ("fault", REFSERVER + " --fault ping-result-null")):
            out = os.path.join(self.tmp.name, name)
            r = run([MCPSPEC, "run", "--server", server, "--out", out, "--format", "json",
                     "--suite", "ping", "--suite", "tools", "--quiet"], timeout=600)
            self.assertIn(r.returncode, (0, 1), r.stdout + r.stderr)
            reports.append(os.path.join(out, "report.json"))
        verdicts = []
        for path in reports:
            with open(path, encoding="utf-8") as f:
                verdicts.append({c["revision"]: c["verdict"] for c in json.load(f)["cases"]
                                 if c["id"] == "ping/empty-result"})
        expected = {rev for rev, v in verdicts[1].items()
                    if v == "FAIL" and verdicts[0].get(rev) == "PASS"}
        self.assertTrue(expected, verdicts)
        r = run([MCPSPEC, "diff"] + reports)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        failures = text_groups(r.stdout)["New failures"]
        pings = {rev for rev, cid, move, _ in failures
                 if cid == "ping/empty-result" and move == "PASS -> FAIL"}
        self.assertEqual(pings, expected, r.stdout)
        md = run([MCPSPEC, "diff", "--format", "markdown"] + reports).stdout
        self.assertIn("| ping/empty-result | PASS \u2192 FAIL |", md)
        # The same run on both sides changes nothing that gates.
        self.assertEqual(run([MCPSPEC, "diff", reports[0], reports[0]]).returncode, 0)


if __name__ == "__main__":
    unittest.main()
