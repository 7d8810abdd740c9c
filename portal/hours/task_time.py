"""Hours: the working time a driver's activities record on a task, which billing prices
hourly tariffs by (registered with billing.recorded_time in portal/__init__.py)."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from portal.extensions import db
from portal.hours.models import WERKTIJD_SOORTEN, Activity


def worked_minutes(*, carrier_id: uuid.UUID, task) -> int | None:
    """The working minutes (arbeidstijd: breaks and availability left out) of the activities
    linked to the task, in whole minutes; None when none is linked. One still running counts
    up to the task's completion: the work on the task ended there."""
    rows = db.session.execute(
        select(Activity.begin, Activity.einde).where(
            Activity.transporteur_id == carrier_id,
            Activity.taak_id == task.id,
            Activity.soort.in_(WERKTIJD_SOORTEN),
        )
    ).all()
    seconds = 0.0
    counted = False
    for begin, einde in rows:
        end = einde or task.afgerond_op
        if end is None or end <= begin:
            continue
        seconds += (end - begin).total_seconds()
        counted = True
    return int(seconds // 60) if counted else None
