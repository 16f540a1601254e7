#!/usr/bin/python3
"""`mcpspec fuzz` against refserver's fuzz faults (targets/refserver/faults_fuzz.h),
the clean refserver and a hostile target, and `mcpspec replay` of what it finds.

Stated times, with seed 1 (the same inputs on every machine): fuzz-sequence-crash
is found in the second sequence (96 executions, 0.3 s on a release build),
fuzz-hang in the tenth (about 11 s with its minimization, each hanging
candidate costing the 0.5 s ping deadline and a shutdown), fuzz-asan-overflow
in the fourth (it is invisible to a release build of refserver: that case runs under
the sanitize preset only), fuzz-fd-leak by the growth oracle in the 18th (about
530 executions, 0.2 s), fuzz-leak with seed 7 in the 37th (1 074 executions, 0.2 s;
seed 1 needs 25 000, 3 to 5 s), fuzz-schema-boundary (with a configuration consenting
to route) in the third (164 executions, under 0.1 s) and fuzz-traversal (refserver with
--root) in the 14th (478 executions, under 0.1 s); the conformance fault
resource-traversal, which serves /etc/passwd instead of crashing, by the disclosure
oracle in the 75th (2 288 executions, 0.3 s).
The runs allow 90 s (a loaded machine slows minimization, which --time bounds too) and
stop at the first finding (--max-findings 1).
Each finding is minimized to the few messages that matter, `mcpspec replay`
reproduces it against the faulty server (exit 1) and not against the clean one
(exit 0). The same seed gives the same findings; a hostile target ends the run in
time and leaves no process behind."""
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from common import BIN_DIR, MCPSPEC, ROOT, free_port, listening, run
from test_hostile import marked, wait_for  # noqa: E402

REFSERVER = os.path.join(BIN_DIR, "refserver")
HOSTILE = os.path.join(ROOT, "tests", "hostile")


