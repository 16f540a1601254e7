#!/usr/bin/python3
"""A real client nobody here wrote: MCP Inspector's CLI mode (@modelcontextprotocol/
inspector 2.12.0, pinned in tests/official/package.json), judged by `mcpspec run
--client` over stdio ({server}) and Streamable HTTP ({url}, its `--transport http`), side
by side. Its verdicts must equal tests/snapshots/client-inspector.tsv and
client-inspector-http.tsv (MCPSPEC_UPDATE_SNAPSHOTS=1 to accept a change); every FAIL
there is accounted for in tests/clients/README.md.

The Inspector needs Node.js 22.19 or later; the machine's node is 20, so it runs on the
Node.js 22 that scripts/official-suite installs beside it into .cache/official (the test
runs that script, which installs only when the lock changed; scripts/test starts it
early, beside the build). What the Inspector does when started: `--cli --method
tools/list`, that is connect, list the tools, print them and exit, as a user's one-shot
command would. Without npm, exit 77 (skipped); a failed install fails the test."""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import MCPSPEC, ROOT  # noqa: E402

SNAPSHOT = os.path.join(ROOT, "tests", "snapshots", "client-inspector%s.tsv")
# Where the Inspector's target goes, per transport.
TARGETS = {"stdio": "{server}", "http": "{url} --transport http"}
UPDATE = os.environ.get("MCPSPEC_UPDATE_SNAPSHOTS") == "1"
INSPECTOR = os.path.join("node_modules", "@modelcontextprotocol", "inspector", "clients",
                         "launcher", "build", "index.js")


def install():
    """The folder scripts/official-suite installed into."""
    r = subprocess.run([os.path.join(ROOT, "scripts", "official-suite")], capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        raise AssertionError("scripts/official-suite failed: " + r.stderr.strip())
    return r.stdout.strip().splitlines()[-1]


class InspectorClientTest(unittest.TestCase):
    def verdicts(self, transport):
        """The Inspector under mcpspec run --client over one transport: its verdict lines."""
        folder = install()
        node = os.path.join(folder, "node_modules", ".bin", "node")
        client = "%s %s --cli %s --method tools/list" % (node, os.path.join(folder, INSPECTOR),
                                                        TARGETS[transport])
        with tempfile.TemporaryDirectory() as out:
            r = subprocess.run([MCPSPEC, "run", "--client", client, "--quiet", "--out", out],
                               capture_output=True, text=True, timeout=300)
            self.assertIn(r.returncode, (0, 1), r.stderr)
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                report = json.load(f)
        # The Inspector got through the handshake on the newest handshake revision: the cases
        # judged something (no ERROR for want of a connection).
        self.assertTrue(report["cases"])
        self.assertEqual([c["id"] for c in report["cases"] if c["verdict"] == "ERROR"], [])
        self.assertEqual(report["transport"], "stdio" if transport == "stdio" else
                         "streamable-http")
        return sorted("%s\t%s\t%s" % (c["revision"], c["id"], c["verdict"])
                      for c in report["cases"])

    def test_inspector_cli(self):
        install()  # once, before the two runs side by side
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            runs = dict(zip(TARGETS, pool.map(self.verdicts, TARGETS)))
        for transport, got in runs.items():
            with self.subTest(transport=transport):
                path = SNAPSHOT % ("" if transport == "stdio" else "-http")
                text = ("# revision\tcase\tverdict (tests/e2e/test_client_inspector.py, "
                        "MCP Inspector 2.12.0 --cli, %s)\n" % transport + "\n".join(got) + "\n")
                if UPDATE:
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(text)
                with open(path, encoding="utf-8") as f:
                    self.assertEqual(f.read(), text)


if __name__ == "__main__":
    if not shutil.which("npm"):
        print("SKIP: npm is not installed (scripts/official-suite needs it)", file=sys.stderr)
        sys.exit(77)
    unittest.main()
