"""The suite's own markers: a test meaningful on one backend is collected for that one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def collected(*node_ids: str) -> list[str]:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "-p", "no:xdist", *node_ids],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    return [line for line in run.stdout.splitlines() if "::" in line]


def test_a_test_marked_for_one_backend_is_collected_for_that_one_alone():
    found = collected(
        "tests/test_config.py::test_the_app_warns_when_its_role_bypasses_row_level_security",
        "tests/api/test_unchanged_kept.py::test_sqlite_keeps_nothing",
        "tests/test_config.py::test_development_sends_no_hsts",
    )
    assert sorted(line.rsplit("::", 1)[1] for line in found) == [
        "test_development_sends_no_hsts[postgresql]",  # unmarked: both backends
        "test_development_sends_no_hsts[sqlite]",
        "test_sqlite_keeps_nothing[sqlite]",
        "test_the_app_warns_when_its_role_bypasses_row_level_security[postgresql]",
    ]
