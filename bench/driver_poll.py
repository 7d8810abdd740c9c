"""Benchmark: the driver's poll (GET /api/v1/users/{user_token}/taken) served by gunicorn as
the app role under row-level security, side by side with PostgreSQL building the same JSON.

Run by hand, it prints figures; it is not a test. It needs PostgreSQL at 127.0.0.1:5432 with
the superuser postgres on trust auth, pgbench, and wrk (`apt-get install -y wrk`):

    .venv/bin/python bench/driver_poll.py                      # 10k and 100k tasks, 9 rounds
    .venv/bin/python bench/driver_poll.py --sizes 10000,100000,1000000
    .venv/bin/python bench/driver_poll.py --sizes 10000 --rounds 3   # a quick look

It creates its own database (--database-name, dropped at the end unless --keep), migrates it
as the owner (postgres, as the tests do), creates the app role (no superuser, no owner, no
BYPASSRLS) and seeds --carriers carriers. The bench carrier has ten 30-question questionnaires
(published through the questionnaire service), a driver with 50 open and 200 finished tasks,
a driver with a year of history (about 1000 tasks, 19 open) and 500 tasks on today's board;
the other carriers hold the rest of the tasks, up to each of --sizes in turn.

It serves the app with gunicorn (gunicorn.conf.py: threaded workers that keep connections
alive, as pgbench keeps its own; 4 of them, DATABASE_URL as the app role) on a free
loopback port and, in --rounds interleaved rounds, measures with wrk (16 connections, 2
threads, --duration seconds each): the full answer, the unchanged poll (If-None-Match: 304),
the poll with Accept-Encoding gzip and GET /activity_questionnaires; and with pgbench as the
app role under RLS: SQL that builds the same JSON in PostgreSQL (json_agg of the open tasks
with their questionnaire definitions; the active definitions), and the statements of one
full poll replayed as the app role and as the owner (the cost of RLS). Ratios are medians of
the per-round ratios with their [min-max]. In-process (Flask test client, the app role): the
statements and round trips per request, and the board's server time with 500 cards. The p50
of one connection at each size shows whether the cost follows the rows returned or the table.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402
import psycopg  # noqa: E402
from flask_migrate import upgrade  # noqa: E402
from sqlalchemy import event, insert  # noqa: E402

from portal import create_app, reads  # noqa: E402
from portal.extensions import db  # noqa: E402

HOST, PORT = "127.0.0.1", 5432
SUPERUSER = "postgres"
APP_ROLE = "rijplan_bench_app"
PASSWORD = "bench-password-123"
SECRET = "bench-secret-key-of-at-least-32-bytes-long"
ZONE = ZoneInfo("Europe/Amsterdam")
OPEN = ("gepland", "ontvangen", "gestart")
KINDS = [
    "mest_laden",
    "mest_lossen",
    "voer_leveren",
    "vee_transport",
    "koel_transport",
    "graan_bulk",
    "kunstmest",
    "stro_balen",
    "melk_ophalen",
    "containers",
]
QUESTION_TYPES = [
    "text",
    "textarea",
    "number",
    "integer",
    "boolean",
    "select",
    "multiselect",
    "date",
    "time",
    "photo",
    "signature",
    "barcode",
    "location",
    "document_scan",
    "info",
]
OPTIONS = [
    "in orde",
    "beschadigd",
    "niet aanwezig",
    "gedeeltelijk geleverd",
    "weigering door ontvanger",
    "anders, zie opmerking",
    "nagekeken door chauffeur",
    "onbekend",
    "uitgesteld op verzoek klant",
    "verkeerd adres opgegeven",
    "klant niet aanwezig bij aankomst",
    "later opnieuw aanbieden",
]
PLACES = [
    ("Veldweg 88", "7468 AB", "Enter"),
    ("Haarweg 12", "7461 PK", "Rijssen"),
    ("Oude Deldenerweg 4", "7475 RC", "Markelo"),
    ("Kerkstraat 150", "7471 CM", "Goor"),
    ("Boermarkeweg 31", "7482 NM", "Haaksbergen"),
]
FIXED_TASKS = 250 + 1000 + 500  # driver A, driver B (a year), the board

# --- questionnaires and rows -------------------------------------------------------------


def questionnaire(activity_type: str, index: int, size: int = 30) -> dict:
    """A 30-question definition of about 15 KB once canonical (every kind of question)."""
    words = activity_type.replace("_", " ")
    questions = []
    for n in range(size):
        kind = QUESTION_TYPES[(n + index) % len(QUESTION_TYPES)]
        question = {
            "id": f"v{index}_{n:02d}",
            "type": kind,
            "label": f"Vraag {n + 1} bij {words}: controleer ter plaatse wat u aantreft en noteer "
            f"het zoals met de opdrachtgever en de planning is afgesproken; bij twijfel eerst "
            f"overleggen met de planner ({n + 1}/{size})",
            "required": n % 3 != 0 and kind != "info",
        }
        if kind in ("select", "multiselect"):
            question["options"] = [f"Keuze {o + 1}: {w}" for o, w in enumerate(OPTIONS)]
        if kind in ("number", "integer"):
            question["unit"] = "kg" if kind == "number" else "stuks"
            question["validation"] = {"min": 0, "max": 50000}
        if kind in ("text", "textarea", "barcode"):
            question["validation"] = {"minlength": 1, "maxlength": 500}
        if kind in ("photo", "document_scan"):
            question["max_files"] = 5
        answered = [q["id"] for q in questions if q["type"] != "info"]
        if n % 4 == 0 and answered:
            question["visible_if"] = {"question_id": answered[-1], "operator": "not_empty"}
        questions.append(question)
    return {
        "schema_version": 1,
        "questionnaire_id": f"bench_{activity_type}",
        "title": f"Vragenlijst {words}",
        "activity_type": activity_type,
        "questions": questions,
    }


def task_row(
    rng: random.Random,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    kind: str,
    revision_id: uuid.UUID | None,
    planned: datetime,
    status: str,
    n: int,
) -> dict:
    """A task with every field the seed knows filled in (some left null, as in real data)."""
    adres, postcode, stad = PLACES[n % len(PLACES)]
    created = planned - timedelta(days=2, minutes=n % 600)
    received = started = done = None
    if status in ("ontvangen", "gestart", "afgerond"):
        received = planned - timedelta(hours=12)
    if status in ("gestart", "afgerond"):
        started = planned + timedelta(minutes=rng.randint(0, 30))
    if status == "afgerond":
        done = started + timedelta(minutes=rng.randint(20, 120))
    manure = kind.startswith("mest")
    return {
        "transporteur_id": carrier_id,
        "id": uuid.uuid4(),
        "chauffeur_id": driver_id,
        "vehicle_id": None,
        "activity_questionnaire_id": revision_id,
        "type": kind,
        "status": status,
        "naam": f"{kind.replace('_', ' ').capitalize()} {stad} {n}",
        "omschrijving": "Graag melden bij de schuur achter het woonhuis; hond loopt los op het erf."
        if n % 3
        else None,
        "artikel": "Rundveedrijfmest" if manure else f"Artikel {n % 40}",
        "hoeveelheid": round(rng.uniform(5, 40), 1),
        "eenheid": "ton",
        "adres": adres,
        "postcode": postcode,
        "stad": stad,
        "land": "NL",
        "contactpersoon": f"Fam. {stad}",
        "telefoon": "0547-123456",
        "telefoon_mobiel": "06-12345678" if n % 2 else None,
        "gepland_op": planned,
        "duur_min": 60 if n % 4 else None,
        "ontvangen_op": received,
        "gestart_op": started,
        "afgerond_op": done,
        "require_photos": n % 2 == 0,
        "min_fotos": 1 if n % 2 == 0 else None,
        "max_fotos": 5 if n % 2 == 0 else None,
        "require_signature": n % 3 == 0,
        "require_document_scan": manure,
        "require_location": manure,
        "photo_label": "Foto van de lading" if n % 2 == 0 else None,
        "opmerkingen": "Let op: smalle inrit, niet keren op de dijk." if n % 5 == 0 else None,
        "vdm_nummer": f"{planned:%y%m%d}{n % 10000:04d}" if manure else None,
        "agr_verplicht": manure,
        "required_desinfectie": kind == "vee_transport",
        "required_temperatuur": 4.0 if kind in ("koel_transport", "melk_ophalen") else None,
        "kooiaap": n % 7 == 0,
        "locatie_lat": 52.29 + (n % 100) / 1000,
        "locatie_lng": 6.58 + (n % 100) / 1000,
        "created_at": created,
        "updated_at": done or started or received or created,
        "versie": 1 + (status != "gepland"),
    }


# --- the database ------------------------------------------------------------------------


def url(dbname: str, user: str, driver: bool = True) -> str:
    scheme = "postgresql+psycopg" if driver else "postgresql"
    return f"{scheme}://{user}@{HOST}:{PORT}/{dbname}"


def superuser_exec(*statements: str) -> None:
    with psycopg.connect(url("postgres", SUPERUSER, driver=False), autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def create_database(name: str) -> None:
    superuser_exec(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', f'CREATE DATABASE "{name}"')
    with psycopg.connect(url("postgres", SUPERUSER, driver=False), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone():
            conn.execute(f"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS")


def vacuum(name: str) -> None:
    with psycopg.connect(url(name, SUPERUSER, driver=False), autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def make_app(database_url: str, folder: Path, admin_url: str | None = None, **extra):
    return create_app(
        {
            **extra,
            "SQLALCHEMY_DATABASE_URI": database_url,
            "DATABASE_ADMIN_URL": admin_url,
            "SECRET_KEY": SECRET,
            "INSTANCE_PATH": str(folder),
            "WTF_CSRF_ENABLED": False,
        }
    )


class Seeder:
    """Writes the data set: the bench carrier once, then background tasks up to each size."""

    def __init__(self, app, carriers: int):
        self.app = app
        self.rng = random.Random(13)
        self.carriers = carriers
        self.count = 0
        self.others: list[tuple[uuid.UUID, list[uuid.UUID]]] = []

    def _insert(self, model, rows: list[dict], chunk: int = 5000) -> None:
        for start in range(0, len(rows), chunk):
            db.session.execute(insert(model), rows[start : start + chunk])

    def bench_carrier(self) -> dict:
        from portal.accounts.models import Carrier
        from portal.accounts.service import create_carrier, create_user
        from portal.drivers.models import Driver
        from portal.drivers.service import create_driver, new_user_token
        from portal.questionnaires.service import publish
        from portal.tasks.models import Task
        from portal.tenancy import carrier_scope

        rng, now = self.rng, datetime.now(UTC)
        today = datetime.now(ZONE).date()
        with self.app.app_context():
            carrier_id = create_carrier(naam="Bench Transport").id
            with carrier_scope(db.session, carrier_id):
                revisions = [
                    publish(carrier_id=carrier_id, doc=questionnaire(kind, i), activate=True)
                    for i, kind in enumerate(KINDS)
                ]
                revisions = [(r.id, r.activity_type) for r in revisions]
                a = create_driver(
                    carrier_id=carrier_id, naam="Bench A", email="a@bench.nl", password=PASSWORD
                )
                b = create_driver(
                    carrier_id=carrier_id, naam="Bench B", email="b@bench.nl", password=PASSWORD
                )
                create_user(
                    carrier_id=carrier_id, email="p@bench.nl", password=PASSWORD, rol="planner"
                )
                a_id, b_id, a_token, b_token = a.id, b.id, a.user_token, b.user_token
                board = [
                    {
                        "transporteur_id": carrier_id,
                        "id": uuid.uuid4(),
                        "naam": f"Chauffeur {n:02d}",
                        "user_token": new_user_token(),
                        "actief": True,
                        "token_version": 1,
                        "created_at": now,
                    }
                    for n in range(50)
                ]
                self._insert(Driver, board)
                rows = []
                tomorrow = datetime.combine(today + timedelta(days=1), datetime.min.time(), ZONE)
                for n in range(50):  # A: 50 open from tomorrow on, each kind five times
                    revision, kind = revisions[n % len(revisions)]
                    planned = (tomorrow + timedelta(hours=6 + (n % 5) * 2, days=n // 5)).astimezone(
                        UTC
                    )
                    rows.append(
                        task_row(rng, carrier_id, a_id, kind, revision, planned, OPEN[n % 3], n)
                    )
                for n in range(200):  # A: 200 finished before today
                    revision, kind = revisions[n % len(revisions)]
                    planned = now - timedelta(days=2 + n // 2, hours=n % 2 * 4)
                    rows.append(
                        task_row(rng, carrier_id, a_id, kind, revision, planned, "afgerond", n)
                    )
                for n in range(1000):  # B: a year of history, 19 open
                    revision, kind = revisions[n % len(revisions)]
                    if n < 19:
                        planned = (
                            tomorrow + timedelta(days=n // 3, hours=7 + n % 3 * 3)
                        ).astimezone(UTC)
                        status = OPEN[n % 3]
                    else:
                        planned = now - timedelta(days=1 + (n - 19) * 365 / 981, hours=3)
                        status = "geannuleerd" if n % 10 == 0 else "afgerond"
                    rows.append(task_row(rng, carrier_id, b_id, kind, revision, planned, status, n))
                start = datetime.combine(today, datetime.min.time(), ZONE) + timedelta(hours=6)
                for n in range(500):  # the board: 500 cards today, ten per driver
                    revision, kind = revisions[n % len(revisions)]
                    planned = (start + timedelta(minutes=75 * (n // 50))).astimezone(UTC)
                    status = "gepland" if n % 5 else ("gestart" if n % 2 else "ontvangen")
                    if planned > now and status != "gepland":
                        status = "gepland"
                    driver = board[n % 50]["id"]
                    rows.append(
                        task_row(rng, carrier_id, driver, kind, revision, planned, status, n)
                    )
                self._insert(Task, rows)
            # The other carriers, each with 20 drivers.
            carriers = [
                {"id": uuid.uuid4(), "naam": f"Transport {n:03d}", "tijdzone": "Europe/Amsterdam",
                 "created_at": now}
                for n in range(self.carriers - 1)
            ]  # fmt: skip
            self._insert(Carrier, carriers)
            drivers = []
            for carrier in carriers:
                ids = [uuid.uuid4() for _ in range(20)]
                self.others.append((carrier["id"], ids))
                drivers += [
                    {"transporteur_id": carrier["id"], "id": i, "naam": f"Chauffeur {k}",
                     "user_token": new_user_token(), "actief": True, "token_version": 1,
                     "created_at": now}
                    for k, i in enumerate(ids)
                ]  # fmt: skip
            self._insert(Driver, drivers)
            db.session.commit()
        self.count = FIXED_TASKS
        return {
            "carrier_id": carrier_id,
            "a": (a_id, a_token),
            "b": (b_id, b_token),
        }

    def grow(self, size: int) -> int:
        """Background tasks of the other carriers until the table holds size tasks."""
        from portal.tasks.models import Task

        rng, now = self.rng, datetime.now(UTC)
        missing = size - self.count
        with self.app.app_context():
            rows = []
            for n in range(self.count, size):
                carrier_id, drivers = self.others[n % len(self.others)]
                offset = rng.uniform(-365, 14)
                past = "geannuleerd" if n % 12 == 0 else "afgerond"
                status = OPEN[n % 3] if offset > 0 else past
                planned = now + timedelta(days=offset)
                kind = KINDS[n % len(KINDS)]
                rows.append(
                    task_row(
                        rng,
                        carrier_id,
                        drivers[n // len(self.others) % 20],
                        kind,
                        None,
                        planned,
                        status,
                        n,
                    )
                )
                if len(rows) == 10_000:
                    self._insert(Task, rows)
                    rows = []
            if rows:
                self._insert(Task, rows)
            db.session.commit()
        self.count = size
        return missing


# --- the anchor: PostgreSQL building the same JSON ---------------------------------------


def _json_fields(fields: list[str], columns, alias: str, spliced: dict[str, str]) -> str:
    from portal.types import UTCDateTime

    parts = []
    for name in fields:
        if name in spliced:
            value = spliced[name]
        elif isinstance(columns[name].type, UTCDateTime):
            value = (
                f"to_char({alias}.{name} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
            )
        else:
            value = f"{alias}.{name}"
        parts.append(f"'{name}', {value}")
    return "json_build_object(" + ", ".join(parts) + ")"


def anchor_tasks_sql(carrier_id: uuid.UUID, user_token: str) -> str:
    """The driver's list as the endpoint answers it without filters (open tasks plus those
    completed today in the carrier's time zone, by gepland_op, at most 100), each task with
    its questionnaire definition, as one json_agg: the seed's field order, read from the
    response schema so the anchor keeps up with it."""
    from portal.tasks.models import Task
    from portal.tasks.schemas import TaskOut

    fields = list(TaskOut.model_fields)
    body = _json_fields(fields, Task.__table__.c, "t", {"vragenpad": "q.definition::json"})
    open_statuses = ", ".join(f"'{s}'" for s in OPEN)
    return (
        f"SELECT coalesce(json_agg({body} ORDER BY t.gepland_op NULLS LAST, t.created_at, t.id),"
        " '[]'::json) FROM (SELECT t.* FROM taken t"
        " JOIN transporteurs z ON z.id = t.transporteur_id"
        " JOIN chauffeurs c ON c.transporteur_id = t.transporteur_id AND c.id = t.chauffeur_id"
        f" WHERE t.transporteur_id = '{carrier_id}' AND c.user_token = '{user_token}'"
        " AND c.actief AND t.gearchiveerd_op IS NULL"
        f" AND (t.status IN ({open_statuses}) OR (t.status = 'afgerond' AND t.afgerond_op >="
        " (date_trunc('day', now() AT TIME ZONE z.tijdzone) AT TIME ZONE z.tijdzone)))"
        " ORDER BY t.gepland_op NULLS LAST, t.created_at, t.id LIMIT 100) t"
        " LEFT JOIN activity_questionnaires q ON q.transporteur_id = t.transporteur_id"
        " AND q.id = t.activity_questionnaire_id"
    )


def anchor_questionnaires_sql(carrier_id: uuid.UUID) -> str:
    """GET /activity_questionnaires without filters: the active revisions, at most 100."""
    from portal.questionnaires.models import ActivityQuestionnaire

    fields = ["id", "transporteur_id", "activity_type", "questionnaire_id", "definition",
              "is_active", "created_at", "updated_at"]  # fmt: skip
    body = _json_fields(
        fields, ActivityQuestionnaire.__table__.c, "q", {"definition": "q.definition::json"}
    )
    return (
        f"SELECT coalesce(json_agg({body} ORDER BY q.activity_type, q.id), '[]'::json)"
        " FROM (SELECT * FROM activity_questionnaires q"
        f" WHERE q.transporteur_id = '{carrier_id}' AND q.is_active"
        " ORDER BY q.activity_type, q.id LIMIT 100) q"
    )


def transaction_script(carrier_id: uuid.UUID, *statements: str, end: str = "COMMIT") -> str:
    """A pgbench transaction the way PostgREST runs one: BEGIN, the carrier setting, the
    statements, the end."""
    lines = ["BEGIN;", f"SELECT set_config('app.transporteur_id', '{carrier_id}', true);"]
    lines += [" ".join(s.split()) + ";" for s in statements]
    lines.append(f"{end};")
    return "\n".join(lines) + "\n"


def run_sql(dbname: str, role: str, carrier_id: uuid.UUID, sql: str):
    with psycopg.connect(url(dbname, role, driver=False)) as conn:
        conn.execute("SELECT set_config('app.transporteur_id', %s, true)", (str(carrier_id),))
        return conn.execute(sql).fetchone()[0]


def first_difference(a, b, path: str = "$") -> str | None:
    """Where two parsed JSON values first differ (None when equal)."""
    if type(a) is not type(b) and not (isinstance(a, int | float) and isinstance(b, int | float)):
        return f"{path}: {type(a).__name__} {str(a)[:80]!r} vs {type(b).__name__} {str(b)[:80]!r}"
    if isinstance(a, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'the app' if key in a else 'the anchor'}"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        if list(a) != list(b):
            return f"{path}: same members, another order"
        return None
    if isinstance(a, list):
        for index, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}: {len(a)} items vs {len(b)}"
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"


# --- load tools --------------------------------------------------------------------------

UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4, "h": 3.6e6}
SIZES = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}


def _ms(value: str) -> float:
    found = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", value)
    return float(found.group(1)) * UNITS[found.group(2)] if found else float("nan")


def wrk(url_: str, headers: dict, seconds: int, connections: int, threads: int) -> dict:
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "30s"]
    command.append("--latency")
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    out = subprocess.run([*command, url_], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    done = re.search(r"(\d+) requests in [\d.]+\w+, ([\d.]+)(\w+) read", out)
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)$", out, re.M))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    requests = int(done.group(1))
    return {
        "rate": rate,
        "p50": _ms(latency.get("50", "")),
        "p99": _ms(latency.get("99", "")),
        "kb": float(done.group(2)) * SIZES[done.group(3)] / max(requests, 1) / 1024,
        "bad": int(bad.group(1)) if bad else 0,
        "errors": errors.group(1) if errors else None,
    }


def pgbench(dbname: str, role: str, script: Path, seconds: int, clients: int, threads: int) -> dict:
    command = ["pgbench", "-n", "-h", HOST, "-p", str(PORT), "-U", role, "-f", str(script)]
    command += ["-c", str(clients), "-j", str(threads), "-T", str(seconds), dbname]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"pgbench failed: {done.stderr.strip()[-600:]}")
    tps = float(re.search(r"tps = ([\d.]+)", done.stdout).group(1))
    latency = re.search(r"latency average = ([\d.]+) ms", done.stdout)
    failed = re.search(r"number of failed transactions: (\d+)", done.stdout)
    return {
        "rate": tps,
        "latency": float(latency.group(1)) if latency else float("nan"),
        "failed": int(failed.group(1)) if failed else 0,
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def http(method: str, address: str, headers: dict | None = None, body: bytes | None = None):
    request = urllib.request.Request(address, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


class Gunicorn:
    """gunicorn wsgi:app with the project's gunicorn.conf.py on a free loopback port; always
    stopped."""

    def __init__(self, env: dict, folder: Path, workers: int = 4):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = folder / "gunicorn.log"
        binary = Path(sys.executable).parent / "gunicorn"
        command = [str(binary), "-c", str(ROOT / "gunicorn.conf.py"), "-w", str(workers)]
        command += ["-b", f"127.0.0.1:{self.port}"]
        command += ["--log-level", "warning", "wsgi:app"]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env={**os.environ, "RIJPLAN_ACCESS_LOG": "off", **env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches us; we stop it ourselves
            )

    def wait(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{self.log.read_text()[-2000:]}")
            with contextlib.suppress(OSError):
                status, _, _ = http("GET", f"{self.base}/api/v1/openapi.json")
                if status == 200:
                    return
            time.sleep(0.3)
        raise RuntimeError(f"gunicorn does not answer:\n{self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


# --- in-process: statements, round trips, the board -------------------------------------


class Counter:
    """Statements (SQLAlchemy's before_cursor_execute) and round trips (libpq's protocol
    trace: each run of client messages answered by the server is one) of the requests made
    inside `with counter:`; BEGIN, COMMIT/ROLLBACK and the pool's pre-ping count as trips."""

    def __init__(self, engine, folder: Path):
        self.engine, self.folder = engine, folder
        self.connections: list = []
        self.statements: list[tuple[str, object]] = []
        self.trace: Path | None = None
        event.listen(engine, "connect", self._connected)
        event.listen(engine, "before_cursor_execute", self._executed)
        reads.listeners.append(self._read)

    def _connected(self, dbapi_connection, record) -> None:
        self.connections.append(dbapi_connection)
        if self.trace is not None:
            self._start(dbapi_connection)

    def _start(self, connection) -> None:
        fd = os.open(self.trace, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        connection.pgconn.trace(fd)  # libpq keeps the FILE; a few leak per run, no matter
        connection.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)

    def _executed(self, conn, cursor, statement, parameters, context, executemany) -> None:
        if self.trace is not None:
            self.statements.append((statement, parameters))

    def _read(self, sent) -> None:
        """What portal.reads sends itself (a pipeline of statements, past the engine)."""
        if self.trace is not None:
            self.statements += sent

    def __enter__(self):
        self.statements = []
        self.trace = self.folder / f"trace-{uuid.uuid4().hex}.txt"
        self.trace.touch()
        for connection in self.connections:
            if not connection.closed:
                self._start(connection)
        return self

    def __exit__(self, *exc) -> None:
        for connection in self.connections:
            if not connection.closed:
                connection.pgconn.untrace()  # flushes
        trips, direction = 0, None
        with open(self.trace, "rb") as lines:
            for line in lines:
                side = line[:1]
                if side == b"F" and direction != b"F":
                    trips += 1
                if side in (b"F", b"B"):
                    direction = side
        self.round_trips = trips
        self.trace.unlink()
        self.trace = None


