#!/usr/bin/python3
"""`mcpspec fuzz --afl`, the coverage-guided mode, against refserver built with
afl-clang-fast (scripts/afl-build, build/afl/refserver; built here when missing, about
25 s): with fuzz-sequence-crash, afl-fuzz finds the crash from the seed corpus within
its 15 s, the crash becomes a minimized finding of the black-box mode's format, and
`mcpspec replay` reproduces it against the faulty refserver (exit 1) and not against
the clean one (exit 0). The run ends within --time plus its grace and leaves no
process behind; without afl-fuzz, --afl exits 3 with a message.

With --afl-target build/afl/refserver-afl (the persistent entry, which plays the
session prefix itself) and build/afl/afl-json-mutator.so as AFL's custom mutator
(AFL_CUSTOM_MUTATOR_LIBRARY, its tokens from MCPS_AFL_MUTATOR_DICT): afl-fuzz loads
it and runs the entry persistently on prefix-less seeds, the
sequence crash becomes a finding replayed on the normal refserver, and the
uninstrumented refserver-afl (the release build) plays the finding's requests from
stdin once and aborts with the fault, not without it.

With --revision 2026-07-28 (no handshake; 5 s): the seeds start with server/discover
and every request carries the revision's _meta, the crash is a finding that replays
on refserver, and refserver-afl --revision 2026-07-28 plays its requests without a
prefix; that run gives the mutator by --afl-mutator, which AFL's log says it loaded.
--afl-mutator without --afl or naming no file, and --shard with --afl, are usage
errors.

Exits 77 (skipped) without afl-fuzz or afl-clang-fast, and under the sanitize
preset (AFL's forkserver and ASan's shadow memory do not mix, and it would double
the CI time for nothing the release build does not prove)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from common import BIN_DIR, MCPSPEC, ROOT, run

AFL_DIR = os.path.join(ROOT, "build", "afl")
AFL_REFSERVER = os.path.join(AFL_DIR, "refserver")
AFL_ENTRY = os.path.join(AFL_DIR, "refserver-afl")
AFL_MUTATOR = os.path.join(AFL_DIR, "afl-json-mutator.so")
REFSERVER = os.path.join(BIN_DIR, "refserver")
PLAIN_ENTRY = os.path.join(BIN_DIR, "refserver-afl")
SECONDS = 15
ENTRY_SECONDS = 5
GRACE = 25  # discovery, AFL's start-up and kill grace, the import and its minimization


def ensure_afl_build():
    """build/afl/, built when missing or older than refserver's sources or the mutator's."""
    src = os.path.join(ROOT, "targets", "refserver")
    newest = max([os.path.getmtime(os.path.join(src, f)) for f in os.listdir(src)] +
                 [os.path.getmtime(os.path.join(ROOT, "fuzz", "afl_json_mutator.c"))])
    if all(os.path.exists(p) and os.path.getmtime(p) >= newest
           for p in (AFL_REFSERVER, AFL_ENTRY, AFL_MUTATOR)):
        return
    subprocess.run([os.path.join(ROOT, "scripts", "afl-build")], check=True,
                   stdout=subprocess.DEVNULL, timeout=300)


def unescape_raw(text):
    """A `--> raw` line's bytes (finding.c escapes a backslash and other bytes as \\xNN)."""
    return re.sub(r"\\(\\|x([0-9a-fA-F]{2}))",
                  lambda m: "\\" if m.group(1) == "\\" else chr(int(m.group(2), 16)), text)


