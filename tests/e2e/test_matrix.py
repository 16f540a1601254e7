#!/usr/bin/python3
"""mcpspec matrix (and mcpspec run with --config repeated): several targets in one
invocation, one targets x cases report. refserver clean and with two faults makes one
matrix whose faulted cases FAIL only on the faulted targets; broken inputs stop it with
exit 2 before anything runs; a target that cannot run still has its column; SIGTERM
reaches every target's run; and, where scripts/real-servers installed them
(.cache/servers, release build only), two real servers join refserver in one matrix.
The suites are narrowed (ping, errors) so that each matrix takes seconds."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN_DIR, MCPSPEC, ROOT, run  # noqa: E402

REFSERVER = os.path.join(BIN_DIR, "refserver")
REF_CONFIG = os.path.join(ROOT, "targets", "refserver", "mcpspec.json")
FAULTS = ["ping-result-null", "result-and-error"]  # each makes ping cases FAIL
FAST = ["--suite", "ping", "--suite", "errors", "--revision", "2025-06-18",
        "--revision", "2025-11-25"]
PER_TARGET = ["report.json", "junit.xml", "summary.md", "report.html", "report.sarif"]
SERVERS = os.path.join(ROOT, ".cache", "servers", "node_modules", "@modelcontextprotocol")


def write_json(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    return path


def refserver_targets():
    targets = [{"name": "clean", "config": REF_CONFIG}]
    for fault in FAULTS:
        targets.append({"name": fault, "config": REF_CONFIG,
                        "server": "%s --fault %s" % (REFSERVER, fault)})
    return targets


class MatrixTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.out = os.path.join(self.dir, "out")

    def tearDown(self):
        self.tmp.cleanup()

    def matrix(self, targets, extra=(), timeout=120):
        path = write_json(os.path.join(self.dir, "matrix.json"), {"targets": targets})
        return path, run([MCPSPEC, "matrix", path, "--out", self.out] + list(extra),
                         timeout=timeout)

    def load(self, name="matrix.json"):
        with open(os.path.join(self.out, name), encoding="utf-8") as f:
            return json.load(f) if name.endswith(".json") else f.read()

    def column(self, m, name):
        i = [t["name"] for t in m["targets"]].index(name)
        return {(c["revision"], c["id"]): c["verdicts"][i] for c in m["cases"]}

    def test_refserver_clean_and_faults(self):
        start = time.monotonic()
        _, r = self.matrix(refserver_targets(), FAST + ["--jobs", "4"])
        took = time.monotonic() - start
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        for f in ("index.html", "matrix.json", "summary.md"):
            self.assertTrue(os.path.isfile(os.path.join(self.out, f)), f)
        m = self.load()
        self.assertEqual((m["schema"], m["schema_version"], m["exit_code"]),
                         ("mcpspec-matrix", 1, 1))
        self.assertEqual([t["name"] for t in m["targets"]], ["clean"] + FAULTS)
        for t in m["targets"]:
            for f in PER_TARGET:
                self.assertTrue(os.path.isfile(os.path.join(self.out, t["name"], f)),
                                "%s/%s" % (t["name"], f))
            self.assertEqual(t["exit_code"], 0 if t["name"] == "clean" else 1, t)
            self.assertEqual(t["report"], t["name"] + "/report.json")
        clean = self.column(m, "clean")
        self.assertNotIn("FAIL", clean.values(), "the clean server fails nothing")
        for fault in FAULTS:
            col = self.column(m, fault)
            failed = {k for k, v in col.items() if v == "FAIL"}
            self.assertTrue(failed, "%s fails some case" % fault)
            self.assertTrue(all(clean[k] == "PASS" for k in failed), fault)
            for c in m["cases"]:  # a FAIL row differs; the verdicts match the target's report
                if (c["revision"], c["id"]) in failed:
                    self.assertTrue(c["differs"], c)
            with open(os.path.join(self.out, fault, "report.json"), encoding="utf-8") as f:
                own = {(c["revision"], c["id"]): c["verdict"] for c in json.load(f)["cases"]}
            self.assertEqual(own, {k: v for k, v in col.items() if v is not None})
        # Every cell links to its case's anchor in that target's report.html.
        page = self.load("index.html")
        links = re.findall(r'href="([^"/]+)/report\.html#(case-\d+)"', page)
        self.assertEqual(len(links), sum(len([v for v in c["verdicts"] if v])
                                         for c in m["cases"]))
        name, anchor = links[-1]
        with open(os.path.join(self.out, name, "report.html"), encoding="utf-8") as f:
            self.assertIn('id="%s"' % anchor, f.read())
        self.assertIn("Content-Security-Policy", page)
        self.assertNotIn("<script", page)
        summary = self.load("summary.md")
        self.assertIn("## mcpspec matrix: FAIL", summary)
        self.assertIn("Cases that differ between targets", summary)
        self.assertIn("| ping-result-null | **FAIL (exit 1)** |", summary)
        self.assertLess(took, 30, "the matrix runs its targets in parallel, in seconds")

    def test_repeated_config(self):
        """mcpspec run --config A --config B is the same matrix, named after the files."""
        faulty = write_json(os.path.join(self.dir, "faulty.json"),
                            {"server": "%s --fault ping-result-null" % REFSERVER})
        r = run([MCPSPEC, "run", "--config", REF_CONFIG, "--config", faulty, "--out",
                 self.out, "--quiet", "--format", "json,html"] + FAST)
        self.assertEqual(r.returncode, 1, r.stderr)
        m = self.load()
        self.assertEqual([t["name"] for t in m["targets"]], ["refserver", "faulty"])
        self.assertIsNone(m["source"])
        self.assertEqual(sorted(os.listdir(os.path.join(self.out, "faulty"))),
                         ["report.html", "report.json"])
        self.assertEqual(r.stdout, "", "--quiet")
        # --server belongs to a target, not to all of them.
        r = run([MCPSPEC, "run", "--config", REF_CONFIG, "--config", faulty, "--server", "x"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--server and --url belong to a target", r.stderr)

    def test_target_that_cannot_run(self):
        """It keeps its column: ERROR, with the reason; the matrix exits 3. A run that
        refuses its own input (a baseline file that is not there) has no report at all:
        the reason is the last line it wrote, kept in its run.log."""
        targets = [{"name": "clean", "server": REFSERVER},
                   {"name": "missing", "server": os.path.join(self.dir, "no-such-server")},
                   {"name": "no-baseline", "server": REFSERVER, "baseline": "gone.json"}]
        _, r = self.matrix(targets, ["--suite", "ping", "--revision", "2025-06-18", "--quiet"])
        self.assertEqual(r.returncode, 3, r.stderr)
        m = self.load()
        missing, no_baseline = m["targets"][1:]
        self.assertEqual((missing["outcome"], missing["exit_code"]), ("INCOMPLETE", 3))
        self.assertIn("no-such-server", missing["reason"])
        self.assertEqual((no_baseline["outcome"], no_baseline["exit_code"], no_baseline["report"]),
                         ("ERROR", 2, None))
        self.assertIn("gone.json", no_baseline["reason"])
        self.assertTrue(all(c["verdicts"][2] is None for c in m["cases"]))
        with open(os.path.join(self.out, "no-baseline", "run.log"), encoding="utf-8") as f:
            self.assertIn("gone.json", f.read())
        self.assertFalse(os.path.exists(os.path.join(self.out, "clean", "run.log")))
        self.assertIn("no-such-server", self.load("summary.md"))
        self.assertIn("no-such-server", self.load("index.html"))

    def test_broken_inputs_exit_2(self):
        def refused(args, *needles):
            r = run([MCPSPEC] + args)
            self.assertEqual(r.returncode, 2, r.stderr)
            for n in needles:
                self.assertIn(n, r.stderr)
            self.assertFalse(os.path.exists(self.out), "nothing ran")
        path = os.path.join(self.dir, "m.json")
        refused(["matrix", path, "--out", self.out], path, "cannot open")
        with open(path, "w") as f:
            f.write('{"targets": [\n  {"name": "a",\n   "server": "x",}\n]}\n')
        refused(["matrix", path, "--out", self.out], path + ":3: invalid JSON")
        write_json(path, {"targets": [{"name": "a", "config": "nope.json"}]})
        refused(["matrix", path, "--out", self.out], os.path.join(self.dir, "nope.json"))
        broken = os.path.join(self.dir, "broken.json")
        with open(broken, "w") as f:
            f.write('{\n  "server": "x",\n  "calls": {"tool": 1}\n}\n')
        write_json(path, {"targets": [{"name": "a", "config": "broken.json"}]})
        refused(["matrix", path, "--out", self.out], broken + ":3:")
        refused(["run", "--config", REF_CONFIG, "--config", broken, "--out", self.out],
                broken + ":3:")
        write_json(path, {"targets": [{"name": "a", "server": "x"},
                                      {"name": "b", "kind": "client", "client": "y"}]})
        refused(["matrix", path, "--out", self.out], path + ":", "is a client",
                "a matrix lists servers only")
        write_json(path, {"targets": [{"name": "a", "server": "x"}, {"name": "a", "url": "y"}]})
        refused(["matrix", path, "--out", self.out], "two targets are named \"a\"")
        write_json(path, {"targets": [{"name": "../up", "server": "x"}]})
        refused(["matrix", path, "--out", self.out], "needs a \"name\"")
        write_json(path, {"targets": [{"name": "index.html", "server": "x"}]})
        refused(["matrix", path, "--out", self.out], "needs a \"name\"")
        write_json(path, {"targets": [{"name": "a", "server": "x", "serevr": "y"}]})
        refused(["matrix", path, "--out", self.out], "unknown member \"serevr\"")
        write_json(path, {"targets": [{"name": "a", "server": "x", "revision": "1999"}]})
        refused(["matrix", path, "--out", self.out], "bad value for --revision",
                "target \"a\"")

    def test_sigterm_reaches_every_target(self):
        """Each target's run stops its server and writes a partial report; exit 3."""
        path = write_json(os.path.join(self.dir, "matrix.json"), {"targets": [
            {"name": "a", "config": REF_CONFIG}, {"name": "b", "config": REF_CONFIG}]})
        p = subprocess.Popen([MCPSPEC, "matrix", path, "--out", self.out, "--jobs", "2"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and p.stdout.readline().count("started") == 0:
                pass
            time.sleep(1.0)
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 3, err)
        m = self.load()
        self.assertIn("SIGTERM", m["stopped"])
        for t in m["targets"]:
            self.assertIsNotNone(t["report"], t)  # started, stopped, reported
            self.assertEqual(t["exit_code"], 3)

    def test_deadline_bounds_the_whole_matrix(self):
        """--deadline 2 over three full runs, two at a time: the two running stop at the
        deadline with their reports; the third is not started, and says so."""
        targets = [{"name": n, "config": REF_CONFIG} for n in ("a", "b", "c")]
        start = time.monotonic()
        _, r = self.matrix(targets, ["--jobs", "2", "--deadline", "2", "--quiet"])
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual(r.returncode, 3, r.stderr)
        a, b, c = self.load()["targets"]
        for t in (a, b):
            self.assertEqual((t["started"], t["jobs"], t["exit_code"]), (True, 1, 3), t)
            self.assertIn("deadline", t["reason"])
            self.assertIsNotNone(t["report"])
        self.assertEqual((c["started"], c["outcome"], c["report"]), (False, "ERROR", None))
        self.assertEqual(c["reason"], "not run: the matrix deadline passed before it started")

    def test_help(self):
        r = run([MCPSPEC, "matrix", "--help"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("mcpspec matrix FILE", r.stdout)
        self.assertIn("clients", r.stdout)
        r = run([MCPSPEC, "matrix"])
        self.assertEqual(r.returncode, 2)

    def test_real_servers(self):
        """refserver clean and faulted beside two real servers (server-everything and
        server-memory, over stdio) in one matrix: one report over all five."""
        if os.environ.get("MCPSPEC_BUILD_TYPE") == "Sanitize":
            self.skipTest("the real servers run in the release build only")
        if not os.path.isdir(SERVERS):
            self.skipTest("no real servers: scripts/real-servers installs them in .cache/")
        everything = os.path.join(SERVERS, "server-everything", "dist", "index.js")
        memory = os.path.join(SERVERS, "server-memory", "dist", "index.js")
        targets = refserver_targets() + [
            {"name": "server-everything", "server": "node %s stdio" % everything},
            {"name": "server-memory", "server": "node %s" % memory,
             "env": {"MEMORY_FILE_PATH": os.path.join(self.dir, "memory.jsonl")}},
        ]
        _, r = self.matrix(targets, ["--suite", "ping", "--revision", "2025-11-25",
                                     "--probe-timeout", "30", "--quiet"], timeout=300)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        m = self.load()
        self.assertEqual(len(m["targets"]), 5)
        for t in m["targets"][3:]:
            self.assertIsNone(t["fatal"], t)
            self.assertIn("2025-11-25", t["revisions"], t)
            self.assertGreater(t["counts"]["PASS"], 0, t)
        page = self.load("index.html")
        self.assertIn('href="server-memory/report.html#case-', page)


if __name__ == "__main__":
    unittest.main()
