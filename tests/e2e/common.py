"""Shared helpers for the end-to-end tests: where the binaries are, running them."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN_DIR = os.environ.get("MCPSPEC_BIN_DIR", os.path.join(ROOT, "build", "release"))
SHARED = os.environ.get("MCPSPEC_SHARED", os.path.join(ROOT, "..", "shared"))
MCPSPEC = os.path.join(BIN_DIR, "mcpspec")
DATA = os.path.join(ROOT, "tests", "data")


def run(args, timeout=60, **kw):
    """Run a command, capturing text output; never hangs past timeout."""
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)