# A server written by the tests, its misbehaviour its argument: "ub" reports a UBSan-like error
# on stderr for completion/complete and goes on; "counting" dies at its fifth prompts/list, a
# crash no one sequence of the seed holds.
TEST_SERVER = """import json, os, sys
mode, lists = sys.argv[1], 0
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        m = None
    if not isinstance(m, dict) or "id" not in m or "method" not in m:
        continue
    if mode == "ub" and m["method"] == "completion/complete":
        sys.stderr.write("x.c:1:1: runtime error: signed integer overflow\\n")
        sys.stderr.flush()
    result = {}
    if m["method"] == "prompts/list":
        lists += 1
        # once: the same crash, but only the first time ever (a marker file beside the script)
        marker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crashed-once")
        if mode == "once" and lists == 5 and not os.path.exists(marker):
            open(marker, "w").close()
            os.abort()
        if mode == "counting" and lists == 5:
            os.abort()
        if mode == "late" and lists == 2500:  # after some 76 000 inputs, 90 MB of them
            os.abort()
        result = {"prompts": []}
    if m["method"] == "initialize":
        caps = {"prompts": {}} if mode in ("counting", "once", "late") else {}
        result = {"protocolVersion": "2025-11-25", "capabilities": caps,
                  "serverInfo": {"name": mode, "version": "1"}}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""


def sanitized(binary):
    """Whether binary was built with AddressSanitizer (the sanitize preset)."""
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


SANITIZED = sanitized(MCPSPEC)
SLOW = 5.0 if SANITIZED else 1.0
# The ping deadline where no hang is expected: a loaded CI machine can take a second or more.
GENEROUS = "10"
# Under ASan, whose quarantine holds freed memory, the growth oracle watches descriptors only
# (fuzz/README.md, "The resource-growth oracle"): the clean ASan refserver's memory grows.
ASAN_WATCH = ["--growth", "fds"] if SANITIZED else []



class FuzzLiveTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="mcpspec-fuzz-live-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def fuzz(self, name, server, *extra, timeout=120, server_given=True):
        out = os.path.join(self.dir, name)
        t0 = time.monotonic()
        target = ["--server", server] if server_given else []
        r = run([MCPSPEC, "fuzz"] + target + ["--out", out, "--quiet"] + list(extra),
                timeout=timeout)
        elapsed = time.monotonic() - t0
        report = None
        if os.path.exists(os.path.join(out, "report.json")):
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                report = json.load(f)
        return r, report, out, elapsed

    def script_server(self, mode):
        """The command of TEST_SERVER in this mode."""
        path = os.path.join(self.dir, "test-server.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(TEST_SERVER)
        return "%s %s %s" % (sys.executable, path, mode)

    def replay(self, path, server, hang):
        return run([MCPSPEC, "replay", path, "--server", server, "--hang-timeout", hang],
                   timeout=60)

    def assert_found(self, fault, oracle, max_inputs, *extra, seed="1", hang=GENEROUS,
                     args=""):
        """hang: the ping deadline; short only where a hang is the finding (a loaded machine
        must not make a slow answer look like one). args: more refserver arguments."""
        server = "%s --fault %s%s" % (REFSERVER, fault, " " + args if args else "")
        # --max-findings 1 ends the run at the finding; the time left is its minimization's
        # (bounded by --time too), which a loaded machine slows down.
        r, report, out, elapsed = self.fuzz(fault, server, "--seed", seed, "--time", "90",
                                            "--hang-timeout", hang, "--max-findings", "1",
                                            *extra)
        self.assertEqual(r.returncode, 1, r.stderr)
        found = [f for f in report["findings"] if f["oracle"] == oracle]
        self.assertTrue(found, "no %s finding: %s" % (oracle, report["findings"]))
        f = found[0]
        self.assertTrue(f["reproduced"], f)
        self.assertLessEqual(f["inputs"], max_inputs, f)
        self.assertEqual(f["seed"], int(seed))
        self.assertTrue(f["evidence"])
        path = os.path.join(out, f["file"])
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        self.assertIn("# oracle: %s" % oracle, text)
        self.assertIn("# seed: %s\n" % seed, text)
        self.assertEqual(len(re.findall(r"^--> raw ", text, re.M)), f["inputs"])
        with open(os.path.join(out, "report.sarif"), encoding="utf-8") as fh:
            sarif = json.load(fh)
        self.assertEqual(len(sarif["runs"][0]["results"]), len(report["findings"]))
        self.assertEqual(self.replay(path, server, hang).returncode, 1,
                         "replay does not reproduce")
        clean = self.replay(path, REFSERVER, GENEROUS)
        self.assertEqual(clean.returncode, 0, clean.stdout + clean.stderr)
        return f, path

    def test_finds_sequence_crash(self):
        f, path = self.assert_found("fuzz-sequence-crash", "crash", 2)
        self.assertIn("signal 6", f["evidence"])
        # The finding is a regression case as it stands: a conformance run fails on it.
        r = run([MCPSPEC, "run", "--suites", os.path.dirname(path), "--server",
                 REFSERVER + " --fault fuzz-sequence-crash", "--out",
                 os.path.join(self.dir, "as-suite"), "--quiet"], timeout=60)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)

    def test_stateless_revision(self):
        """--revision 2026-07-28: no handshake. The prefix is server/discover, every generated
        request carries its own _meta (mutated like the rest), and liveness is server/discover,
        since ping is gone from that revision. The sequence crash is found there too (refserver
        keeps its state across stateless requests on one stdio process), minimized, replayed,
        and a conformance run of the finding passes the clean refserver; the clean one, fuzzed,
        gives nothing."""
        f, path = self.assert_found("fuzz-sequence-crash", "crash", 2, "--revision", "2026-07-28")
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        self.assertIn('"method":"server/discover"', text)
        self.assertNotIn('"method":"ping"', text)
        self.assertNotIn('"method":"initialize"', text)
        self.assertIn("io.modelcontextprotocol/protocolVersion", text)
        for server, code in ((REFSERVER, 0), (REFSERVER + " --fault fuzz-sequence-crash", 1)):
            r = run([MCPSPEC, "run", "--suites", os.path.dirname(path), "--server", server,
                     "--out", os.path.join(self.dir, "stateless-suite"), "--quiet"], timeout=60)
            self.assertEqual(r.returncode, code, r.stdout + r.stderr)
        runs = "300" if SANITIZED else "2000"
        watch = ["--growth", "fds"] if SANITIZED else []  # ASan's quarantine holds memory
        r, report, _, _ = self.fuzz("clean-stateless", REFSERVER, "--revision", "2026-07-28",
                                    "--runs", runs, "--hang-timeout", GENEROUS, *watch)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(report["findings"], [])

    @unittest.skipIf(SANITIZED, "the release build proves it; each hanging candidate costs a "
                     "ping deadline, which ASan makes no more telling")
    def test_finds_hang(self):
        self.assert_found("fuzz-hang", "hang", 1, hang="0.5")

    def test_finds_asan_overflow(self):
        if not sanitized(REFSERVER):
            self.skipTest("refserver is not an ASan build (the sanitize preset runs this)")
        f, _ = self.assert_found("fuzz-asan-overflow", "sanitizer", 1)
        self.assertIn("AddressSanitizer", f["evidence"])

    def test_finds_leaks_and_clean_does_not_grow(self):
        """The growth oracle (harness/live/growth.h) finds the descriptor and the memory leak,
        each minimized to one input that replay plays over the growth window; the clean
        refserver, fuzzed longer (5 000 executions) with the same seed, gives no growth finding
        and stays far below both thresholds. Under ASan (whose quarantine holds freed memory) descriptors
        only, and the memory leak is left to the release run (25 000 executions at ASan's
        speed would take a minute)."""
        f, path = self.assert_found("fuzz-fd-leak", "growth", 1, *ASAN_WATCH)
        self.assertIn("descriptors", f["evidence"])
        with open(path, encoding="utf-8") as fh:
            self.assertIn("resources/list", fh.read())
        if SANITIZED:
            r, report, _, _ = self.fuzz("clean-growth", REFSERVER, "--seed", "1", "--runs",
                                        str(f["found_after_executions"] * 2), "--growth", "fds",
                                        "--hang-timeout", GENEROUS)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(report["growth"]["max_fds"], 0, report["growth"])
            return
        f, path = self.assert_found("fuzz-leak", "growth", 1, seed="7")
        self.assertIn("resident memory", f["evidence"])
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        self.assertIn("tools/list", text)
        self.assertIn("# growth: replay plays these inputs", text)
        runs = str(max(5000, f["found_after_executions"]))
        r, report, _, _ = self.fuzz("clean-growth", REFSERVER, "--seed", "7", "--runs", runs,
                                    "--hang-timeout", GENEROUS)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([f for f in report["findings"] if f["oracle"] == "growth"], [])
        g = report["growth"]
        self.assertGreater(g["samples"], 10)
        self.assertEqual(g["max_fds"], 0, g)
        self.assertLess(g["max_rss_kib"], g["threshold_rss_kib"] // 4, g)

    def test_finds_schema_boundary(self):
        """A tool argument one past its inputSchema's maximum (route's shard 1024): the
        configuration consents to route, and its arguments are made from the schema. Seed 1
        finds it in the third sequence (164 executions)."""
        config = os.path.join(self.dir, "route.json")
        with open(config, "w", encoding="utf-8") as f:
            json.dump({"server": {"command": REFSERVER},
                       "calls": {"tool": {"name": "route",
                                          "arguments": {"region": "us-west1", "shard": 42}}}},
                      f)
        f, path = self.assert_found("fuzz-schema-boundary", "crash", 1, "--config", config,
                                    *ASAN_WATCH)
        self.assertIn("signal 6", f["evidence"])
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        self.assertRegex(text, r'"name":"route","arguments":\{[^}]*"shard":1024')

    def test_finds_traversal(self):
        """An encoded ".." in a file: URI of resources/read, from the probes built on the
        URIs refserver lists below --root. Seed 1 finds it in the 14th sequence (478
        executions)."""
        root = os.path.join(ROOT, "targets", "refserver", "root")
        f, path = self.assert_found("fuzz-traversal", "crash", 1, *ASAN_WATCH,
                                    args="--root " + root)
        self.assertIn("signal 6", f["evidence"])
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        self.assertRegex(text, r'"method":"resources/(read|subscribe)".*"uri":"file:[^"]*%2e')

    def test_finds_served_traversal(self):
        """The disclosure oracle: refserver's conformance fault resource-traversal serves
        /etc/passwd for a file: URI climbing out of --root, and the answer holds its text.
        Seed 1 finds it in the 75th sequence (2 288 executions)."""
        if SANITIZED:
            self.skipTest("the release run proves it: a file served is no memory error, and "
                          "under ASan it would take 10 s")
        if not os.path.exists("/etc/passwd"):
            self.skipTest("no /etc/passwd to serve")
        root = os.path.join(ROOT, "targets", "refserver", "root")
        f, path = self.assert_found("resource-traversal", "disclosure", 1, args="--root " + root)
        self.assertIn("/etc/passwd", f["evidence"])
        self.assertEqual(f["signature"], "disclosure /etc/passwd")

    def test_clean_refserver_gives_no_finding(self):
        runs = "300" if SANITIZED else "3000"
        r, report, _, _ = self.fuzz("clean", REFSERVER, "--seed", "3", "--runs", runs,
                                    "--hang-timeout", GENEROUS)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(report["findings"], [])
        self.assertEqual(report["executions"], int(runs))

    def test_same_seed_same_findings(self):
        if SANITIZED:
            self.skipTest("the release run proves it; under ASan it would take 20 s")
        server = REFSERVER + " --fault fuzz-sequence-crash"
        runs = [self.fuzz("same-%d" % i, server, "--seed", "1", "--runs", "1500",
                          "--max-findings", "1", "--hang-timeout", GENEROUS)
                for i in range(2)]
        shapes = []
        for r, report, out, _ in runs:
            self.assertEqual(r.returncode, 1, r.stderr)
            inputs = []
            for f in report["findings"]:
                with open(os.path.join(out, f["file"]), encoding="utf-8") as fh:
                    inputs.append([l for l in fh if l.startswith("--> raw ")])
            shapes.append(([(f["name"], f["signature"], f["sequence"]) for f in report["findings"]],
                           inputs, report["executions"], report["sequences"]))
        self.assertEqual(shapes[0], shapes[1])

    def test_short_lived_processes_same_findings(self):
        """--process-inputs 100: a process replaced every few sequences (its spare taken, the
        full one left to end), the sequence in flight behind a crash sent again on a fresh one;
        the clean refserver still gives nothing in exactly --runs executions, and the same seed
        still gives the same findings (fuzz/README.md, "Throughput")."""
        runs = "300" if SANITIZED else "1500"
        r, report, _, _ = self.fuzz("short-clean", REFSERVER, "--seed", "3", "--runs", runs,
                                    "--process-inputs", "100", "--hang-timeout", GENEROUS)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(report["findings"], [])
        self.assertEqual(report["executions"], int(runs))
        server = REFSERVER + " --fault fuzz-sequence-crash"
        shapes = []
        for i in range(2):
            r, report, out, _ = self.fuzz("short-%d" % i, server, "--seed", "1", "--runs", runs,
                                          "--process-inputs", "100", "--minimize-runs", "40",
                                          "--hang-timeout", GENEROUS)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertEqual(report["executions"], int(runs))
            inputs = []
            for f in report["findings"]:
                with open(os.path.join(out, f["file"]), encoding="utf-8") as fh:
                    inputs.append([l for l in fh if l.startswith("--> raw ")])
            shapes.append(([(f["name"], f["signature"], f["sequence"], f["minimized_from"])
                            for f in report["findings"]], inputs, report["sequences"]))
        self.assertEqual(shapes[0], shapes[1])
        self.assertIn("crash signal 6", [f[1] for f in shapes[0][0]])

    def test_shards(self):
        """--shard I/N takes sequences I-1, I-1+N, ... of the seed: with seed 1, shard 1/2
        finds the sequence crash in sequence 12 and shard 2/2 in sequence 1, each the same
        when run again (same inputs, same counts); the report names the shard. Bad I/N and
        --shard with --afl are usage errors. --merge of the two shards keeps the crash once,
        sequence 1's, named crash-1, and it replays; --merge without --out, or of a folder
        with no report, cannot be done."""
        server = REFSERVER + " --fault fuzz-sequence-crash"
        shapes = {}
        for shard in ("1/2", "2/2", "1/2"):
            r, report, out, _ = self.fuzz("shard-%s" % shard.replace("/", "-"), server, "--seed",
                                          "1", "--runs", "1500", "--max-findings", "1",
                                          "--hang-timeout", GENEROUS, "--shard", shard)
            self.assertEqual(r.returncode, 1, r.stderr)
            index, count = map(int, shard.split("/"))
            self.assertEqual(report["shard"], {"index": index, "count": count})
            f = report["findings"][0]
            self.assertEqual(f["sequence"] % count, index - 1, f)
            with open(os.path.join(out, f["file"]), encoding="utf-8") as fh:
                inputs = [l for l in fh if l.startswith("--> raw ")]
            shape = (f["signature"], f["sequence"], inputs, report["executions"],
                     report["sequences"])
            self.assertEqual(shapes.setdefault(shard, shape), shape, shard)
        self.assertNotEqual(shapes["1/2"][1], shapes["2/2"][1])
        self.assertNotEqual(shapes["1/2"][2], shapes["2/2"][2])
        merged = os.path.join(self.dir, "shards-merged")
        shard_dirs = [os.path.join(self.dir, "shard-%d-2" % i) for i in (1, 2)]
        r = run([MCPSPEC, "fuzz", "--merge"] + shard_dirs + ["--out", merged], timeout=30)
        self.assertEqual(r.returncode, 1, r.stderr)
        with open(os.path.join(merged, "report.json"), encoding="utf-8") as fh:
            report = json.load(fh)
        self.assertEqual([(f["name"], f["sequence"]) for f in report["findings"]],
                         [("crash-1", shapes["2/2"][1])])
        path = os.path.join(merged, report["findings"][0]["file"])
        with open(path, encoding="utf-8") as fh:
            self.assertEqual([l for l in fh if l.startswith("--> raw ")], shapes["2/2"][2])
        self.assertEqual(self.replay(path, server, GENEROUS).returncode, 1)
        self.assertEqual(run([MCPSPEC, "fuzz", "--merge"] + shard_dirs).returncode, 2)
        r = run([MCPSPEC, "fuzz", "--merge", self.dir, "--out", merged + "-none"])
        self.assertEqual(r.returncode, 3, r.stderr)
        for bad in ("0/2", "3/2", "1/0", "2", "a/2", "1/2/3", "-1/2"):
            r = run([MCPSPEC, "fuzz", "--server", REFSERVER, "--shard", bad])
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("--shard", r.stderr)
        r = run([MCPSPEC, "fuzz", "--afl", "--server", REFSERVER, "--shard", "1/2"])
        self.assertEqual(r.returncode, 2, r.stderr)

    def test_stderr_report_that_does_not_end_the_target(self):
        """A sanitizer report on stderr after which the target goes on (UBSan's default) cannot
        be ordered against its answers on stdout: it is charged when the process ends with
        nothing in flight, so the same seed gives the same finding (sequence and inputs),
        minimized to the one input and replayed (fuzz/README.md, "Throughput")."""
        server = self.script_server("ub")
        shapes = []
        for i in range(2):
            r, report, out, _ = self.fuzz("ub-%d" % i, server, "--seed", "1", "--runs", "1500",
                                          "--process-inputs", "500", "--minimize-runs", "40",
                                          "--growth", "off", "--hang-timeout", GENEROUS)
            self.assertEqual(r.returncode, 1, r.stderr)
            found = [(f["signature"], f["sequence"], f["inputs"], f["reproduced"])
                     for f in report["findings"]]
            self.assertEqual(len(found), 1, report["findings"])
            self.assertTrue(found[0][0].startswith("sanitizer runtime error"), found)
            self.assertEqual(found[0][2:], (1, True), found)
            with open(os.path.join(out, report["findings"][0]["file"]), encoding="utf-8") as fh:
                shapes.append((found, [l for l in fh if l.startswith("--> raw ")]))
        self.assertEqual(shapes[0], shapes[1])
        self.assertEqual(self.replay(os.path.join(out, report["findings"][0]["file"]), server,
                                     GENEROUS).returncode, 1)

    def crash_at_fifth_list(self, mode):
        """Fuzz TEST_SERVER in mode (it dies at its fifth prompts/list): the crash finding, and
        the input lines its file sends, which must be as many as it says."""
        server = self.script_server(mode)
        r, report, out, _ = self.fuzz(mode, server, "--seed", "1", "--runs", "3000",
                                      "--max-findings", "1", "--growth", "off",
                                      "--hang-timeout", GENEROUS)
        self.assertEqual(r.returncode, 1, r.stderr)
        f = report["findings"][0]
        self.assertEqual(f["signature"], "crash signal 6", f)
        path = os.path.join(out, f["file"])
        with open(path, encoding="utf-8") as fh:
            sent = [l for l in fh if l.startswith("--> raw ")]
        self.assertEqual(len(sent), f["inputs"])
        self.assertGreater(f["minimized_from"], f["inputs"])
        return f, sent, server, path

    def test_crash_that_needs_earlier_sequences(self):
        """A finding is minimized from its sequence alone when that reproduces it, else from its
        process's whole history, which the runner does not keep but makes again from the seed
        (runner.h): a crash at the fifth prompts/list the process was sent is reproduced from
        that history, minimized to the five and replayed."""
        f, sent, server, path = self.crash_at_fifth_list("counting")
        self.assertTrue(f["reproduced"], f)
        self.assertEqual(sum('"prompts/list"' in l for l in sent), 5, sent)
        self.assertEqual(self.replay(path, server, GENEROUS).returncode, 1)

    def test_unreproduced_finding_keeps_its_sequence(self):
        """A finding that neither its sequence alone nor its process's history reproduces (a
        server that crashes at its fifth prompts/list the first time only) is written with its
        own sequence's inputs, not the history's: the history is the seed's to make again."""
        f, sent, _, _ = self.crash_at_fifth_list("once")
        self.assertFalse(f["reproduced"], f)
        self.assertTrue(any('"prompts/list"' in l for l in sent), sent)
        self.assertLessEqual(f["inputs"], 64)  # --max-len: one sequence

    def test_history_over_the_bound_keeps_its_sequence(self):
        """A finding reproduced from its process's history whose minimized inputs are over the
        64 MiB a finding keeps (here not minimized, --minimize-runs 0: a crash at the 2500th
        prompts/list, some 76 000 inputs and 90 MB into the process) keeps its own sequence,
        its file and the report say so, and mcpspec's peak memory (wait4) stays under 64 MiB:
        the history is played from the seed, never made whole."""
        if SANITIZED:
            self.skipTest("release only: the loop runs to 76 000 inputs (slow under ASan)")
        server = self.script_server("late")
        out = os.path.join(self.dir, "late")
        p = subprocess.Popen([MCPSPEC, "fuzz", "--server", server, "--seed", "1", "--runs",
                              "200000", "--max-findings", "16", "--minimize-runs", "0",
                              "--growth", "off", "--hang-timeout", GENEROUS, "--out", out,
                              "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        pid, _, usage = os.wait4(p.pid, os.WNOHANG)
        while pid == 0:
            if time.monotonic() > deadline:
                p.kill()
                self.fail("mcpspec fuzz did not end in 120 s")
            time.sleep(0.05)
            pid, _, usage = os.wait4(p.pid, os.WNOHANG)
        p.returncode = 0  # reaped here: Popen must not wait for it again
        peak_kib = usage.ru_maxrss
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        crash = [f for f in report["findings"] if f["signature"] == "crash signal 6"]
        self.assertEqual(len(crash), 1, report["findings"])
        f = crash[0]
        self.assertTrue(f["reproduced"], f)
        self.assertGreater(f["history_inputs"], 50000, f)
        self.assertLessEqual(f["inputs"], 64)  # its sequence
        with open(os.path.join(out, f["file"]), encoding="utf-8") as fh:
            text = fh.read()
        self.assertIn("# history: it reproduced from %d inputs" % f["history_inputs"], text)
        self.assertEqual(len(re.findall(r"^--> raw ", text, re.M)), f["inputs"])
        self.assertLess(peak_kib, 64 * 1024)

    def test_jobs_find_the_sequence_crash_once(self):
        """--jobs 2: two refserver processes fuzzed at once, sequences split between them by
        number; the crash both can find is listed once (the earliest sequence's), and the
        same seed gives the same findings, names and files."""
        server = REFSERVER + " --fault fuzz-sequence-crash"
        runs = "300" if SANITIZED else "1500"
        shapes = []
        for i in range(2):
            r, report, out, _ = self.fuzz("jobs-%d" % i, server, "--jobs", "2", "--seed", "1",
                                          "--runs", runs, "--hang-timeout", GENEROUS,
                                          "--minimize-runs", "40")
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertEqual(report["jobs"], 2)
            self.assertEqual(report["executions"], int(runs))
            crashes = [f for f in report["findings"] if f["signature"] == "crash signal 6"]
            self.assertEqual(len(crashes), 1, report["findings"])
            self.assertEqual(sorted(os.listdir(os.path.join(out, "findings"))),
                             sorted(os.path.basename(f["file"]) for f in report["findings"]))
            inputs = []
            for f in report["findings"]:
                with open(os.path.join(out, f["file"]), encoding="utf-8") as fh:
                    inputs.append([l for l in fh if l.startswith("--> raw ")])
            shapes.append(([(f["name"], f["signature"], f["sequence"])
                            for f in report["findings"]], inputs))
        self.assertEqual(shapes[0], shapes[1])
        self.assertEqual(self.replay(os.path.join(out, crashes[0]["file"]), server,
                                     GENEROUS).returncode, 1)

    def test_hostile_target_ends_in_time_and_leaves_nothing(self):
        fixture = os.path.join(HOSTILE, "stops-reading")
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        # Its processes are told apart by an --env marker: ctest may run test_fuzz_hostile,
        # which fuzzes the same fixture, beside this test.
        token = "fuzz-live-%d-%f" % (os.getpid(), time.time())
        r, report, _, elapsed = self.fuzz("hostile", fixture, "--time", "3", "--probe-timeout",
                                          "1", "--hang-timeout", "0.3", "--seed", "1",
                                          "--env", "MCPSPEC_HOSTILE=" + token)
        self.assertIn(r.returncode, (1, 3), r.stderr)
        self.assertIsNotNone(report, "no report.json")
        # --time, then one execution's waits and shutdown past it.
        self.assertLess(elapsed, (3 + 3) * SLOW, "took %.1f s" % elapsed)
        wait_for(lambda: not marked(token), 2.0)
        self.assertEqual(marked(token), [], "processes left behind")
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        if not SANITIZED and after > before:
            self.assertLess(after, 64 * 1024, "peak RSS %d KiB" % after)

    def test_refserver_finding_stays_fixed(self):
        """What the fuzzer found in the clean refserver (tests/data/fuzz/: a prompt name holding
        a newline, echoed into an error message across two lines, RPC-ERR-002) no longer
        reproduces. Replayed against the refserver before the fix, it exits 1."""
        path = os.path.join(ROOT, "tests", "data", "fuzz", "refserver-multiline-error.suite")
        r = self.replay(path, REFSERVER, GENEROUS)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_sigterm_writes_an_incomplete_report(self):
        """SIGTERM ends the run (exit 3, as `mcpspec run`), the report says why, and the
        target the stop ended is no finding."""
        out = os.path.join(self.dir, "sigterm")
        p = subprocess.Popen([MCPSPEC, "fuzz", "--server", REFSERVER, "--out", out, "--quiet",
                              "--time", "60", "--hang-timeout", GENEROUS],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(2)  # mid-run, or mid-discovery under ASan: either must end the same way
        p.terminate()
        _, err = p.communicate(timeout=20 * SLOW)
        self.assertEqual(p.returncode, 3, err)
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        self.assertEqual(report["exit_code"], 3)
        self.assertIn("SIGTERM", report["error"])
        self.assertEqual([f for f in report["findings"] if f["oracle"] == "crash"], [])

    def test_url_crash_of_a_launched_server(self):
        """--server CMD --url URL: mcpspec starts refserver --http, fuzzes it over Streamable
        HTTP and starts it again after it dies. fuzz-server-crash makes the whole server abort
        when a session's child is killed, as a one-process server does; the crash is found
        (0.15 s here), minimized to the requests that need each other (concurrent POSTs may
        keep one more), and replayed against the faulty server (exit 1) and not the clean one."""
        text, report = self.assert_launched_crash(
            "http-crash", "--fault fuzz-sequence-crash --fault fuzz-server-crash", 3, "--time",
            "30", "--header", "Authorization: Bearer not-in-the-files")
        self.assertNotIn("not-in-the-files", text)
        self.assertNotIn("not-in-the-files", json.dumps(report))
        self.assertIn("tools/list", text)

    def assert_launched_crash(self, name, faults, max_inputs, *extra):
        """mcpspec fuzz --server "refserver --http PORT FAULTS" --url: the server's abort is
        found, minimized to max_inputs at most, and replayed against the faulty server (exit
        1) and not the clean one (exit 0), which is stopped after. (finding text, report)."""
        port = free_port()
        url = "http://127.0.0.1:%d/mcp" % port
        server = "%s --http %d %s" % (REFSERVER, port, faults)
        r, report, out, _ = self.fuzz(name, server, "--url", url, "--max-findings", "1",
                                      "--hang-timeout", GENEROUS, *extra)
        self.assertEqual(r.returncode, 1, r.stderr)
        f = report["findings"][0]
        self.assertEqual((f["oracle"], f["signature"]), ("crash", "crash signal 6"), f)
        self.assertTrue(f["reproduced"], f)
        self.assertLessEqual(f["inputs"], max_inputs, f)
        path = os.path.join(out, f["file"])
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        replay = [MCPSPEC, "replay", path, "--url", url, "--hang-timeout", GENEROUS, "--server"]
        self.assertEqual(run(replay + [server], timeout=60).returncode, 1)
        clean = run(replay + ["%s --http %d" % (REFSERVER, port)], timeout=60)
        self.assertEqual(clean.returncode, 0, clean.stdout + clean.stderr)
        self.assertFalse(listening(port), "a server is still listening on %d" % port)
        return text, report

    def test_url_of_a_running_server(self):
        """--url alone: a server mcpspec did not start. refserver --http runs each session in a
        child; fuzz-sequence-crash kills the child, and the session's ping is dropped (HTTP 404
        or a stream cut short): a crash finding whose signature does not depend on which.
        The clean server, fuzzed with the same seed, gives nothing."""
        port = free_port()
        url = "http://127.0.0.1:%d/mcp" % port
        for fault, expect in ((["--fault", "fuzz-sequence-crash"], 1), ([], 0)):
            p = subprocess.Popen([REFSERVER, "--http", str(port)] + fault,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                self.assertTrue(wait_for(lambda: listening(port), 10 * SLOW))
                r, report, out, _ = self.fuzz("http-remote-%d" % expect, "", "--url", url,
                                              "--runs", "1500", "--max-findings", "1",
                                              "--hang-timeout", GENEROUS, server_given=False)
                self.assertEqual(r.returncode, expect, r.stderr)
                if expect:
                    f = report["findings"][0]
                    self.assertEqual(f["signature"], "crash http dropped", f)
                    self.assertTrue(f["reproduced"], f)
                    self.assertLessEqual(f["inputs"], 3, f)
                    replay = run([MCPSPEC, "replay", os.path.join(out, f["file"]), "--url", url,
                                  "--hang-timeout", GENEROUS], timeout=60)
                    self.assertEqual(replay.returncode, 1, replay.stdout + replay.stderr)
                else:
                    self.assertEqual(report["findings"], [])
                    self.assertGreaterEqual(report["executions"], 1500)
            finally:
                p.terminate()
                p.wait(timeout=10)

    def test_url_header_corruption(self):
        """Over HTTP about one input in eight goes with a header of its own (headers.c): one
        replaced, left out or added. fuzz-header-crash aborts the whole refserver --http on
        an MCP-Protocol-Version header of 32 bytes or more, which no body can cause on a
        handshake revision (the session sends the negotiated one). Seed 1 finds it after 164
        executions (0.4 s), minimized to one input, written as a `--> http` step with its
        header, and replayed against the faulty server (exit 1) and not the clean one."""
        text, _ = self.assert_launched_crash("http-header", "--fault fuzz-header-crash", 1,
                                             "--seed", "1", "--time", "60")
        self.assertRegex(text, r'(?m)^--> http \{"headers":\{"MCP-Protocol-Version":"[^"]{32,}"\}')

    def test_url_stateless(self):
        """--url on 2026-07-28: every input a POST of its own, its headers (MCP-Protocol-Version,
        Mcp-Method, Mcp-Name) made from its own body. refserver --http answers each request on
        a child of its own, so fuzz-traversal kills only that child, and the front answers the
        input HTTP 500: a broken error contract (oracle contract, "contract http 500"). Seed 1
        finds it after 164 executions, as over stdio, minimized to the one request; the finding
        replays against the faulty server (exit 1) and not the clean one (exit 0). Release only:
        each request costs refserver a process (25 to 50 ms), more under ASan."""
        if SANITIZED:
            self.skipTest("a process per request: the release build's part")
        port = free_port()
        url = "http://127.0.0.1:%d/mcp" % port
        # One file below the root: the fewer resources listed, the sooner a probe is drawn.
        root = os.path.join(self.dir, "root")
        os.makedirs(root)
        with open(os.path.join(root, "a.txt"), "w", encoding="utf-8") as fh:
            fh.write("a\n")
        for fault, expect in ((["--fault", "fuzz-traversal"], 1), ([], 0)):
            p = subprocess.Popen([REFSERVER, "--http", str(port), "--root", root] + fault,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                self.assertTrue(wait_for(lambda: listening(port), 10))
                if expect:
                    r, report, out, _ = self.fuzz(
                        "http-stateless", "", "--url", url, "--revision", "2026-07-28",
                        "--seed", "1", "--time", "90", "--max-findings", "1",
                        "--hang-timeout", GENEROUS, server_given=False)
                    self.assertEqual(r.returncode, 1, r.stderr)
                    f = report["findings"][0]
                    self.assertEqual((f["oracle"], f["signature"]), ("contract", "contract http 500"))
                    self.assertTrue(f["reproduced"], f)
                    self.assertEqual(f["inputs"], 1, f)
                    path = os.path.join(out, f["file"])
                    with open(path, encoding="utf-8") as fh:
                        text = fh.read()
                    self.assertRegex(text, r'"method":"resources/(read|subscribe)".*"uri":"file:[^"]*%2e')
                    self.assertIn("# revision: 2026-07-28", text)
                replay = run([MCPSPEC, "replay", path, "--url", url, "--hang-timeout", GENEROUS],
                             timeout=60)
                self.assertEqual(replay.returncode, expect, replay.stdout + replay.stderr)
            finally:
                p.terminate()
                p.wait(timeout=10)

    def test_url_growth_of_a_launched_server(self):
        """--growth with --server CMD --url URL watches the launched server's process tree
        (refserver --http runs each session in a child), sockets not counted:
        fuzz-fd-leak (a descriptor kept per resources/list, in the session's child) is a
        growth finding (seed 1: after 578 executions), minimized and replayed over --url
        against the faulty server (exit 1) and not the clean one (exit 0); replayed over
        --url alone it cannot be measured (exit 3). The clean server gives no finding in
        3000 executions. --growth with --url alone, or over --url on 2026-07-28, is a usage
        error."""
        port = free_port()
        url = "http://127.0.0.1:%d/mcp" % port
        watch = ["--growth", "fds" if SANITIZED else "on"]
        faulty = "%s --http %d --fault fuzz-fd-leak" % (REFSERVER, port)
        r, report, out, _ = self.fuzz("http-growth", faulty, "--url", url, "--seed", "1",
                                      "--time", "60", "--max-findings", "1", "--hang-timeout",
                                      GENEROUS, *watch)
        self.assertEqual(r.returncode, 1, r.stderr)
        f = report["findings"][0]
        self.assertEqual((f["oracle"], f["signature"]), ("growth", "growth fds"), f)
        self.assertTrue(f["reproduced"], f)
        self.assertLessEqual(f["inputs"], 2, f)
        path = os.path.join(out, f["file"])
        replay = [MCPSPEC, "replay", path, "--url", url, "--hang-timeout", GENEROUS]
        self.assertEqual(run(replay + ["--server", faulty], timeout=120).returncode, 1)
        clean = "%s --http %d" % (REFSERVER, port)
        r = run(replay + ["--server", clean], timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(run(replay, timeout=30).returncode, 3)
        r, report, _, _ = self.fuzz("http-growth-clean", clean, "--url", url, "--seed", "1",
                                    "--runs", "3000", "--hang-timeout", GENEROUS, *watch)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(report["findings"], [])
        self.assertLess(report["growth"]["max_fds"], report["growth"]["threshold_fds"])
        self.assertFalse(listening(port), "a server is still listening on %d" % port)
        for extra in ([], ["--server", clean, "--revision", "2026-07-28"]):
            r = run([MCPSPEC, "fuzz", "--url", url, "--growth", "on"] + extra)
            self.assertEqual(r.returncode, 2, extra)
            self.assertIn("--growth", r.stderr)

    def test_url_usage(self):
        url = "http://127.0.0.1:9/mcp"
        for extra in (["--growth", "on"], ["--afl"], ["--server", REFSERVER, "--jobs", "2"]):
            r = run([MCPSPEC, "fuzz", "--url", url] + extra)
            self.assertEqual(r.returncode, 2, extra)
        r = run([MCPSPEC, "fuzz", "--server", REFSERVER, "--header", "A: b"])
        self.assertEqual(r.returncode, 2)
        r = run([MCPSPEC, "fuzz", "--url", url, "--time", "2", "--out",
                 os.path.join(self.dir, "nobody")], timeout=30)
        self.assertEqual(r.returncode, 3, r.stderr)

    def test_usage(self):
        self.assertEqual(run([MCPSPEC, "fuzz", "--bogus"]).returncode, 2)
        self.assertEqual(run([MCPSPEC, "fuzz", "--help"]).returncode, 0)
        self.assertEqual(run([MCPSPEC, "replay", "--server", REFSERVER]).returncode, 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
