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
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import create_engine, event, text

from portal import create_app
from portal.extensions import db
from portal.tenancy import carrier_scope

PG_ADMIN = os.environ.get("RIJPLAN_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
APP_ROLE = "rijplan_app_test"
PASSWORD = "correct-horse-battery"


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


def _url(dbname: str, user: str = "postgres") -> str:
    base = psycopg.conninfo.conninfo_to_dict(PG_ADMIN)
    host, port = base.get("host", "127.0.0.1"), base.get("port", "5432")
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
        "app_url": _url(name, APP_ROLE),
        "engine": admin_engine,
        "tables": tables,
    }
    admin_engine.dispose()
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def clear_process_caches() -> None:
    """Forget what a process keeps between requests (definitions, time zones, compressed
    answers), as a fresh worker would have it."""
    from portal.accounts import service as accounts
    from portal.accounts import tokens
    from portal.api.core import ANSWERS
    from portal.api.unchanged import CONFIRMED
    from portal.questionnaires.service import DEFINITIONS
    from portal.tasks.views import KEPT_CARDS

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


# --- factories -------------------------------------------------------------------------


@dataclass
class Ref:
    """A created object as plain values: tests hold no ORM objects across requests."""

    id: uuid.UUID
    carrier_id: uuid.UUID | None = None
    email: str | None = None
    user_token: str | None = None
    key: str | None = None
    naam: str | None = None


def in_carrier(app, carrier_id, fn, convert=lambda obj: obj):
    """Run fn() in an app context scoped to carrier_id, commit, and convert its result while
    still in scope (tests hold plain values, not ORM objects)."""
    with app.app_context(), carrier_scope(db.session, carrier_id):
        result = fn()
        db.session.commit()
        return convert(result)


def create_carrier(app, naam: str = "Transport BV") -> Ref:
    from portal.accounts.service import create_carrier as create

    with app.app_context():
        carrier_id = create(naam=naam).id
        db.session.commit()
        return Ref(carrier_id, carrier_id, naam=naam)


def create_user(app, carrier: Ref, rol: str = "planner", email: str | None = None) -> Ref:
    from portal.accounts.service import create_user as create

    email = email or f"{rol}-{uuid.uuid4().hex[:6]}@example.nl"
    return in_carrier(
        app,
        carrier.id,
        lambda: create(
            carrier_id=carrier.id,
            email=email,
            password=PASSWORD,
            rol=rol,
            naam=f"{rol} {email[:4]}",
        ),
        lambda user: Ref(user.id, carrier.id, email=email),
    )


def create_driver(
    app,
    carrier: Ref,
    naam: str = "Jan Chauffeur",
    email: str | None = None,
    password: str | None = PASSWORD,
) -> Ref:
    from portal.drivers.service import create_driver as create

    email = email if email is not None else f"driver-{uuid.uuid4().hex[:6]}@example.nl"
    return in_carrier(
        app,
        carrier.id,
        lambda: create(carrier_id=carrier.id, naam=naam, email=email or None, password=password),
        lambda d: Ref(d.id, carrier.id, email=email, user_token=d.user_token, naam=naam),
    )


def create_vehicle(app, carrier: Ref, kenteken: str | None = None) -> Ref:
    from portal.fleet.service import create_vehicle as create

    # A random plate of sidecode 10 (L-DDD-LL): a valid Dutch plate, unique enough.
    n = uuid.uuid4().int
    letters = "BDFGHJKLNPRSTVXZ"
    plate = kenteken or f"V-{n % 1000:03d}-{letters[n >> 10 & 15]}{letters[n >> 14 & 15]}"
    return in_carrier(
        app,
        carrier.id,
        lambda: create(carrier_id=carrier.id, kenteken=plate),
        lambda v: Ref(v.id, carrier.id),
    )


def create_api_key(app, carrier: Ref, naam: str = "TMS") -> Ref:
    from portal.accounts.service import create_api_key as create

    return in_carrier(
        app,
        carrier.id,
        lambda: create(carrier_id=carrier.id, naam=naam),
        lambda pair: Ref(pair[0].id, carrier.id, key=pair[1]),
    )


