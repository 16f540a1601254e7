#!/usr/bin/python3
"""A real client: tests/clients/sdk-v1-client.cjs, on the TypeScript SDK v1
(@modelcontextprotocol/sdk, pinned in tests/servers/package.json), judged by
`mcpspec run --client` over stdio. Its verdicts must equal the snapshot
tests/snapshots/client-sdk-v1.tsv (MCPSPEC_UPDATE_SNAPSHOTS=1 to accept a
change). The SDK comes from scripts/real-servers' install (.cache/servers, or
MCPSPEC_NODE_MODULES): without it, or without node, exit 77 (skipped).

Five of the eleven scenarios, to stay fast (node starts in a second or two
here, once per scenario): the plain session, an unsupported revision, a ping,
roots/list and a line that is not JSON."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import json

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import MCPSPEC, ROOT  # noqa: E402

MODULES = os.environ.get("MCPSPEC_NODE_MODULES",
                         os.path.join(ROOT, ".cache", "servers", "node_modules"))
CLIENT = os.path.join(ROOT, "tests", "clients", "sdk-v1-client.cjs")
SNAPSHOT = os.path.join(ROOT, "tests", "snapshots", "client-sdk-v1.tsv")
UPDATE = os.environ.get("MCPSPEC_UPDATE_SNAPSHOTS") == "1"
CASES = ["client/initialize-*", "client/initialized-notification", "client/request-ids",
         "client/jsonrpc-lines", "client/shutdown", "client/unsupported-version", "client/ping",
         "client/roots-list", "client/survives-invalid-json", "client/parse-error-answered"]


class SdkClientTest(unittest.TestCase):
    def test_sdk_v1_client(self):
        args = [MCPSPEC, "run", "--client", "node %s {server}" % CLIENT, "--quiet",
                "--env", "NODE_PATH=" + MODULES]
        for c in CASES:
            args += ["--case", c]
        with tempfile.TemporaryDirectory() as out:
            r = subprocess.run(args + ["--out", out], capture_output=True, text=True,
                               timeout=120)
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                report = json.load(f)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        lines = sorted("%s\t%s\t%s" % (c["revision"], c["id"], c["verdict"])
                       for c in report["cases"])
        text = "# revision\tcase\tverdict (tests/e2e/test_client_sdk.py)\n" + "\n".join(lines) + "\n"
        if UPDATE:
            with open(SNAPSHOT, "w", encoding="utf-8") as f:
                f.write(text)
        with open(SNAPSHOT, encoding="utf-8") as f:
            self.assertEqual(f.read(), text)


if __name__ == "__main__":
    if not shutil.which("node") or not os.path.isdir(
            os.path.join(MODULES, "@modelcontextprotocol", "sdk")):
        print("SKIP: node or the SDK (%s) is missing; scripts/real-servers installs it" % MODULES,
              file=sys.stderr)
        sys.exit(77)
    unittest.main()
