"""Test fixtures: the app on SQLite and on PostgreSQL, clients, and factories.

Every test that takes `app` (or a fixture built on it) runs once per backend: SQLite, and
PostgreSQL when a server answers at RIJPLAN_TEST_PG (default 127.0.0.1:5432, user
postgres). On PostgreSQL the app connects as a role that is neither superuser nor owner,
so row-level security holds in every test; setup and cleanup use the owner.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from pathlib import Path

import psycopg
import pytest
from factories import (
    QueryCounter,
    Ref,
    create_api_key,
    create_carrier,
    create_driver,
    create_user,
)
from sqlalchemy import create_engine, text

from portal import create_app
from portal.extensions import db

PG_ADMIN = os.environ.get("RIJPLAN_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
APP_ROLE = "rijplan_app_test"
# host:port of a PgBouncer in transaction mode in front of RIJPLAN_TEST_PG (scripts/drills.sh
# pgbouncer): the app then reaches its database through it, sharing server connections
# between requests of different carriers; migrations and the change feed go direct.
PGBOUNCER = os.environ.get("RIJPLAN_TEST_PGBOUNCER")


def _pg_available() -> bool:
    try:
        with psycopg.connect(PG_ADMIN, connect_timeout=3):
            return True
    except psycopg.Error:
        return False


PG_AVAILABLE = _pg_available()
BACKENDS = ["sqlite", "postgresql"]


def base_config(tmp_path: Path) -> dict:
    return {
        "TESTING": True,
        "SECRET_KEY": "test-secret-key-not-for-production",
        "INSTANCE_PATH": str(tmp_path),
        "PASSWORD_HASH_PROFILE": "CHEAPEST",
        "DATABASE_ADMIN_URL": None,
        "API_STATUS_GUARD": True,  # see api_status_guard
    }


def migrate(url: str, tmp_path: Path) -> None:
    """Run every Alembic migration on url, as the app's `flask db upgrade` does."""
    from flask_migrate import upgrade

    app = create_app({**base_config(tmp_path), "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        upgrade()
        db.engine.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("sqlite-template")
    path = folder / "template.sqlite"
    migrate(f"sqlite:///{path}", folder)
    return path


def _url(dbname: str, user: str = "postgres", via: str | None = None) -> str:
    base = psycopg.conninfo.conninfo_to_dict(PG_ADMIN)
    host, port = base.get("host", "127.0.0.1"), base.get("port", "5432")
    if via:
        host, port = via.rsplit(":", 1)
    return f"postgresql+psycopg://{user}@{host}:{port}/{dbname}"


@pytest.fixture(scope="session")
def pg_database(tmp_path_factory):
    """A fresh database, migrated by the owner, with the app role granted by grant-app-role."""
    if not PG_AVAILABLE:
        pytest.skip("PostgreSQL does not answer")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    name = f"rijplan_test_{worker}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone()
        if not exists:
            # A parallel worker may create it meanwhile.
            with contextlib.suppress(psycopg.errors.DuplicateObject):
                conn.execute(f"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS")
    folder = tmp_path_factory.mktemp("pg")
    admin_url = _url(name)
    migrate(admin_url, folder)
    app = create_app({**base_config(folder), "SQLALCHEMY_DATABASE_URI": admin_url})
    with app.app_context():
        from portal.cli import grant

        grant(APP_ROLE)
        db.session.commit()
        tables = [
            row[0]
            for row in db.session.execute(
                text(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                    "AND tablename <> 'alembic_version'"
                )
            )
        ]
        db.session.remove()
        db.engine.dispose()
    admin_engine = create_engine(admin_url)
    yield {
        "admin_url": admin_url,
        "app_url": _url(name, APP_ROLE, via=PGBOUNCER),
        "direct_app_url": _url(name, APP_ROLE),
        "engine": admin_engine,
        "tables": tables,
    }
    admin_engine.dispose()
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def clear_process_caches() -> None:
    """Forget what a process keeps between requests (definitions, time zones, compressed
    answers), as a fresh worker would have it."""
    from portal import replica
    from portal.accounts import service as accounts
    from portal.api.core import ANSWERS
    from portal.api.unchanged import CONFIRMED
    from portal.drivers import tokens
    from portal.questionnaires.service import DEFINITIONS
    from portal.tasks.pages import KEPT_CARDS

    replica.FENCES.mark_down(0)  # a replica found down by an earlier test is tried again
    CONFIRMED.clear()
    KEPT_CARDS.clear()
    DEFINITIONS.clear()
    ANSWERS.clear()
    accounts._zones.clear()
    tokens._checked.clear()


@pytest.fixture(autouse=True)
def fresh_process_caches():
    clear_process_caches()


@pytest.fixture(autouse=True)
def api_status_guard():
    """Fail the test in which the API answered a status that its OpenAPI document does not
    declare for the operation (the API notes them under API_STATUS_GUARD)."""
    from portal.api.openapi import UNDOCUMENTED_STATUSES

    UNDOCUMENTED_STATUSES.clear()
    yield
    found, UNDOCUMENTED_STATUSES[:] = list(UNDOCUMENTED_STATUSES), []
    if found:
        pytest.fail("Undocumented API statuses:\n" + "\n".join(dict.fromkeys(found)))


def pytest_collection_modifyitems(config, items):
    """A test marked `postgres_only` (or `sqlite_only`) is collected for that backend alone:
    its other backend's case is deselected, not run to skip itself."""
    keep, drop = [], []
    for item in items:
        backend = item.callspec.params.get("backend") if hasattr(item, "callspec") else None
        only = (
            "postgresql"
            if item.get_closest_marker("postgres_only")
            else "sqlite"
            if item.get_closest_marker("sqlite_only")
            else None
        )
        (drop if only and backend and backend != only else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


def backend_config(backend: str, request, folder: Path) -> dict:
    """The app's config on an empty database of backend: a copy of the migrated SQLite
    template in folder, or this worker's PostgreSQL database emptied, as the app role."""
    config = base_config(folder)
    if backend == "sqlite":
        path = folder / "rijplan.sqlite"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{path}"
    else:
        pg = request.getfixturevalue("pg_database")
        with pg["engine"].begin() as conn:
            conn.execute(text(f"TRUNCATE {', '.join(pg['tables'])} CASCADE"))
        config["SQLALCHEMY_DATABASE_URI"] = pg["app_url"]
        config["DATABASE_ADMIN_URL"] = pg["admin_url"]
        if PGBOUNCER:  # LISTEN needs a session of its own: not through the pooler
            config["CHANGE_FEED_URL"] = pg["direct_app_url"].replace("+psycopg", "")
    return config


@pytest.fixture
def app(backend, request, tmp_path):
    app = create_app(backend_config(backend, request, tmp_path))
    yield app
    with app.app_context():
        db.engine.dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def carrier(app) -> Ref:
    return create_carrier(app, "Van der Berg Agrotransport")


@pytest.fixture
def other_carrier(app) -> Ref:
    return create_carrier(app, "Kuipers Veevervoer")


@pytest.fixture
def planner(app, carrier) -> Ref:
    return create_user(app, carrier, "planner")


@pytest.fixture
def driver(app, carrier) -> Ref:
    return create_driver(app, carrier)


@pytest.fixture
def api_key(app, carrier) -> Ref:
    return create_api_key(app, carrier)


# --- clients ---------------------------------------------------------------------------


@pytest.fixture
def count_queries(app):
    """with count_queries() as q: ...; q.count is the number of statements run, as a fresh
    worker runs them (cold=False: with what the process has kept from earlier requests)."""

    def make(cold: bool = True):
        if cold:
            clear_process_caches()
        with app.app_context():
            return QueryCounter(db.engine)

    return make
