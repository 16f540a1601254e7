#!/usr/bin/python3
"""The GitHub Action (action.yml), run here without a runner: its composite
steps are read from action.yml and run in order, as a runner would, with bash
(`bash --noprofile --norc -eo pipefail`), their `${{ }}` expressions evaluated
(inputs, step outputs, github.event_name as on a push), each step's `if:`
judged, and GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ACTION_PATH and
RUNNER_TEMP pointing at temporary files. The `uses:` steps (the artifact and
code-scanning uploads) are not run: their inputs are evaluated and the files
they would upload must exist.

Against the build tree's refserver it checks: a clean run passes and writes
the Markdown summary to the job summary and the outputs; a fault makes the last
step exit 1 after the reports and the summary are written; a baseline excuses
it; a usage error fails with 2 and says so in the summary; `args` is split
with quotes and never run by a shell. The build mode runs scripts/setup
release in the action's path (a stand-in setup script records that, since a
real build takes minutes), and the .deb mode installs the given file with
apt-get (stand-ins on PATH). The workflow .github/workflows/mcpspec.yml is
checked too: valid YAML, `uses: ./` with inputs the action has, outputs it
has, and files that exist.

Needs PyYAML (Debian's python3-yaml, which scripts/setup installs): exit 77
without it. Release build only (exit 77 under the sanitizers): the steps are
bash around the program, which the other tests run under ASan."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN_DIR, MCPSPEC, ROOT  # noqa: E402

try:
    import yaml
except ImportError:  # pragma: no cover - reported as a skip below
    yaml = None

ACTION = os.path.join(ROOT, "action.yml")
WORKFLOW = os.path.join(ROOT, ".github", "workflows", "mcpspec.yml")
REFSERVER = os.path.abspath(os.path.join(BIN_DIR, "refserver"))
MCPSPEC_ABS = os.path.abspath(MCPSPEC)
BASELINE = os.path.join(ROOT, "tests", "data", "action", "ping-result-null.baseline.json")
TOKEN = re.compile(r"\s*(?:('[^']*')|(==|!=|&&|\|\||!|\(|\))|([A-Za-z_][A-Za-z0-9_.\-]*))")


def load_yaml(path):
    with open(path) as f:
        return yaml.safe_load(f)


class Expr:
    """The subset of GitHub's expression language action.yml uses: contexts
    (inputs.X, steps.ID.outputs.X, github.*), 'strings', == != && || ! and
    parentheses. Anything else is an error, so the test notices new syntax."""

    def __init__(self, contexts):
        self.contexts = contexts

    def lookup(self, name):
        value = self.contexts
        for part in name.split("."):
            if not isinstance(value, dict):
                return None
            if part not in value and value is self.contexts:
                raise ValueError("unknown context in expression: " + name)
            value = value.get(part)
        return value

    def evaluate(self, text):
        code, pos = [], 0
        text = text.strip()
        while pos < len(text):
            m = TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ValueError("unsupported expression syntax: %r at %d" % (text, pos))
            pos = m.end()
            string, op, name = m.groups()
            if string is not None:
                code.append(repr(string[1:-1]))
            elif op:
                code.append({"&&": " and ", "||": " or ", "!": " not "}.get(op, op))
            elif name in ("true", "false", "null"):
                code.append({"true": "True", "false": "False", "null": "None"}[name])
            else:
                code.append("_v(%r)" % name)
        return eval("".join(code), {"__builtins__": {}}, {"_v": self.value})

    def value(self, name):
        v = self.lookup(name)
        return "" if v is None and name.startswith(("inputs.", "steps.")) else v

    def substitute(self, text):
        def one(m):
            v = self.evaluate(m.group(1))
            return "" if v is None else ("true" if v is True else "false" if v is False else str(v))
        return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))


def parse_outputs(path):
    """GITHUB_OUTPUT's format: NAME=VALUE lines, or NAME<<DELIM ... DELIM."""
    with open(path) as f:
        lines = f.read().splitlines()
    out = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            end = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1:end])
            i = end + 1
            continue
        if line:
            name, value = line.split("=", 1)
            out[name] = value
        i += 1
    return out


class Run:
    """One run of the composite action: what a runner would have shown."""

    def __init__(self):
        self.steps = []  # (name, "success" | "failure" | "skipped", exit code or None)
        self.uses = []  # (name, action, evaluated with:)
        self.outputs = {}
        self.summary = ""
        self.log = ""

    def outcome(self, name):
        return next(s[1] for s in self.steps if s[0] == name)

    def code(self, name):
        return next(s[2] for s in self.steps if s[0] == name)


