#!/usr/bin/python3
"""mcpspec lint on captured transcripts: every problem reported with its
requirement ID, line and byte offset; exit codes 0, 1 and 2."""
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import DATA, MCPSPEC, run  # noqa: E402

LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): byte (?P<byte>\d+): (?P<level>MUST NOT|MUST|SHOULD|NOTE) (?P<reqs>[A-Z0-9 -]+?): (?P<msg>.*)$")


def findings(out):
    rows = []
    for text in out.splitlines():
        m = LINE.match(text)
        if m:
            rows.append(m.groupdict())
    return rows


class LintTest(unittest.TestCase):
    def test_each_problem_reported_with_its_requirement(self):
        path = os.path.join(DATA, "lint", "all-problems.txt")
        r = run([MCPSPEC, "lint", path])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        got = {(f["line"], f["reqs"]) for f in findings(r.stdout)}
        want = {
            ("3", "JSON-DUP-001"),                # duplicated key
            ("6", "JSON-UTF8-001 RPC-MSG-002"),   # invalid UTF-8
            ("7", "RPC-ID-002"),                  # request id null
            ("8", "RPC-RSP-001"),                 # response id null
            ("10", "RPC-RSP-002"),                # result and error
            ("12", "STDIO-001"),                  # raw newline inside a message
            ("15", "RPC-RSP-001"),                # id "5" answered as 5
        }
        self.assertEqual(got, want, r.stdout)
        with open(path, "rb") as f:
            raw = f.read()
        for f in findings(r.stdout):
            offset = int(f["byte"])
            line_start = raw.rfind(b"\n", 0, offset) + 1
            self.assertEqual(raw.count(b"\n", 0, line_start) + 1, int(f["line"]),
                             "byte offset lies on the reported line: " + f["msg"])

    def test_clean_transcript_exits_0(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as t:
            t.write('--> {"jsonrpc":"2.0","id":1,"method":"ping"}\n'
                    '<-- {"jsonrpc":"2.0","id":1,"result":{}}\n')
        try:
            r = run([MCPSPEC, "lint", t.name])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertEqual(r.stdout, "")
        finally:
            os.unlink(t.name)

    def test_stdin_and_unmarked_lines(self):
        r = run([MCPSPEC, "lint", "-"], input='{"jsonrpc":"2.0","id":1,"method":"ping"}\nnot json\n')
        self.assertEqual(r.returncode, 1)
        self.assertIn("<stdin>:2: byte 42: MUST JSON-SYNTAX-001: not a JSON message", r.stdout)

    def test_line_numbers_survive_an_over_long_line(self):
        # The over-long line spans several 64 KiB reads: it is still one line.
        text = "x" * 200000 + "\ngarbage\n"
        r = run([MCPSPEC, "lint", "--max-message", "100", "-"], input=text)
        self.assertIn("<stdin>:1: byte 0: NOTE", r.stdout)
        self.assertIn("<stdin>:2: byte 200001: MUST JSON-SYNTAX-001", r.stdout)

    def test_usage_errors_exit_2(self):
        for args in (["lint"], ["lint", "--bogus", "x"], ["lint", "--revision", "1999-01-01", "-"],
                     ["lint", "/nonexistent/transcript"], ["lint", "--max-message"]):
            r = run([MCPSPEC] + args, input="")
            self.assertEqual(r.returncode, 2, args)
            self.assertTrue(r.stderr.strip(), args)

    def test_revision_changes_the_rules(self):
        batch = '[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n'
        self.assertEqual(run([MCPSPEC, "lint", "--revision", "2025-03-26", "-"], input=batch).returncode, 0)
        r = run([MCPSPEC, "lint", "--revision", "2025-06-18", "-"], input=batch)
        self.assertEqual(r.returncode, 1)
        self.assertIn("BATCH-005", r.stdout)


if __name__ == "__main__":
    unittest.main()
