"""Hours by the week: a planner's approval and reopening of a driver's ISO week.

An approval locks every work day touching its week (the rules live in service.py, which
refuses the changes); reopening needs a reason and keeps the approval as history.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime

from sqlalchemy import select

from portal import events as webhooks
from portal.accounts.service import carrier_zone
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.drivers import service as drivers
from portal.extensions import db
from portal.hours import totals
from portal.hours.models import WeekApproval, WorkDay
from portal.hours.review import corrections
from portal.hours.schemas import serialize_week_approval
from portal.hours.service import (
    REDEN_MAX,
    HoursConflict,
    HoursInvalid,
    approved_weeks,
    flush_or,
    local_text,
)
from portal.hours.totals import IsoWeek
from portal.types import utcnow

logger = logging.getLogger(__name__)


def approval_in_force(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, week: IsoWeek
) -> WeekApproval | None:
    found = approved_weeks(carrier_id=carrier_id, driver_ids={driver_id}, weeks={week})
    return found.get((driver_id, week))


def approval_history(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, week: IsoWeek
) -> list[WeekApproval]:
    """Every approval of a driver's week, newest first (reopened ones included)."""
    return list(
        db.session.scalars(
            select(WeekApproval)
            .where(
                WeekApproval.transporteur_id == carrier_id,
                WeekApproval.chauffeur_id == driver_id,
                WeekApproval.jaar == week.jaar,
                WeekApproval.week == week.week,
            )
            .order_by(WeekApproval.goedgekeurd_op.desc(), WeekApproval.id)
        )
    )


def _refuse_unapprovable(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, week: IsoWeek, now: datetime
) -> None:
    """Refuse approving a week approved already, with a work day still running, not begun
    yet, or with a correction the driver has not answered."""
    zone = carrier_zone(carrier_id)
    if approval_in_force(carrier_id=carrier_id, driver_id=driver_id, week=week):
        raise HoursConflict(
            f"Week {week.label} of this driver is approved already.",
            code="al_goedgekeurd",
            params={"week": week},
        )
    start, end = totals.period_bounds(week.monday, week.sunday, zone)
    running = db.session.scalar(
        select(WorkDay).where(
            WorkDay.transporteur_id == carrier_id,
            WorkDay.chauffeur_id == driver_id,
            WorkDay.beeindigd_op.is_(None),
            WorkDay.gestart_op < end,
        )
    )
    if running is not None:
        raise HoursConflict(
            f"The driver's work day since {local_text(running.gestart_op, zone)} is still running; "
            "a week can be approved once its days have ended.",
            code="week_loopt",
            params={"begin": running.gestart_op},
        )
    if start > now:
        raise HoursConflict(
            f"Week {week.label} has not begun yet.", code="week_toekomst", params={"week": week}
        )
    waiting = corrections.unanswered(carrier_id=carrier_id, driver_id=driver_id, week=week)
    if waiting:
        raise HoursConflict(
            f"The driver has not answered {waiting} correction(s) of week {week.label} yet; "
            "a week is approved once the driver has accepted or commented on each.",
            code="correcties_onbeantwoord",
            params={"aantal": waiting, "week": week},
        )


def approve_week(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    week: IsoWeek,
    actor: Actor,
    now: datetime | None = None,
) -> WeekApproval:
    """Approve a driver's week: its hours are locked until it is reopened."""
    now = now or utcnow()
    driver = drivers.get_driver(carrier_id=carrier_id, driver_id=driver_id)
    _refuse_unapprovable(carrier_id=carrier_id, driver_id=driver.id, week=week, now=now)
    approval = WeekApproval(
        transporteur_id=carrier_id,
        chauffeur_id=driver.id,
        jaar=week.jaar,
        week=week.week,
        goedgekeurd_op=now,
        goedgekeurd_door=actor.id if actor.type == "user" else None,
    )
    db.session.add(approval)
    flush_or(
        HoursConflict(
            f"Week {week.label} of this driver is approved already.",
            code="al_goedgekeurd",
            params={"week": week},
        )
    )
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="week_goedkeuring",
        entity_id=approval.id,
        action="approved",
        changes={"chauffeur_id": [None, driver.id], "week": [None, week.label]},
    )
    logger.info("week %s of driver %s approved by %s", week.label, driver.id, actor.label)
    webhooks.emit(
        db.session,
        carrier_id=carrier_id,
        type="werkweek.goedgekeurd",
        data=serialize_week_approval(approval, week),
    )
    return approval


def reopen_week(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    week: IsoWeek,
    reden: str,
    actor: Actor,
    now: datetime | None = None,
) -> WeekApproval:
    """Reopen an approved week, for a reason that is kept; its hours may change again."""
    now = now or utcnow()
    reden = (reden or "").strip()
    if not reden:
        raise HoursInvalid("reden", "required", code="verplicht")
    if len(reden) > REDEN_MAX:
        raise HoursInvalid("reden", f"at most {REDEN_MAX} characters", code="te_lang_tekst")
    approval = db.session.scalar(
        select(WeekApproval)
        .where(
            WeekApproval.transporteur_id == carrier_id,
            WeekApproval.chauffeur_id == driver_id,
            WeekApproval.jaar == week.jaar,
            WeekApproval.week == week.week,
            WeekApproval.heropend_op.is_(None),
        )
        .with_for_update()
    )
    if approval is None:
        raise HoursConflict(
            f"Week {week.label} of this driver is not approved.",
            code="niet_goedgekeurd",
            params={"week": week},
        )
    approval.heropend_op = now
    approval.heropend_door = actor.id if actor.type == "user" else None
    approval.heropend_reden = reden
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="week_goedkeuring",
        entity_id=approval.id,
        action="reopened",
        changes={"week": [week.label, week.label], "reden": [None, reden]},
    )
    logger.info("week %s of driver %s reopened by %s", week.label, driver_id, actor.label)
    return approval
