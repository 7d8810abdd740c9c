"""A task's lifecycle: status moves, the driver's evidence, and the completion check.

Split from service.py (which holds reading, creating, editing and deleting) because the
state machine and its demands are one rule set that the API and the board share.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from sqlalchemy import select

from portal import events as webhooks
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.english_names import TASK_STATUS, english
from portal.errors import Conflict, ValidationFailed
from portal.extensions import db
from portal.files import service as files
from portal.questionnaires import answering
from portal.tasks import hooks
from portal.tasks.models import STATUSES, Task, TaskEvidence
from portal.tasks.service import locked_task
from portal.types import Expected, utcnow

# Status moves (DESIGN.md). Reopening a completed task is for the office only.
MOVES = {
    "gepland": ("ontvangen", "gestart", "geannuleerd"),
    "ontvangen": ("gestart", "geannuleerd"),
    "gestart": ("afgerond", "geannuleerd"),
    "afgerond": ("gestart",),
    "geannuleerd": (),
}
OFFICE_ONLY = {("afgerond", "gestart")}
EVIDENCE_FIELDS = {"fotos": "photo", "handtekeningen": "signature", "scans": "document_scan"}


class IllegalMove(Conflict):
    title = "Illegal status move"


class CompletionRefused(ValidationFailed):
    """The task's demands are not met. Evidence sent along with the move stays attached."""

    title = "Completion refused"


@dataclass
class Evidence:
    """What a driver sends along with a move: files by id and recorded values."""

    fotos: list[uuid.UUID] = field(default_factory=list)
    handtekeningen: list[uuid.UUID] = field(default_factory=list)
    scans: list[uuid.UUID] = field(default_factory=list)
    locatie_lat: float | None = None
    locatie_lng: float | None = None
    temperatuur: float | None = None
    desinfectie_bevestigd: bool | None = None

    def is_empty(self) -> bool:
        return not (
            self.fotos or self.handtekeningen or self.scans
            or self.locatie_lat is not None or self.temperatuur is not None
            or self.desinfectie_bevestigd is not None
        )  # fmt: skip


def allowed_moves(task: Task, *, office: bool) -> list[str]:
    """The statuses this task may move to, for the office (planner, integration) or a driver."""
    return [to for to in MOVES[task.status] if office or (task.status, to) not in OFFICE_ONLY]


def move_task(
    *,
    carrier_id: uuid.UUID,
    task_id: uuid.UUID,
    to: str,
    actor: Actor,
    office: bool,
    evidence: Evidence | None = None,
    expected_version: Expected = None,
    waive: frozenset[str] = frozenset(),
    audit_as: tuple[str, dict] | None = None,
) -> Task:
    """Move a task to status `to`, stamping its time; completing checks every demand but the
    blockers whose codes `waive` names (a paper delivery note stands for them: paper.py).
    `audit_as` (action, changes) records the move as that action, with those changes too.

    PreconditionFailed (412) when expected_version is stale; IllegalMove (409, with the
    allowed moves) for a move the state machine does not allow; ValidationFailed (422)
    listing everything a completion still lacks."""
    task = locked_task(carrier_id=carrier_id, task_id=task_id, expected_version=expected_version)
    _check_move(task, to, office=office)
    if evidence is not None and not evidence.is_empty():
        add_evidence(carrier_id=carrier_id, task=task, evidence=evidence, actor=actor)
    if to == "afgerond":
        _check_completion(carrier_id, task, waive)
    old = task.status
    _stamp(task, to, utcnow())
    db.session.flush()
    # Billing follows completion here (hooks.completed), the one place every completion
    # passes (the board, the driver's status move, POST afronding): each completion has its
    # line. A reopened task's line waits, out of billing, until the task is completed again.
    if to == "afgerond":
        hooks.completed(carrier_id=carrier_id, task=task)
    _record_move(carrier_id, task, old, to, actor=actor, audit_as=audit_as)
    return task


def _check_move(task: Task, to: str, *, office: bool) -> None:
    """ValidationFailed for an unknown status; IllegalMove for a move the state machine does
    not allow (this actor)."""
    if to not in STATUSES:
        raise ValidationFailed([{"field": "status", "message": f"unknown status {to!r}"}])
    allowed = allowed_moves(task, office=office)
    if to not in allowed:
        raise IllegalMove(
            f"A task that is {english(TASK_STATUS, task.status)} cannot move to "
            f"{english(TASK_STATUS, to)}.",
            allowed=allowed,
            current=task.status,
            to=to,
        )


