#!/usr/bin/python3
"""The Debian package (cmake/Install.cmake): `cpack` in the release build makes
mcpspec_VERSION_ARCH.deb, whose control fields and contents are checked; dpkg
installs it into an empty root (`dpkg --root`, with its own database there;
the Depends, which that root cannot satisfy, are checked against this
machine's installed libraries instead), and the installed mcpspec runs the
ping suite against the build tree's refserver using the suites it was
packaged with, not the source tree's: its `--version` names the root's suites
folder, `list --json` names the root's suite files, and a suite deleted from
the root is gone from its list while the build tree's mcpspec still has it.
The man page renders (`man -l`, when man is installed) and names every option
the commands' --help prints.

Release build only (exit 77 under another build, or without cpack or dpkg):
the package is built from the build folder MCPSPEC_BIN_DIR names, and one
packaging check is enough. cpack installs what was built, without building
(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY): about 5 s, 15 s on a loaded machine."""
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN_DIR, MCPSPEC, ROOT, run  # noqa: E402

REFSERVER = os.path.abspath(os.path.join(BIN_DIR, "refserver"))
COMMANDS = ["run", "list", "lint", "explain", "diff", "baseline"]


def build_type():
    """CMAKE_BUILD_TYPE of the build folder (its CMakeCache.txt), or None."""
    try:
        with open(os.path.join(BIN_DIR, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        return None
    return None


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(mcpspec VERSION ([0-9.]+)", f.read()).group(1)


def skip_reason():
    if build_type() != "Release":
        return "the package is built and checked from the release build only (%s is %s)" % (
            BIN_DIR, build_type())
    for tool in ("cpack", "dpkg-deb", "dpkg", "dpkg-query"):
        if not shutil.which(tool):
            return "no %s here" % tool
    if not os.path.exists(os.path.join(BIN_DIR, "CPackConfig.cmake")):
        return "no CPackConfig.cmake in %s" % BIN_DIR
    return None


def dpkg_install(deb, root):
    """dpkg -i into an empty root of its own; returns dpkg's output."""
    admin = os.path.join(root, "var", "lib", "dpkg")
    for sub in ("info", "updates"):
        os.makedirs(os.path.join(admin, sub))
    for name in ("status", "available"):
        open(os.path.join(admin, name), "w").close()
    cmd = ["dpkg", "--root=" + root, "--log=/dev/null", "--force-depends"]
    if os.getuid() != 0:
        cmd.append("--force-not-root")
    # dpkg wants ldconfig and start-stop-daemon on PATH, which a user's PATH may lack.
    env = dict(os.environ, PATH=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
    r = run(cmd + ["-i", deb], timeout=120, env=env)
    if r.returncode != 0:
        raise AssertionError("dpkg -i failed:\n" + r.stdout + r.stderr)
    return r.stdout + r.stderr


class PackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        out = os.path.join(cls.tmp.name, "cpack")
        # cpack builds the preinstall target first: a no-op on a built tree.
        r = run(["cpack", "-G", "DEB", "-B", out], timeout=600, cwd=BIN_DIR)
        if r.returncode != 0:
            cls.tmp.cleanup()
            raise AssertionError("cpack failed:\n" + r.stdout + r.stderr)
        debs = [n for n in os.listdir(out) if n.endswith(".deb")]
        if len(debs) != 1:
            cls.tmp.cleanup()
            raise AssertionError("cpack made %s, not one .deb" % debs)
        cls.deb = os.path.join(out, debs[0])
        cls.prefix = os.path.join(cls.tmp.name, "root")
        cls.dpkg = dpkg_install(cls.deb, cls.prefix)
        cls.installed = os.path.join(cls.prefix, "usr", "bin", "mcpspec")
        cls.suites = os.path.join(cls.prefix, "usr", "share", "mcpspec", "suites")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def env(self):
        """The environment without MCPSPEC_SUITES: the binary must find its suites itself."""
        return {k: v for k, v in os.environ.items() if k != "MCPSPEC_SUITES"}

    def field(self, name):
        return run(["dpkg-deb", "-f", self.deb, name]).stdout.strip()

    def test_control(self):
        arch = run(["dpkg", "--print-architecture"]).stdout.strip()
        version = project_version()
        self.assertEqual(os.path.basename(self.deb), "mcpspec_%s_%s.deb" % (version, arch))
        self.assertEqual(self.field("Package"), "mcpspec")
        self.assertEqual(self.field("Version"), version)
        self.assertEqual(self.field("Architecture"), arch)
        self.assertRegex(self.field("Maintainer"), r".+ <[^ @]+@[^ @]+>")
        self.assertIn("Model Context Protocol", self.field("Description"))
        depends = self.field("Depends")
        # dpkg-shlibdeps computed them from the binary's own NEEDED entries.
        for lib in ("libc6", "libcjson1", "libcurl4"):
            self.assertRegex(depends, r"(^|, )%s( |,|$)" % lib, depends)
        # The clean root has none of them (dpkg said so), this machine has them all.
        for dep in depends.split(", "):
            m = re.fullmatch(r"([a-z0-9.+-]+)(?: \((>=|=) ([^)]+)\))?", dep)
            self.assertTrue(m, "a Depends entry this test does not read: " + dep)
            self.assertIn("%s depends on %s" % ("mcpspec", dep), self.dpkg)
            have = run(["dpkg-query", "-W", "-f=${Version}", m.group(1)])
            self.assertEqual(have.returncode, 0, "%s is not installed here" % m.group(1))
            if m.group(2):
                op = {">=": "ge", "=": "eq"}[m.group(2)]
                self.assertEqual(run(["dpkg", "--compare-versions", have.stdout, op,
                                      m.group(3)]).returncode, 0, (dep, have.stdout))

    def test_installed_by_dpkg(self):
        r = run(["dpkg", "--root=" + self.prefix, "-s", "mcpspec"])
        self.assertIn("Status: install ok installed", r.stdout)
        listed = set(run(["dpkg", "--root=" + self.prefix, "-L", "mcpspec"]).stdout.split())
        self.assertIn("/usr/bin/mcpspec", listed)
        self.assertTrue(os.access(self.installed, os.X_OK))

    def test_contents(self):
        listing = run(["dpkg-deb", "-c", self.deb]).stdout
        paths = {line.split()[-1] for line in listing.splitlines() if line.strip()}
        files = {p[1:] for p in paths if not p.endswith("/")}  # "./usr/..." -> "/usr/..."
        expected = {"/usr/bin/mcpspec", "/usr/share/man/man1/mcpspec.1.gz",
                    "/usr/share/mcpspec/suites/builtin.proofs",
                    "/usr/share/doc/mcpspec/README.md", "/usr/share/doc/mcpspec/ci.md"}
        expected |= {"/usr/share/mcpspec/suites/" + n
                     for n in os.listdir(os.path.join(ROOT, "suites")) if n.endswith(".suite")}
        self.assertEqual(expected - files, set(), "missing from the package")
        self.assertEqual([f for f in files if not f.startswith("/usr/")], [])
        # The reference server and the test programs are not packaged.
        self.assertEqual([f for f in files if re.search(r"refserver|test_|fuzz_|bench_", f)], [])

    def test_uses_its_own_suites(self):
        r = run([self.installed, "--version"], env=self.env())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "mcpspec %s\nsuites: %s\n" % (project_version(), self.suites))
        # Every check the build tree's mcpspec knows, the installed one knows, from its own files
        # (builtin.proofs included: the discovery and observer checks' proofs).
        mine = json.loads(run([self.installed, "list", "--json"], env=self.env()).stdout)["checks"]
        ours = json.loads(run([MCPSPEC, "list", "--json"], env=self.env()).stdout)["checks"]
        self.assertEqual([c["id"] for c in mine], [c["id"] for c in ours])
        self.assertEqual(sum(len(c.get("proofs", [])) for c in mine),
                         sum(len(c.get("proofs", [])) for c in ours))
        files = {c["file"] for c in mine if "file" in c}
        self.assertTrue(files)
        self.assertEqual({f for f in files if not f.startswith(self.suites + "/")}, set())

    def test_runs_against_refserver(self):
        out = os.path.join(self.tmp.name, "report")
        r = run([self.installed, "run", "--server", REFSERVER, "--suite", "ping", "--out", out,
                 "--quiet"], timeout=120, env=self.env(), cwd=self.tmp.name)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for name in ("report.json", "junit.xml", "summary.md", "report.html", "report.sarif"):
            self.assertTrue(os.path.exists(os.path.join(out, name)), name)
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        ping = [c for c in report["cases"] if c["id"].startswith("ping/")]
        self.assertTrue(ping)
        self.assertEqual({c["verdict"] for c in ping}, {"PASS"}, ping)

    def test_suite_removed_from_prefix_is_gone(self):
        # On a copy of the prefix, so the other tests keep the whole package.
        copy = os.path.join(self.tmp.name, "copy")
        shutil.copytree(self.prefix, copy, symlinks=True)
        os.remove(os.path.join(copy, "usr", "share", "mcpspec", "suites", "ping.suite"))
        mine = run([os.path.join(copy, "usr", "bin", "mcpspec"), "list", "--suite", "ping"],
                   env=self.env())
        ours = run([MCPSPEC, "list", "--suite", "ping"], env=self.env())
        self.assertEqual((mine.returncode, ours.returncode), (0, 0), mine.stderr + ours.stderr)
        self.assertNotIn("ping/", mine.stdout)
        self.assertIn("ping/empty-result", ours.stdout)

    def test_man_page(self):
        page = os.path.join(self.prefix, "usr", "share", "man", "man1", "mcpspec.1.gz")
        with open(os.path.join(ROOT, "docs", "mcpspec.1")) as f:
            source = f.read()
        self.assertRegex(source, r'(?m)^\.TH MCPSPEC 1 \S+ "mcpspec %s"'
                         % re.escape(project_version()))
        # Every option a command's --help prints is in the page (roff writes - as \-).
        text = source.replace("\\-", "-")
        for command in COMMANDS:
            r = run([MCPSPEC, command, "--help"])
            for option in sorted(set(re.findall(r"--[a-z][a-z-]*", r.stdout + r.stderr))):
                self.assertIn(option, text, "%s %s is not in docs/mcpspec.1" % (command, option))
        if not shutil.which("man"):
            print("man is not installed: the page's rendering is not checked", file=sys.stderr)
            return
        r = run(["man", "-l", page], env=dict(os.environ, MANPAGER="cat", PAGER="cat",
                                              MANWIDTH="80", LC_ALL="C.UTF-8"))
        self.assertEqual(r.returncode, 0, r.stderr)
        for heading in ("NAME", "SYNOPSIS", "EXIT STATUS", "FILES", "ENVIRONMENT", "EXAMPLES"):
            self.assertIn(heading, r.stdout)
        self.assertEqual(r.stderr, "")


if __name__ == "__main__":
    why = skip_reason()
    if why:
        print("SKIP: " + why, file=sys.stderr)
        sys.exit(77)
    unittest.main()
