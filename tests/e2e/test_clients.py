#!/usr/bin/python3
"""`mcpspec run --client`: mcpspec plays the server to a client under test, over
stdio ({server}), Streamable HTTP ({url}) and 2024-11-05's HTTP+SSE ({sse-url}).

refclient (targets/refclient) is the proof: clean, on every revision (over
HTTP: 2025-03-26 on, 2026-07-28 included) and with or without capabilities, no
check FAILs or WARNs; each of its faults makes its own check fail (FAIL, or WARN for a SHOULD),
the HTTP faults over HTTP (the HTTP+SSE one over {sse-url}) and the others over
both transports; over {sse-url}, on 2024-11-05, refclient is clean too. The
hostile clients of tests/clients/hostile/ (never connects, floods, drops
mid-request, restarts its server in a loop, floods the HTTP endpoint or the
HTTP+SSE one) end within their bounds, write a complete report, stay under
64 MiB and leave no process behind."""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN_DIR, MCPSPEC, ROOT  # noqa: E402
from test_hostile import marked  # noqa: E402  (the client and its relays carry the token)

REFCLIENT = os.path.join(BIN_DIR, "refclient")
HOSTILE = os.path.join(ROOT, "tests", "clients", "hostile")
SANITIZED = os.environ.get("MCPSPEC_BUILD_TYPE", "") == "Sanitize"
SLOW = 3.0 if SANITIZED else 1.0
MEMORY_LIMIT_KIB = (256 if SANITIZED else 64) * 1024
FAST = ["--timeout", "1", "--probe-timeout", "2", "--shutdown-grace", "0.3"]
FORMATS = ("report.json", "junit.xml", "summary.md", "report.html", "report.sarif")


def run_client(command, out, extra=(), timeout=60):
    return subprocess.run([MCPSPEC, "run", "--client", command, "--out", out, "--quiet",
                           *extra], capture_output=True, text=True, timeout=timeout)


def load(out):
    with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
        return json.load(f)


def verdicts(report):
    return {c["id"]: c["verdict"] for c in report["cases"]}


def faults():
    r = subprocess.run([REFCLIENT, "--list-faults"], capture_output=True, text=True, timeout=10)
    return [line.split("\t") for line in r.stdout.splitlines()]


def http_check(check):
    return check.startswith(("client/http-", "client/auth-"))


def sse_check(check):
    return check.startswith("client/sse-")


# The 2026-07-28 checks (stdio): refclient speaks that revision with --protocol-version.
MODERN_CHECKS = {"client/discover-first", "client/no-initialize-after-discover",
                 "client/meta-protocol-version", "client/meta-client-info",
                 "client/discover-version", "client/version-retry", "client/no-responses",
                 "client/modern-methods", "client/input-required",
                 # client_cases_modern.c's, over HTTP too
                 "client/modern-paging", "client/extension-fallback", "client/opaque-codes"}
# client_cases_modern_client.c's 2026-07-28 checks: the deprecated roots and sampling (VER-011,
# INFO when declared: refclient declares them with --deprecated-caps only), their MRTR input
# requests (SKIP without them), and an unknown reserved _meta key on the DiscoverResult.
DEPRECATED_CHECKS = {"client/input-roots", "client/input-sampling", "client/input-sampling-tools"}
MODERN_CLIENT_CHECKS = DEPRECATED_CHECKS | {"client/deprecated-capabilities",
                                            "client/modern-unknown-meta"}
# The 2026-07-28 checks of what the scripted server serves over stdio (modern-serve,
# modern-drop; client_cases_modern_serve.c): refclient listens, calls the 2020-12 tool, starts
# its server again when it dies mid-request.
SERVE_CHECKS = {"client/listen-request", "client/listen-narrowed",
                "client/notification-unanswered", "client/structured-array",
                "client/schema-2020-12", "client/no-remote-ref", "client/deep-schema",
                "client/server-restart", "client/relisten"}
