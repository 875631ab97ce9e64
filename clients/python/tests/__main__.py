"""`python3 -m tests` (from clients/python): every test, then "N passed, M failed" (a skipped test counts as failed)."""

import sys
import unittest
from pathlib import Path

here = Path(__file__).resolve().parent
suite = unittest.defaultTestLoader.discover(str(here), top_level_dir=str(here.parent))
result = unittest.TextTestRunner(verbosity=2).run(suite)
failed = len(result.failures) + len(result.errors) + len(result.skipped) + len(result.unexpectedSuccesses)
print(f"{result.testsRun - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