def _check_completion(carrier_id: uuid.UUID, task: Task, waive: frozenset[str]) -> None:
    """CompletionRefused listing every demand not met, but those `waive` names."""
    missing = [
        m for m in completion_blockers(carrier_id=carrier_id, task=task) if m["code"] not in waive
    ]
    if missing:
        raise CompletionRefused(
            missing,
            detail="The task cannot be completed yet: "
            + "; ".join(m["message"] for m in missing)
            + ".",
        )


def _stamp(task: Task, to: str, now) -> None:
    """The new status and its time (reopening a completed task clears its completion)."""
    old = task.status
    task.status = to
    if to == "ontvangen":
        task.ontvangen_op = now
    elif to == "gestart":
        if old == "afgerond":
            task.afgerond_op = None  # reopened: completed again later
            task.papieren_bon_id = task.papieren_bon_reden = None  # and maybe in the app
        else:
            task.ontvangen_op = task.ontvangen_op or now
            task.gestart_op = now
    elif to == "afgerond":
        task.afgerond_op = now


def _record_move(
    carrier_id: uuid.UUID,
    task: Task,
    old: str,
    to: str,
    *,
    actor: Actor,
    audit_as: tuple[str, dict] | None,
) -> None:
    """The move on the task's trail, and its events (taak.status_gewijzigd, taak.afgerond)."""
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="task",
        entity_id=task.id,
        action=audit_as[0] if audit_as else "reopened" if old == "afgerond" else "status",
        changes={"status": [old, to], **(audit_as[1] if audit_as else {})},
    )
    webhooks.emit(
        db.session,
        carrier_id=carrier_id,
        type="taak.status_gewijzigd",
        subject=task,
        params={"van": old, "naar": to},
        order_key=task.id,
    )
    if to == "afgerond":
        webhooks.emit(
            db.session,
            carrier_id=carrier_id,
            type="taak.afgerond",
            subject=task,
            order_key=task.id,
            once_per=task.id,
        )


def add_evidence(*, carrier_id: uuid.UUID, task: Task, evidence: Evidence, actor: Actor) -> None:
    """Attach files and recorded values to a task; files must be the carrier's, of the right
    kind, and photos within max_fotos. A driver attaches only files of their own upload (or
    already on this task): another driver's photo is, to them, no such file."""
    wanted = {
        file_id: (name, kind)
        for name, kind in EVIDENCE_FIELDS.items()
        for file_id in getattr(evidence, name)
    }
    existing = {
        row.bestand_id: row.soort for row in evidence_of(carrier_id=carrier_id, task_id=task.id)
    }
    errors = _evidence_errors(carrier_id, task, evidence, wanted, existing, actor)
    if errors:
        raise ValidationFailed(errors)
    added = []
    for file_id, (_name, kind) in wanted.items():
        if file_id not in existing:
            db.session.add(
                TaskEvidence(
                    transporteur_id=carrier_id, taak_id=task.id, bestand_id=file_id, soort=kind
                )
            )
            added.append(str(file_id))
    changes = _record_values(task, evidence)
    if added:
        changes["bestanden"] = [None, added]
    if changes:
        db.session.flush()
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="task",
            entity_id=task.id,
            action="evidence",
            changes=changes,
        )


def _evidence_errors(
    carrier_id: uuid.UUID,
    task: Task,
    evidence: Evidence,
    wanted: dict[uuid.UUID, tuple[str, str]],
    existing: dict[uuid.UUID, str],
    actor: Actor,
) -> list[dict]:
    """What is wrong with the evidence sent: unknown files (a driver's: not of their own
    upload nor on this task), files of another kind, half a location, too many photos."""
    errors = []
    found = files.files_by_id(carrier_id=carrier_id, file_ids=set(wanted)) if wanted else {}
    if actor.type == "driver":
        found = {
            file_id: stored
            for file_id, stored in found.items()
            if file_id in existing or files.uploaded_by(stored, actor)
        }
    for file_id, (name, kind) in wanted.items():
        stored = found.get(file_id)
        if stored is None:
            errors.append({"field": name, "message": f"no such file {file_id}"})
        elif stored.soort != kind:
            errors.append({"field": name, "message": f"file {file_id} is a {stored.soort}"})
    if (evidence.locatie_lat is None) != (evidence.locatie_lng is None):
        errors.append({"field": "locatie", "message": "latitude and longitude go together"})
    photos = {f for f, s in existing.items() if s == "photo"} | set(evidence.fotos)
    if task.max_fotos is not None and len(photos) > task.max_fotos:
        errors.append(
            {"field": "fotos", "message": f"at most {task.max_fotos} photos, {len(photos)} given"}
        )
    return errors


