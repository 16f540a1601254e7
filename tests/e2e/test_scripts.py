#!/usr/bin/python3
"""Every script in scripts/ behaves: --help and -h print its usage and change
nothing, an unknown option or a bad argument exits 2 before any work.

"Changes nothing" is checked three ways for each script: the checkout (source
tree and build folders, by size and modification time, plus `git status`) is
the same after as before; the programs that do real work (package managers,
npm, cmake, compilers, ...) are shadowed on PATH by stubs that record any call;
and each invocation ends within a few seconds (a guard against real work, not
a speed measurement). Also: every bash script runs under `set -euo pipefail`.
"""
import os
import stat
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT  # noqa: E402

SCRIPTS_DIR = os.path.join(ROOT, "scripts")
# What a script must not reach when asked for help or given a bad argument.
WORKERS = ["apt", "apt-get", "sudo", "dpkg-query", "npm", "npx", "node", "cmake", "ctest", "make",
           "ninja", "cc", "gcc", "clang", "afl-clang-fast", "afl-fuzz", "llvm-profdata", "llvm-cov"]
# Generous: a --help takes milliseconds; anything near this has started real work.
LIMIT_SECONDS = 5.0
# Not the checkout's state: ctest's own logs, npm's install folder (e2e.test_real_servers may
# fill it in parallel), Python's caches.
SKIP_DIRS = {".git", ".cache", "__pycache__", "Testing"}


def scripts():
    """Every file in scripts/ that starts with #! (scripts/bench/ holds C benchmarks)."""
    out = []
    for name in sorted(os.listdir(SCRIPTS_DIR)):
        path = os.path.join(SCRIPTS_DIR, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                if f.read(2) == b"#!":
                    out.append(name)
    return out


def snapshot():
    """(path -> (size, mtime)) of the checkout and its build folders, and `git status`."""
    files = {}
    for top, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for n in names:
            p = os.path.join(top, n)
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                continue
            files[os.path.relpath(p, ROOT)] = (st.st_size, st.st_mtime_ns)
    try:
        git = subprocess.run(["git", "-C", ROOT, "status", "--porcelain"], capture_output=True,
                             text=True, timeout=60).stdout
    except OSError:
        git = ""  # no git: the walk above still sees every file
    return files, git


def differences(before, after):
    (fa, ga), (fb, gb) = before, after
    out = ["changed: " + p for p in sorted(set(fa) | set(fb)) if fa.get(p) != fb.get(p)]
    if ga != gb:
        out.append("git status before:\n%s\nafter:\n%s" % (ga, gb))
    return out


class ScriptsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="mcpspec-scripts-")
        stubs = os.path.join(cls.tmp.name, "bin")
        os.mkdir(stubs)
        cls.calls = os.path.join(cls.tmp.name, "calls")
        for w in WORKERS:
            path = os.path.join(stubs, w)
            with open(path, "w", encoding="utf-8") as f:
                f.write('#!/bin/sh\necho "%s $*" >>"%s"\nexit 97\n' % (w, cls.calls))
            os.chmod(path, 0o755)
        cls.env = dict(os.environ, PATH=stubs + os.pathsep + os.environ.get("PATH", ""))
        cls.scripts = scripts()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def invoke(self, name, *args):
        """Run scripts/NAME ARGS from outside the checkout; (result, seconds, stub calls)."""
        if os.path.exists(self.calls):
            os.unlink(self.calls)
        t0 = time.monotonic()
        r = subprocess.run([os.path.join(SCRIPTS_DIR, name)] + list(args), capture_output=True,
                           text=True, timeout=60, env=self.env, cwd=self.tmp.name,
                           stdin=subprocess.DEVNULL)
        seconds = time.monotonic() - t0
        calls = ""
        if os.path.exists(self.calls):
            with open(self.calls, encoding="utf-8") as f:
                calls = f.read()
        return r, seconds, calls

    def quiet_run(self, name, args, want_rc):
        """One invocation: its exit code, no work, no stub called, no Python traceback."""
        r, seconds, calls = self.invoke(name, *args)
        what = "scripts/%s %s" % (name, " ".join(args))
        self.assertEqual(r.returncode, want_rc, "%s\nstdout: %s\nstderr: %s"
                         % (what, r.stdout[-2000:], r.stderr[-2000:]))
        self.assertEqual(calls, "", "%s started real work:\n%s" % (what, calls))
        self.assertLess(seconds, LIMIT_SECONDS, "%s took %.1f s" % (what, seconds))
        self.assertNotIn("Traceback", r.stderr, what)
        return r

    def test_there_are_scripts(self):
        for name in ("setup", "demo", "test", "sync-requirements", "fuzz-ci"):
            self.assertIn(name, self.scripts)

    def test_help_and_bad_arguments_change_nothing(self):
        for name in self.scripts:
            with self.subTest(script=name):
                before = snapshot()
                self.check_one(name)
                self.assertEqual(differences(before, snapshot()), [], name)

    def check_one(self, name):
        path = os.path.join(SCRIPTS_DIR, name)
        self.assertTrue(os.stat(path).st_mode & stat.S_IXUSR, "%s is not executable" % name)
        helped = self.quiet_run(name, ["--help"], 0)
        self.assertIn("usage", helped.stdout.lower(), name + " --help prints no usage")
        self.assertIn(name, helped.stdout, name + " --help does not name the script")
        self.assertEqual(self.quiet_run(name, ["-h"], 0).stdout, helped.stdout, name + " -h")
        # A bad option, and a word that is no argument any script takes (a target, a preset,
        # a number of seconds or rounds): a clear message on stderr and exit 2.
        for bad in (["--no-such-option"], ["no-such-thing"]):
            r = self.quiet_run(name, bad, 2)
            self.assertTrue(r.stderr.strip(), "%s %s: exit 2 without a message" % (name, bad))

    def test_bash_scripts_are_strict(self):
        for name in self.scripts:
            with open(os.path.join(SCRIPTS_DIR, name), encoding="utf-8") as f:
                text = f.read()
            if text.startswith("#!/usr/bin/env bash") or text.startswith("#!/bin/bash"):
                self.assertIn("\nset -euo pipefail\n", text, name)


if __name__ == "__main__":
    unittest.main()
