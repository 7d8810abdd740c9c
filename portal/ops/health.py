"""Health for load balancers and orchestrators, outside sign-in, sessions and CSRF:

- `GET /healthz`: the process answers (no database): restart it when this fails.
- `GET /readyz`: this process can serve: the database answers as the app's own role, its
  schema is at the migrations' head, and file storage takes a write. 503 with the failing
  checks named otherwise: send no traffic until it passes.

Both answer JSON and are never cached.
"""

from __future__ import annotations

import io
import logging
import time
import uuid

from alembic.script import ScriptDirectory
from flask import Blueprint, current_app, jsonify
from sqlalchemy import text

from portal.config import ROOT
from portal.extensions import db
from portal.files.storage import get_storage

logger = logging.getLogger(__name__)
bp = Blueprint("ops_health", __name__)
PROBE_PREFIX = "readyz"


def _answer(body: dict, status: int):
    response = jsonify(body)
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/healthz")
def healthz():
    return _answer({"status": "ok"}, 200)


def _heads() -> set[str]:
    heads = current_app.extensions.get("rijplan_migration_heads")
    if heads is None:
        script = ScriptDirectory(str(ROOT / "migrations"))
        heads = current_app.extensions["rijplan_migration_heads"] = set(script.get_heads())
    return heads


def _database() -> dict:
    try:
        db.session.execute(text("SELECT 1"))
        current = {
            row[0] for row in db.session.execute(text("SELECT version_num FROM alembic_version"))
        }
    except Exception as error:
        db.session.rollback()
        logger.warning("readyz: database: %s", error)
        return {"database": "unreachable", "migrations": "unknown"}
    finally:
        db.session.rollback()
    wanted = _heads()
    return {"database": "ok", "migrations": "ok" if current == wanted else "behind"}


def _storage() -> str:
    key = f"{PROBE_PREFIX}/{uuid.uuid4().hex}"
    try:
        storage = get_storage(current_app)
        storage.put(key, io.BytesIO(b"ok"))
        storage.delete(key)
    except Exception as error:
        logger.warning("readyz: storage: %s", error)
        return "unwritable"
    return "ok"


@bp.get("/readyz")
def readyz():
    started = time.perf_counter()
    checks = {**_database(), "storage": _storage()}
    ready = all(value == "ok" for value in checks.values())
    body = {
        "status": "ok" if ready else "unavailable",
        "checks": checks,
        "ms": round((time.perf_counter() - started) * 1000, 1),
    }
    return _answer(body, 200 if ready else 503)
