"""Couplings: a towed vehicle behind a motorised one, for a day or for a task. The only door
to the koppelingen table (portal/fleet/coupling_models.py).

A coupling is refused, with a stable code naming the rule (CouplingRefused), when:
- both vehicles are motorised (`two_motorised`), or the pair is of kinds that do not couple
  (fleet.rules.coupling_problem: a semi-trailer behind a truck, ...);
- the towed vehicle is in use elsewhere: coupled to another motorised vehicle for that day or
  for an overlapping task (`towed_in_use`);
- the motorised vehicle already pulls another trailer then (`motor_pulls_other`).

A task's window and day come from the tasks domain (which stands above fleet) through the
`task_slots` Provider, connected in portal/wiring.py. Uncoupling keeps the row as history.
"""

from __future__ import annotations

import uuid
from datetime import date

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError

from portal.audit.service import Actor
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.extensions import db
from portal.fleet import rules
from portal.fleet.coupling_models import BRONNEN, Coupling
from portal.fleet.coupling_reads import (  # noqa: F401 (offered here, the door)
    TaskSlot,
    change_marks,
    combination_columns,
    combinations,
    task_slots,
    today_of,
    towed_for_slots,
    vehicles_by_id,
)
from portal.fleet.coupling_reads import current as _current
from portal.fleet.models import Vehicle
from portal.types import utcnow


class CouplingRefused(Conflict):
    """A coupling the rules do not allow; `code` names the rule, the params the vehicles."""

    title = "Coupling refused"

    def __init__(self, code: str, message: str, *, field: str = "getrokken_id", **params):
        params = {k: str(v) for k, v in params.items()}
        super().__init__(message, code=code, **params)
        self.code = code
        self.errors = [{"field": field, "code": code, "message": message, "params": params}]


def _refused_field(field: str, code: str, message: str) -> ValidationFailed:
    return ValidationFailed([{"field": field, "code": code, "message": message}])


# --- reads -------------------------------------------------------------------------------


def get_coupling(*, carrier_id: uuid.UUID, coupling_id: uuid.UUID) -> Coupling:
    """One coupling of the carrier; NotFound if absent or another carrier's."""
    found = db.session.scalar(
        select(Coupling).where(Coupling.transporteur_id == carrier_id, Coupling.id == coupling_id)
    )
    if found is None:
        raise NotFound("No such coupling.")
    return found


def _filtered(day, vehicle_id, task_id, include_ended: bool) -> list:
    where = []
    if not include_ended:
        where.append(Coupling.ontkoppeld_op.is_(None))
    if day is not None:
        where.append(Coupling.datum == day)
    if vehicle_id is not None:
        where.append(or_(Coupling.trekkend_id == vehicle_id, Coupling.getrokken_id == vehicle_id))
    if task_id is not None:
        where.append(Coupling.taak_id == task_id)
    return where


def list_couplings(
    *,
    carrier_id: uuid.UUID,
    day: date | None = None,
    vehicle_id: uuid.UUID | None = None,
    task_id: uuid.UUID | None = None,
    include_ended: bool = False,
    limit: int = 100,
    offset: int = 0,
) -> list[Coupling]:
    """The carrier's couplings, newest first: current ones (or all), of a day, a vehicle on
    either side, or a task."""
    where = [Coupling.transporteur_id == carrier_id]
    where += _filtered(day, vehicle_id, task_id, include_ended)
    query = select(Coupling).where(*where).order_by(Coupling.created_at.desc(), Coupling.id)
    return list(db.session.scalars(query.limit(limit).offset(offset)))


def count_couplings(
    *,
    carrier_id: uuid.UUID,
    day: date | None = None,
    vehicle_id: uuid.UUID | None = None,
    task_id: uuid.UUID | None = None,
    include_ended: bool = False,
) -> int:
    """How many couplings list_couplings finds without its limit."""
    where = [Coupling.transporteur_id == carrier_id]
    where += _filtered(day, vehicle_id, task_id, include_ended)
    return db.session.scalar(select(func.count()).select_from(Coupling).where(*where)) or 0


def history(*, carrier_id: uuid.UUID, vehicle_id: uuid.UUID, limit: int = 30) -> list[Coupling]:
    """A vehicle's couplings on either side, current and ended, newest first."""
    return list_couplings(
        carrier_id=carrier_id, vehicle_id=vehicle_id, include_ended=True, limit=limit
    )


# --- writes ------------------------------------------------------------------------------


