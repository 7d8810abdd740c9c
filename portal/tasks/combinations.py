"""The vehicle combination of tasks: the task's vehicle and the towed vehicle behind it (the
task's own coupling, else its vehicle's coupling of the day, fleet.couplings). Answers
fleet's `task_slots` Provider (a task's vehicle, day and window), connected in
portal/wiring.py. A fixed number of queries, whatever the number of tasks."""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy import select

from portal.accounts.service import carrier_zone
from portal.extensions import db
from portal.fleet import couplings
from portal.fleet.couplings import TaskSlot
from portal.tasks.conflicts import expected_duration
from portal.tasks.models import Task


def slot_of(task, zone) -> TaskSlot:
    """A task's (or a draft's: vehicle_id, gepland_op, type, duur_min) slot."""
    start = task.gepland_op
    if start is None:
        return TaskSlot(task.vehicle_id, None)
    end = start + timedelta(minutes=expected_duration(task.type, task.duur_min))
    return TaskSlot(task.vehicle_id, start.astimezone(zone).date(), start, end)


def task_slots(*, carrier_id: uuid.UUID, task_ids: set[uuid.UUID]) -> dict[uuid.UUID, TaskSlot]:
    """The slot of each of the carrier's tasks of task_ids (one query)."""
    if not task_ids:
        return {}
    zone = carrier_zone(carrier_id)
    rows = db.session.execute(
        select(Task.id, Task.vehicle_id, Task.gepland_op, Task.type, Task.duur_min).where(
            Task.transporteur_id == carrier_id, Task.id.in_(task_ids)
        )
    )
    return {row.id: slot_of(row, zone) for row in rows}


def towed_of_tasks(*, carrier_id: uuid.UUID, tasks: list) -> dict:
    """The towed vehicle behind each of tasks (loaded already): one query."""
    zone = carrier_zone(carrier_id)
    slots = {task.id: slot_of(task, zone) for task in tasks}
    return couplings.towed_for_slots(carrier_id=carrier_id, slots=slots)


def towed_for(*, carrier_id: uuid.UUID, tasks: list[tuple]) -> dict:
    """The towed vehicle behind each of tasks, given as (key, task or draft: vehicle_id,
    gepland_op, type, duur_min), by key: one query."""
    zone = carrier_zone(carrier_id)
    slots = {key: slot_of(task, zone) for key, task in tasks}
    return couplings.towed_for_slots(carrier_id=carrier_id, slots=slots)


def plates_of_tasks(*, carrier_id: uuid.UUID, tasks: list) -> dict[uuid.UUID, tuple]:
    """What the API says of each task's combination (tasks with a vehicle only): the
    vehicle's label, and the towed vehicle's id, own plate and fleet number (or Nones).
    Two queries, none when no task has a vehicle. tasks: objects with id, vehicle_id,
    gepland_op, type and duur_min."""
    with_vehicle = [task for task in tasks if task.vehicle_id is not None]
    if not with_vehicle:
        return {}
    towed = towed_of_tasks(carrier_id=carrier_id, tasks=with_vehicle)
    motors = couplings.vehicles_by_id(
        carrier_id=carrier_id, vehicle_ids={task.vehicle_id for task in with_vehicle}
    )
    answer = {}
    for task in with_vehicle:
        motor, trailer = motors.get(task.vehicle_id), towed.get(task.id)
        answer[task.id] = (
            motor.label if motor else None,
            trailer.id if trailer else None,
            trailer.kenteken if trailer else None,
            trailer.vlootnummer if trailer else None,
        )
    return answer


def combination_of_tasks(
    *, carrier_id: uuid.UUID, task_ids: set[uuid.UUID]
) -> dict[uuid.UUID, tuple]:
    """Each task's combination (motorised vehicle or None, towed vehicle or None): three
    queries whatever the number of tasks."""
    slots = task_slots(carrier_id=carrier_id, task_ids=set(task_ids))
    towed = couplings.towed_for_slots(carrier_id=carrier_id, slots=slots)
    motors = couplings.vehicles_by_id(
        carrier_id=carrier_id, vehicle_ids={s.vehicle_id for s in slots.values() if s.vehicle_id}
    )
    return {
        task_id: (motors.get(slot.vehicle_id), towed.get(task_id))
        for task_id, slot in slots.items()
    }