def run_bash(script_text, cwd, env, timeout):
    """A `shell: bash` step as a runner runs it."""
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write(script_text)
    try:
        return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", f.name],
                              cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    finally:
        os.unlink(f.name)


def run_action(workspace, inputs, action_path=ROOT, path_prefix=None, timeout=180):
    action = load_yaml(os.path.join(action_path, "action.yml"))
    declared = action["inputs"]
    unknown = set(inputs) - set(declared)
    if unknown:
        raise AssertionError("inputs the action does not have: %s" % sorted(unknown))
    values = {k: str(v.get("default", "")) for k, v in declared.items()}
    values.update(inputs)
    runner_temp = tempfile.mkdtemp(dir=workspace, prefix="runner-temp.")
    summary = os.path.join(runner_temp, "step-summary.md")
    open(summary, "w").close()
    steps_ctx = {}
    github = {"event_name": "push", "event": {}, "action_path": action_path,
              "workspace": workspace}
    expr = Expr({"inputs": values, "steps": steps_ctx, "github": github})
    result, failed = Run(), False
    for i, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", "step %d" % i)
        cond = step.get("if")
        if failed or (cond is not None and not expr.evaluate(str(cond).replace("${{", "")
                                                              .replace("}}", ""))):
            result.steps.append((name, "skipped", None))
            continue
        sid = step.get("id")
        if "uses" in step:
            withs = {k: expr.substitute(v) for k, v in (step.get("with") or {}).items()}
            result.uses.append((name, step["uses"], withs))
            result.steps.append((name, "success", None))
            continue
        if step.get("shell") != "bash":
            raise AssertionError("step %r: shell is %r, not bash" % (name, step.get("shell")))
        output = os.path.join(runner_temp, "output.%d" % i)
        open(output, "w").close()
        env = dict(os.environ)
        env.pop("MCPSPEC_SUITES", None)
        if path_prefix:
            env["PATH"] = path_prefix + os.pathsep + env["PATH"]
        env.update({"GITHUB_OUTPUT": output, "GITHUB_STEP_SUMMARY": summary,
                    "GITHUB_ACTION_PATH": action_path, "GITHUB_WORKSPACE": workspace,
                    "RUNNER_TEMP": runner_temp, "GITHUB_EVENT_NAME": "push"})
        env.update({k: expr.substitute(v) for k, v in (step.get("env") or {}).items()})
        cwd = os.path.join(workspace, expr.substitute(step.get("working-directory", ".")))
        p = run_bash(expr.substitute(step["run"]), cwd, env, timeout)
        result.log += "== %s (exit %d)\n%s%s" % (name, p.returncode, p.stdout, p.stderr)
        if sid:
            steps_ctx[sid] = {"outputs": parse_outputs(output),
                              "outcome": "success" if p.returncode == 0 else "failure"}
        result.steps.append((name, "success" if p.returncode == 0 else "failure", p.returncode))
        failed = p.returncode != 0 and not step.get("continue-on-error")
    result.outputs = {k: expr.substitute(v["value"]) for k, v in action["outputs"].items()}
    with open(summary) as f:
        result.summary = f.read()
    return result


def stand_in_checkout(path):
    """A checkout of this repository as the runner would have it, whose scripts/setup
    records its arguments and "builds" by linking the build folder where a release
    build puts it (a real build takes minutes)."""
    os.makedirs(os.path.join(path, "scripts"))
    os.makedirs(os.path.join(path, "build"))
    for name in ("action.yml", "tests", "suites"):
        os.symlink(os.path.join(ROOT, name), os.path.join(path, name))
    setup = os.path.join(path, "scripts", "setup")
    with open(setup, "w") as f:
        f.write('#!/bin/bash\nset -euo pipefail\ncd "$(dirname "$0")/.."\n'
                'echo "$@" >>scripts/called\nln -sfn %s build/release\n'
                % os.path.abspath(BIN_DIR))
    os.chmod(setup, 0o755)


