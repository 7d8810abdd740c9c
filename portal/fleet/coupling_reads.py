"""Reads of couplings that other units plan with: every motorised vehicle's towed vehicle
on a day (combinations) and each task's (towed_for_slots; tasks.combinations answers per
task), a fixed number of queries whatever the number of vehicles or tasks. Offered by
portal/fleet/couplings.py, the door to the koppelingen table."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import func, literal, or_, select
from sqlalchemy.orm import aliased

from portal.accounts.service import carrier_zone
from portal.extensions import db
from portal.fleet import rules
from portal.fleet.coupling_models import Coupling
from portal.fleet.models import Vehicle
from portal.hooks import Provider
from portal.types import utcnow


def current(carrier_id: uuid.UUID):
    """The where-clauses of the carrier's current (not uncoupled) couplings."""
    return (Coupling.transporteur_id == carrier_id, Coupling.ontkoppeld_op.is_(None))


@dataclass(frozen=True)
class TaskSlot:
    """What a coupling needs to know of a task: its vehicle, its day (the carrier's calendar
    day of its planned start; None: not planned) and its window (None: no planned time)."""

    vehicle_id: uuid.UUID | None
    day: date | None
    start: datetime | None = None
    end: datetime | None = None

    def overlaps(self, other: TaskSlot) -> bool:
        if None in (self.start, self.end, other.start, other.end):
            return False
        return self.start < other.end and other.start < self.end


task_slots = Provider(
    "fleet.task_slots",
    "task_slots(carrier_id=, task_ids=) -> {task_id: TaskSlot} of the carrier's tasks",
    default={},
)


def vehicles_by_id(*, carrier_id: uuid.UUID, vehicle_ids: set[uuid.UUID]) -> dict:
    """The carrier's vehicles of vehicle_ids, by id (one query)."""
    if not vehicle_ids:
        return {}
    rows = db.session.scalars(
        select(Vehicle).where(Vehicle.transporteur_id == carrier_id, Vehicle.id.in_(vehicle_ids))
    )
    return {vehicle.id: vehicle for vehicle in rows}


def combinations(*, carrier_id: uuid.UUID, day: date) -> dict[uuid.UUID, Vehicle | None]:
    """Every active motorised vehicle of the carrier with the towed vehicle coupled to it for
    the day (None: it runs solo that day). Two queries."""
    motors = db.session.scalars(
        select(Vehicle.id).where(
            Vehicle.transporteur_id == carrier_id,
            Vehicle.actief.is_(True),
            Vehicle.soort.in_(rules.MOTORISED),
        )
    )
    answer: dict[uuid.UUID, Vehicle | None] = dict.fromkeys(motors)
    rows = db.session.execute(
        select(Coupling.trekkend_id, Vehicle)
        .join(
            Vehicle,
            (Vehicle.transporteur_id == Coupling.transporteur_id)
            & (Vehicle.id == Coupling.getrokken_id),
        )
        .where(*current(carrier_id), Coupling.datum == day)
    )
    for motor_id, towed in rows:
        if motor_id in answer:
            answer[motor_id] = towed
    return answer


def towed_for_slots(
    *, carrier_id: uuid.UUID, slots: dict[uuid.UUID, TaskSlot]
) -> dict[uuid.UUID, Vehicle | None]:
    """For each task of slots, the towed vehicle behind its vehicle: the task's own coupling
    (while it names the task's vehicle), else the day coupling of its vehicle on its day.
    One query, whatever the number of tasks."""
    answer: dict[uuid.UUID, Vehicle | None] = dict.fromkeys(slots)
    planned = {tid: s for tid, s in slots.items() if s.vehicle_id is not None}
    if not planned:
        return answer
    days = {s.day for s in planned.values() if s.day is not None}
    motors = {s.vehicle_id for s in planned.values()}
    wanted = [Coupling.taak_id.in_(planned)]
    if days:
        wanted.append(Coupling.datum.in_(days) & Coupling.trekkend_id.in_(motors))
    rows = db.session.execute(
        select(Coupling, Vehicle)
        .join(
            Vehicle,
            (Vehicle.transporteur_id == Coupling.transporteur_id)
            & (Vehicle.id == Coupling.getrokken_id),
        )
        .where(*current(carrier_id), or_(*wanted))
    )
    by_task, by_day = {}, {}
    for coupling, towed in rows:
        if coupling.taak_id is not None:
            by_task[coupling.taak_id] = (coupling.trekkend_id, towed)
        else:
            by_day[(coupling.trekkend_id, coupling.datum)] = towed
    for task_id, slot in planned.items():
        own = by_task.get(task_id)
        if own is not None and own[0] == slot.vehicle_id:
            answer[task_id] = own[1]
        else:
            answer[task_id] = by_day.get((slot.vehicle_id, slot.day))
    return answer


def change_marks(carrier) -> tuple:
    """Scalar subqueries that change when one of the carrier's couplings is made or ended,
    or one of its vehicles is changed (carrier: a value or a bind parameter): what a list
    that shows plates puts in its ETag."""
    coupled = (
        select(func.max(func.coalesce(Coupling.ontkoppeld_op, Coupling.created_at)))
        .where(Coupling.transporteur_id == carrier)
        .scalar_subquery()
    )
    changed = (
        select(func.max(func.coalesce(Vehicle.updated_at, Vehicle.created_at)))
        .where(Vehicle.transporteur_id == carrier)
        .scalar_subquery()
    )
    return coupled, changed


def motor_of(*, carrier_id: uuid.UUID, towed_id: uuid.UUID, day: date) -> Vehicle | None:
    """The motorised vehicle towed_id is coupled to for the day, if any (one query)."""
    return db.session.scalar(
        select(Vehicle)
        .join(
            Coupling,
            (Vehicle.transporteur_id == Coupling.transporteur_id)
            & (Vehicle.id == Coupling.trekkend_id),
        )
        .where(*current(carrier_id), Coupling.getrokken_id == towed_id, Coupling.datum == day)
    )


def combination_columns(*, carrier, vehicle_id, task_id, day) -> tuple:
    """Correlated scalar subqueries of a task's combination, for a statement over tasks
    (the driver's poll reads them in its one round trip): the vehicle's label, and the
    towed vehicle's id, plate and fleet number, as plates_of_tasks gives them (the task's
    own coupling while it names the task's vehicle, else the vehicle's day coupling).
    carrier, vehicle_id, task_id: the task's columns; day: its calendar day."""
    motor = aliased(Vehicle)
    label = (
        select(func.coalesce(motor.kenteken, literal("#") + motor.vlootnummer))
        .where(motor.transporteur_id == carrier, motor.id == vehicle_id)
        .scalar_subquery()
    )

    def towed(column_of):
        trailer = aliased(Vehicle)
        return (
            select(column_of(trailer))
            .join(
                Coupling,
                (Coupling.transporteur_id == trailer.transporteur_id)
                & (Coupling.getrokken_id == trailer.id),
            )
            .where(
                Coupling.transporteur_id == carrier,
                Coupling.ontkoppeld_op.is_(None),
                Coupling.trekkend_id == vehicle_id,
                or_(Coupling.taak_id == task_id, Coupling.datum == day),
            )
            .order_by(Coupling.taak_id.is_(None))  # the task's own coupling first
            .limit(1)
            .scalar_subquery()
        )

    return (
        label,
        towed(lambda v: v.id),
        towed(lambda v: v.kenteken),
        towed(lambda v: v.vlootnummer),
    )


def today_of(carrier_id: uuid.UUID) -> date:
    """The carrier's calendar day now: the day a scan couples for."""
    return utcnow().astimezone(carrier_zone(carrier_id)).date()
