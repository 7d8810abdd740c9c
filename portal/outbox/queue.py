"""The table side of an outbox (`Queue`): which carriers have due entries, claiming due
entries for one worker pass with a lease (on PostgreSQL with FOR UPDATE SKIP LOCKED),
handing a claim back, recording where an entry goes after an attempt, and the backlog.

An outbox table has the columns transporteur_id, id, status ("queued", "sent", "failed",
...), volgende_poging_op (when due; NULL: not scheduled), claim_id (the pass that holds
it), pogingen (attempts counted at the claim), fout (the stored failure) and verzonden_op.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Select, func, select, update

from portal.extensions import db
from portal.outbox.retry import Decision
from portal.tenancy import lookup
from portal.types import utcnow


@dataclass(frozen=True)
class Held:
    """An entry a worker pass holds: its id, the pass's claim, and which attempt this is.
    Each outbox adds what it sends."""

    id: uuid.UUID
    claim_id: uuid.UUID
    poging: int


class Queue:
    """One outbox table. `due_function` and `backlog_function` name the owner's functions
    that answer, on PostgreSQL, which carriers have due entries and how many wait across
    carriers (the app role sees one carrier: see tenancy.lookup)."""

    def __init__(self, model, *, due_function: str, backlog_function: str) -> None:
        self.model = model
        self.due_function = due_function
        self.backlog_function = backlog_function

    def due_carriers(self, *, now: datetime, limit: int = 1000) -> list[uuid.UUID]:
        """Carriers with queued entries whose next attempt is due, most overdue first. Asked
        before the worker acts per carrier; everything else runs in one carrier's scope."""
        m = self.model
        found = lookup(
            db.session,
            self.due_function,
            select(m.transporteur_id)
            .where(m.status == "queued", m.volgende_poging_op <= now)
            .group_by(m.transporteur_id)
            .order_by(func.min(m.volgende_poging_op))
            .limit(limit),
            now=now,
            limit=limit,
        )
        return [row[0] for row in found]

    def due(self, carrier_id: uuid.UUID, now: datetime) -> tuple:
        """The conditions of the carrier's entries due now."""
        m = self.model
        return (m.transporteur_id == carrier_id, m.status == "queued", m.volgende_poging_op <= now)

    def skip_locked(self, candidates: Select) -> Select:
        """The candidates locked FOR UPDATE SKIP LOCKED on PostgreSQL, so concurrent workers
        pick different rows without waiting (elsewhere as they are)."""
        if db.session.get_bind().dialect.name == "postgresql":
            return candidates.with_for_update(skip_locked=True, of=self.model)
        return candidates

    def take(
        self, carrier_id: uuid.UUID, candidates: Select, *, now: datetime, lease: timedelta
    ) -> tuple[uuid.UUID, list[uuid.UUID]]:
        """Claim the candidates (a select of due entries' ids, in order) for one pass, locked
        FOR UPDATE SKIP LOCKED on PostgreSQL: the new claim's id and the ids it holds (none:
        nothing was due)."""
        ids = list(db.session.scalars(self.skip_locked(candidates)))
        claim_id = uuid.uuid4()
        if ids:
            self.claim(carrier_id, ids, now=now, lease=lease, claim_id=claim_id)
        return claim_id, ids

    def claim(
        self,
        carrier_id: uuid.UUID,
        ids: list[uuid.UUID],
        *,
        now: datetime,
        lease: timedelta,
        claim_id: uuid.UUID,
    ) -> None:
        """Hold the entries (still due) for this pass: the next attempt moves to the end of
        the lease and the attempt is counted, so other workers pass them by."""
        m = self.model
        db.session.execute(
            update(m)
            .where(*self.due(carrier_id, now), m.id.in_(ids))
            .values(claim_id=claim_id, volgende_poging_op=now + lease, pogingen=m.pogingen + 1)
            .execution_options(synchronize_session=False)
        )

    def held(self, carrier_id: uuid.UUID, entry_id: uuid.UUID, claim_id: uuid.UUID) -> tuple:
        """The conditions of one entry still held by the pass that claimed it."""
        m = self.model
        return (m.transporteur_id == carrier_id, m.id == entry_id, m.claim_id == claim_id)

    def release(
        self, carrier_id: uuid.UUID, entry_id: uuid.UUID, claim_id: uuid.UUID, *, now: datetime
    ) -> None:
        """Hand a claimed entry back unsent: due again now, this attempt not counted."""
        m = self.model
        db.session.execute(
            update(m)
            .where(*self.held(carrier_id, entry_id, claim_id))
            .values(claim_id=None, volgende_poging_op=now, pogingen=m.pogingen - 1)
            .execution_options(synchronize_session=False)
        )

    def finish(
        self,
        carrier_id: uuid.UUID,
        entry_id: uuid.UUID,
        claim_id: uuid.UUID,
        decision: Decision,
        *,
        now: datetime,
        only_queued: bool = False,
    ) -> int:
        """Move a held entry on as decided and let go of it; answers how many rows changed
        (0: no longer held, or with only_queued no longer queued)."""
        m = self.model
        values: dict = {
            "status": decision.status,
            "fout": decision.reason,
            "volgende_poging_op": decision.next_at,
            "claim_id": None,
        }
        if decision.status == "sent":
            values["verzonden_op"] = now
        where = self.held(carrier_id, entry_id, claim_id)
        if only_queued:
            where = (*where, m.status == "queued")
        return db.session.execute(
            update(m).where(*where).values(**values).execution_options(synchronize_session=False)
        ).rowcount

    def backlog(self, now: datetime | None = None) -> tuple[int, int]:
        """How many entries wait across all carriers: (due now, queued in all). One query;
        on PostgreSQL the owner's backlog function counts."""
        m = self.model
        now = now or utcnow()
        fallback = select(func.count().filter(m.volgende_poging_op <= now), func.count()).where(
            m.status == "queued"
        )
        ((due, queued),) = lookup(db.session, self.backlog_function, fallback, p_now=now)
        return int(due or 0), int(queued or 0)
