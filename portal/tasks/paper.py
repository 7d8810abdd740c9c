"""A task completed by a planner on a paper delivery note.

When the driver could not fill in the app (a flat phone, no signal, a customer who signs
only paper), the planner completes the task in the portal with the reason and a scan of the
paper note. The scan is the task's evidence: it stands for what the driver would have
recorded in the app (the questionnaire, the signature, the scan, photos and the location),
so those blockers are waived; what the paper must still say (the measured temperature, the
disinfection) the planner copies from it. The task moves along the state machine as any
completion does (through `gestart` when it had not started), so billing, webhooks and the
proof of delivery follow; the history records who, when, why and which scan.
"""

from __future__ import annotations

import uuid
from typing import BinaryIO

from portal.audit.service import Actor
from portal.errors import ValidationFailed
from portal.files import service as files
from portal.files.service import StoredFile
from portal.tasks.lifecycle import MOVES, Evidence, IllegalMove, move_task
from portal.tasks.models import Task
from portal.tasks.service import locked_task
from portal.types import Expected

# A paper note is scanned or photographed: these, not HEIC (not every shipper's viewer
# opens it) and never anything the files' own upload checks refuse.
FAMILIES = ("PDF", "JPEG", "PNG")
CONTENT_TYPES = ("application/pdf", "image/jpeg", "image/png")
# What the driver would have recorded in the app, which the paper note stands for.
STANDS_FOR = frozenset(
    {
        "questionnaire_not_submitted",
        "signature_missing",
        "scan_missing",
        "photos_too_few",
        "location_missing",
        "location_missing_agr",
    }
)
OPEN = ("gepland", "ontvangen", "gestart")
REASON_MAX = 1000


def can_complete_on_paper(task: Task) -> bool:
    """Whether a planner may complete this task on a paper note: open and not archived."""
    return task.status in OPEN and task.gearchiveerd_op is None


def check_scan_type(stream: BinaryIO) -> None:
    """ValidationFailed (field `file`) when the upload's first bytes are no PDF, JPEG or PNG;
    the stream is left at its start."""
    head = stream.read(files.HEAD_BYTES)
    stream.seek(0)
    kind = files.detect_type(head)
    if not head:
        raise ValidationFailed([{"field": "file", "message": "the file is empty"}])
    if kind is None or kind.family not in FAMILIES:
        found = kind.family if kind else "of another type"
        raise ValidationFailed(
            [{"field": "file", "message": f"a paper note must be PDF, JPEG or PNG, not {found}"}]
        )


def store_scan(
    *, carrier_id: uuid.UUID, stream: BinaryIO, filename: str | None, actor: Actor
) -> StoredFile:
    """Store the scan of a paper note (PDF, JPEG or PNG) through the files' upload checks;
    ValidationFailed at field `file` otherwise."""
    check_scan_type(stream)
    return files.store_file(
        carrier_id=carrier_id,
        stream=stream,
        filename=filename,
        soort="document_scan",
        actor=actor,
    )


def _reason_errors(reason: str) -> list[dict]:
    if not reason:
        return [{"field": "reden", "code": "required", "message": "the reason is required"}]
    if len(reason) > REASON_MAX:
        return [
            {"field": "reden", "code": "too_long", "message": f"at most {REASON_MAX} characters"}
        ]
    # Control characters are refused where text comes in (the API's bodies, portal forms).
    return []


def _scan_errors(scan: StoredFile | None) -> list[dict]:
    if scan is None:
        return [{"field": "scan", "code": "required", "message": "the scan is required"}]
    if scan.soort != "document_scan" or scan.content_type not in CONTENT_TYPES:
        return [
            {
                "field": "scan",
                "code": "not_a_scan",
                "message": "the scan must be a document scan: PDF, JPEG or PNG",
            }
        ]
    return []


def _note_errors(
    task: Task, temperatuur: float | None, desinfectie_bevestigd: bool | None
) -> list[dict]:
    """What the paper note must still say: the measured temperature, the disinfection."""
    errors = []
    unmeasured = task.required_temperatuur is not None and task.gemeten_temperatuur is None
    if unmeasured and temperatuur is None:
        errors.append(
            {
                "field": "temperatuur",
                "code": "required",
                "message": "the measured temperature on the note is required",
            }
        )
    if task.required_desinfectie and not task.desinfectie_bevestigd and not desinfectie_bevestigd:
        errors.append(
            {
                "field": "desinfectie",
                "code": "required",
                "message": "the note must confirm the disinfection",
            }
        )
    return errors


def complete_on_paper(
    *,
    carrier_id: uuid.UUID,
    task_id: uuid.UUID,
    actor: Actor,
    reden: str | None,
    scan_id: uuid.UUID | None,
    temperatuur: float | None = None,
    desinfectie_bevestigd: bool | None = None,
    expected_version: Expected = None,
) -> Task:
    """Complete an open task on a paper note: the reason, the scan (one of the carrier's
    document scans: PDF, JPEG or PNG) and, when the task asks for them, the measured
    temperature and the confirmed disinfection as the paper says them.

    PreconditionFailed (412) for a stale version; IllegalMove (409) for a task that is not
    open; ValidationFailed (422) with every problem at its field (`reden`, `scan`,
    `temperatuur`, `desinfectie`)."""
    task = locked_task(carrier_id=carrier_id, task_id=task_id, expected_version=expected_version)
    if task.status not in OPEN:
        raise IllegalMove(
            "Only a planned, received or started task can be completed on paper.",
            allowed=list(MOVES[task.status]),
            current=task.status,
        )
    reason = (reden or "").strip()
    scan = files.files_by_id(carrier_id=carrier_id, file_ids={scan_id}).get(scan_id)
    errors = [
        *_reason_errors(reason),
        *_scan_errors(scan),
        *_note_errors(task, temperatuur, desinfectie_bevestigd),
    ]
    if errors:
        raise ValidationFailed(errors)
    if task.status != "gestart":
        move_task(carrier_id=carrier_id, task_id=task.id, to="gestart", actor=actor, office=True)
    evidence = Evidence(
        scans=[scan.id],
        temperatuur=temperatuur,
        desinfectie_bevestigd=True if desinfectie_bevestigd else None,
    )
    task = move_task(
        carrier_id=carrier_id,
        task_id=task.id,
        to="afgerond",
        actor=actor,
        office=True,
        evidence=evidence,
        waive=STANDS_FOR,
        audit_as=(
            "completed_on_paper",
            {"reden": [None, reason], "papieren_bon": [None, str(scan.id)]},
        ),
    )
    task.papieren_bon_id, task.papieren_bon_reden = scan.id, reason
    return task
