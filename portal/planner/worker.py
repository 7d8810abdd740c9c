"""The planner's worker: proposals solved outside any request. One pass takes, per carrier
with a queued proposal due, its oldest one (claimed and committed at once, so the page sees
it running), solves it in that carrier's scope and commits the lines; a solve that breaks
marks the proposal failed. The loop itself is the outbox core's (portal.outbox.worker):
--once drains, else it serves until SIGTERM."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from datetime import datetime

from portal.extensions import db
from portal.outbox import worker
from portal.planner import service
from portal.tenancy import carrier_scope
from portal.types import utcnow

logger = logging.getLogger(__name__)

ABOUT = worker.Command(
    name="planner",
    entry="proposal",
    statuses=("done", "timed_out", "failed"),
    failed="planner pass failed",
)


def solve_one(carrier_id, proposal_id, *, now: datetime | None = None) -> str:
    """Solve one claimed proposal and commit; failed (with why) when the solve breaks."""
    try:
        found = service.solve_proposal(carrier_id=carrier_id, proposal_id=proposal_id, now=now)
        status = found.status
        db.session.commit()
    except Exception as error:  # the proposal says it failed; the worker goes on
        logger.exception("proposal %s failed", proposal_id)
        db.session.rollback()
        service.fail(carrier_id=carrier_id, proposal_id=proposal_id, reason=repr(error))
        db.session.commit()
        status = "failed"
    return status


def run_pass(limit: int, clock: Callable[[], datetime] = utcnow) -> Counter[str]:
    """Up to limit due proposals, one per carrier per round; how many ended in each status."""
    done: Counter[str] = Counter()
    carriers = service.due_carriers(now=clock())
    db.session.commit()
    for carrier_id in carriers:
        if done.total() >= limit:
            break
        with carrier_scope(db.session, carrier_id):
            claimed = service.claim_next(carrier_id=carrier_id, now=clock())
            db.session.commit()
            if claimed is not None:
                done[solve_one(carrier_id, claimed.id)] += 1
    return done


def main(run: worker.Run, *, emit: Callable[[dict], None]) -> None:
    """`flask planner work`: drain (--once) or serve."""
    worker.command(
        lambda limit, _interval: run_pass(limit), run, emit=emit, about=ABOUT, logger=logger
    )
