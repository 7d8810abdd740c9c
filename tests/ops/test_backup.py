"""Backups and the restore drill: a backup of the database and the stored files restores into
a database of its own with every table's rows and every file's bytes as they were; a backup
that lost a file or a row says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import bearer, driver_token
from files.test_api import PDF, PNG, upload


def ok(result) -> dict:
    assert result.exit_code == 0, result.output + str(result.exception or "")
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture
def filled(app, client, carrier, driver):
    """A carrier with a driver's two uploads (and their rows, audit entries, ...)."""
    token = driver_token(client, driver)
    for data, soort in ((PNG, "signature"), (PDF, "document_scan")):
        assert upload(client, bearer(token), data, soort).status_code == 201
    return app


def test_a_backup_restores_with_every_row_and_file(filled, tmp_path):
    runner = filled.test_cli_runner()
    made = ok(runner.invoke(args=["backup", "--to", str(tmp_path / "backups")]))
    folder = Path(made["folder"])
    manifest = json.loads((folder / "manifest.json").read_text())
    assert made["files"] == 2 and len(manifest["files"]) == 2
    assert manifest["database"]["tables"]["bestanden"] == 2
    assert manifest["database"]["tables"]["chauffeurs"] == 1
    assert made["rows"] == sum(manifest["database"]["tables"].values()) >= 7

    drill = ok(runner.invoke(args=["restore-drill", str(folder)]))
    assert drill["ok"] and drill["problems"] == []
    assert (drill["rows"], drill["files"]) == (made["rows"], 2)


def test_the_drill_names_a_lost_file_and_a_changed_one(filled, tmp_path):
    runner = filled.test_cli_runner()
    folder = Path(ok(runner.invoke(args=["backup", "--to", str(tmp_path)]))["folder"])
    first, second = sorted(p for p in (folder / "files").rglob("*") if p.is_file())
    first.unlink()
    second.write_bytes(b"not what was stored")
    result = runner.invoke(args=["restore-drill", str(folder)])
    assert result.exit_code == 1
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert not report["ok"]
    root = folder / "files"
    assert sorted(report["problems"]) == sorted(
        [f"{first.relative_to(root).as_posix()}: missing",
         f"{second.relative_to(root).as_posix()}: changed"]
    )  # fmt: skip


def test_a_restore_reaches_a_server_that_checks_passwords_without_showing_them():
    """The restore's databases are reached with the admin role's password (a URL's text
    would hide it as ***), and pg_dump/pg_restore get it through PGPASSWORD, never in
    their command line (which every user's `ps` shows)."""
    from portal.ops import backup

    url = "postgresql+psycopg://rijplan_owner:s3cr%40t@db:5432/rijplan"
    on_server = backup._on(url, "postgres")
    assert on_server == "postgresql://rijplan_owner:s3cr%40t@db:5432/postgres"

    dsn, env = backup._for_tool(backup._on(url, "rijplan_restore_x"))
    assert dsn == "postgresql://rijplan_owner@db:5432/rijplan_restore_x"
    assert env["PGPASSWORD"] == "s3cr@t"
