"""Proof of delivery for integrations: a completed task's bundle as PDF."""

from __future__ import annotations

import uuid

from flask import Response

from portal.api.core import operation, principal
from portal.errors import Forbidden
from portal.proof import service
from portal.tasks import service as tasks

TASK_ID = {"task_id": {"description": "the task's id", "uuid": True}}
PDF = {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}


@operation(
    "/taken/<uuid:task_id>/bewijs",
    "GET",
    scope="tasks:read",
    summary="A completed task's proof of delivery (PDF)",
    tag="tasks",
    description="The proof-of-delivery bundle of a completed task as one PDF: the task, every "
    "status time, photos, signatures with the signer's name, scans, where it was completed "
    "(and how far from the task's address), temperature, disinfection and the questionnaire "
    "answers with their revision, and a manifest of every part's SHA-256 and the bundle's "
    "own hash (also in the header `X-Bundle-SHA256`). Built from stored data only: asked "
    "twice, the same bytes, until the task or its evidence changes. A task that is not "
    "completed answers **409** with `code: task_not_completed`; another carrier's task, or "
    "for a driver a colleague's, is 404 / 403 as for GET /taken/{task_id}.",
    response_content=PDF,
    headers={
        "X-Bundle-SHA256": "the bundle's own hash (SHA-256 of its manifest)",
        "Content-Disposition": "attachment; the file name",
    },
    errors=(401, 403, 404, 409),
    path_params=TASK_ID,
)
def proof_pdf(task_id: uuid.UUID):
    who = principal()
    task = tasks.get_task(carrier_id=who.carrier_id, task_id=task_id, archived=True)
    if who.kind == "driver" and task.chauffeur_id != who.id:
        raise Forbidden("A driver may only act on its own tasks.")
    built, data = service.build_pdf(carrier_id=who.carrier_id, task_id=task_id)
    response = Response(data, mimetype="application/pdf")
    name = f"bewijs-{str(task_id)[:8]}.pdf"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    response.headers["X-Bundle-SHA256"] = built.sha256
    return response
