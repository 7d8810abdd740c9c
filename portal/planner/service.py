"""Planning proposals: the only door to planvoorstellen and planvoorstel_regels. A proposal is
started for a period (queued), solved by the worker outside any request (`claim_next`,
`solve_proposal`, `fail`), read while it runs and after, and accepted entirely or per task
in one unit of work (portal.planner.accepting)."""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta

from sqlalchemy import select

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.planner import engine
from portal.planner.gather import gather
from portal.planner.measures import spread
from portal.planner.models import Proposal, ProposalLine
from portal.tenancy import lookup
from portal.types import utcnow

logger = logging.getLogger(__name__)

MAX_DAYS = 14
DEFAULT_SECONDS = 8
LEASE = timedelta(minutes=5)  # a running proposal whose worker died is taken up again after
DUE = ("queued", "running")  # with volgende_poging_op passed


def _invalid(field: str, code: str, message: str, **params) -> ValidationFailed:
    return ValidationFailed([{"field": field, "code": code, "message": message, **params}])


def start_proposal(
    *,
    carrier_id: uuid.UUID,
    van: datetime,
    tot: datetime,
    actor: Actor,
    seconden: int = DEFAULT_SECONDS,
    now: datetime | None = None,
) -> Proposal:
    """A proposal for the unassigned tasks planned in [van, tot), queued for the worker."""
    now = now or utcnow()
    if tot <= van:
        raise _invalid("tot", "periode_leeg", "The period ends before it starts.")
    if tot - van > timedelta(days=MAX_DAYS):
        raise _invalid("tot", "periode_te_lang", "A period is 14 days at most.", most=MAX_DAYS)
    if not 1 <= seconden <= 60:
        raise _invalid("seconden", "seconden_bereik", "Between 1 and 60 seconds.")
    proposal = Proposal(
        transporteur_id=carrier_id,
        id=uuid.uuid4(),
        status="queued",
        van=van,
        tot=tot,
        seconden=seconden,
        aangemaakt_door=actor.label,
        aangemaakt_door_type=actor.type,
        aangemaakt_door_id=actor.id,
        created_at=now,
        volgende_poging_op=now,
        pogingen=0,
    )
    db.session.add(proposal)
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="planvoorstel",
        entity_id=proposal.id,
        action="created",
        changes={"van": van, "tot": tot},
    )
    return proposal


def get_proposal(*, carrier_id: uuid.UUID, proposal_id: uuid.UUID, lock: bool = False) -> Proposal:
    """One proposal of the carrier; NotFound when absent or another carrier's."""
    stmt = select(Proposal).where(
        Proposal.transporteur_id == carrier_id, Proposal.id == proposal_id
    )
    if lock:
        stmt = stmt.with_for_update().execution_options(populate_existing=True)
    found = db.session.scalar(stmt)
    if found is None:
        raise NotFound("No such proposal.")
    return found


def lines_of(*, carrier_id: uuid.UUID, proposal_id: uuid.UUID) -> list[ProposalLine]:
    """The proposal's lines: placed ones first, by task."""
    return list(
        db.session.scalars(
            select(ProposalLine)
            .where(
                ProposalLine.transporteur_id == carrier_id,
                ProposalLine.voorstel_id == proposal_id,
            )
            .order_by(ProposalLine.chauffeur_id.is_(None), ProposalLine.taak_id)
        )
    )


def recent_proposals(*, carrier_id: uuid.UUID, limit: int = 10) -> list[Proposal]:
    return list(
        db.session.scalars(
            select(Proposal)
            .where(Proposal.transporteur_id == carrier_id)
            .order_by(Proposal.created_at.desc(), Proposal.id)
            .limit(limit)
        )
    )


# --- the worker's side --------------------------------------------------------------------


def due_carriers(*, now: datetime, limit: int = 100) -> list[uuid.UUID]:
    """Carriers with a proposal due (queued, or running past its lease), before any
    carrier's scope."""
    found = lookup(
        db.session,
        "rijplan_planvoorstellen_te_maken",
        select(Proposal.transporteur_id)
        .where(Proposal.status.in_(DUE), Proposal.volgende_poging_op <= now)
        .group_by(Proposal.transporteur_id)
        .limit(limit),
        now=now,
        limit=limit,
    )
    return [row[0] for row in found]


