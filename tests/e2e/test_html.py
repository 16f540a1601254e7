#!/usr/bin/python3
"""report.html in a real browser: headless Chromium (Debian's chromium, which
`scripts/setup --with-browser` installs) opens the report of a full run of the
reference server with a fault, so that cases FAIL, and the test checks on the
DOM and on screenshots what a developer sees: the summary, the verdict filter,
and a failing case's wire log (sent and received lines) built by the page's
script when the case is shown. It also checks that the page's Content Security
Policy admits that script, that no wire log is built before it is needed, and
that a hostile target's bytes stay text. Prints the time to first paint it saw
(scripts/bench-html measures it properly).

Under the sanitizers the run is one revision, not five: the point there is the
writer's memory safety, and five sanitized runs would cost a minute.

Skipped (exit 77) without chromium. MCPSPEC_CHROMIUM=PATH picks another binary;
MCPSPEC_HTML_SHOTS=DIR keeps the screenshots (summary.png, failing-case.png) there.
"""
import base64
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402
from common import BIN_DIR, MCPSPEC, ROOT  # noqa: E402

REFSERVER = os.path.abspath(os.path.join(BIN_DIR, "refserver"))
FAULT = "ping-result-null"  # ping/empty-result FAILs on every revision
FAILING = "ping/empty-result"
# Generous: a guard against a page that stopped rendering progressively, not a benchmark.
FIRST_PAINT_LIMIT_MS = 5000
SANITIZE = os.environ.get("MCPSPEC_BUILD_TYPE") == "Sanitize"
SHOTS = os.environ.get("MCPSPEC_HTML_SHOTS")
# A target whose every byte tries to leave the text it belongs to.
EVIL = r"""#!/bin/sh
printf '%s\n' '</script><script>document.title="pwned"</script><!--<script>' >&2
printf '%s\n' '{"jsonrpc":"2.0","id":"x","result":"</SCRIPT ><img src=x onerror=alert(1)>"}'
printf '</script>\342\200\250<script>document.title="pwned"</script>\n'
"""


def refserver_config(folder):
    """The configuration scripts/demo runs, with the fault; its root/ copied beside it (the
    configuration's relative paths resolve there)."""
    root = os.path.join(folder, "root")
    shutil.copytree(os.path.join(ROOT, "targets", "refserver", "root"), root)
    with open(os.path.join(ROOT, "targets", "refserver", "mcpspec.json")) as f:
        config = json.load(f)
    config["server"] = {"command": "%s --root %s --fault %s" % (REFSERVER, root, FAULT)}
    path = os.path.join(folder, "mcpspec.json")
    with open(path, "w") as f:
        json.dump(config, f)
    return path


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise AssertionError("%s is not a PNG" % path)
    return struct.unpack(">II", head[16:24])


# Waits inside the page, each with its own deadline: the CDP call waits a little longer.
WAIT_JS = """(async () => {
    const give_up = Date.now() + 10000;
    while (Date.now() < give_up) {
        const v = (%s)();
        if (v) return v;
        await new Promise(r => setTimeout(r, 20));
    }
    return null;
})()"""


class HtmlReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="mcpspec-html-")
        out = os.path.join(cls.tmp.name, "report")
        r = subprocess.run([MCPSPEC, "run", "--config", refserver_config(cls.tmp.name),
                            "--out", out, "--quiet"]
                           + (["--revision", "2025-11-25"] if SANITIZE else []),
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 1:
            raise AssertionError("the faulty run should exit 1, not %d: %s"
                                 % (r.returncode, r.stderr))
        cls.html = os.path.join(out, "report.html")
        with open(os.path.join(out, "report.json")) as f:
            cls.report = json.load(f)
        cls.browser = browser.Browser(browser.find_chromium())
        warm = cls.browser.page()  # the first page of a fresh browser pays its start-up
        warm.load(cls.html)
        warm.close()
        cls.page = cls.browser.page()
        cls.page.load(cls.html)
        cls.timings = cls.page.timings()
        print("report.html: %d bytes, %d cases; first contentful paint %.0f ms, "
              "DOMContentLoaded %.0f ms, load %.0f ms"
              % (os.path.getsize(cls.html), len(cls.report["cases"]), cls.timings["fcp"],
                 cls.timings["dcl"], cls.timings["load"]), file=sys.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.tmp.cleanup()

    def wait(self, js_function):
        value = self.page.eval(WAIT_JS % js_function, timeout=20)
        return value

    def screenshot(self, name):
        if SHOTS:
            os.makedirs(SHOTS, exist_ok=True)
        path = os.path.join(SHOTS or self.tmp.name, name)
        self.page.screenshot(path)
        self.assertEqual(png_size(path), browser.VIEWPORT)
        self.assertGreater(os.path.getsize(path), 10000, "a blank screenshot")
        return path

    def test_1_summary_is_shown(self):
        self.assertLess(self.timings["fcp"], FIRST_PAINT_LIMIT_MS)
        counts = self.report["summary"]["counts"]
        self.assertGreater(counts["FAIL"], 0)
        summary = self.page.eval("""(() => ({
            title: document.querySelector('header h1').innerText,
            meta: document.querySelector('header dl.meta').innerText,
            revisions: document.querySelectorAll('header table tr').length - 1,
            filters: document.querySelector('nav.filters').innerText,
            cases: document.querySelectorAll('details.case').length,
            top: document.querySelector('header h1').getBoundingClientRect().top
        }))()""")
        self.assertIn("FAIL", summary["title"])
        self.assertIn("refserver", summary["meta"])
        self.assertIn("Exit code", summary["meta"])
        self.assertEqual(summary["revisions"], len(self.report["revisions"]))
        self.assertIn("FAIL (%d)" % counts["FAIL"], summary["filters"])
        self.assertIn("all (%d)" % len(self.report["cases"]), summary["filters"])
        self.assertEqual(summary["cases"], len(self.report["cases"]))
        self.assertLess(summary["top"], browser.VIEWPORT[1], "the summary is on the first screen")
        self.screenshot("summary.png")

    def test_2_logs_are_built_on_demand(self):
        # Only cases open and near the first screen may have a table yet.
        state = self.page.eval("""(() => ({
            tables: document.querySelectorAll('table.wire').length,
            slots: document.querySelectorAll('.wire-slot').length,
            button: !!document.querySelector('nav.filters button')
        }))()""")
        self.assertTrue(state["button"], "the page's script did not run (blocked by the CSP?)")
        with_logs = [c for c in self.report["cases"] if c["wire"] or c["wire_dropped"]]
        self.assertEqual(state["slots"], len(with_logs))
        self.assertLess(state["tables"], 10)

    def test_3_failing_case_shows_its_wire_log(self):
        case = [c for c in self.report["cases"]
                if c["id"] == FAILING and c["verdict"] == "FAIL"][0]
        sent = [w for w in case["wire"] if w["dir"] == "sent"]
        received = [w for w in case["wire"] if w["dir"] == "received"]
        self.assertTrue(sent and received)
        select = ("[...document.querySelectorAll('details.case.v-FAIL')].find(d => "
                  "d.querySelector('summary').textContent.includes(%s))" % json.dumps(
                      case["revision"] + " " + FAILING))
        opened = self.page.eval("""(() => {
            const d = %s;
            d.open = true;
            d.scrollIntoView();
            return d.open;
        })()""" % select)
        self.assertTrue(opened)
        rows = self.wait("""() => {
            const t = (%s).querySelector('table.wire');
            return t && [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent));
        }""" % select)
        self.assertIsNotNone(rows, "the failing case's wire log was not shown")
        self.assertEqual(len(rows), len(case["wire"]))
        dirs = [r[1] for r in rows]
        self.assertIn("sent", dirs)
        self.assertIn("received", dirs)
        shown = "\n".join(r[3] for r in rows)
        self.assertIn(sent[-1]["text"].rstrip("\n"), shown)
        self.assertIn(received[-1]["text"].rstrip("\n"), shown)
        self.assertRegex(rows[0][0], r"^\+\d+\.\d{6}$")
        self.screenshot("failing-case.png")

    def test_4_filter_by_verdict(self):
        shown = self.page.eval("""(async () => {
            location.hash = '#only-FAIL';
            await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
            const v = [...document.querySelectorAll('details.case')]
                .filter(d => getComputedStyle(d).display !== 'none')
                .map(d => d.className);
            location.hash = '#top';
            return v;
        })()""")
        self.assertEqual(len(shown), self.report["summary"]["counts"]["FAIL"])
        self.assertTrue(all("v-FAIL" in c for c in shown), shown)

    def test_5_csp_admits_the_script_by_its_hash(self):
        with open(self.html, encoding="utf-8") as f:
            text = f.read()
        m = re.search(r"script-src 'sha256-([A-Za-z0-9+/=]+)'", text)
        self.assertIsNotNone(m)
        scripts = re.findall(r"<script>(.*?)</script>", text, re.S)
        self.assertEqual(len(scripts), 1)
        digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
        self.assertEqual(m.group(1), digest)

    def test_6_hostile_bytes_stay_text(self):
        folder = os.path.join(self.tmp.name, "evil")
        os.mkdir(folder)
        server = os.path.join(folder, "evil.sh")
        with open(server, "w") as f:
            f.write(EVIL)
        os.chmod(server, 0o755)
        r = subprocess.run([MCPSPEC, "run", "--server", server, "--out", folder, "--quiet"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 3, r.stderr)
        page = self.browser.page()
        try:
            page.load(os.path.join(folder, "report.html"))
            page.eval("document.querySelector('nav.filters button').click()")
            text = page.eval(WAIT_JS % """() => {
                const t = document.querySelectorAll('table.wire');
                return t.length && [...t].map(x => x.textContent).join('\\n');
            }""", timeout=20)
            self.assertIsNotNone(text, "the wire logs were not shown")
            self.assertIn('<script>document.title="pwned"</script>', text)
            self.assertIn("</SCRIPT >", text)
            self.assertEqual(page.eval("document.title"), "mcpspec report: " + server)
            self.assertEqual(page.eval("document.querySelectorAll('script, img').length"), 2)
        finally:
            page.close()


def main():
    if not browser.find_chromium():
        print("SKIP: no chromium (scripts/setup --with-browser installs it)", file=sys.stderr)
        sys.exit(77)
    unittest.main(module="__main__")


if __name__ == "__main__":
    main()