# The 2026-07-28 checks of a dual-era client (refclient --protocol-version auto), stdio.
DUAL_ERA_CHECKS = {"client/probe-fallback"}
# The tasks scenario's checks (2025-11-25, stdio; client_cases_tasks.c): refclient calls the
# task-only tool as a task, polls it, fetches its result and answers its elicitation.
TASK_CHECKS = {"client/task-required", "client/task-polling", "client/task-input",
               "client/task-meta", "client/task-cancel"}
# ...and as the receiver of task-augmented requests: refclient declares tasks for
# elicitation/create (capabilities.tasks) when it declares elicitation on 2025-11-25.
RECEIVER_CHECKS = {"client/task-capability", "client/task-receiver-create",
                   "client/task-receiver-get", "client/task-receiver-list",
                   "client/task-receiver-result", "client/task-receiver-cancel",
                   "client/task-receiver-errors", "client/task-not-declared",
                   "client/task-progress"}
# The 2026-07-28 checks only Streamable HTTP shows (client_cases_http.c).
MODERN_HTTP_CHECKS = {"client/http-version-header", "client/http-method-header",
                      "client/http-param-headers", "client/http-stream-retry",
                      # client_cases_http2.c's
                      "client/http-modern-answers", "client/http-no-legacy-fallback",
                      # client_cases_http3.c's (scenario modern-headers: a non-ASCII tool
                      # name, then -32020 after its x-mcp-header changed)
                      "client/http-name-encoded", "client/http-header-relist"}