def descendants_of(names):
    """Processes whose command line mentions one of names (ours: this test's folder)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if any(n in cmd for n in names):
            found.append(cmd)
    return found


class FuzzAflTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="mcpspec-fuzz-afl-")
        ensure_afl_build()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_finds_sequence_crash(self):
        out = os.path.join(self.dir, "seq")
        server = "%s --fault fuzz-sequence-crash" % AFL_REFSERVER
        t0 = time.monotonic()
        r = run([MCPSPEC, "fuzz", "--afl", "--server", server, "--time", str(SECONDS),
                 "--out", out, "--seed", "1"], timeout=SECONDS + GRACE + 30)
        elapsed = time.monotonic() - t0
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertLess(elapsed, SECONDS + GRACE, "the run overran its time")
        # mcpspec's watchdog (its command line) ends just after it: a short deadline for it.
        deadline = time.monotonic() + 5
        while descendants_of([out]) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(descendants_of([out]), [], "afl-fuzz or a target outlived the run")
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        self.assertEqual(report["mode"], "afl")
        self.assertGreater(report["execs_done"], 0)
        self.assertIn("seconds_to_first_crash", report)  # null: AFL saved no crash of its own
        crashes = [f for f in report["findings"] if f["oracle"] == "crash" and f["reproduced"]]
        self.assertTrue(crashes, report["findings"])
        f = crashes[0]
        self.assertIn("signal 6", f["evidence"])
        self.assertLessEqual(f["inputs"], 2, f)
        self.assertTrue(f["afl_input"].startswith(("afl/in/seed-", "afl/out/default/crashes/id:")), f)
        self.assertTrue(os.listdir(os.path.join(out, "afl", "in")))
        with open(os.path.join(out, "afl", "dict"), encoding="utf-8") as d:
            self.assertIn('"completion/complete"', d.read())
        path = os.path.join(out, f["file"])
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        self.assertIn("# oracle: crash", text)
        self.assertEqual(len(re.findall(r"^--> raw ", text, re.M)), f["inputs"])
        with open(os.path.join(out, "report.sarif"), encoding="utf-8") as fh:
            sarif = json.load(fh)
        self.assertEqual(len(sarif["runs"][0]["results"]), len(report["findings"]))
        faulty = "%s --fault fuzz-sequence-crash" % REFSERVER
        self.assertEqual(run([MCPSPEC, "replay", path, "--server", faulty], timeout=30)
                         .returncode, 1, "replay does not reproduce")
        clean = run([MCPSPEC, "replay", path, "--server", REFSERVER], timeout=30)
        self.assertEqual(clean.returncode, 0, clean.stdout + clean.stderr)

    def test_persistent_entry(self):
        out = os.path.join(self.dir, "entry")
        fault = "--fault fuzz-sequence-crash"
        env = dict(os.environ, AFL_CUSTOM_MUTATOR_LIBRARY=AFL_MUTATOR,
                   MCPS_AFL_MUTATOR_DICT=os.path.join(AFL_DIR, "refserver.dict"))
        r = run([MCPSPEC, "fuzz", "--afl", "--server", "%s %s" % (REFSERVER, fault),
                 "--afl-target", "%s %s" % (AFL_ENTRY, fault), "--time", str(ENTRY_SECONDS),
                 "--out", out, "--seed", "1"], timeout=ENTRY_SECONDS + GRACE + 30, env=env)
        self.assertEqual(r.returncode, 1, r.stderr)
        with open(os.path.join(out, "afl", "afl-fuzz.log"), encoding="utf-8",
                  errors="replace") as f:
            self.assertIn("Loading custom mutator library from '%s'" % AFL_MUTATOR, f.read())
        with open(os.path.join(out, "afl", "out", "default", "fuzzer_stats"),
                  encoding="utf-8") as f:
            stats = f.read()
        self.assertRegex(stats, r"target_mode\s*: persistent shmem_testcase")
        self.assertRegex(stats, r"command_line\s*: afl-fuzz .*-p rare ")  # deep states first
        self.assertIn(AFL_ENTRY, stats)
        seeds = os.path.join(out, "afl", "in")
        for name in os.listdir(seeds):
            with open(os.path.join(seeds, name), encoding="utf-8") as f:
                self.assertNotIn('"initialize"', f.read(), name)
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        crashes = [f for f in report["findings"] if f["oracle"] == "crash" and f["reproduced"]]
        self.assertTrue(crashes, report["findings"])
        path = os.path.join(out, crashes[0]["file"])
        self.assertEqual(run([MCPSPEC, "replay", path, "--server", "%s %s" % (REFSERVER, fault)],
                             timeout=30).returncode, 1, "replay does not reproduce")
        # The finding's requests, as AFL's input for the entry: one JSON-RPC message a line.
        with open(path, encoding="utf-8") as f:
            lines = [unescape_raw(m.group(1)) for m in re.finditer(r"^--> raw (.*)$", f.read(),
                                                                    re.M)]
        data = "".join(line + "\n" for line in lines).encode("latin-1")
        faulty = subprocess.run([PLAIN_ENTRY] + fault.split(), input=data, capture_output=True,
                                timeout=10)
        self.assertEqual(faulty.returncode, -6, faulty.stderr)
        clean = subprocess.run([PLAIN_ENTRY], input=data, capture_output=True, timeout=10)
        self.assertEqual(clean.returncode, 0, clean.stderr)
        self.assertEqual(len(clean.stdout.splitlines()), len(lines), clean.stdout)

    def test_stateless_revision(self):
        """2026-07-28: session files start with server/discover, every request carries the
        revision's _meta; the crash replays, and refserver-afl plays the requests without a
        handshake. The custom mutator given by --afl-mutator (not the environment) is loaded."""
        out = os.path.join(self.dir, "stateless")
        fault = "--fault fuzz-sequence-crash"
        r = run([MCPSPEC, "fuzz", "--afl", "--revision", "2026-07-28", "--server",
                 "%s %s" % (AFL_REFSERVER, fault), "--time", str(ENTRY_SECONDS), "--out", out,
                 "--seed", "1", "--afl-mutator", AFL_MUTATOR],
                timeout=ENTRY_SECONDS + GRACE + 30)
        self.assertEqual(r.returncode, 1, r.stderr)
        with open(os.path.join(out, "afl", "afl-fuzz.log"), encoding="utf-8",
                  errors="replace") as f:
            self.assertIn("Loading custom mutator library from '%s'" % AFL_MUTATOR, f.read())
        seeds = os.path.join(out, "afl", "in")
        for name in os.listdir(seeds):
            with open(os.path.join(seeds, name), encoding="utf-8") as f:
                msgs = [json.loads(line) for line in f]
            self.assertEqual(msgs[0]["method"], "server/discover", name)
            for m in msgs:
                self.assertEqual(m["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
                                 "2026-07-28", name)
        with open(os.path.join(out, "afl", "dict"), encoding="utf-8") as d:
            self.assertIn('"server/discover"', d.read())
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        self.assertEqual(report["revision"], "2026-07-28")
        crashes = [f for f in report["findings"] if f["oracle"] == "crash" and f["reproduced"]]
        self.assertTrue(crashes, report["findings"])
        self.assertLessEqual(crashes[0]["inputs"], 2, crashes[0])
        path = os.path.join(out, crashes[0]["file"])
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("# revision: 2026-07-28", text)
        self.assertNotIn('"initialize"', text)
        self.assertEqual(run([MCPSPEC, "replay", path, "--server", "%s %s" % (REFSERVER, fault)],
                             timeout=30).returncode, 1, "replay does not reproduce")
        self.assertEqual(run([MCPSPEC, "replay", path, "--server", REFSERVER], timeout=30)
                         .returncode, 0)
        lines = [unescape_raw(m.group(1)) for m in re.finditer(r"^--> raw (.*)$", text, re.M)]
        data = "".join(line + "\n" for line in lines).encode("latin-1")
        entry = [PLAIN_ENTRY, "--revision", "2026-07-28"]
        faulty = subprocess.run(entry + fault.split(), input=data, capture_output=True,
                                timeout=10)
        self.assertEqual(faulty.returncode, -6, faulty.stderr)
        clean = subprocess.run(entry, input=data, capture_output=True, timeout=10)
        self.assertEqual(clean.returncode, 0, clean.stderr)
        self.assertEqual(len(clean.stdout.splitlines()), len(lines), clean.stdout)

    def test_option_usage(self):
        for extra in (["--afl-mutator", AFL_MUTATOR],  # without --afl
                      ["--afl", "--afl-mutator", os.path.join(self.dir, "none.so")],
                      ["--afl", "--shard", "1/2"]):
            r = run([MCPSPEC, "fuzz", "--server", AFL_REFSERVER] + extra, timeout=30)
            self.assertEqual(r.returncode, 2, extra)

    def test_without_afl_fuzz_exits_3(self):
        env = dict(os.environ, PATH="/nonexistent")
        r = run([MCPSPEC, "fuzz", "--afl", "--server", AFL_REFSERVER, "--time", "1", "--out",
                 os.path.join(self.dir, "nopath")], timeout=30, env=env)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("afl-fuzz", r.stderr)


if __name__ == "__main__":
    if os.environ.get("MCPSPEC_BUILD_TYPE", "") == "Sanitize":
        print("skipped: --afl is proven on the release build")
        sys.exit(77)
    if not (shutil.which("afl-fuzz") and shutil.which("afl-clang-fast")):
        print("skipped: afl-fuzz or afl-clang-fast missing (apt-get install afl++)")
        sys.exit(77)
    unittest.main()
