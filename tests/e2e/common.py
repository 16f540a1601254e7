"""Shared helpers for the end-to-end tests: where the binaries are, running them."""
import os
import socket
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN_DIR = os.environ.get("MCPSPEC_BIN_DIR", os.path.join(ROOT, "build", "release"))
SHARED = os.environ.get("MCPSPEC_SHARED", os.path.join(ROOT, "..", "shared"))
MCPSPEC = os.path.join(BIN_DIR, "mcpspec")
DATA = os.path.join(ROOT, "tests", "data")
CATALOG = os.path.join(SHARED, "spec", "requirements.json")


def run(args, timeout=60, **kw):
    """Run a command, capturing text output; never hangs past timeout."""
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)


def main_needing_catalog():
    """unittest.main(), or exit 77 (ctest's SKIP_RETURN_CODE, tests/CMakeTests.cmake: shown as
    skipped, not passed) when ../shared's requirement catalog is not beside the checkout."""
    import sys
    import unittest
    if not os.path.exists(CATALOG):
        print("SKIP: no requirement catalog at %s (../shared beside the checkout)" % CATALOG,
              file=sys.stderr)
        sys.exit(77)
    unittest.main(module="__main__")


def free_port():
    """A port of 127.0.0.1 nobody listens on now (closed again: the server takes it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    """Whether something accepts connections on 127.0.0.1:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0