def questionnaire_doc(
    activity_type: str = "mest_laden",
    questionnaire_id: str | None = None,
    title: str = "Mest laden",
) -> dict:
    return {
        "schema_version": 1,
        "questionnaire_id": questionnaire_id or activity_type.replace("_", "-"),
        "title": title,
        "activity_type": activity_type,
        "questions": [
            {
                "id": "gewicht",
                "type": "number",
                "label": "Gewicht",
                "unit": "kg",
                "required": True,
                "validation": {"min": 0, "max": 60000},
            },
            {"id": "foto", "type": "photo", "label": "Foto", "max_files": 2},
        ],
    }


def publish_questionnaire(app, carrier: Ref, doc: dict | None = None, activate: bool = True) -> Ref:
    from portal.questionnaires.service import publish

    return in_carrier(
        app,
        carrier.id,
        lambda: publish(carrier_id=carrier.id, doc=doc or questionnaire_doc(), activate=activate),
        lambda row: Ref(row.id, carrier.id),
    )


def create_task(app, carrier: Ref, driver: Ref | None, **fields) -> Ref:
    """A task through the service, then any status or timestamps set directly."""
    from portal.audit.service import SYSTEM
    from portal.tasks import service

    state = {
        k: fields.pop(k)
        for k in ("status", "ontvangen_op", "gestart_op", "afgerond_op")
        if k in fields
    }
    data = {"type": "mest_laden", "naam": "Mest laden Enter", **fields}

    def make():
        task = service.create_task(
            carrier_id=carrier.id,
            chauffeur_id=driver.id if driver else None,
            data=data,
            actor=SYSTEM,
        )
        for name, value in state.items():
            setattr(task, name, value)
        return task

    return in_carrier(app, carrier.id, make, lambda t: Ref(t.id, carrier.id, naam=data["naam"]))


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


def login(client, user: Ref, password: str = PASSWORD):
    """Sign in through the login form, as a browser does."""
    page = client.get("/login")
    token = _csrf_from(page.get_data(as_text=True))
    return client.post(
        "/login", data={"email": user.email, "password": password, "csrf_token": token}
    )


def _csrf_from(html: str) -> str:
    import re

    match = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html) or re.search(
        r'name="csrf_token" value="([^"]+)"', html
    )
    assert match, "no CSRF token on the page"
    return match.group(1)


csrf_from = _csrf_from


def driver_token(client, driver: Ref, password: str = PASSWORD) -> str:
    response = client.post(
        "/api/v1/auth/token",
        json={"grant_type": "password", "username": driver.email, "password": password},
    )
    assert response.status_code == 200, response.get_json()
    return response.get_json()["access_token"]


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


class QueryCounter:
    """Counts the SQL statements the app's engine runs."""

    def __init__(self, engine):
        self.engine = engine
        self.statements: list[str] = []
        self.messages = 0  # what was sent: reads.read sends several statements at once

    def _count(self, conn, cursor, statement, *args):
        self.messages += 1
        if not statement.lstrip().upper().startswith(("SELECT SET_CONFIG", "SAVEPOINT", "RELEASE")):
            self.statements.append(statement)

    def _count_read(self, sent):
        self.messages += 1
        self.statements += [sql for sql, _ in sent[1:]]  # the first sets the carrier

    def __enter__(self):
        from portal import reads

        event.listen(self.engine, "before_cursor_execute", self._count)
        reads.listeners.append(self._count_read)
        return self

    def __exit__(self, *exc):
        from portal import reads

        event.remove(self.engine, "before_cursor_execute", self._count)
        reads.listeners.remove(self._count_read)

    @property
    def count(self) -> int:
        return len(self.statements)


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


def png_bytes() -> bytes:
    """A valid 1x1 PNG."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


@contextlib.contextmanager
def served(app, name: str = "live-server"):
    """The app served on a free loopback port by a threaded server, for the duration of the
    block; the port. make_server binds and listens before it returns: no waiting needed."""
    import threading

    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


def jpeg_bytes(width: int = 2, height: int = 2) -> bytes:
    """A valid JPEG of width x height pixels, as a phone's camera would send (smaller)."""
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (40, 120, 60)).save(out, "JPEG", quality=50)
    return out.getvalue()


def upload_file(client, token: str, soort: str = "photo") -> str:
    """Upload a PNG through POST /api/v1/bestanden as the bearer; its file id."""
    import io

    response = client.post(
        "/api/v1/bestanden",
        data={"soort": soort, "file": (io.BytesIO(png_bytes()), "foto.png")},
        headers=bearer(token),
        content_type="multipart/form-data",
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]
