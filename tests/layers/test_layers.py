#!/usr/bin/python3
"""The layers the build enforces: the README's graph is the one CMakeLists.txt
gives the libraries, each layer's compile sees exactly its own headers and
those of the layers below it, and no include climbs out with "../".

Reads the build folder's layers/graph.txt (written at configure time, one line
per layer: the layer, then the layers it links) and compile_commands.json
(each layer's own compile command, rerun on a one-line probe, preprocessor
only)."""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN_DIR = os.environ.get("MCPSPEC_BIN_DIR", os.path.join(ROOT, "build", "release"))
HARNESS = os.path.join(ROOT, "harness")
INCLUDE = re.compile(r'^\s*#\s*include\s*["<]([^">]*)[">]')
SKIP_DIRS = {"build", ".cache", ".git", "corpus", "node_modules", "reports"}


def build_graph():
    graph = {}
    with open(os.path.join(BIN_DIR, "layers", "graph.txt")) as f:
        for line in f:
            words = line.split()
            if words:
                graph[words[0]] = set(words[1:])
    return graph


def readme_graph():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    m = re.search(r"```mermaid\n(.*?)```", text, re.S)
    if not m:
        return None
    graph = {}
    for a, b in re.findall(r"^\s*(\w+)\s*-->\s*(\w+)\s*$", m.group(1), re.M):
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    return graph


def below(graph, layer):
    """Every layer `layer` reaches through its links."""
    seen, todo = set(), list(graph[layer])
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo.extend(graph.get(x, ()))
    return seen


def probe_command(entry, probe):
    """The entry's compile command, preprocessing probe instead of its file."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "-MT", "-MF", "-MQ"):
            skip = True
        elif a in ("-c", "-MD", "-MMD") or a == entry["file"]:
            continue
        else:
            out.append(a)
    return out + ["-E", "-o", os.devnull, probe]


class LayersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.graph = build_graph()

    def test_readme_graph_is_the_build_graph(self):
        want = readme_graph()
        self.assertIsNotNone(want, "README.md has no ```mermaid block with the layer graph")
        edges = lambda g: {(a, b) for a, bs in g.items() for b in bs}
        have = edges(self.graph)
        shown = edges(want)
        self.assertEqual(
            shown, have,
            "README.md's layer graph differs from CMakeLists.txt (mcps_layer calls): "
            f"only in the README {sorted(shown - have)}, only in CMake {sorted(have - shown)}")

    def test_graph_is_one_way_and_covers_every_folder(self):
        for layer in self.graph:
            self.assertNotIn(layer, below(self.graph, layer), f"{layer} reaches itself: a cycle")
        folders = {d for d in os.listdir(HARNESS) if os.path.isdir(os.path.join(HARNESS, d))}
        self.assertEqual(folders, set(self.graph),
                         "every harness/ folder is a layer in CMakeLists.txt, and only those")

    def test_each_layer_sees_exactly_the_layers_below(self):
        with open(os.path.join(BIN_DIR, "compile_commands.json")) as f:
            entries = json.load(f)
        own = {}
        for e in entries:
            rel = os.path.relpath(e["file"], HARNESS).split(os.sep)
            if len(rel) == 2 and rel[0] in self.graph:
                own.setdefault(rel[0], e)
        self.assertEqual(set(own), set(self.graph), "a compile command for every layer")
        header = {l: sorted(h for h in os.listdir(os.path.join(HARNESS, l)) if h.endswith(".h"))[0]
                  for l in self.graph}
        wrong = []
        with tempfile.TemporaryDirectory() as tmp:
            for layer, entry in sorted(own.items()):
                allowed = below(self.graph, layer) | {layer}
                for other in sorted(self.graph):
                    probe = os.path.join(tmp, f"{layer}_{other}.c")
                    with open(probe, "w") as f:
                        f.write(f'#include "{other}/{header[other]}"\n')
                    r = subprocess.run(probe_command(entry, probe), cwd=entry["directory"],
                                       capture_output=True, text=True, timeout=60)
                    if (r.returncode == 0) != (other in allowed):
                        how = "sees" if r.returncode == 0 else "cannot see"
                        wrong.append(f"{layer} {how} {other}/{header[other]}: {r.stderr.strip()[:300]}")
        self.assertEqual(wrong, [], "\n".join(wrong))

    def test_no_include_climbs_out(self):
        bad = []
        for top in ("harness", "targets", "fuzz", "tests", "scripts"):
            for d, dirs, files in os.walk(os.path.join(ROOT, top)):
                dirs[:] = [x for x in dirs if x not in SKIP_DIRS]
                for name in files:
                    if not name.endswith((".c", ".h")):
                        continue
                    path = os.path.join(d, name)
                    with open(path, errors="replace") as f:
                        for n, line in enumerate(f, 1):
                            m = INCLUDE.match(line)
                            if m and (".." in m.group(1).split("/") or m.group(1).startswith("/")):
                                bad.append(f"{os.path.relpath(path, ROOT)}:{n}: {line.strip()}")
        self.assertEqual(bad, [], "includes that climb out of the include path (use LAYER/NAME.h):\n"
                         + "\n".join(bad))


if __name__ == "__main__":
    unittest.main(verbosity=2)
