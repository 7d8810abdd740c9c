"""Migrations: an empty database upgrades to the models with no drift, on both backends."""

from __future__ import annotations

import contextlib
import uuid

import psycopg
import pytest
from conftest import PG_ADMIN, PG_AVAILABLE, _url, base_config
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect

from portal import create_app
from portal.extensions import db


def drift(app) -> list:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    with db.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        return compare_metadata(context, db.metadata)


def check_database(url: str, tmp_path) -> None:
    app = create_app({**base_config(tmp_path), "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        upgrade()
        assert drift(app) == []
        tables = set(inspect(db.engine).get_table_names())
        assert {"taken", "chauffeurs", "activity_questionnaires", "answer_sessions"} <= tables
        downgrade(revision="base")
        assert set(inspect(db.engine).get_table_names()) <= {"alembic_version"}
        upgrade()
        db.session.remove()
        db.engine.dispose()


def test_sqlite_upgrades_from_empty_without_drift(tmp_path):
    check_database(f"sqlite:///{tmp_path / 'empty.sqlite'}", tmp_path)


@pytest.mark.skipif(not PG_AVAILABLE, reason="PostgreSQL does not answer")
def test_postgresql_upgrades_from_empty_without_drift(tmp_path):
    name = f"rijplan_migrate_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        check_database(_url(name), tmp_path)
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


OLD_EVERY_SCOPE = (
    "tasks:read tasks:write vehicles:read vehicles:write messages:read messages:write "
    "tacho:read tacho:write hours:read hours:write"
)
# Every scope there was when scopes were enforced (c0d1c0de0100). Scopes added later
# (webhooks) are not granted to keys made before them: an admin ticks them.
EVERY_SCOPE_WHEN_ENFORCED = (
    "tasks:read tasks:write questionnaires:read drivers:read vehicles:read vehicles:write "
    "messages:read messages:write tacho:read tacho:write hours:read hours:write"
)


def _keys_after_upgrade(url: str, tmp_path) -> dict[str, str]:
    """Upgrade to the revision before scopes were enforced, store a key with every scope of
    then and a narrowed one, upgrade to head: the keys' scopes by name."""
    from sqlalchemy import text

    from portal.accounts.models import DEFAULT_SCOPES

    assert DEFAULT_SCOPES != OLD_EVERY_SCOPE
    app = create_app({**base_config(tmp_path), "SQLALCHEMY_DATABASE_URI": url})
    carrier = str(uuid.uuid4())
    scope = "SELECT set_config('app.transporteur_id', :c, true)"
    with app.app_context():
        upgrade(revision="b6d1c0de0340")
        postgres = db.engine.dialect.name == "postgresql"
        with db.engine.begin() as conn:
            if postgres:
                conn.execute(text(scope), {"c": carrier})
            conn.execute(
                text(
                    "INSERT INTO transporteurs (id, naam, tijdzone, created_at) "
                    "VALUES (:c, 'T', 'Europe/Amsterdam', CURRENT_TIMESTAMP)"
                ),
                {"c": carrier},
            )
            for naam, scopes in (("alles", OLD_EVERY_SCOPE), ("uren", "hours:read")):
                conn.execute(
                    text(
                        "INSERT INTO api_keys (transporteur_id, id, naam, prefix, key_hash, "
                        "scopes, created_at) VALUES (:c, :id, :naam, 'rpk_x', :h, :s, "
                        "CURRENT_TIMESTAMP)"
                    ),
                    {
                        "c": carrier,
                        "id": str(uuid.uuid4()),
                        "naam": naam,
                        "h": uuid.uuid4().hex,
                        "s": scopes,
                    },
                )
        upgrade()
        with db.engine.begin() as conn:
            if postgres:
                conn.execute(text(scope), {"c": carrier})
            rows = conn.execute(text("SELECT naam, scopes FROM api_keys")).all()
        db.engine.dispose()
    return dict(rows)


def test_a_key_with_every_scope_keeps_every_scope_when_scopes_are_enforced(tmp_path):
    keys = _keys_after_upgrade(f"sqlite:///{tmp_path / 'old.sqlite'}", tmp_path)
    assert keys == {"alles": EVERY_SCOPE_WHEN_ENFORCED, "uren": "hours:read"}


@pytest.mark.skipif(not PG_AVAILABLE, reason="PostgreSQL does not answer")
def test_the_scope_upgrade_runs_as_an_owner_held_by_row_level_security(tmp_path):
    """In production the owner is no superuser: FORCE'd row-level security holds it too."""

    name, owner = f"rijplan_migrate_{uuid.uuid4().hex[:8]}", "rijplan_owner_test"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (owner,)).fetchone():
            with contextlib.suppress(psycopg.errors.DuplicateObject):
                conn.execute(f"CREATE ROLE {owner} LOGIN NOSUPERUSER NOBYPASSRLS")
        conn.execute(f'CREATE DATABASE "{name}" OWNER {owner}')
    try:
        keys = _keys_after_upgrade(_url(name, owner), tmp_path)
        assert keys == {"alles": EVERY_SCOPE_WHEN_ENFORCED, "uren": "hours:read"}
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