def describe(statement: str) -> str:
    one = " ".join(statement.split())
    return one if len(one) <= 90 else one[:87] + "..."


def render(engine, statements: list[tuple[str, object]]) -> list[str]:
    """The statements with their parameters inlined (psycopg's own quoting)."""
    raw = engine.raw_connection()
    try:
        cursor = psycopg.ClientCursor(raw.driver_connection)
        return [cursor.mogrify(s, p) if p else s for s, p in statements]
    finally:
        raw.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"


# --- the run -----------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-name", default="rijplan_bench_poll")
    parser.add_argument("--sizes", default="10000,100000", help="tasks in the table, in turn")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk/pgbench run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    parser.add_argument("--carriers", type=int, default=101)
    parser.add_argument("--board-requests", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
    if not sizes or sizes[0] < FIXED_TASKS:
        parser.error(f"--sizes: each at least {FIXED_TASKS} (the bench carrier's tasks)")
    if args.carriers < 2:
        parser.error("--carriers: at least 2")
    for tool, package in (("wrk", "wrk"), ("pgbench", "postgresql-client")):
        if shutil.which(tool) is None:
            print(f"{tool} is missing; install it with: apt-get install -y {package}")
            sys.exit(2)

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    name = args.database_name
    folder = Path(tempfile.mkdtemp(prefix="driver_poll-"))
    owner_url, app_url = url(name, SUPERUSER), url(name, APP_ROLE)
    server = None
    apps = []
    try:
        started = time.perf_counter()
        create_database(name)
        owner = make_app(owner_url, folder, ADMIN_CONNECTION=True)  # as cli.admin_context
        apps.append(owner)
        with owner.app_context(), contextlib.redirect_stderr(io.StringIO()) as log:
            try:
                upgrade()  # alembic logs each migration: shown only when one fails
            except Exception:
                print(log.getvalue(), file=sys.stderr)
                raise
            from portal.cli import grant

            grant(APP_ROLE)
            db.session.commit()
        seeder = Seeder(owner, args.carriers)
        ids = seeder.bench_carrier()
        carrier_id = ids["carrier_id"]
        seeder.grow(sizes[0])
        vacuum(name)
        print(
            f"database {name}: migrated and seeded {sizes[0]} tasks, {args.carriers} carriers "
            f"in {time.perf_counter() - started:.0f}s; app role {APP_ROLE} (no superuser, "
            f"no owner, no BYPASSRLS); PostgreSQL "
            f"{run_sql(name, SUPERUSER, carrier_id, 'SHOW server_version')}, {os.cpu_count()} cores"
        )

        server = Gunicorn(
            {
                "DATABASE_URL": url(name, APP_ROLE, driver=False),
                "DATABASE_ADMIN_URL": url(name, SUPERUSER, driver=False),
                "SECRET_KEY": SECRET,
                "RIJPLAN_INSTANCE": str(folder),
            },
            folder,
            args.workers,
        )
        server.wait()
        print(
            f"gunicorn: {args.workers} workers (gunicorn.conf.py: gthread, keep-alive) at "
            f"{server.base} as {APP_ROLE}"
        )

        def sign_in(email: str) -> tuple[str, str]:
            body = {"grant_type": "password", "username": email, "password": PASSWORD}
            status, _, answer = http(
                "POST",
                f"{server.base}/api/v1/auth/token",
                {"Content-Type": "application/json"},
                orjson.dumps(body),
            )
            assert status == 200, (status, answer[:300])
            found = orjson.loads(answer)
            return found["access_token"], found["user_token"]

        def poll_url(user_token: str) -> str:
            return f"{server.base}/api/v1/users/{user_token}/taken"

        aq_url = f"{server.base}/api/v1/activity_questionnaires"
        a_token, b_token = ids["a"][1], ids["b"][1]
        load = {"seconds": args.duration, "connections": args.connections, "threads": args.threads}

        # The p50 of one connection at each size: the cost should follow the rows returned.
        scaling: dict[int, tuple[float, float]] = {}
        for index, size in enumerate(sizes):
            if index:
                begin = time.perf_counter()
                seeder.grow(size)
                vacuum(name)
                print(f"seeded up to {size} tasks in {time.perf_counter() - begin:.0f}s")
            access, _ = sign_in("a@bench.nl")
            access_b, _ = sign_in("b@bench.nl")
            one = {"seconds": args.duration, "connections": 1, "threads": 1}
            wrk(poll_url(a_token), {"Authorization": f"Bearer {access}"}, 1, 1, 1)  # warm
            # Three alternating windows each, their median: one window is at the mercy of
            # whatever else the machine does in those seconds.
            windows_a, windows_b = [], []
            for _ in range(3):
                windows_a.append(
                    wrk(poll_url(a_token), {"Authorization": f"Bearer {access}"}, **one)
                )
                windows_b.append(
                    wrk(poll_url(b_token), {"Authorization": f"Bearer {access_b}"}, **one)
                )
            a = {"p50": statistics.median(w["p50"] for w in windows_a), "kb": windows_a[0]["kb"]}
            b = {"p50": statistics.median(w["p50"] for w in windows_b), "kb": windows_b[0]["kb"]}
            scaling[size] = (a["p50"], b["p50"])
            print(
                f"p50 at {size} tasks, one connection (median of 3 windows): {a['p50']:.1f} ms "
                f"for the driver with 50 open tasks ({a['kb']:.0f} KB), {b['p50']:.1f} ms for "
                f"the driver with a year of history (19 open of 1000, {b['kb']:.0f} KB)"
            )

        # The answers, and the anchor checked against them.
        access, _ = sign_in("a@bench.nl")
        auth = {"Authorization": f"Bearer {access}"}
        status, headers, full = http("GET", poll_url(a_token), auth)
        assert status == 200, (status, full[:300])
        etag = headers.get("ETag")
        tasks_json = orjson.loads(full)
        status, _, _ = http("GET", poll_url(a_token), {**auth, "If-None-Match": etag})
        _, headers_gz, body_gz = http("GET", poll_url(a_token), {**auth, "Accept-Encoding": "gzip"})
        status_aq, _, aq_body = http("GET", aq_url, auth)
        assert status_aq == 200, (status_aq, aq_body[:300])
        print(
            f"answer: {len(tasks_json)} tasks, {len(full) / 1024:.0f} KB JSON, "
            f"{len(body_gz) / 1024:.0f} KB gzip ({headers_gz.get('Content-Encoding')}), "
            f"ETag {etag}, If-None-Match answers {status}; activity_questionnaires: "
            f"{len(orjson.loads(aq_body))} definitions, {len(aq_body) / 1024:.0f} KB"
        )
        if status != 304:
            print(f"warning: the unchanged poll answered {status}, not 304")
        if headers_gz.get("Content-Encoding") == "gzip":
            assert orjson.loads(gzip.decompress(body_gz)) == tasks_json

        tasks_sql = anchor_tasks_sql(carrier_id, a_token)
        aq_sql = anchor_questionnaires_sql(carrier_id)
        for label, sql, answer in (
            ("driver's list", tasks_sql, tasks_json),
            ("activity_questionnaires", aq_sql, orjson.loads(aq_body)),
        ):
            anchor = run_sql(name, APP_ROLE, carrier_id, sql)
            difference = first_difference(answer, anchor)
            if difference:
                print(f"warning: the anchor's JSON for the {label} differs: {difference}")
            else:
                print(f"anchor ({label}): PostgreSQL's JSON equals the endpoint's after parsing")
        tasks_script = folder / "anchor_tasks.sql"
        tasks_script.write_text(transaction_script(carrier_id, tasks_sql))
        aq_script = folder / "anchor_questionnaires.sql"
        aq_script.write_text(transaction_script(carrier_id, aq_sql))

        # In-process, as the app role: statements and round trips, the board.
        app = make_app(app_url, folder, owner_url)
        apps.append(app)
        with app.app_context():
            engine = db.engine
        counter = Counter(engine, folder)
        engine.dispose()  # connections made at start (the app's RLS check) are not traced
        client = app.test_client()
        token = client.post(
            "/api/v1/auth/token",
            json={"grant_type": "password", "username": "a@bench.nl", "password": PASSWORD},
        ).get_json()["access_token"]
        path = f"/api/v1/users/{a_token}/taken"
        bearer = {"Authorization": f"Bearer {token}"}
        for _ in range(3):  # warm the process, as a worker is
            first = client.get(path, headers=bearer)
            client.get("/api/v1/activity_questionnaires", headers=bearer)
        counted = {}
        for label, address, headers in (
            ("full answer", path, bearer),
            ("304", path, {**bearer, "If-None-Match": first.headers["ETag"]}),
            ("activity_questionnaires", "/api/v1/activity_questionnaires", bearer),
        ):
            with counter:
                response = client.get(address, headers=headers)
            assert response.status_code in (200, 304), response.status_code
            counted[label] = (list(counter.statements), counter.round_trips)
            print(
                f"{label}: {len(counter.statements)} SQL statements, "
                f"{counter.round_trips} round trips per request (status {response.status_code})"
            )
        # Once confirmed, an unchanged poll is kept until the change feed says otherwise.
        from portal.api.unchanged import _feed_conninfo
        from portal.change_feed import feed_for

        with app.app_context():
            assert feed_for(_feed_conninfo(app)).wait_live(), "the change feed did not connect"
        unchanged = {**bearer, "If-None-Match": first.headers["ETag"]}
        assert client.get(path, headers=unchanged).status_code == 304  # confirmed, kept
        with counter:
            assert client.get(path, headers=unchanged).status_code == 304
        kept_trips = counter.round_trips
        print(f"304 kept (confirmed before, no change since): {kept_trips} round trips")
        for statement, _ in counted["full answer"][0]:
            print(f"    {describe(statement)}")
        replay = render(engine, counted["full answer"][0])
        rls_script = folder / "app_statements.sql"
        lines = ["BEGIN;"] + [" ".join(s.split()) + ";" for s in replay] + ["ROLLBACK;"]
        rls_script.write_text("\n".join(lines) + "\n")

        board = app.test_client()
        login = board.post("/login", data={"email": "p@bench.nl", "password": PASSWORD})
        assert login.status_code == 303, login.status_code
        page = board.get("/taken")
        cards = len(set(re.findall(r'id="task-([0-9a-f-]{36})"', page.get_data(as_text=True))))
        with counter:
            board.get("/taken")
        timings = []
        for _ in range(args.board_requests):
            begin = time.perf_counter()
            assert board.get("/taken").status_code == 200
            timings.append((time.perf_counter() - begin) * 1000)
        print(
            f"board (today, in-process): {cards} cards, {len(page.get_data()) / 1024:.0f} KB "
            f"HTML, {len(counter.statements)} statements; p50 {percentile(timings, 0.5):.0f} ms, "
            f"p99 {percentile(timings, 0.99):.0f} ms over {args.board_requests} requests"
        )
        with app.app_context():
            db.engine.dispose()

        # The rounds.
        print(
            f"rounds: wrk -t{args.threads} -c{args.connections} -d{args.duration}s, pgbench "
            f"-c{args.connections} -j{args.threads} -T{args.duration}, at {sizes[-1]} tasks"
        )
        wrk(poll_url(a_token), auth, 2, args.connections, args.threads)  # warm every worker
        wrk(aq_url, auth, 1, args.connections, args.threads)
        ratios: dict[str, list[float]] = {k: [] for k in ("full", "304", "gzip", "aq", "rls")}
        p50s = []
        for number in range(1, args.rounds + 1):
            access, _ = sign_in("a@bench.nl")  # access tokens live 15 minutes
            auth = {"Authorization": f"Bearer {access}"}
            runs = {
                "full": wrk(poll_url(a_token), auth, **load),
                "anchor": pgbench(name, APP_ROLE, tasks_script, args.duration, args.connections,
                                  args.threads),
                "304": wrk(poll_url(a_token), {**auth, "If-None-Match": etag}, **load),
                "gzip": wrk(poll_url(a_token), {**auth, "Accept-Encoding": "gzip"}, **load),
                "aq": wrk(aq_url, auth, **load),
                "aq anchor": pgbench(name, APP_ROLE, aq_script, args.duration, args.connections,
                                     args.threads),
                "rls app": pgbench(name, APP_ROLE, rls_script, args.duration, args.connections,
                                   args.threads),
                "rls owner": pgbench(name, SUPERUSER, rls_script, args.duration,
                                     args.connections, args.threads),
            }  # fmt: skip
            for label, run in runs.items():
                if run.get("bad") or run.get("failed") or run.get("errors"):
                    print(f"warning: round {number} {label}: {run}")
            full, anchor = runs["full"], runs["anchor"]
            ratios["full"].append(full["rate"] / anchor["rate"])
            ratios["304"].append(runs["304"]["rate"] / full["rate"])
            ratios["gzip"].append(runs["gzip"]["rate"] / full["rate"])
            ratios["aq"].append(runs["aq"]["rate"] / runs["aq anchor"]["rate"])
            ratios["rls"].append(runs["rls app"]["rate"] / runs["rls owner"]["rate"])
            p50s.append(full["p50"])
            print(
                f"round {number}/{args.rounds}: full {full['rate']:.0f} req/s (p50 "
                f"{full['p50']:.0f} ms, p99 {full['p99']:.0f} ms, {full['kb']:.0f} KB) vs "
                f"PostgreSQL {anchor['rate']:.0f} tx/s; 304 {runs['304']['rate']:.0f} req/s "
                f"({runs['304']['kb']:.1f} KB); gzip {runs['gzip']['rate']:.0f} req/s "
                f"({runs['gzip']['kb']:.0f} KB); activity_questionnaires {runs['aq']['rate']:.0f} "
                f"req/s ({runs['aq']['kb']:.0f} KB) vs PostgreSQL {runs['aq anchor']['rate']:.0f} "
                f"tx/s; app SQL {runs['rls app']['rate']:.0f} tx/s as {APP_ROLE}, "
                f"{runs['rls owner']['rate']:.0f} tx/s as the owner"
            )

        full_trips = counted["full answer"][1]
        trips_304 = counted["304"][1]
        rls = ratios["rls"]
        a_first, a_last = scaling[sizes[0]][0], scaling[sizes[-1]][0]
        b_last = scaling[sizes[-1]][1]
        print()
        print(
            f"results over {args.rounds} rounds at {sizes[-1]} tasks, median [min-max] of the "
            "per-round ratios; goals: full answer >= 2.0 (app req/s / PostgreSQL tx/s), 304 >= 5 "
            "(304 req/s / full req/s), gzip >= 1 (gzip req/s / raw req/s), "
            "activity_questionnaires >= 0.6, RLS cost <= 10%"
        )
        print(f"full answer ratio: {spread(ratios['full'])}")
        print(f"304 ratio: {spread(ratios['304'])}")
        print(f"gzip ratio: {spread(ratios['gzip'])}")
        print(f"activity_questionnaires ratio: {spread(ratios['aq'])}")
        cost = sorted((1 / r - 1) * 100 for r in rls)
        print(
            f"RLS cost: {statistics.median(cost):+.1f}% [{cost[0]:+.1f}% to {cost[-1]:+.1f}%] "
            f"(the {len(replay)} statements of a full poll: tx/s as the owner, which bypasses "
            f"RLS, over tx/s as {APP_ROLE}, minus 1)"
        )
        print(
            f"full answer at {args.connections} connections: p50 {statistics.median(p50s):.0f} ms "
            f"[{min(p50s):.0f}-{max(p50s):.0f}]"
        )
        print(
            f"round trips per request: {full_trips} full answer (goal <= 3), {trips_304} for a 304 "
            f"the database confirms and {kept_trips} once kept (goal 1); SQL statements: "
            f"{len(counted['full answer'][0])} and {len(counted['304'][0])}"
        )
        print(
            f"board with {cards} cards (in-process): p50 {percentile(timings, 0.5):.0f} ms, "
            f"p99 {percentile(timings, 0.99):.0f} ms (goal < 150 ms)"
        )
        print(
            "scaling, p50 at one connection: "
            + ", ".join(f"{s} tasks {a:.1f} ms" for s, (a, _) in scaling.items())
            + f"; {sizes[-1]} vs {sizes[0]}: {(a_last / a_first - 1) * 100:+.0f}% (goal within "
            "±15%)"
        )
        print(
            "driver with a year of history (19 open of 1000), p50 at one connection: "
            + ", ".join(f"{s} tasks {b:.1f} ms" for s, (_, b) in scaling.items())
            + f"; {b_last / a_last:.2f}x the driver with 50 open tasks at {sizes[-1]}"
        )
    except KeyboardInterrupt:
        print("\ninterrupted")
        sys.exit(130)
    finally:
        if server is not None:
            server.stop()
        for app in apps:
            with app.app_context():
                db.session.remove()
                db.engine.dispose()
        if not args.keep:
            with contextlib.suppress(psycopg.Error):
                superuser_exec(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
