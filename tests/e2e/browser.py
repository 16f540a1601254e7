"""Headless Chromium driven over the Chrome DevTools Protocol, standard library only.

test_html.py and scripts/bench-html open report.html in Debian's chromium
(/usr/bin/chromium; scripts/setup --with-browser installs it). Chromium is
started with --remote-debugging-pipe: it reads protocol commands from fd 3 and
writes replies and events to fd 4, each a JSON text ended by a NUL byte. That
needs no WebSocket client and no npm package, and no port is opened.

Every wait has a deadline, and close() ends the browser's whole process group.
"""
import base64
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time

CHROMIUM_NAMES = ("chromium", "chromium-browser")
VIEWPORT = (1280, 900)


def find_chromium():
    """The browser to run: $MCPSPEC_CHROMIUM, else chromium on PATH; None when there is none."""
    exe = os.environ.get("MCPSPEC_CHROMIUM")
    if exe:
        return exe if os.access(exe, os.X_OK) else None
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(Exception):
    pass


class Browser:
    """One headless Chromium; page() opens a tab in it."""

    def __init__(self, exe, timeout=30.0):
        self.timeout = timeout
        self.profile = tempfile.TemporaryDirectory(prefix="mcpspec-chromium-")
        self.log = open(os.path.join(self.profile.name, "stderr.log"), "w+b")
        cmd_r, self.cmd_w = os.pipe()
        self.evt_r, evt_w = os.pipe()
        args = [exe, "--headless", "--remote-debugging-pipe", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--mute-audio", "--hide-scrollbars", "--disable-dev-shm-usage",
                "--user-data-dir=" + os.path.join(self.profile.name, "profile"),
                "--window-size=%d,%d" % VIEWPORT, "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox

        def child_fds():
            # Out of the way of 3 and 4 first (a pipe may already sit there), then onto them.
            r = fcntl.fcntl(cmd_r, fcntl.F_DUPFD_CLOEXEC, 10)
            w = fcntl.fcntl(evt_w, fcntl.F_DUPFD_CLOEXEC, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)

        # close_fds=False: 3 and 4 must survive; Python's own fds are close-on-exec anyway.
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=self.log, preexec_fn=child_fds, close_fds=False,
                                     start_new_session=True)
        os.close(cmd_r)
        os.close(evt_w)
        self.pending = b""
        self.events = []
        self.next_id = 0

    def stderr_tail(self):
        self.log.seek(0)
        return self.log.read()[-2000:].decode("utf-8", "replace")

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self.cmd_w, data):]
        return self.next_id

    def read_message(self, deadline):
        while b"\0" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no answer from Chromium in time")
            ready, _, _ = select.select([self.evt_r], [], [], left)
            if ready:
                chunk = os.read(self.evt_r, 1 << 16)
                if not chunk:
                    raise BrowserError("Chromium exited: " + self.stderr_tail())
                self.pending += chunk
        raw, self.pending = self.pending.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, session=None, timeout=None):
        """Send a command and wait for its result; events that arrive meanwhile are kept."""
        want = self.send(method, params, session)
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            msg = self.read_message(deadline)
            if msg.get("id") == want:
                if "error" in msg:
                    raise BrowserError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, session=None, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, ev in enumerate(self.events):
                if ev["method"] == method and (session is None or ev.get("sessionId") == session):
                    return self.events.pop(i)
            msg = self.read_message(deadline)
            if "method" in msg:
                self.events.append(msg)

    def page(self):
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, target, session)

    def close(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=5)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(timeout=5)
        for fd in (self.cmd_w, self.evt_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        self.profile.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    """A tab: load a file, run JavaScript in it, take a screenshot."""

    def __init__(self, browser, target, session):
        self.b, self.target, self.session = browser, target, session
        self.call("Page.enable")
        self.call("Runtime.enable")
        width, height = VIEWPORT
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def call(self, method, params=None, timeout=None):
        return self.b.call(method, params, self.session, timeout)

    def load(self, path, timeout=None):
        """Open a local file and wait for its load event."""
        url = "file://" + os.path.abspath(path)
        result = self.call("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise BrowserError("cannot open %s: %s" % (url, result["errorText"]))
        self.b.wait_event("Page.loadEventFired", self.session, timeout)

    def eval(self, expression, timeout=None):
        """The value of a JavaScript expression (a promise is awaited), as JSON gives it."""
        result = self.call("Runtime.evaluate",
                           {"expression": expression, "returnByValue": True,
                            "awaitPromise": True}, timeout)
        if "exceptionDetails" in result:
            raise BrowserError("JavaScript threw: %s" % result["exceptionDetails"])
        return result["result"].get("value")

    def console_errors(self):
        """Errors the page logged so far (a script the CSP blocked shows up here)."""
        out = []
        for ev in self.b.events:
            if ev.get("sessionId") != self.session:
                continue
            if ev["method"] == "Runtime.exceptionThrown":
                out.append(str(ev["params"]["exceptionDetails"]))
            elif ev["method"] == "Runtime.consoleAPICalled" and ev["params"]["type"] == "error":
                out.append(str(ev["params"]["args"]))
        return out

    def timings(self, timeout=10.0):
        """Milliseconds from navigation start: first-contentful-paint, DOMContentLoaded, load."""
        return self.eval("""new Promise((resolve, reject) => {
            const give_up = performance.now() + %d;
            (function poll() {
                const fcp = performance.getEntriesByName('first-contentful-paint')[0];
                const nav = performance.getEntriesByType('navigation')[0];
                if (fcp && nav && nav.loadEventEnd > 0)
                    resolve({fcp: fcp.startTime, dcl: nav.domContentLoadedEventEnd,
                             load: nav.loadEventEnd});
                else if (performance.now() > give_up)
                    reject(new Error('no first-contentful-paint entry'));
                else
                    setTimeout(poll, 10);
            })();
        })""" % int(timeout * 1000), timeout + 5)

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        self.b.call("Target.closeTarget", {"targetId": self.target})
