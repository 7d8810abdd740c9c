"""Factories and helpers of the tests: objects made through the services as plain values
(`Ref`), signing in, API tokens, files, a live server, and a query counter. Tests import
them from here; fixtures live in conftest.py."""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass

from sqlalchemy import event

from portal.extensions import db
from portal.tenancy import carrier_scope

PASSWORD = "correct-horse-battery"


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
            driver_id=driver.id if driver else None,
            data=data,
            actor=SYSTEM,
        )
        for name, value in state.items():
            setattr(task, name, value)
        return task

    return in_carrier(app, carrier.id, make, lambda t: Ref(t.id, carrier.id, naam=data["naam"]))


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


def replica_outcomes() -> dict[str, float]:
    """The counts of reads that a replica may answer, by where they went (replica.py)."""
    from portal.counters import REGISTRY

    names = ("replica", "behind", "fenced", "no_feed", "down", "error")
    return {
        name: REGISTRY.get_sample_value("rijplan_replica_reads_total", {"outcome": name}) or 0.0
        for name in names
    }


def replica_reads_since(before: dict[str, float]) -> dict[str, float]:
    """What replica_outcomes() counted since `before`."""
    return {k: v - before[k] for k, v in replica_outcomes().items() if v != before[k]}
