#!/usr/bin/python3
"""--isolation shared (the default) must say exactly what --isolation fresh says.

Shared mode runs the cases that leave a session clean one after another on a
shared process (suites/README.md, Isolation); fresh mode gives every case a
process of its own. Against the clean reference server, running every suite,
both modes must give the same verdict for every (revision, case), and shared
mode must start far fewer processes. The same identity with each of
refserver's faults is part of the fault table (test_faults.py runs every
stdio fault in both modes), so that each fault's shared run serves both
proofs. Under the sanitizers (MCPSPEC_BUILD_TYPE Sanitize) the identity is the
release build's to prove; both modes run four suites there, for the code.
"""
import concurrent.futures
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_faults import Fixture, differences  # noqa: E402

SUITES = (("ping", "tools", "resources", "prompts") if os.environ.get("MCPSPEC_BUILD_TYPE", "") ==
          "Sanitize" else ())


class IsolationTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fixture = Fixture()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.fixture.dir, ignore_errors=True)

    def test_clean_refserver_same_verdicts(self):
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            (_, fresh), (_, shared) = pool.map(
                lambda m: self.fixture.run(suites=SUITES, isolation=m),
                ("fresh", "shared"))
        self.assertEqual(differences("clean", fresh, shared), [])
        self.assertEqual(fresh["harness"]["isolation"], "fresh")
        self.assertEqual(shared["harness"]["isolation"], "shared")
        started = fresh["harness"]["processes_started"], shared["harness"]["processes_started"]
        self.assertLess(started[1], started[0] * 0.7, "shared mode shares: %s" % (started,))
        # A shared case's log says where it ran and where the handshake is.
        notes = [e["text"] for c in shared["cases"] for e in c.get("wire") or []
                 if e["dir"] == "event" and "shared process" in e["text"]]
        self.assertTrue(notes and "handshake" in notes[0], notes[:1])


if __name__ == "__main__":
    unittest.main()
