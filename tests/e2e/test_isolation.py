#!/usr/bin/python3
"""--isolation shared (the default) must say exactly what --isolation fresh says.

Shared mode runs the cases that leave a session clean one after another on a
shared process (suites/README.md, Isolation); fresh mode gives every case a
process of its own. Against the reference server, clean and with each of its
faults, both modes must give the same verdict for every (revision, case).
The clean server runs every suite; each fault runs the suites its proofs
(the checks' `proven-by` lines, read from `mcpspec list --json` as
test_faults does) name, both modes side by side and several faults at once,
so the whole table costs about two minutes of wall time, nearly all of it
waiting. Under the sanitizers (MCPSPEC_BUILD_TYPE Sanitize) only the wire
faults run (those with a proof run on the JSON-RPC, lifecycle, ping, batch
and stdio suites alone), which are the ones that bend ids, batches and
answers the way the shared-process code handles: the identity itself is
proven by the release run.
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import MCPSPEC  # noqa: E402
from test_faults import REFSERVER, WIRE_SUITES, Fixture, all_faults, read_proofs  # noqa: E402



def run_mode(fixture, isolation, faults=(), suites=()):
    """One run against refserver; the parsed report."""
    server = " ".join([REFSERVER, "--root", fixture.root] + ["--fault %s" % f for f in faults])
    with tempfile.TemporaryDirectory() as out:
        cmd = [MCPSPEC, "run", "--config", fixture.config, "--server", server, "--out", out,
               "--format", "json", "--quiet", "--isolation", isolation]
        for s in suites:
            cmd += ["--suite", s]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        path = os.path.join(out, "report.json")
        if not os.path.exists(path):
            raise AssertionError("no report for %s %s: %s" % (isolation, faults, r.stderr))
        with open(path, encoding="utf-8") as f:
            return json.load(f)


def verdicts(report):
    return {(c["revision"], c["id"]): c["verdict"] for c in report["cases"]}


def stopped(case):
    """ERROR because the run had stopped (engine/run.c): which cases that hits is timing."""
    return case["verdict"] == "ERROR" and (case.get("reason") or "").startswith(
        ("not run: ", "cut short: "))


def stop_words(report):
    """Why the run stopped early, without the counts (None: it did not)."""
    fatal = report.get("fatal") or ""
    return fatal.split(": ", 1)[1] if fatal.startswith("the run stopped early") else None


def differences(label, fresh, shared):
    """Verdicts that differ. When the liveness judgement stops both runs, the cases still
    running or not started at that moment depend on timing in either mode; they are left out,
    and both runs must have stopped for the same reason."""
    if stop_words(fresh) != stop_words(shared):
        return ["%s: fresh stopped: %s; shared stopped: %s"
                % (label, stop_words(fresh), stop_words(shared))]
    a, b = verdicts(fresh), verdicts(shared)
    left_out = {(c["revision"], c["id"]) for r in (fresh, shared) for c in r["cases"] if stopped(c)}
    return ["%s: %s %s: fresh %s, shared %s" % (label, rev, case, a.get((rev, case)),
                                                 b.get((rev, case)))
            for rev, case in sorted(set(a) | set(b))
            if a.get((rev, case)) != b.get((rev, case)) and (rev, case) not in left_out]


class IsolationTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fixture = Fixture()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.fixture.dir, ignore_errors=True)

    def both(self, faults=(), suites=()):
        return (run_mode(self.fixture, "fresh", faults, suites),
                run_mode(self.fixture, "shared", faults, suites))

    def test_clean_refserver_same_verdicts(self):
        fresh, shared = self.both()
        self.assertEqual(differences("clean", fresh, shared), [])
        self.assertEqual(fresh["harness"]["isolation"], "fresh")
        self.assertEqual(shared["harness"]["isolation"], "shared")
        started = fresh["harness"]["processes_started"], shared["harness"]["processes_started"]
        self.assertLess(started[1], started[0] * 0.7, "shared mode shares: %s" % (started,))
        # A shared case's log says where it ran and where the handshake is.
        notes = [e["text"] for c in shared["cases"] for e in c.get("wire") or []
                 if e["dir"] == "event" and "shared process" in e["text"]]
        self.assertTrue(notes and "handshake" in notes[0], notes[:1])

    def test_every_fault_same_verdicts(self):
        suites = {}
        wire = set()
        http = set()
        for fault, _, _, s, _, _, transport in read_proofs():
            suites.setdefault(fault, set()).update(s)
            if set(s) <= WIRE_SUITES:
                wire.add(fault)
            if transport != "stdio":
                http.add(fault)
        faults = sorted(all_faults())
        self.assertEqual(sorted(set(faults) - set(suites)), [], "faults without a proof")
        faults = [f for f in faults if f not in http]  # their checks run over HTTP only
        if os.environ.get("MCPSPEC_BUILD_TYPE") == "Sanitize":
            faults = [f for f in faults if f in wire]
        jobs = [(f, mode) for f in faults for mode in ("fresh", "shared")]
        # The runs wait on silence windows and slow tools far more than they compute.
        with concurrent.futures.ThreadPoolExecutor(max_workers=12) as pool:
            reports = dict(zip(jobs, pool.map(
                lambda j: run_mode(self.fixture, j[1], [j[0]], sorted(suites[j[0]])), jobs)))
        diffs = [d for f in faults
                 for d in differences(f, reports[(f, "fresh")], reports[(f, "shared")])]
        self.assertEqual(diffs, [], "\n".join(diffs))


if __name__ == "__main__":
    unittest.main()