def _record_values(task: Task, evidence: Evidence) -> dict:
    """The recorded values (location, temperature, disinfection) onto the task; the changes."""
    changes = {}
    if evidence.locatie_lat is not None:
        changes["afgerond_locatie"] = [None, [evidence.locatie_lat, evidence.locatie_lng]]
        task.afgerond_lat, task.afgerond_lng = evidence.locatie_lat, evidence.locatie_lng
    if evidence.temperatuur is not None:
        changes["gemeten_temperatuur"] = [task.gemeten_temperatuur, evidence.temperatuur]
        task.gemeten_temperatuur = evidence.temperatuur
    if evidence.desinfectie_bevestigd is not None:
        changes["desinfectie_bevestigd"] = [
            task.desinfectie_bevestigd,
            evidence.desinfectie_bevestigd,
        ]
        task.desinfectie_bevestigd = evidence.desinfectie_bevestigd
    return changes


def evidence_of(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> list[TaskEvidence]:
    """The files attached to a task, oldest first."""
    return list(
        db.session.scalars(
            select(TaskEvidence)
            .where(TaskEvidence.transporteur_id == carrier_id, TaskEvidence.taak_id == task_id)
            .order_by(TaskEvidence.created_at, TaskEvidence.id)
        )
    )


# What can hold a completion back, by stable code: (field, English message). Braced names are
# the blocker's params; the portal words each code in the user's language (portal/problems.py).
COMPLETION_BLOCKERS = {
    "photos_too_few": ("fotos", "at least {min} photo(s) needed, {given} given"),
    "photos_too_many": ("fotos", "at most {max} photo(s), {given} given"),
    "signature_missing": ("handtekening", "a signature is needed"),
    "scan_missing": ("scan", "a document scan is needed"),
    "location_missing": ("locatie", "the location is needed for this task"),
    "location_missing_agr": ("locatie", "the location is needed for AGR-GPS registration"),
    "temperature_missing": (
        "temperatuur",
        "the measured temperature is needed (required {required:g} °C)",
    ),
    "disinfection_unconfirmed": ("desinfectie", "the disinfection must be confirmed"),
    "questionnaire_not_submitted": (
        "vragenlijst",
        "the questionnaire must be filled in and submitted",
    ),
}


def _blocker(code: str, **params: object) -> dict:
    """One completion blocker: {field, code, params, message} (message in English)."""
    name, text = COMPLETION_BLOCKERS[code]
    return {"field": name, "code": code, "params": params, "message": text.format(**params)}


def completion_blockers(*, carrier_id: uuid.UUID, task: Task) -> list[dict]:
    """Every demand of the task that is not met yet, as {field, code, params, message}."""
    kinds = [row.soort for row in evidence_of(carrier_id=carrier_id, task_id=task.id)]
    photos = kinds.count("photo")
    missing = []
    if task.require_photos:
        least = task.min_fotos if task.min_fotos is not None else 1
        if photos < least:
            missing.append(_blocker("photos_too_few", min=least, given=photos))
    if task.max_fotos is not None and photos > task.max_fotos:
        missing.append(_blocker("photos_too_many", max=task.max_fotos, given=photos))
    if (
        task.require_signature
        and "signature" not in kinds
        and not answering.signed_in_answers(carrier_id=carrier_id, task_id=task.id)
    ):
        missing.append(_blocker("signature_missing"))
    if task.require_document_scan and "document_scan" not in kinds:
        missing.append(_blocker("scan_missing"))
    if (task.require_location or task.agr_verplicht) and task.afgerond_lat is None:
        code = "location_missing_agr" if task.agr_verplicht else "location_missing"
        missing.append(_blocker(code))
    if task.required_temperatuur is not None and task.gemeten_temperatuur is None:
        missing.append(_blocker("temperature_missing", required=task.required_temperatuur))
    if task.required_desinfectie and not task.desinfectie_bevestigd:
        missing.append(_blocker("disinfection_unconfirmed"))
    if task.activity_questionnaire_id is not None and not answering.submitted_for_task(
        carrier_id=carrier_id, task_id=task.id, revision_id=task.activity_questionnaire_id
    ):
        missing.append(_blocker("questionnaire_not_submitted"))
    return missing


def drivers_evidence(*, carrier_id: uuid.UUID, driver_id: uuid.UUID, file_id: uuid.UUID) -> bool:
    """Whether file_id is evidence on one of driver_id's tasks."""
    return (
        db.session.scalar(
            select(TaskEvidence.id)
            .join(
                Task,
                (Task.transporteur_id == TaskEvidence.transporteur_id)
                & (Task.id == TaskEvidence.taak_id),
            )
            .where(
                TaskEvidence.transporteur_id == carrier_id,
                TaskEvidence.bestand_id == file_id,
                Task.chauffeur_id == driver_id,
            )
            .limit(1)
        )
        is not None
    )