class ActionTest(unittest.TestCase):
    def setUp(self):
        self.workspace = tempfile.mkdtemp(prefix="mcpspec-action.")
        self.addCleanup(shutil.rmtree, self.workspace, True)

    def run_it(self, **inputs):
        inputs.setdefault("mcpspec", MCPSPEC_ABS)
        return run_action(self.workspace, inputs)

    def report(self, run):
        with open(os.path.join(run.outputs["report-dir"], "report.json")) as f:
            return json.load(f)

    def test_clean_run_passes(self):
        r = self.run_it(server=REFSERVER, suite="ping")
        self.assertEqual([s[1] for s in r.steps if s[2] is not None], ["success"] * 4, r.log)
        self.assertEqual(r.outputs["exit-code"], "0")
        report_dir = os.path.join(self.workspace, "mcpspec-report")
        self.assertEqual(r.outputs["report-dir"], report_dir)
        with open(os.path.join(report_dir, "summary.md")) as f:
            self.assertEqual(r.summary, f.read())
        self.assertTrue(r.summary.startswith("# ✅ mcpspec"), r.summary[:200])
        # The uploads a runner would make, with files that exist.
        uses = {u[1]: u[2] for u in r.uses}
        self.assertEqual(sorted(uses), ["actions/upload-artifact@v4",
                                        "github/codeql-action/upload-sarif@v3"])
        paths = uses["actions/upload-artifact@v4"]["path"].split()
        self.assertIn(os.path.join(report_dir, "junit.xml"), paths)
        for p in paths:
            self.assertTrue(os.path.exists(p), p)
        self.assertEqual(uses["actions/upload-artifact@v4"]["name"], "mcpspec-report")
        self.assertTrue(os.path.exists(uses["github/codeql-action/upload-sarif@v3"]["sarif_file"]))
        self.assertEqual({c["id"].split("/")[0] for c in self.report(r)["cases"]} - {"observe",
                         "discovery"}, {"ping"})

    def test_fault_fails_after_reporting(self):
        r = self.run_it(server=REFSERVER + " --fault ping-result-null", suite="ping",
                        out="reports/fault", **{"upload-sarif": "false"})
        self.assertEqual(r.outputs["exit-code"], "1")
        self.assertEqual(r.steps[-1][1:], ("failure", 1), r.log)
        self.assertIn("::error title=mcpspec::mcpspec exited 1", r.log)
        self.assertTrue(r.summary.startswith("# ❌ mcpspec: FAIL"), r.summary[:200])
        self.assertIn("ping/empty-result", r.summary)
        self.assertEqual([u[1] for u in r.uses], ["actions/upload-artifact@v4"])  # no SARIF upload
        self.assertTrue(os.path.exists(os.path.join(self.workspace, "reports/fault/junit.xml")))

    def test_baseline_excuses_the_fault(self):
        r = self.run_it(server=REFSERVER + " --fault ping-result-null", suite="ping",
                        baseline=BASELINE, revision="2025-06-18, 2025-11-25")
        self.assertEqual((r.outputs["exit-code"], r.steps[-1][1]), ("0", "success"), r.log)
        self.assertIn("baselined", r.summary)
        revisions = {c["revision"] for c in self.report(r)["cases"]
                     if c["id"].startswith("ping/")}
        self.assertEqual(revisions, {"2025-06-18", "2025-11-25"})

    def test_usage_error_fails_with_2(self):
        r = self.run_it(server=REFSERVER, args="--no-such-option")
        self.assertEqual(r.outputs["exit-code"], "2")
        self.assertEqual(r.steps[-1][1:], ("failure", 2), r.log)
        self.assertIn("mcpspec exited 2", r.summary)

    def test_args_are_split_not_run(self):
        marker = os.path.join(self.workspace, "injected")
        r = self.run_it(server=REFSERVER, args="--case 'ping/empty-result' --timeout \"5\" "
                        "--env 'X=$(touch %s)'" % marker)
        self.assertEqual(r.outputs["exit-code"], "0", r.log)
        self.assertFalse(os.path.exists(marker))
        cases = {c["id"] for c in self.report(r)["cases"] if not c["id"].startswith(
            ("observe/", "discovery/"))}
        self.assertEqual(cases, {"ping/empty-result"})
        r = self.run_it(server=REFSERVER, args="--case 'unterminated")
        self.assertEqual(r.outputs["exit-code"], "2")
        self.assertIn("cannot split the args input", r.log)

    def test_build_mode_runs_setup_release(self):
        path = os.path.join(self.workspace, "action")
        stand_in_checkout(path)
        r = run_action(self.workspace, {"server": REFSERVER, "suite": "ping"}, action_path=path)
        with open(os.path.join(path, "scripts", "called")) as f:
            self.assertEqual(f.read(), "release\n")
        self.assertEqual(r.outputs["exit-code"], "0", r.log)
        self.assertIn("suites: " + os.path.join(ROOT, "suites"), r.log)
        # The real script takes that preset.
        with open(os.path.join(ROOT, "CMakePresets.json")) as f:
            self.assertIn("release", [p["name"] for p in json.load(f)["configurePresets"]])

    def test_deb_mode_installs_with_apt(self):
        stubs = os.path.join(self.workspace, "stubs")
        os.makedirs(stubs)
        calls = os.path.join(self.workspace, "apt-calls")
        for name, body in (("apt-get", 'echo "$@" >>%s\n' % calls), ("sudo", 'exec "$@"\n')):
            with open(os.path.join(stubs, name), "w") as f:
                f.write("#!/bin/bash\n" + body)
            os.chmod(os.path.join(stubs, name), 0o755)
        os.symlink(MCPSPEC_ABS, os.path.join(stubs, "mcpspec"))
        deb = os.path.join(self.workspace, "dist", "mcpspec_0_amd64.deb")
        os.makedirs(os.path.dirname(deb))
        open(deb, "w").close()
        r = run_action(self.workspace, {"server": REFSERVER, "suite": "ping",
                                        "deb": "dist/mcpspec_0_amd64.deb"}, path_prefix=stubs)
        with open(calls) as f:
            self.assertEqual(f.read(), "install -y -q %s\n" % deb)
        self.assertEqual(r.outputs["exit-code"], "0", r.log)

    def test_action_file(self):
        action = load_yaml(ACTION)
        self.assertEqual(action["runs"]["using"], "composite")
        with open(ACTION) as f:
            text = f.read()
        for name in re.findall(r"inputs\.([A-Za-z0-9_-]+)", text):
            self.assertIn(name, action["inputs"])
        ids = []
        for step in action["runs"]["steps"]:
            for sid, _ in re.findall(r"steps\.([A-Za-z0-9_-]+)\.(outputs|outcome)",
                                     json.dumps(step)):
                self.assertIn(sid, ids, "step %r uses a later or unknown step" % step["name"])
            if "id" in step:
                ids.append(step["id"])
            if "run" in step:
                p = subprocess.run(["bash", "-n"], input=step["run"], capture_output=True,
                                   text=True)
                self.assertEqual(p.returncode, 0, step["name"] + ": " + p.stderr)
        self.assertEqual(sorted(action["outputs"]), ["exit-code", "report-dir"])

    def test_workflow_file(self):
        workflow = load_yaml(WORKFLOW)
        self.assertIn(True if True in workflow else "on", workflow)  # YAML 1.1 reads on: as true
        inputs = load_yaml(ACTION)["inputs"]
        outputs = set(load_yaml(ACTION)["outputs"])
        ours = 0
        for job in workflow["jobs"].values():
            ids = {s["id"]: s for s in job["steps"] if "id" in s}
            for step in job["steps"]:
                if step.get("uses") == "./":
                    ours += 1
                    # Strings only: a YAML date or number would depend on the parser's types.
                    for key, value in step.get("with", {}).items():
                        self.assertIsInstance(value, str, "with.%s in %r" % (key, step))
                    self.assertEqual(set(step.get("with", {})) - set(inputs), set(), step)
                    for key in ("baseline", "config"):
                        if key in step.get("with", {}):
                            self.assertTrue(os.path.exists(os.path.join(ROOT, step["with"][key])))
                for sid, out in re.findall(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)",
                                           json.dumps(step)):
                    self.assertIn(sid, ids)
                    if ids[sid].get("uses") == "./":
                        self.assertIn(out, outputs)
                if "run" in step:
                    p = subprocess.run(["bash", "-n"], input=step["run"], capture_output=True,
                                       text=True)
                    self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreaterEqual(ours, 3)
        # The fault run is expected to fail, and checked.
        faulty = [s for j in workflow["jobs"].values() for s in j["steps"]
                  if s.get("uses") == "./" and "--fault" in s.get("with", {}).get("server", "")
                  and "baseline" not in s.get("with", {})]
        self.assertTrue(faulty and all(s.get("continue-on-error") for s in faulty))
        # The other workflow still parses.
        for name in os.listdir(os.path.dirname(WORKFLOW)):
            self.assertIn("jobs", load_yaml(os.path.join(os.path.dirname(WORKFLOW), name)))

    def test_docs(self):
        """docs/ci.md: its inputs table is action.yml's, its YAML examples parse, the
        GitHub ones use inputs the action has, the GitLab jobs keep junit.xml."""
        with open(os.path.join(ROOT, "docs", "ci.md")) as f:
            doc = f.read()
        action = load_yaml(ACTION)
        table = re.findall(r"^\| `([a-z-]+)` \|", doc.split("### Inputs", 1)[1].split("\n#", 1)[0],
                           re.M)
        self.assertEqual(sorted(table), sorted(action["inputs"]))
        blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", doc, re.S)]
        uses = [s for b in blocks if isinstance(b, list) for s in b if "uses" in s]
        uses += [s for b in blocks if isinstance(b, dict) for j in b.get("jobs", {}).values()
                 for s in j["steps"] if "uses" in s]
        ours = [s for s in uses if "/mcpspec@" in s["uses"]]
        self.assertGreaterEqual(len(ours), 2)
        for step in ours:
            self.assertEqual(set(step.get("with", {})) - set(action["inputs"]), set(), step)
        gitlab = [b["mcpspec"] for b in blocks if isinstance(b, dict) and "mcpspec" in b]
        self.assertEqual(len(gitlab), 2)
        for job in gitlab:
            self.assertEqual(job["artifacts"]["reports"]["junit"], "mcpspec-report/junit.xml")
            self.assertEqual(job["artifacts"]["when"], "always")
            p = subprocess.run(["bash", "-n"], input="\n".join(job["before_script"] +
                               job["script"]), capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)


