"""Migrations: an empty database upgrades to the models with no drift, on both backends."""

from __future__ import annotations

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
