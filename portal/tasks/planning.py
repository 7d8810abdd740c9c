"""Planning warnings of tasks: a board's saved tasks, a task as a form would save it, an
import's rows. Warnings, never refusals: double bookings and VDM numbers (conflicts.py),
the driver's driving and rest times (asked of tacho through hooks.driving_problems), and a
combination that lacks what the activity type needs (capability_warnings.py).
service.py re-exports these names; callers ask it."""

from __future__ import annotations

import uuid
from datetime import timedelta

from portal.tasks import conflicts, hooks
from portal.tasks.capability_warnings import capability_warnings
from portal.tasks.conflicts import Planned, PlanningWarning
from portal.tasks.models import Task
from portal.types import utcnow


def planning_warnings(
    *, carrier_id: uuid.UUID, tasks: list[Task]
) -> dict[uuid.UUID, list[PlanningWarning]]:
    """The warnings of saved tasks (a board), by task id: a fixed number of queries however
    many tasks (the conflicts, the drivers' driving and rest times, the capabilities)."""
    planned = [Planned.of_task(t) for t in tasks]
    found = conflicts.check(carrier_id=carrier_id, planned=planned)
    for warnings, extra in zip(found, _driving_warnings(carrier_id, planned), strict=True):
        warnings.extend(extra)
    lacking = capability_warnings(carrier_id=carrier_id, planned=planned)
    for warnings, extra in zip(found, lacking, strict=True):
        warnings.extend(extra)
    return {task.id: warnings for task, warnings in zip(tasks, found, strict=True) if warnings}


def _driving_warnings(carrier_id: uuid.UUID, planned: list[Planned]) -> list[list[PlanningWarning]]:
    """Per planned task: a warning when its driver cannot legally finish it by EU 561/2006
    (the planned start plus the expected duration beyond the driving time left, or inside a
    rest that is due by then). Only open tasks that still lie ahead count, and only work
    EU 561/2006 applies to (hooks.out_of_scope)."""
    now = utcnow()
    keys = [
        (p.chauffeur_id, p.gepland_op, conflicts.expected_duration(p.type, p.duur_min))
        if p.open and p.chauffeur_id and p.gepland_op
        else None
        for p in planned
    ]
    wanted = [k for k in keys if k is not None and k[1] + timedelta(minutes=k[2]) > now]
    problems = hooks.driving_problems(carrier_id=carrier_id, plans=wanted, now=now)
    if problems:  # asked only when a plan has a problem: work out of scope has none
        work = {(p.type, p.vehicle_id) for p, k in zip(planned, keys, strict=True) if k in problems}
        exempt = hooks.out_of_scope(carrier_id=carrier_id, work=work)
        keys = [
            None if k is not None and (p.type, p.vehicle_id) in exempt else k
            for p, k in zip(planned, keys, strict=True)
        ]
    return [
        [PlanningWarning(conflicts.DRIVING_TIME, {"reden": problems[k], "chauffeur_id": k[0]})]
        if k in problems
        else []
        for k in keys
    ]


def draft_warnings(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID | None,
    data: dict,
    task: Task | None = None,
) -> list[PlanningWarning]:
    """The warnings of a task as a form would save it (task: the one being edited)."""
    draft = Planned.of_data(
        data,
        driver_id=driver_id,
        task_id=task.id if task else None,
        status=task.status if task else "gepland",
    )
    return (
        conflicts.check(carrier_id=carrier_id, planned=[draft])[0]
        + (_driving_warnings(carrier_id, [draft])[0])
        + capability_warnings(carrier_id=carrier_id, planned=[draft])[0]
    )


def import_warnings(
    *, carrier_id: uuid.UUID, rows: list[tuple[int, uuid.UUID | None, dict]]
) -> list[list[PlanningWarning]]:
    """The warnings of an import's rows (number, driver, task data), against the carrier's
    tasks and each other, including rows identical to a task or an earlier row."""
    planned = [Planned.of_data(data, driver_id=c, row=n) for n, c, data in rows]
    return conflicts.check(carrier_id=carrier_id, planned=planned, rows=True)
