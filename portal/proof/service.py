"""Proof of delivery: a completed task's bundle and PDF, and the links that share them.

The one door to `bewijs_links`. A link's raw token (`secrets.token_urlsafe(32)`, 43
characters) is shown once; only its SHA-256 is stored. Opening a link happens before the
carrier is known: the owner's SECURITY DEFINER function `rijplan_bewijs_link` answers the
carrier and id of the exact hash (migration c0d1c0de0210), and the link is then read, and the
bundle built, in that carrier's scope.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.english_names import TASK_STATUS, english
from portal.errors import DomainError, NotFound, ValidationFailed
from portal.extensions import db
from portal.proof import bundle as bundles
from portal.proof import pdf as pdfs
from portal.proof.bundle import Bundle, TaskNotCompleted
from portal.proof.models import ProofLink
from portal.tasks import service as tasks
from portal.tenancy import found_by
from portal.types import utcnow

logger = logging.getLogger(__name__)

DEFAULT_DAYS = 30
MAX_DAYS = 365
TOKEN_LENGTH = 43  # secrets.token_urlsafe(32)
LOOKUP = "rijplan_bewijs_link"

__all__ = [
    "DEFAULT_DAYS",
    "MAX_DAYS",
    "Bundle",
    "LinkGone",
    "SharedProof",
    "TaskNotCompleted",
    "build_bundle",
    "build_pdf",
    "create_link",
    "links_for",
    "open_link",
    "public_path",
    "revoke_link",
]


class LinkGone(DomainError):
    """A share link that expired or was revoked: 410, and nothing more is said."""

    status = 410
    title = "Gone"


@dataclass(frozen=True)
class SharedProof:
    """What an opened share link gives: the carrier and task it names."""

    carrier_id: uuid.UUID
    task_id: uuid.UUID
    verloopt_op: datetime


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


# --- the bundle --------------------------------------------------------------------------


def build_bundle(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> Bundle:
    """The task's bundle; NotFound for another carrier's task, TaskNotCompleted (409, code
    `task_not_completed`) for a task that is not completed."""
    return bundles.build(carrier_id=carrier_id, task_id=task_id)


def build_pdf(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> tuple[Bundle, bytes]:
    """The bundle and its PDF (in the current language); built twice, the same bytes."""
    built = build_bundle(carrier_id=carrier_id, task_id=task_id)
    return built, pdfs.render(built)


# --- share links -------------------------------------------------------------------------


def public_path(token: str) -> str:
    """The address a shipper opens: `/bewijs/<token>`."""
    return f"/bewijs/{token}"


def _completed_task(carrier_id: uuid.UUID, task_id: uuid.UUID):
    task = tasks.get_task(carrier_id=carrier_id, task_id=task_id, archived=True)
    if task.status != "afgerond":
        raise TaskNotCompleted(
            f"The task is {english(TASK_STATUS, task.status)}: only a completed task has a "
            "proof of delivery.",
            code="task_not_completed",
            current=task.status,
        )
    return task


def create_link(
    *,
    carrier_id: uuid.UUID,
    task_id: uuid.UUID,
    actor: Actor,
    days: int = DEFAULT_DAYS,
    now: datetime | None = None,
) -> str:
    """A new share link of a completed task's bundle, valid for `days` (1 to 365) from now;
    the raw token, which is never stored and cannot be shown again."""
    if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= MAX_DAYS:
        raise ValidationFailed(
            [{"field": "dagen", "message": f"a link holds 1 to {MAX_DAYS} days"}]
        )
    task = _completed_task(carrier_id, task_id)
    now = now or utcnow()
    token = secrets.token_urlsafe(32)
    link = ProofLink(
        transporteur_id=carrier_id,
        taak_id=task.id,
        token_hash=_hash(token),
        verloopt_op=now + timedelta(days=days),
        aangemaakt_door=actor.label[:254],
        created_at=now,
    )
    db.session.add(link)
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="task",
        entity_id=task.id,
        action="proof_shared",
        changes={"bewijslink": [None, link.verloopt_op.isoformat()]},
    )
    logger.info("proof link %s for task %s of carrier %s", link.id, task.id, carrier_id)
    return token


def links_for(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> list[ProofLink]:
    """The task's share links, newest first."""
    return list(
        db.session.scalars(
            select(ProofLink)
            .where(ProofLink.transporteur_id == carrier_id, ProofLink.taak_id == task_id)
            .order_by(ProofLink.created_at.desc(), ProofLink.id)
        )
    )


def get_link(*, carrier_id: uuid.UUID, task_id: uuid.UUID, link_id: uuid.UUID) -> ProofLink:
    """One of the task's links; NotFound when absent, another task's or another carrier's."""
    link = db.session.scalar(
        select(ProofLink).where(
            ProofLink.transporteur_id == carrier_id,
            ProofLink.taak_id == task_id,
            ProofLink.id == link_id,
        )
    )
    if link is None:
        raise NotFound("link not found")
    return link


def revoke_link(
    *,
    carrier_id: uuid.UUID,
    task_id: uuid.UUID,
    link_id: uuid.UUID,
    actor: Actor,
    now: datetime | None = None,
) -> ProofLink:
    """Stop a link at once (a revoked link stays revoked; revoking again changes nothing)."""
    link = get_link(carrier_id=carrier_id, task_id=task_id, link_id=link_id)
    if link.ingetrokken_op is None:
        link.ingetrokken_op = now or utcnow()
        db.session.flush()
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="task",
            entity_id=task_id,
            action="proof_revoked",
            changes={"bewijslink": [link.verloopt_op.isoformat(), None]},
        )
    return link


def is_active(link: ProofLink, now: datetime | None = None) -> bool:
    return link.ingetrokken_op is None and link.verloopt_op > (now or utcnow())


def open_link(token: str, *, now: datetime | None = None) -> SharedProof:
    """The carrier and task of a share link, whose carrier is the scope from then on.
    NotFound for a token no link has; LinkGone (410) for one expired or revoked."""
    if not isinstance(token, str) or len(token) != TOKEN_LENGTH:
        raise NotFound("link not found")
    link = found_by(db.session, ProofLink, LOOKUP, ProofLink.token_hash, _hash(token))
    if link is None:
        raise NotFound("link not found")
    if not is_active(link, now):
        raise LinkGone("This link has expired or was revoked.")
    return SharedProof(link.transporteur_id, link.taak_id, link.verloopt_op)
