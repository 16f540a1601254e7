#!/usr/bin/python3
"""Every check is proven twice: the clean reference server passes it, and a
named fault makes it fail. The proofs are the checks' own `proven-by` lines
(suite cases, suites/builtin.proofs), read from `mcpspec list --json`; this
test runs them. tests/e2e/test_orphans.py checks that they join up.

Checks of an HTTP transport (a case that says `transport streamable-http` or
`transport sse`) are proven over that transport, against `refserver --http`;
the clean server must pass everything over stdio, Streamable HTTP and
HTTP+SSE alike.

The reference server runs the way the demo runs it (targets/refserver/
mcpspec.json: a root folder of files, and consent for every kind of tool call
the suites know), so that no check is skipped for want of a fixture. Checks
of what a server without a capability does run against clean servers started
with --without CAP. Each fault runs only the suites its proofs name, to keep
the run fast; a stdio fault runs a second time with --isolation fresh, which
must give every case the verdict the default shared mode gave (the identity
test_isolation.py proves on the clean server). Under the sanitizers
(MCPSPEC_BUILD_TYPE Sanitize) the clean runs over the three transports run
whole (not those without a capability, nor --modern-only: they prove verdicts,
the release build's part), and of the faults only those that bend the wire.
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
from common import BIN_DIR, MCPSPEC, ROOT, free_port, run  # noqa: E402

REFSERVER = os.path.abspath(os.path.join(BIN_DIR, "refserver"))
# MCPSPEC_FAULT_SUITES=tools:observe runs only the proofs of those suites' checks (while working
# on them).
ONLY = [t for t in os.environ.get("MCPSPEC_FAULT_SUITES", "").split(":") if t]
# Capabilities a clean server can be started without, and the suites that check that.
WITHOUT = ("tools", "resources", "prompts", "logging", "completions", "tasks")
WITHOUT_SUITES = ("capabilities", "tasks", "lifecycle")
# The ERROR check a run adds when a finding reached no observer rule (never, by construction).
UNMATCHED = "observe/unmatched-findings"
TOKEN = "mcpspec-proof-token"
# Under ASan and UBSan only the stdio faults that bend the wire run (those proven on the
# JSON-RPC, lifecycle, ping, batch and stdio suites alone): they drive the codec, transport and
# session code where a memory error would be; the verdicts are the release run's to prove.
# mcpspec's HTTP code runs under the sanitizers in the clean runs over Streamable HTTP and
# HTTP+SSE here, and against the hostile HTTP servers (test_hostile_http) and refserver-http
# (test_refserver_http, test_http_waits).
SANITIZED = os.environ.get("MCPSPEC_BUILD_TYPE", "") == "Sanitize"
WIRE_SUITES = {"discovery", "lifecycle", "ping", "errors", "batch", "stdio"}
# Runs at once. A release run mostly waits (timeouts, silence windows, a slow tool); under
# ASan the runs compute, and twelve of them starved the timing tests ctest runs beside.
WORKERS = 3 if SANITIZED else 12


def list_checks():
    """`mcpspec list --json`: every check with its proofs."""
    r = run([MCPSPEC, "list", "--json"])
    if r.returncode != 0:
        raise AssertionError("mcpspec list --json: " + r.stderr)
    return json.loads(r.stdout)["checks"]


def own_process_suites():
    """Suites every case of which runs on a process of its own in the shared mode too
    (`mcpspec list --json`, "process"), and "discovery", which has no case."""
    kinds = {}
    for c in list_checks():
        if c.get("kind") == "case":
            kinds.setdefault(c["suite"], set()).add(c.get("process"))
    return {s for s, k in kinds.items() if k == {"own"}} | {"discovery"}


def proof_transport(check):
    """stdio, unless the check means something over HTTP only: then its first HTTP transport."""
    transports = check.get("transports", ["stdio"])
    return "stdio" if "stdio" in transports else transports[0]


def read_proofs():
    """Rows of (fault, check, verdict, suites, check's suite, file:line, transport)."""
    rows = []
    for c in list_checks():
        for p in c["proofs"]:
            where = "%s:%d" % (os.path.relpath(p["file"], ROOT), p["line"])
            rows.append((p["fault"], c["id"], p["verdict"], p["suites"], c["suite"], where,
                         proof_transport(c)))
    return rows


class Fixture:
    """A root folder of files and a target configuration consenting to every call."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="mcpspec-faults-")
        # Relative paths in the configuration (root/...) resolve next to this copy of it.
        self.root = os.path.join(self.dir, "root")
        shutil.copytree(os.path.join(ROOT, "targets", "refserver", "root"), self.root)
        with open(os.path.join(ROOT, "targets", "refserver", "mcpspec.json"), encoding="utf-8") as f:
            config = json.load(f)
        config["server"] = {"command": "%s --root %s" % (REFSERVER, self.root)}
        self.config = os.path.join(self.dir, "mcpspec.json")
        with open(self.config, "w", encoding="utf-8") as f:
            json.dump(config, f)

    def run(self, faults=(), suites=(), without=(), transport="stdio", flags=(), isolation=None,
            cases=(), timeout=None):
        """Run mcpspec against refserver with these faults; (exit code, report)."""
        server = [REFSERVER, "--root", self.root] + ["--fault %s" % f for f in faults] + \
            ["--without %s" % c for c in without] + list(flags)
        http = []
        if transport != "stdio":
            # Over HTTP the server requires a token, so that the authorization checks run too.
            port = free_port()
            server += ["--http", str(port), "--auth", TOKEN]
            path = "/sse" if transport == "sse" else "/mcp"
            http = ["--url", "http://127.0.0.1:%d%s" % (port, path), "--transport", transport,
                    "--header", "Authorization: Bearer " + TOKEN]
        with tempfile.TemporaryDirectory() as out:
            cmd = [MCPSPEC, "run", "--config", self.config, "--server", " ".join(server),
                   "--out", out, "--format", "json", "--quiet"] + http
            for s in suites:
                cmd += ["--suite", s]
            for c in cases:
                cmd += ["--case", c]
            if timeout:
                cmd += ["--timeout", str(timeout)]
            if isolation:
                cmd += ["--isolation", isolation]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            path = os.path.join(out, "report.json")
            if not os.path.exists(path):
                raise AssertionError("no report for %s: %s" % (faults, r.stderr))
            with open(path, encoding="utf-8") as f:
                return r.returncode, json.load(f)


def all_checks():
    return {c["id"] for c in list_checks()}


def all_faults():
    out = run([REFSERVER, "--list-faults"]).stdout
    return {line.split("\t")[0] for line in out.splitlines() if line.strip()}


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


class FaultTableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fixture = Fixture()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.fixture.dir, ignore_errors=True)

    @staticmethod
    def broken_proofs(rows, reports):
        """Each proof whose fault's run did not give its check the verdict it names."""
        missing = []
        for fault, check, verdict, _, _, where, transport in rows:
            if (fault, transport) not in reports:  # not run under the sanitizers
                continue
            rc, report = reports[(fault, transport)]
            if any(c["id"] == UNMATCHED for c in report["cases"]):
                missing.append("%s: findings no observer rule tallied (%s)" % (fault, UNMATCHED))
            got = sorted({(c["revision"], c["verdict"]) for c in report["cases"] if c["id"] == check})
            if not any(v == verdict for _, v in got):
                missing.append("%s: %s: %s should be %s, got %s" % (where, fault, check, verdict, got))
            if verdict == "FAIL" and rc != 1:
                missing.append("%s: %s: a FAIL must exit 1, got %d" % (where, fault, rc))
        return list(dict.fromkeys(missing))

    def test_clean_refserver_is_conformant(self):
        # The nine runs wait far more than they compute: side by side (WORKERS).
        transports = ("stdio", "streamable-http", "sse")
        # Under the sanitizers the three whole runs drive the code; the runs without a
        # capability only prove verdicts, which is the release build's part.
        without = () if SANITIZED else WITHOUT
        jobs = [("transport", t) for t in transports] + [("without", cap) for cap in without]
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(len(jobs), WORKERS)) as pool:
            reports = dict(zip(jobs, pool.map(self.clean_run, jobs)))
        ran = set()
        for transport in transports:
            rc, report = reports[("transport", transport)]
            self.assertEqual(self.not_clean(report), [], transport)
            self.assertEqual(rc, 0, transport)
            self.assertEqual(report["transport"], transport)
            supported = [r["revision"] for r in report["revisions"] if r["supported"]]
            # 2026-07-28 (stateless) has no HTTP+SSE binding.
            self.assertEqual(supported, ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
                             + (["2026-07-28"] if transport != "sse" else []))
            for c in report["cases"]:
                if c["verdict"] == "SKIP":
                    self.assertTrue(c["reason"], c["id"])
            # Every suite case runs somewhere: a check the reference server always skips proves
            # nothing.
            ran |= {c["id"] for c in report["cases"] if c["verdict"] == "PASS"}
        if SANITIZED:
            return
        for cap in WITHOUT:
            rc, rep = reports[("without", cap)]
            self.assertEqual(self.not_clean(rep), [], "--without " + cap)
            self.assertEqual(rc, 0, "--without " + cap)
            ran |= {c["id"] for c in rep["cases"] if c["verdict"] == "PASS"}
        never = sorted(c for c in all_checks() if c not in ran and not c.startswith("observe/"))
        self.assertEqual(never, [], "cases the clean reference server skips on every revision")

    def clean_run(self, job):
        kind, value = job
        if kind == "transport":
            # Under ASan a robustness probe (a method name of megabytes, say) can keep the
            # server of a shared session busy past 5 s into the next case: seen once over HTTP.
            return self.fixture.run(transport=value, timeout=10 if SANITIZED else None)
        return self.fixture.run(suites=WITHOUT_SUITES, without=[value])

    def test_modern_only_refserver_is_conformant(self):
        # refserver --modern-only speaks 2026-07-28 alone: it passes there, and discovery
        # reports every handshake-era revision as not spoken (the rest of the run SKIPs).
        if SANITIZED:
            self.skipTest("verdicts: the release build's part; the sanitized clean runs cover "
                          "2026-07-28 over stdio and Streamable HTTP")
        for transport in ("stdio", "streamable-http"):
            rc, report = self.fixture.run(transport=transport, flags=["--modern-only"])
            odd = [c for c in self.not_clean(report)
                   if not (c[0] == "INFO" and c[2] == "discovery/initialize")]
            self.assertEqual(odd, [], transport)
            self.assertEqual(rc, 0, transport)
            supported = [r["revision"] for r in report["revisions"] if r["supported"]]
            self.assertEqual(supported, ["2026-07-28"], transport)
            passed = [c for c in report["cases"]
                      if c["verdict"] == "PASS" and c["revision"] == "2026-07-28"]
            self.assertGreater(len(passed), 50, transport)

    @staticmethod
    def not_clean(report):
        return [(c["verdict"], c["revision"], c["id"], c["observed"]) for c in report["cases"]
                if c["verdict"] not in ("PASS", "SKIP")]

    def test_each_fault_breaks_its_check(self):
        rows = read_proofs()
        self.assertTrue(rows, "mcpspec list --json lists no proofs")
        if ONLY:
            rows = [r for r in rows if r[4] in ONLY]
        suites, checks = {}, {}
        known = all_faults()
        for fault, check, _, s, _, _, transport in rows:
            if fault in known:  # test_orphans names proofs of unknown faults
                suites.setdefault((fault, transport), set()).update(s)
                checks.setdefault((fault, transport), set()).add(check)
        runs = sorted(suites)
        # Over HTTP each case is a session of its own in every mode, so a fault whose proofs
        # are all suite cases runs those cases alone: the rest of the http suite's windows
        # (silence for seconds on the GET stream) would judge nothing the proofs read.
        kinds = {c["id"]: c.get("kind") for c in list_checks()}
        only = {k: sorted(checks[k]) for k in runs
                if k[1] != "stdio" and all(kinds.get(c) == "case" for c in checks[k])}
        if SANITIZED:
            runs = [k for k in runs if k[1] == "stdio" and suites[k] <= WIRE_SUITES]
        # Each stdio fault runs twice: in the default shared mode, which the proofs judge, and
        # with a process per case, which must say the same (--isolation, test_isolation.py).
        # That identity is a property of the verdicts, proven by the release build; under the
        # sanitizers the shared runs alone drive the code. A fault proven only on suites whose
        # every case has a process of its own in both modes runs once: its two runs would be
        # the same run.
        alone = own_process_suites()
        twice = [k for k in runs if k[1] == "stdio" and not SANITIZED and not suites[k] <= alone]
        jobs = [(k, "shared") for k in runs] + [(k, "fresh") for k in twice]
        with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
            done = dict(zip(jobs, pool.map(
                lambda j: self.fixture.run([j[0][0]], sorted(suites[j[0]]), transport=j[0][1],
                                           isolation=j[1], cases=only.get(j[0], ())), jobs)))
        reports = {k: done[(k, "shared")] for k in runs}
        missing = self.broken_proofs(rows, reports)
        # Absence is judged by time ("no such message for 100 ms"): with twelve runs side by
        # side and ctest's other tests beside them, a server can be starved past a window. A
        # fault whose proof failed runs again alone, once; its proof must hold there.
        again = sorted({k for k in reports for m in missing
                        if ": %s: " % k[0] in m or m.startswith(k[0] + ": ")})
        for k in again:
            reports[k] = self.fixture.run([k[0]], sorted(suites[k]), transport=k[1],
                                          cases=only.get(k, ()))
        if again:
            missing = self.broken_proofs(rows, reports)
        missing += [d for k in twice
                    for d in differences(k[0], done[(k, "fresh")][1], done[(k, "shared")][1])]
        self.assertEqual(missing, [], "\n".join(missing))


if __name__ == "__main__":
    unittest.main()