def couple(
    *,
    carrier_id: uuid.UUID,
    motor_id: uuid.UUID,
    towed_id: uuid.UUID,
    actor: Actor,
    day: date | None = None,
    task_id: uuid.UUID | None = None,
    source: str = "planner",
) -> Coupling:
    """Couple towed_id behind motor_id for a day or for a task (exactly one). The same
    coupling again answers the current one; a task's earlier coupling is replaced by the new
    one. CouplingRefused names the rule that forbids it."""
    if (day is None) == (task_id is None):
        raise _refused_field("datum", "day_or_task", "give a day or a task, not both")
    if source not in BRONNEN:
        raise _refused_field("bron", "choice", f"one of {', '.join(BRONNEN)}")
    motor, towed = _pair(carrier_id, motor_id, towed_id)
    slot = None
    if task_id is not None:
        slot = _task_slot(carrier_id, task_id, motor)
        day = None
    same = _same_coupling(carrier_id, motor_id, towed_id, day, task_id)
    if same is not None:
        return same
    if slot is not None:
        _check_task(carrier_id, motor, towed, task_id, slot)
        _end_current(carrier_id, [Coupling.taak_id == task_id], actor)
    else:
        _check_day(carrier_id, motor, towed, day)
    coupling = Coupling(
        transporteur_id=carrier_id,
        id=uuid.uuid4(),
        trekkend_id=motor_id,
        getrokken_id=towed_id,
        datum=day,
        taak_id=task_id,
        bron=source,
        created_at=utcnow(),
        gekoppeld_door=actor.label[:254],
    )
    try:
        with db.session.begin_nested():
            db.session.add(coupling)
            db.session.flush()
    except IntegrityError:
        # Another request coupled one of the two meanwhile: the checks name it now.
        if slot is None:
            _check_day(carrier_id, motor, towed, day)
        raise CouplingRefused(
            "changed_meanwhile", "Another coupling was made at the same moment; try again."
        ) from None
    return coupling


def uncouple(*, carrier_id: uuid.UUID, coupling_id: uuid.UUID, actor: Actor) -> Coupling:
    """End a current coupling; it stays in the vehicles' history."""
    coupling = get_coupling(carrier_id=carrier_id, coupling_id=coupling_id)
    if coupling.ontkoppeld_op is not None:
        raise CouplingRefused(
            "already_uncoupled", "This coupling has been ended already.", field="id"
        )
    coupling.ontkoppeld_op = utcnow()
    coupling.ontkoppeld_door = actor.label[:254]
    db.session.flush()
    return coupling


def uncouple_task(*, carrier_id: uuid.UUID, task_id: uuid.UUID, actor: Actor) -> int:
    """End the task's own coupling (it takes its vehicle's day coupling again); how many."""
    ended = list_couplings(carrier_id=carrier_id, task_id=task_id)
    _end_current(carrier_id, [Coupling.taak_id == task_id], actor)
    return len(ended)


def _pair(carrier_id: uuid.UUID, motor_id: uuid.UUID, towed_id: uuid.UUID):
    found = vehicles_by_id(carrier_id=carrier_id, vehicle_ids={motor_id, towed_id})
    motor, towed = found.get(motor_id), found.get(towed_id)
    if motor is None:
        raise _refused_field("trekkend_id", "no_such_vehicle", "no such vehicle")
    if towed is None:
        raise _refused_field("getrokken_id", "no_such_vehicle", "no such vehicle")
    if motor_id == towed_id:
        raise CouplingRefused("same_vehicle", "A vehicle can not pull itself.")
    for field, vehicle in (("trekkend_id", motor), ("getrokken_id", towed)):
        if not vehicle.actief:
            raise CouplingRefused(
                "vehicle_inactive",
                f"{vehicle.label} is deactivated.",
                field=field,
                voertuig=vehicle.label,
            )
    problem = rules.coupling_problem(motor.soort, towed.soort)
    if problem is not None:
        raise CouplingRefused(
            problem,
            f"{towed.label} can not be coupled to {motor.label}: "
            + rules.COUPLING_RULES.get(problem, problem)
            + ".",
            trekkend=motor.label,
            getrokken=towed.label,
            soort_trekkend=motor.soort,
            soort_getrokken=towed.soort,
        )
    return motor, towed


def _task_slot(carrier_id: uuid.UUID, task_id: uuid.UUID, motor: Vehicle) -> TaskSlot:
    slot = task_slots(carrier_id=carrier_id, task_ids={task_id}).get(task_id)
    if slot is None:
        raise _refused_field("taak_id", "no_such_task", "no such task")
    if slot.vehicle_id != motor.id:
        raise CouplingRefused(
            "not_the_tasks_vehicle",
            f"The task is not planned on {motor.label}; plan it on that vehicle first.",
            field="trekkend_id",
            trekkend=motor.label,
        )
    return slot