def run_job(job, workspace):
    """Run a workflow job's steps in workspace, as a runner would on a push: `run:`
    steps with bash, `uses: ./` through run_action. Steps that prepare the runner
    (actions/checkout, apt-get) are listed, not run. Returns (steps, log): each
    step's name, outcome and what it was (run, action, skipped)."""
    steps_ctx, done, log, failed = {}, [], "", False
    expr = Expr({"steps": steps_ctx, "github": {"event_name": "push", "workspace": workspace},
                 "runner": {"temp": workspace}})
    for i, step in enumerate(job["steps"]):
        name = step.get("name") or step.get("uses") or step.get("run", "").split("\n")[0]
        cond = step.get("if")
        if failed or (cond is not None and not expr.evaluate(str(cond))):
            done.append((name, "skipped", "skipped"))
            continue
        uses, outcome = step.get("uses"), "success"
        if uses and uses.startswith("actions/checkout") or "apt-get" in step.get("run", ""):
            done.append((name, "success", "runner preparation, not run"))
            continue
        if uses == "./":
            inputs = {k: expr.substitute(v) for k, v in (step.get("with") or {}).items()}
            r = run_action(workspace, inputs, action_path=workspace)
            log += "== %s\n%s" % (name, r.log)
            outcome = "failure" if any(s[1] == "failure" for s in r.steps) else "success"
            outputs, kind = r.outputs, "action"
        elif uses:
            done.append((name, "success", "uses %s, not run" % uses))
            continue
        else:
            env = dict(os.environ, GITHUB_WORKSPACE=workspace, RUNNER_TEMP=workspace)
            env.update({k: expr.substitute(v) for k, v in (step.get("env") or {}).items()})
            p = run_bash(expr.substitute(step["run"]), workspace, env, 300)
            log += "== %s (exit %d)\n%s%s" % (name, p.returncode, p.stdout, p.stderr)
            outcome, outputs, kind = ("success" if p.returncode == 0 else "failure"), {}, "run"
        if "id" in step:
            steps_ctx[step["id"]] = {"outcome": outcome, "outputs": outputs,
                                     "conclusion": "success" if step.get("continue-on-error")
                                     else outcome}
        done.append((name, outcome, kind))
        failed = outcome == "failure" and not step.get("continue-on-error")
    return done, log


