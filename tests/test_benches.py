"""The benches in bench/ still run: each one's --smoke mode, in a subprocess as CI runs it
(a tiny data set; figures are printed, not judged here)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# bench script -> what its smoke run must print
SMOKE = {
    "bench/board_week.py": ("week ms:", "day ms:", "week/day:"),
    "bench/planner_solve.py": ('"greedy"', '"solver"', '"geplaatst"', "OK"),
}


@pytest.mark.parametrize("script", sorted(SMOKE))
def test_bench_smoke_mode_runs(script, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(ROOT / script), "--smoke"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for expected in SMOKE[script]:
        assert expected in done.stdout, done.stdout