def _same_coupling(carrier_id, motor_id, towed_id, day, task_id) -> Coupling | None:
    where = [*_current(carrier_id), Coupling.trekkend_id == motor_id]
    where.append(Coupling.getrokken_id == towed_id)
    where.append(Coupling.taak_id == task_id if task_id else Coupling.datum == day)
    return db.session.scalar(select(Coupling).where(*where))


def _labels(carrier_id: uuid.UUID, ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    return {k: v.label for k, v in vehicles_by_id(carrier_id=carrier_id, vehicle_ids=ids).items()}


def _in_use(towed: Vehicle, other_motor: str, when: str) -> CouplingRefused:
    return CouplingRefused(
        "towed_in_use",
        f"{towed.label} is coupled to {other_motor} {when}.",
        getrokken=towed.label,
        trekkend=other_motor,
    )


def _pulls_other(motor: Vehicle, other_towed: str, when: str) -> CouplingRefused:
    return CouplingRefused(
        "motor_pulls_other",
        f"{motor.label} already pulls {other_towed} {when}; uncouple it first.",
        field="trekkend_id",
        trekkend=motor.label,
        getrokken=other_towed,
    )


def _check_day(carrier_id: uuid.UUID, motor: Vehicle, towed: Vehicle, day: date) -> None:
    """On the day: the towed vehicle behind no other motor (day or task), the motor pulling
    no other trailer for the day."""
    when = f"on {day.isoformat()}"
    rows = list(
        db.session.scalars(
            select(Coupling).where(
                *_current(carrier_id),
                or_(Coupling.trekkend_id == motor.id, Coupling.getrokken_id == towed.id),
            )
        )
    )
    task_rows = [c for c in rows if c.taak_id is not None]
    slots = task_slots(carrier_id=carrier_id, task_ids={c.taak_id for c in task_rows})
    on_day = [c for c in rows if c.datum == day]
    on_day += [c for c in task_rows if getattr(slots.get(c.taak_id), "day", None) == day]
    names = _labels(carrier_id, {c.trekkend_id for c in on_day} | {c.getrokken_id for c in on_day})
    for c in on_day:
        if c.getrokken_id == towed.id and c.trekkend_id != motor.id:
            raise _in_use(towed, names.get(c.trekkend_id, "?"), when)
    for c in on_day:
        if c.datum is not None and c.trekkend_id == motor.id and c.getrokken_id != towed.id:
            raise _pulls_other(motor, names.get(c.getrokken_id, "?"), when)


def _check_task(carrier_id, motor: Vehicle, towed: Vehicle, task_id, slot: TaskSlot) -> None:
    """For the task: the towed vehicle not day-coupled to another motor on its day nor behind
    another motor for an overlapping task; the motor pulling no other trailer for an
    overlapping task."""
    where = [or_(Coupling.trekkend_id == motor.id, Coupling.getrokken_id == towed.id)]
    rows = list(db.session.scalars(select(Coupling).where(*_current(carrier_id), *where)))
    rows = [c for c in rows if c.taak_id != task_id]
    slots = task_slots(carrier_id=carrier_id, task_ids={c.taak_id for c in rows if c.taak_id})
    names = _labels(carrier_id, {c.trekkend_id for c in rows} | {c.getrokken_id for c in rows})
    for c in rows:
        other = slots.get(c.taak_id) if c.taak_id else None
        busy = (c.datum is not None and c.datum == slot.day) or (
            other is not None and other.overlaps(slot)
        )
        if not busy:
            continue
        when = "for an overlapping task" if c.taak_id else f"on {slot.day.isoformat()}"
        if c.getrokken_id == towed.id and c.trekkend_id != motor.id:
            raise _in_use(towed, names.get(c.trekkend_id, "?"), when)
        if c.taak_id and c.trekkend_id == motor.id and c.getrokken_id != towed.id:
            raise _pulls_other(motor, names.get(c.getrokken_id, "?"), when)


def _end_current(carrier_id: uuid.UUID, where: list, actor: Actor) -> None:
    now = utcnow()
    for coupling in db.session.scalars(select(Coupling).where(*_current(carrier_id), *where)):
        coupling.ontkoppeld_op = now
        coupling.ontkoppeld_door = actor.label[:254]
    db.session.flush()
