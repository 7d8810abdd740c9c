"""The suite runs in parallel (pytest-xdist), each worker on databases of its own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PG_AVAILABLE

ROOT = Path(__file__).resolve().parent.parent
PROBE_DIR = os.environ.get("RIJPLAN_PARALLEL_PROBE")


def test_the_test_command_runs_pytest_on_every_core():
    script = (ROOT / "scripts/test.sh").read_text()
    run = [line for line in script.splitlines() if "-m pytest" in line]
    assert len(run) == 1
    assert re.search(r"-n \"?\$workers\"?", run[0])
    assert "workers=${RIJPLAN_TEST_WORKERS:-auto}" in script


@pytest.mark.skipif(PROBE_DIR is None, reason="only inside the parallel probe run")
@pytest.mark.parametrize("n", range(4))
def test_probe_records_its_database(app, n):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    uri = app.config["SQLALCHEMY_DATABASE_URI"]
    with open(Path(PROBE_DIR) / f"{worker}.txt", "a") as f:
        f.write(uri + "\n")


def test_two_workers_never_share_a_database(tmp_path):
    env = {**os.environ, "RIJPLAN_PARALLEL_PROBE": str(tmp_path)}
    env.pop("PYTEST_XDIST_WORKER", None)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-n",
            "2",
            "--dist",
            "loadgroup",
            "-p",
            "no:cacheprovider",
            f"{__file__}::test_probe_records_its_database",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    by_worker = {path.stem: set(path.read_text().split()) for path in tmp_path.glob("gw*.txt")}
    assert len(by_worker) == 2, by_worker
    first, second = by_worker.values()
    assert first.isdisjoint(second)
    pg = {uri.rsplit("/", 1)[1] for uris in by_worker.values() for uri in uris if "postgres" in uri}
    assert len(pg) == (2 if PG_AVAILABLE else 0)