class RefclientTest(unittest.TestCase):
    def clean(self, *refclient_args, http=False, sse=False):
        with tempfile.TemporaryDirectory() as out:
            where = (["--sse-url", "{sse-url}"] if sse else ["--url", "{url}"] if http
                     else ["--", "{server}"])
            cmd = " ".join([REFCLIENT, *refclient_args, *where])
            # Under ASan, three tests at once on two cores, the 1 MiB ping of client/survives-huge
            # was once still being answered over HTTP when the default 5 s of silence ran out.
            r = run_client(cmd, out, ["--timeout", "10"] if SANITIZED else [])
            report = load(out)
            bad = {k: v for k, v in verdicts(report).items() if v in ("FAIL", "WARN", "ERROR")}
            self.assertEqual(bad, {}, r.stderr)
            self.assertEqual(r.returncode, 0, r.stderr)
            for name in FORMATS:
                self.assertGreater(os.path.getsize(os.path.join(out, name)), 0, name)
            return report

    def test_clean_newest(self):
        report = self.clean()
        v = verdicts(report)
        self.assertEqual({v[k] for k in v
                          if k not in MODERN_CHECKS | SERVE_CHECKS | DUAL_ERA_CHECKS
                          | MODERN_CLIENT_CHECKS | {"client/cancellations", "client/elicit-content",
                                                  "client/sampling-mixed-results"}},
                         {"PASS"}, v)
        # no sampling.tools declared (--sampling-tools does): no tool loop is sent to it
        self.assertEqual(v["client/sampling-mixed-results"], "SKIP")
        # refclient declines elicitations (no one to ask): no content to validate
        self.assertEqual(v["client/elicit-content"], "SKIP")
        # refclient never cancels a request of its own (its fault cancel-initialize does)
        self.assertEqual(v["client/cancellations"], "SKIP")
        # a handshake-only client: the 2026-07-28 scenarios are not played, their checks SKIP
        self.assertEqual({v[k] for k in MODERN_CHECKS | SERVE_CHECKS | DUAL_ERA_CHECKS
                          | MODERN_CLIENT_CHECKS}, {"SKIP"}, v)
        self.assertEqual(report["cases"][0]["revision"], "2025-11-25")

    def test_clean_2026(self):
        report = self.clean("--protocol-version", "2026-07-28")
        v = verdicts(report)
        self.assertEqual({v[k] for k in MODERN_CHECKS | SERVE_CHECKS}, {"PASS"}, v)
        # neither roots nor sampling declared (deprecated): none asked for as an input request
        self.assertEqual({v[k] for k in MODERN_CLIENT_CHECKS - DEPRECATED_CHECKS}, {"PASS"}, v)
        self.assertEqual({v[k] for k in DEPRECATED_CHECKS}, {"SKIP"}, v)
        # no initialize: the handshake checks SKIP; the observers and shutdown still judge
        for check in ("client/request-ids", "client/jsonrpc-lines", "client/shutdown"):
            self.assertEqual(v[check], "PASS", check)
        self.assertEqual(v["client/initialize-first"], "SKIP")
        self.assertEqual(report["cases"][0]["revision"], "2026-07-28")
        # a modern-only client: the handshake scenarios are not played (no start wasted)
        ping = [c for c in report["cases"] if c["id"] == "client/ping"][0]
        self.assertIn("not played", ping["reason"])

    def test_clean_2026_deprecated_capabilities(self):
        # --deprecated-caps: roots and sampling declared on 2026-07-28 (INFO: VER-011), asked for
        # as MRTR input requests and answered in inputResponses; the sampling request carrying
        # tools (no sampling.tools declared) is left out, and with --sampling-tools answered with
        # a tool_use block. Existing faults bend those answers too.
        cases = ["--case", "client/input-*", "--case", "client/deprecated-capabilities"]
        runs = [(), ("--sampling-tools",)] + [("--fault", f) for f in (
            "roots-not-file", "sampling-no-model", "sampling-bad-content")]

        def run(fault):
            with tempfile.TemporaryDirectory() as out:
                run_client(" ".join([REFCLIENT, "--protocol-version", "2026-07-28",
                                     "--deprecated-caps", *fault, "--", "{server}"]), out,
                           cases + ["--timeout", "2"])
                return {c["id"]: (c["verdict"], c.get("broken") or []) for c in load(out)["cases"]}

        with ThreadPoolExecutor(max_workers=4) as pool:
            clean, tools, roots, model, content = pool.map(run, runs)
        for v in (clean, tools):
            self.assertEqual({k: v[k][0] for k in DEPRECATED_CHECKS | {"client/input-required"}},
                             {k: "PASS" for k in DEPRECATED_CHECKS | {"client/input-required"}})
        self.assertEqual(clean["client/deprecated-capabilities"][0], "INFO")
        self.assertEqual(roots["client/input-roots"], ("FAIL", ["ROOTS-002"]))
        self.assertEqual(model["client/input-sampling"], ("FAIL", ["SAMP-002"]))
        self.assertEqual(content["client/input-sampling"], ("FAIL", ["SAMP-003"]))

    def test_clean_accepting_elicitations(self):
        # --accept-elicitation: content that validates against the requestedSchema (ELIC-018),
        # in the elicit scenario and in 2026-07-28's inputResponses
        def run(args):
            with tempfile.TemporaryDirectory() as out:
                run_client(" ".join([REFCLIENT, *args, "--accept-elicitation", "--", "{server}"]),
                           out, ["--case", "client/elicit*", "--case", "client/input-required",
                                 "--timeout", "2"])
                return verdicts(load(out))

        runs = ((), ("--protocol-version", "2026-07-28"))
        with ThreadPoolExecutor(max_workers=2) as pool:
            handshake, modern = pool.map(run, runs)
        for v in (handshake, modern):
            self.assertEqual(v["client/elicit-content"], "PASS", v)
        self.assertEqual(handshake["client/elicitation"], "PASS")
        self.assertEqual(modern["client/input-required"], "PASS")

    def test_clean_sampling_tools(self):
        # --sampling-tools on 2025-11-25: sampling.tools declared, the request carrying tools
        # answered with a tool_use block (SAMP-014), the tool results mixed with text refused
        # with -32602 (SAMP-012); on 2025-06-18 there are no tools in sampling
        def run(args):
            with tempfile.TemporaryDirectory() as out:
                run_client(" ".join([REFCLIENT, *args, "--sampling-tools", "--", "{server}"]),
                           out, ["--case", "client/sampling*", "--timeout", "2"])
                return verdicts(load(out))

        runs = ((), ("--protocol-version", "2025-06-18"))
        with ThreadPoolExecutor(max_workers=2) as pool:
            newest, older = pool.map(run, runs)
        self.assertEqual(set(newest.values()), {"PASS"}, newest)
        self.assertEqual(len(newest), 4, newest)
        for check in ("client/sampling", "client/sampling-invalid-params"):
            self.assertEqual(older[check], "PASS", check)
        for check in ("client/sampling-tools", "client/sampling-mixed-results"):
            self.assertEqual(older[check], "SKIP", check)

    def test_clean_dual_era_probe(self):
        # a legacy server refusing the probe with -32600, not -32601: refclient auto initializes
        with tempfile.TemporaryDirectory() as out:
            run_client(REFCLIENT + " --protocol-version auto -- {server}", out,
                       ["--case", "client/probe-fallback", "--timeout", "2"])
            self.assertEqual(verdicts(load(out))["client/probe-fallback"], "PASS")

    def test_clean_every_revision(self):
        revs = ("2024-11-05", "2025-03-26", "2025-06-18")
        with ThreadPoolExecutor(max_workers=3) as pool:
            reports = list(pool.map(lambda rev: self.clean("--protocol-version", rev), revs))
        for rev, report in zip(revs, reports):
            with self.subTest(rev=rev):
                v = verdicts(report)
                self.assertEqual(v["client/older-version"],
                                 "SKIP" if rev == "2024-11-05" else "PASS")
                self.assertEqual(v["client/elicitation"],
                                 "PASS" if rev == "2025-06-18" else "SKIP")
                # the batch scenario answers 2025-03-26 to a later revision: refclient goes on
                for check in ("client/batch", "client/batch-edges"):
                    self.assertEqual(v[check], "SKIP" if rev == "2024-11-05" else "PASS", check)
                self.assertEqual(v["client/cursor-unchanged"], "PASS")
                # tasks are offered on 2025-11-25 only
                self.assertEqual({v[k] for k in TASK_CHECKS | RECEIVER_CHECKS}, {"SKIP"}, v)
                # the oddities scenario: an unknown reserved _meta key (from 2025-06-18), an
                # unknown elicitation completion and a url-mode elicitation (2025-11-25)
                self.assertEqual(v["client/unknown-meta-key"],
                                 "PASS" if rev == "2025-06-18" else "SKIP")
                self.assertEqual(v["client/elicit-mode-undeclared"], "SKIP")

    def test_clean_without_capabilities(self):
        v = verdicts(self.clean("--no-caps"))
        for check in ("client/roots-list", "client/sampling", "client/elicitation"):
            self.assertEqual(v[check], "PASS", check)
        # no elicitation declared: the task completes without input_required
        for check in TASK_CHECKS - {"client/task-input"}:
            self.assertEqual(v[check], "PASS", check)
        self.assertEqual(v["client/task-input"], "SKIP")
        self.assertEqual({v[k] for k in RECEIVER_CHECKS}, {"SKIP"}, v)  # no tasks declared

    def test_clean_over_http(self):
        revs = ("2025-03-26", "2025-06-18", "2025-11-25")
        # the last run is given a token: sent as Authorization: Bearer on every request
        runs = [("--protocol-version", rev) for rev in revs] + [("--no-caps", "--token", "t0k")]
        with ThreadPoolExecutor(max_workers=4) as pool:
            reports = list(pool.map(lambda a: self.clean(*a, http=True), runs))
        for args, report in zip(runs, reports):
            with self.subTest(args=args):
                v = verdicts(report)
                self.assertEqual(report["transport"], "streamable-http")
                self.assertNotIn("client/shutdown", v)  # stdio's; over HTTP: http-delete
                # the batch of two pings rides the SSE stream; refclient answers each in a POST;
                # the stream closed after its first event is resumed with Last-Event-ID
                for check in ("client/http-session-id", "client/http-accept",
                              "client/http-session-404", "client/http-delete",
                              "client/ping", "client/roots-list", "client/cursor-unchanged",
                              "client/cancel-survived", "client/progress", "client/batch",
                              "client/batch-edges", "client/http-resume", "client/http-one-post",
                              "client/http-answer-forms", "client/http-sse-fallback"):
                    self.assertEqual(v[check], "PASS", check)
                self.assertEqual(v["client/http-bearer"], "PASS" if "--token" in args else "SKIP")
                # scenario auth: a 401, then discovery (refclient stops short of a browser);
                # with a token there is no 401
                self.assertEqual(v["client/auth-metadata"],
                                 "PASS" if args[-1] == "2025-03-26" else "SKIP")
                self.assertEqual(v["client/auth-resource-metadata"],
                                 "PASS" if args[-1] == "2025-11-25" else "SKIP")
                self.assertEqual(v["client/http-protocol-version"],
                                 "SKIP" if args[-1] == "2025-03-26" else "PASS")
                self.assertEqual({v[k] for k in MODERN_HTTP_CHECKS}, {"SKIP"}, v)

    def test_clean_over_sse(self):
        # 2024-11-05's HTTP+SSE: the transport-neutral checks of that revision, and its own
        report = self.clean("--protocol-version", "2024-11-05", sse=True)
        v = verdicts(report)
        self.assertEqual(report["transport"], "sse")
        for check in ("client/sse-endpoint", "client/initialize-first", "client/ping",
                      "client/roots-list", "client/survives-huge", "client/progress"):
            self.assertEqual(v[check], "PASS", check)
        self.assertFalse([k for k in v if http_check(k)], v)  # Streamable HTTP's own
        self.assertEqual({c["revision"] for c in report["cases"]}, {"2024-11-05"})

    def test_clean_2026_over_http(self):
        runs = (("--protocol-version", "2026-07-28"), ("--protocol-version", "auto"))
        with ThreadPoolExecutor(max_workers=2) as pool:
            report, dual = pool.map(lambda a: self.clean(*a, http=True), runs)
        # dual-era: server/discover first; the legacy endpoint's 400 (no modern error) makes it
        # initialize (HTTP-058); every scenario is played, the modern ones statelessly
        v = verdicts(dual)
        # a legacy HTTP+SSE server at the URL: server/discover and initialize refused with
        # 405, it GETs the URL and initializes at the endpoint event's URI (HTTP-046)
        for check in MODERN_HTTP_CHECKS | {"client/http-era-fallback", "client/http-resume",
                                           "client/http-sse-fallback",
                                           "client/initialize-first", "client/batch",
                                           "client/auth-resource-metadata",
                                           "client/auth-register", "client/auth-issuer"}:
            self.assertEqual(v[check], "PASS", check)
        v = verdicts(report)
        # modern-only: it does not go on after the legacy endpoint's 400 (allowed)
        self.assertEqual(v["client/http-era-fallback"], "INFO")
        over_http = (MODERN_CHECKS - {"client/discover-first", "client/no-responses",
                                      "client/modern-methods", "client/input-required",
                 # client_cases_modern.c's, over HTTP too
                 "client/modern-paging", "client/extension-fallback", "client/opaque-codes"}
                     | MODERN_HTTP_CHECKS | {"client/http-bodies", "client/http-accept"})
        self.assertEqual({k: v[k] for k in over_http}, {k: "PASS" for k in over_http})
        # scenario auth is played for either era: the 401, discovery and registration
        for check in ("client/auth-resource-metadata", "client/auth-register",
                      "client/auth-issuer"):
            self.assertEqual(v[check], "PASS", check)
        # no session, no handshake: the session checks have nothing to judge
        for check in ("client/http-session-id", "client/http-delete", "client/initialize-first"):
            self.assertEqual(v[check], "SKIP", check)
        resume = [c for c in report["cases"] if c["id"] == "client/http-resume"][0]
        self.assertIn("not played", resume["reason"])  # a handshake-era scenario
        self.assertEqual(report["cases"][0]["revision"], "2026-07-28")

    @staticmethod
    def fault_case(row, http=False):
        """Run refclient with one fault, only the fault's check: (its case, stderr)."""
        name, _, check, description = row
        extra = " --no-caps" if name == "refuse-wrong-code" else ""
        for option in ("--deprecated-caps", "--sampling-tools"):  # 2026-07-28's declarations
            if option in description:
                extra += " " + option
        if "--token" in description:
            extra += " --token t0k"
        # the faults of 2026-07-28 say so ("HTTP, 2026-07-28: ..." too; an observer's, such as
        # extension-no-prefix, too); a dual-era one says "auto:"
        modern = check in MODERN_CHECKS or "2026-07-28:" in description
        if "auto:" in description:
            extra += " --protocol-version auto"
        elif modern:
            extra += " --protocol-version 2026-07-28"
        elif "2025-03-26:" in description:
            extra += " --protocol-version 2025-03-26"
        where = "--url {url}" if http else "-- {server}"
        if sse_check(check):  # HTTP+SSE, 2024-11-05's transport
            extra += " --protocol-version 2024-11-05"
            where = "--sse-url {sse-url}"
        with tempfile.TemporaryDirectory() as out:
            # Short waits: some faults leave a request of the client's unanswered.
            r = run_client("%s --fault %s%s %s" % (REFCLIENT, name, extra, where), out,
                           ["--case", check, "--timeout", "1", "--shutdown-grace", "0.3"])
            return [c for c in load(out)["cases"] if c["id"] == check], r.stderr

    def test_each_fault_fails_its_check(self):
        rows = faults()
        self.assertGreaterEqual(len(rows), 31)
        if SANITIZED:
            # The release build proves every fault; under the sanitizers about a dozen, spread
            # over the list (every scenario is played by the clean runs), keep mcpspec's paths
            # for a broken client, however many checks there come to be.
            rows = rows[::max(1, len(rows) // 12)]
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(lambda row: self.fault_case(row, http_check(row[2])), rows))
        for (name, reqs, check, _), (case, stderr) in zip(rows, results):
            with self.subTest(fault=name):
                self.assertEqual(len(case), 1, stderr)
                self.assertIn(case[0]["verdict"], ("FAIL", "WARN"), case[0])
                self.assertIn(reqs.split()[0], case[0]["broken"] or "", case[0])

    def test_each_fault_fails_its_check_over_http(self):
        # Transport-neutral faults, over HTTP: caught there too (a sample, for time: before
        # initialize, pipelined, an answer on the SSE stream, a crash, ids, a body that is
        # not JSON: RPC-MSG-001 over HTTP where stdio says STDIO-003, a cursor, a cancellation
        # and progress carried on the SSE stream).
        sample = ("ping-first", "no-wait", "ping-error", "crash-invalid-json", "reuse-id",
                  "stray-line", "sampling-no-model", "cursor-altered", "crash-on-cancel",
                  "progress-after-answer", "no-batch", "meta-no-clientinfo")
        rows = [row for row in faults() if row[0] in sample]
        self.assertEqual(len(rows), len(sample))
        if SANITIZED:  # half of them: the release build proves the verdicts
            rows = rows[::2]
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(lambda row: self.fault_case(row, True), rows))
        for (name, reqs, check, _), (case, stderr) in zip(rows, results):
            with self.subTest(fault=name):
                self.assertEqual(len(case), 1, stderr)
                self.assertIn(case[0]["verdict"], ("FAIL", "WARN"), case[0])
                self.assertTrue(case[0]["broken"], case[0])

    def test_every_check_has_a_fault(self):
        r = subprocess.run([MCPSPEC, "list", "--client"], capture_output=True, text=True,
                           timeout=10)
        self.assertEqual(r.returncode, 0, r.stderr)
        checks = {line.split()[0] for line in r.stdout.splitlines()}
        self.assertEqual(len(checks), 108)
        proven = {row[2] for row in faults()}
        self.assertLessEqual(proven, checks, "a fault names no check")
        # older-version cannot FAIL: a client may leave a revision it does not speak; nor can
        # deprecated-capabilities (INFO): an existing implementation may keep roots and sampling
        # through 2026-07-28's deprecation window (VER-011 binds new ones, which the wire cannot
        # tell apart).
        self.assertEqual(checks - proven,
                         {"client/older-version", "client/deprecated-capabilities"})

    def test_observers_judge_every_scenario(self):
        # Clean in the plain scenario, a stray line only when pinged: jsonrpc-lines sees it.
        client = os.path.join(ROOT, "tests", "clients", "garbles-on-ping.py")
        with tempfile.TemporaryDirectory() as out:
            r = run_client(client + " {server}", out,
                           ["--timeout", "1", "--case", "client/jsonrpc-lines",
                            "--case", "client/ping"])
            self.assertEqual(r.returncode, 1, r.stderr)
            case = [c for c in load(out)["cases"] if c["id"] == "client/jsonrpc-lines"][0]
            self.assertEqual(case["verdict"], "FAIL")
            self.assertIn("in scenario ping", case["observed"])

    def test_an_end_mcpspec_puts_is_not_the_clients(self):
        client = os.path.join(ROOT, "tests", "clients", "silent-after-initialize")
        with tempfile.TemporaryDirectory() as out:
            r = run_client(client + " {server}", out,
                           ["--timeout", "1", "--shutdown-grace", "0.3",
                            "--case", "client/unsupported-version"])
            self.assertEqual(r.returncode, 1, r.stderr)
            case = load(out)["cases"][0]
            self.assertEqual(case["verdict"], "FAIL", case["observed"])
            self.assertIn("neither disconnected nor exited", case["observed"])

    def test_configuration_names_the_client(self):
        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "client.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"client": {"command": REFCLIENT + " -- {server}", "stays": True}}, f)
            r = subprocess.run([MCPSPEC, "run", "--config", path, "--out", out, "--quiet",
                                "--case", "client/shutdown"], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            # refclient does close its server's stdin: a staying client would not.
            self.assertEqual(verdicts(load(out))["client/shutdown"], "PASS")

    def test_one_transport_a_run(self):
        with tempfile.TemporaryDirectory() as out:
            for cmd in (" --url {url} -- {server}", " --sse-url {sse-url} --url {url}"):
                r = run_client(REFCLIENT + cmd, out)
                self.assertEqual(r.returncode, 2, cmd)
                self.assertIn("one transport a run", r.stderr)

    def test_http_lists_its_checks(self):
        r = subprocess.run([MCPSPEC, "list", "--client", "--json"], capture_output=True,
                           text=True, timeout=10)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("client/http-session-404", r.stdout)
        self.assertIn("HTTP-039", r.stdout)
        by = {c["id"]: c["revisions_by_transport"] for c in json.loads(r.stdout)["checks"]}
        self.assertEqual(by["client/http-resume"]["streamable-http"],
                         ["2025-03-26", "2025-06-18", "2025-11-25"])
        self.assertEqual(by["client/meta-protocol-version"]["streamable-http"], ["2026-07-28"])
        self.assertNotIn("stdio", by["client/http-stream-retry"])
        self.assertEqual(by["client/sse-endpoint"], {"sse": ["2024-11-05"]})
        self.assertEqual(by["client/ping"]["sse"], ["2024-11-05"])
        self.assertNotIn("sse", by["client/http-session-id"])

    def test_serve_needs_a_socket(self):
        r = subprocess.run([MCPSPEC, "serve"], capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 2)
        r = subprocess.run([MCPSPEC, "serve", "--connect", "/nonexistent/s"],
                           capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot connect", r.stderr)


class HostileClientTest(unittest.TestCase):
    def run_hostile(self, name, budget, cases, codes=(1, 3), url=False, where=None):
        token = "%s-%d" % (name, os.getpid())
        args = [*FAST, "--deadline", "20", "--env", "MCPSPEC_HOSTILE=" + token]
        for c in cases:
            args += ["--case", c]
        with tempfile.TemporaryDirectory() as out:
            t0 = time.monotonic()
            where = where or (" {url}" if url else " {server}")
            r = run_client(os.path.join(HOSTILE, name) + where, out, args)
            elapsed = time.monotonic() - t0
            self.assertIn(r.returncode, codes, r.stderr)
            self.assertLess(elapsed, budget * SLOW, "%s took %.1f s" % (name, elapsed))
            report = load(out)
            self.assertEqual(report["summary"]["exit_code"], r.returncode)
            self.assertLess(report["harness"]["max_rss_kib"], MEMORY_LIMIT_KIB)
            for f in FORMATS:
                self.assertGreater(os.path.getsize(os.path.join(out, f)), 0, f)
        time.sleep(0.2)
        self.assertEqual(marked(token), [], "processes left behind")
        return report

    def test_never_connects(self):
        report = self.run_hostile("never-connects", 2 + 0.6 + 3, [])
        self.assertEqual(set(verdicts(report).values()), {"ERROR"})
        self.assertIn("did not start its server", report["fatal"])

    def test_flood(self):
        report = self.run_hostile("flood", 8, ["client/initialize-first", "client/ping"])
        v = verdicts(report)
        self.assertEqual(v["client/initialize-first"], "FAIL")
        self.assertEqual(v["client/ping"], "SKIP")

    def test_flood_big(self):
        self.run_hostile("flood-big", 8, ["client/jsonrpc-lines"], codes=(0, 1, 3))

    def test_drop_mid_request(self):
        report = self.run_hostile("drop-mid-request", 6,
                                  ["client/initialized-notification", "client/shutdown"])
        v = verdicts(report)
        self.assertEqual(v["client/initialized-notification"], "FAIL")
        self.assertEqual(v["client/shutdown"], "PASS")

    def test_never_connects_over_http(self):
        with tempfile.TemporaryDirectory() as out:
            t0 = time.monotonic()
            r = run_client(os.path.join(HOSTILE, "never-connects") + " {url}", out,
                           [*FAST, "--deadline", "20"])
            self.assertLess(time.monotonic() - t0, 6 * SLOW)
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertIn("no initialize to {url}", load(out)["fatal"])

    def test_flood_over_http(self):
        report = self.run_hostile("flood-http", 10, ["client/initialize-first",
                                                     "client/http-accept"], url=True)
        v = verdicts(report)
        self.assertEqual(v["client/initialize-first"], "ERROR")  # it never sends initialize

    def test_flood_over_sse(self):
        # HTTP+SSE: the stream opened, then notifications POSTed to its endpoint without end
        report = self.run_hostile("flood-sse", 10, ["client/initialize-first",
                                                    "client/sse-endpoint"], where=" {sse-url}")
        case = report["cases"][0]
        self.assertEqual(case["verdict"], "ERROR")  # it never sends initialize
        # the message cap ends it ("without sending initialize"), or on a loaded machine the
        # connect timeout first ("no initialize ... within"): never initialized, either way
        self.assertRegex(case["observed"], r"(without sending|sent no) initialize to \{sse-url\}")

    def test_drop_mid_request_over_http(self):
        report = self.run_hostile("drop-mid-request-http", 6,
                                  ["client/initialized-notification", "client/http-delete"],
                                  url=True)
        v = verdicts(report)
        self.assertEqual(v["client/initialized-notification"], "FAIL")
        self.assertEqual(v["client/http-delete"], "WARN")

    def test_restart_loop_over_http(self):
        # A new session each time, never going on: served up to the message caps, then ended.
        report = self.run_hostile("restart-loop-http", 8, ["client/initialize-first",
                                                           "client/initialized-notification"],
                                  url=True)
        v = verdicts(report)
        self.assertEqual(v["client/initialize-first"], "PASS")
        self.assertEqual(v["client/initialized-notification"], "FAIL")

    def test_restart_loop(self):
        # Each start closes its server at once: nothing to judge, and nothing passes.
        report = self.run_hostile("restart-loop", 8, ["client/initialize-first", "client/ping"],
                                  codes=(0, 1, 3))
        self.assertEqual(set(verdicts(report).values()), {"SKIP"})


if __name__ == "__main__":
    unittest.main()
