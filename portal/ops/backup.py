"""Backups and the restore drill.

A backup is one folder: the database (PostgreSQL: `pg_dump --format=custom`; SQLite: a
consistent copy through SQLite's backup API), then every stored file copied out of storage,
and `manifest.json` with each table's row count and each file's SHA-256, taken from the same
moment as the dump. The files are copied after the dump, so every file the dump refers to is
in the backup (a file stored meanwhile may be in it too: harmless).

The restore drill restores a backup into a database of its own (never the one in use),
counts its rows, hashes the copied files, and says what matches the manifest and what not.

On PostgreSQL both run as a role that reads every carrier's rows: a superuser, or a backup
role with BYPASSRLS (row-level security is forced on the tables, for their owner too).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import uuid
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from psycopg import sql
from sqlalchemy.engine import make_url

CHUNK = 1024 * 1024


def _tool(name: str) -> str:
    """The PostgreSQL client program's full path (the Debian package postgresql-client)."""
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(f"{name} not found: install postgresql-client")
    return found


def _libpq(url) -> str:
    """A libpq connection string of a SQLAlchemy URL (or its text), password included."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _on(admin_url: str, database: str) -> str:
    """admin_url's server and role, on another database of that server."""
    return _libpq(make_url(admin_url).set(database=database))


def _for_tool(conninfo: str) -> tuple[str, dict]:
    """conninfo without its password, and the environment that carries it (PGPASSWORD): a
    password in a command line shows in every user's `ps`."""
    url = make_url(conninfo)
    env = dict(os.environ)
    if url.password is not None:
        env["PGPASSWORD"] = str(url.password)
    return url._replace(password=None).render_as_string(hide_password=False), env


def _sqlite_path(url: str) -> Path:
    return Path(make_url(url).database)


def _counts_in(conn) -> dict[str, int]:
    tables = [
        row[0]
        for row in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
        )
    ]
    return {
        table: conn.execute(
            sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))
        ).fetchone()[0]
        for table in tables
    }


def _pg_counts(conninfo: str) -> dict[str, int]:
    with psycopg.connect(conninfo) as conn:
        return _counts_in(conn)


def _sqlite_counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY 1"
            )
        ]
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}


def _sha256(stream) -> str:
    digest = hashlib.sha256()
    while chunk := stream.read(CHUNK):
        digest.update(chunk)
    return digest.hexdigest()


def backup(*, database_url: str, storage, target: Path) -> dict:
    """A backup of the database and the stored files into a new folder under target; the
    manifest. CalledProcessError when pg_dump fails (its message on stderr)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = Path(target) / f"rijplan-{stamp}-{uuid.uuid4().hex[:6]}"
    folder.mkdir(parents=True)
    url = make_url(database_url)
    if url.get_backend_name() == "postgresql":
        conninfo = _libpq(database_url)
        # One moment for both: the counts are read in a repeatable-read transaction whose
        # snapshot pg_dump then dumps (it stays open until the dump is done).
        with psycopg.connect(conninfo) as conn:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            snapshot = conn.execute("SELECT pg_export_snapshot()").fetchone()[0]
            counts = _counts_in(conn)
            dsn, env = _for_tool(conninfo)
            subprocess.run(  # noqa: S603 - our own arguments, no shell
                [_tool("pg_dump"), "--format=custom", "--no-owner", f"--snapshot={snapshot}",
                 "--file", str(folder / "database.dump"), dsn],
                check=True,
                capture_output=True,
                env=env,
            )  # fmt: skip
            conn.rollback()
        database = {"kind": "postgresql", "file": "database.dump", "tables": counts}
    else:
        source = _sqlite_path(database_url)
        with sqlite3.connect(source) as live, sqlite3.connect(folder / "database.sqlite") as copy:
            live.backup(copy)
        counts = _sqlite_counts(folder / "database.sqlite")
        database = {"kind": "sqlite", "file": "database.sqlite", "tables": counts}
    files = {}
    for key in storage.keys():  # noqa: SIM118 - a storage's keys, not a dict
        path = folder / "files" / key
        path.parent.mkdir(parents=True, exist_ok=True)
        with storage.open(key) as source, open(path, "wb") as out:
            digest = hashlib.sha256()
            while chunk := source.read(CHUNK):
                digest.update(chunk)
                out.write(chunk)
        files[key] = digest.hexdigest()
    manifest = {
        "created_at": datetime.now(UTC).isoformat(),
        "database": database,
        "files": files,
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return {"folder": str(folder), "tables": len(counts), "rows": sum(counts.values()),
            "files": len(files)}  # fmt: skip


def restore_drill(*, folder: Path, admin_url: str | None = None, keep: bool = False) -> dict:
    """Restore the backup in folder into a database of its own and compare with its
    manifest: row counts per table and the copied files' hashes. PostgreSQL restores into
    a new database next to admin_url's (dropped afterwards unless keep)."""
    folder = Path(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    database = manifest["database"]
    if database["kind"] == "postgresql":
        if not admin_url:
            raise ValueError("a PostgreSQL backup is restored next to admin_url's database")
        restored_into, counts = _restore_postgresql(folder / database["file"], admin_url, keep)
    else:
        restored_into, counts = _restore_sqlite(folder, folder / database["file"], keep)
    expected = database["tables"]
    table_problems = sorted(
        f"{table}: {counts.get(table)} rows restored, {count} backed up"
        for table, count in expected.items()
        if counts.get(table) != count
    ) + sorted(f"{table}: not in the backup" for table in set(counts) - set(expected))
    file_problems = _file_problems(folder, manifest["files"])
    return {
        "restored_into": restored_into,
        "kept": keep,
        "tables": len(expected),
        "rows": sum(counts.values()),
        "files": len(manifest["files"]),
        "problems": table_problems + file_problems,
        "ok": not table_problems and not file_problems,
    }


def _restore_postgresql(dump: Path, admin_url: str, keep: bool) -> tuple[str, dict[str, int]]:
    """The dump restored into a new database next to admin_url's (dropped afterwards unless
    keep): its name and row counts."""
    name = f"rijplan_restore_{datetime.now(UTC):%Y%m%d%H%M%S}_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(_on(admin_url, "postgres"), autocommit=True) as c:
        c.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    target = _on(admin_url, name)
    try:
        dsn, env = _for_tool(target)
        subprocess.run(  # noqa: S603 - our own arguments, no shell
            [_tool("pg_restore"), "--no-owner", "--exit-on-error", "--dbname", dsn, str(dump)],
            check=True,
            capture_output=True,
            env=env,
        )  # fmt: skip
        counts = _pg_counts(target)
    finally:
        if not keep:
            with psycopg.connect(_on(admin_url, "postgres"), autocommit=True) as c:
                c.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )
    return name, counts


def _restore_sqlite(folder: Path, database: Path, keep: bool) -> tuple[str, dict[str, int]]:
    """The SQLite copy restored into a new file in folder (removed unless keep): its path
    and row counts."""
    copy = folder / f"restored-{uuid.uuid4().hex[:6]}.sqlite"
    with sqlite3.connect(database) as source, sqlite3.connect(copy) as out:
        source.backup(out)
    counts = _sqlite_counts(copy)
    if not keep:
        copy.unlink()
    return str(copy), counts


def _file_problems(folder: Path, files: dict[str, str]) -> list[str]:
    """The backed-up files that are missing or whose hash changed."""
    problems = []
    for key, digest in files.items():
        path = folder / "files" / key
        if not path.is_file():
            problems.append(f"{key}: missing")
            continue
        with open(path, "rb") as stream:
            if _sha256(stream) != digest:
                problems.append(f"{key}: changed")
    return problems