def claim_next(*, carrier_id: uuid.UUID, now: datetime) -> Proposal | None:
    """The carrier's oldest due proposal (queued, or running past its lease: its worker
    died), marked running for this worker (commit at once)."""
    stmt = (
        select(Proposal)
        .where(
            Proposal.transporteur_id == carrier_id,
            Proposal.status.in_(DUE),
            Proposal.volgende_poging_op <= now,
        )
        .order_by(Proposal.volgende_poging_op, Proposal.id)
        .limit(1)
    )
    if db.session.get_bind().dialect.name == "postgresql":
        stmt = stmt.with_for_update(skip_locked=True)
    proposal = db.session.scalar(stmt)
    if proposal is None:
        return None
    proposal.status = "running"
    proposal.claim_id = uuid.uuid4()
    proposal.pogingen += 1
    proposal.gestart_op = now
    proposal.volgende_poging_op = now + LEASE
    db.session.flush()
    return proposal


def solve_proposal(
    *, carrier_id: uuid.UUID, proposal_id: uuid.UUID, now: datetime | None = None
) -> Proposal:
    """Solve a proposal and store its lines (done, or timed_out with the best found)."""
    now = now or utcnow()
    proposal = get_proposal(carrier_id=carrier_id, proposal_id=proposal_id)
    found = gather(carrier_id=carrier_id, van=proposal.van, tot=proposal.tot, now=now)
    solution = engine.solve(found.problem, seconds=proposal.seconden)
    _store_lines(carrier_id, proposal, found, solution)
    proposal.status = "timed_out" if solution.timed_out else "done"
    proposal.klaar_op = utcnow()
    proposal.volgende_poging_op = None
    proposal.geplaatst = solution.placed
    proposal.niet_geplaatst = len(solution.unplaced)
    proposal.lege_km = solution.empty_km
    proposal.spreiding_min = spread(found.problem, solution.assignments)
    db.session.flush()
    logger.info(
        "proposal %s: %s placed, %s not, %s", proposal.id, solution.placed,
        len(solution.unplaced), proposal.status,
    )  # fmt: skip
    return proposal


def _store_lines(carrier_id, proposal: Proposal, found, solution) -> None:
    for line in lines_of(carrier_id=carrier_id, proposal_id=proposal.id):
        db.session.delete(line)
    db.session.flush()
    rows = found.tasks
    for a in solution.assignments:
        motor, towed = found.combination_vehicles[a.combination_id]
        db.session.add(
            _line(carrier_id, proposal, rows[a.task_id], chauffeur_id=a.driver_id,
                  voertuig_id=motor, getrokken_id=towed, lege_km=a.empty_km,
                  waarschuwingen=",".join(a.warnings) or None)
        )  # fmt: skip
    for u in solution.unplaced:
        db.session.add(_line(carrier_id, proposal, rows[u.task_id], regel=u.rule))
    db.session.flush()


def _line(carrier_id, proposal: Proposal, row, **values) -> ProposalLine:
    return ProposalLine(
        transporteur_id=carrier_id,
        id=uuid.uuid4(),
        voorstel_id=proposal.id,
        taak_id=row.id,
        taak_versie=row.versie,
        chauffeur_id_was=row.chauffeur_id,
        voertuig_id_was=row.vehicle_id,
        **values,
    )


def fail(*, carrier_id: uuid.UUID, proposal_id: uuid.UUID, reason: str) -> Proposal:
    """Mark a proposal failed, with why (for the log and the page)."""
    proposal = get_proposal(carrier_id=carrier_id, proposal_id=proposal_id)
    proposal.status = "failed"
    proposal.fout = reason[:2000]
    proposal.klaar_op = utcnow()
    proposal.volgende_poging_op = None
    db.session.flush()
    return proposal