class WorkflowJobTest(unittest.TestCase):
    def test_action_job_runs_green(self):
        """The `action` job of .github/workflows/mcpspec.yml, every step but the runner's
        preparation, in a stand-in checkout (scripts/setup links the build)."""
        workspace = tempfile.mkdtemp(prefix="mcpspec-workflow.")
        self.addCleanup(shutil.rmtree, workspace, True)
        stand_in_checkout(workspace)
        steps, log = run_job(load_yaml(WORKFLOW)["jobs"]["action"], workspace)
        outcomes = {name: outcome for name, outcome, _ in steps}
        self.assertEqual(outcomes.pop("A fault fails the run"), "failure", log)
        self.assertEqual(set(outcomes.values()), {"success"}, "%s\n%s" % (steps, log))
        ran = [name for name, _, kind in steps if kind in ("run", "action")]
        self.assertGreaterEqual(len(ran), 6, steps)
        with open(os.path.join(workspace, "scripts", "called")) as f:
            self.assertEqual(f.read(), "release\nrelease\n")  # the job's build, the Action's
        print("\n".join("%-58s %-8s %s" % s for s in steps), file=sys.stderr)


if __name__ == "__main__":
    if os.environ.get("MCPSPEC_BUILD_TYPE", "") == "Sanitize":
        print("SKIP: the Action's steps are checked in the release build", file=sys.stderr)
        sys.exit(77)
    if yaml is None:
        print("SKIP: no PyYAML (Debian's python3-yaml; scripts/setup installs it)",
              file=sys.stderr)
        sys.exit(77)
    unittest.main()
