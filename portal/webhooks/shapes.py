"""The data of each event type, made with the API's own serialisers when the transaction
that emitted it commits (events.py): a receiver reads the same shapes as the API answers.

Connected to their event types in portal/wiring.py; the domains emit events without knowing
these, so a domain that a shape reads (the task's billing line, its proof link) never has
to import the domain that emits.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from flask import current_app, has_request_context, request
from sqlalchemy.orm import Session

from portal.audit.service import SYSTEM
from portal.billing import service as billing
from portal.fleet import service as fleet
from portal.fleet.schemas import serialize_session
from portal.proof import service as proof
from portal.tasks import service as tasks
from portal.tasks.schemas import serialize_line, serialize_task
from portal.types import iso, utcnow


def _task(carrier_id: uuid.UUID, task) -> dict:
    return serialize_task(task, tasks.definitions_for(carrier_id=carrier_id, tasks=[task]))


def site_url(path: str) -> str:
    """An address on this site as a receiver outside it needs it: PUBLIC_BASE_URL, else the
    host of the request that made the change."""
    base = current_app.config.get("PUBLIC_BASE_URL") or (
        request.host_url if has_request_context() else ""
    )
    return base.rstrip("/") + path


def task_shape(_session: Session, carrier_id: uuid.UUID, task, _params: dict) -> dict:
    return _task(carrier_id, task)


def status_shape(_session: Session, carrier_id: uuid.UUID, task, params: dict) -> dict:
    return {"van": params["van"], "naar": params["naar"], "taak": _task(carrier_id, task)}


def completed_shape(_session: Session, carrier_id: uuid.UUID, task, _params: dict) -> dict:
    """The task, its billing line, and a link to its proof of delivery that a shipper opens
    without an account (a link of its own per event, valid for the default 30 days)."""
    line = billing.line_of_task(carrier_id=carrier_id, task_id=task.id)
    now = utcnow()
    token = proof.create_link(carrier_id=carrier_id, task_id=task.id, actor=SYSTEM, now=now)
    return {
        "taak": _task(carrier_id, task),
        "facturatieregel": serialize_line(line) if line is not None else None,
        "bewijs": {
            "url": site_url(proof.public_path(token)),
            "pdf": site_url(proof.public_path(token) + ".pdf"),
            "verloopt_op": iso(now + timedelta(days=proof.DEFAULT_DAYS)),
        },
    }


def vehicle_session_shape(_session: Session, carrier_id: uuid.UUID, session, _params) -> dict:
    plates = fleet.plates_by_id(carrier_id=carrier_id, vehicle_ids={session.vehicle_id})
    return serialize_session(session, plates.get(session.vehicle_id))
