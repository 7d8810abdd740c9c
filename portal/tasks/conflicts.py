"""Planning checks: what a planner should look at twice, never a reason to refuse a task.

- a driver or a vehicle double-booked: two open tasks whose windows overlap, a window being
  the planned start (`gepland_op`) plus the expected duration (`duur_min`, else the default
  of the activity type). Windows that only touch (one ends at 09:00, the next starts at 09:00)
  do not overlap; completed, cancelled and archived tasks do not count;
- a VDM number used twice within the carrier on tasks of the same activity type (one
  transport's loading and unloading share their VDM number: that is no duplicate);
- a VDM number whose format is wrong, where one is known;
- on import: a row identical to an existing task, or to an earlier row of the same file.

Each warning is a code and its parameters; templates/tasks/_warnings.html words them in the
user's language. One query serves a whole board, form or import, whatever its length.

The VDM number's format: RVO publishes no number format for the vervoersbewijs dierlijke
meststoffen that we could confirm. Rijplan assumes the ten digits its demo data uses (the
loading date as jjmmdd, then a four-digit sequence: 2611240001), and checks it for tasks in
the Netherlands only (`land` NL or empty). Change VDM_FORMAT when RVO's format is confirmed.
"""

from __future__ import annotations

import re
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any

from sqlalchemy import or_, select

from portal.extensions import db
from portal.tasks.models import MAX_DURATION_MIN, OPEN_STATUSES, Task

# Expected minutes per activity type when a task has no duur_min of its own.
DEFAULT_DURATION_MIN = {
    "mest_laden": 60,
    "mest_lossen": 60,
    "voer_leveren": 90,
    "vee_transport": 180,
    "koel_transport": 180,
}
FALLBACK_DURATION_MIN = 60

VDM_FORMAT = re.compile(r"^\d{10}\Z")
VDM_EXAMPLE = "2611240001"
VDM_COUNTRIES = (None, "NL")  # where the format above is the one expected

DRIVER = "driver_double_booked"
VEHICLE = "vehicle_double_booked"
VDM_DUPLICATE = "vdm_duplicate"
VDM_FORMAT_WRONG = "vdm_format"
IMPORT_EXISTING = "import_existing"
IMPORT_REPEATED = "import_repeated"
# Driving and rest times (asked of tacho through hooks.driving_problems, planning.py): `reden`
# rijtijd_op (not enough driving time left) or in_rust (inside a required rest).
DRIVING_TIME = "driving_time"
CODES = (
    DRIVER, VEHICLE, VDM_DUPLICATE, VDM_FORMAT_WRONG, IMPORT_EXISTING, IMPORT_REPEATED,
    DRIVING_TIME,
)  # fmt: skip

# The fields that make two tasks the same task (an import run twice).
IDENTITY = (
    "naam", "type", "gepland_op", "chauffeur_id", "vehicle_id", "adres", "postcode", "stad",
    "land", "artikel", "hoeveelheid", "eenheid", "vdm_nummer",
)  # fmt: skip


@dataclass(frozen=True)
class PlanningWarning:
    """One warning: a stable code and what its text needs (names, times, numbers)."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class Planned:
    """A task as the checks see it: a saved one (`id`), or one being written (a form, a CSV row:
    `row` is its line in the file)."""

    naam: str
    type: str
    status: str = "gepland"
    id: uuid.UUID | None = None
    row: int | None = None
    chauffeur_id: uuid.UUID | None = None
    vehicle_id: uuid.UUID | None = None
    gepland_op: datetime | None = None
    duur_min: int | None = None
    vdm_nummer: str | None = None
    values: dict[str, Any] = field(default_factory=dict)  # the IDENTITY fields

    @classmethod
    def of_task(cls, task: Task) -> Planned:
        return cls.of_data(
            {name: getattr(task, name) for name in (*IDENTITY, "duur_min")},
            driver_id=task.chauffeur_id,
            task_id=task.id,
            status=task.status,
        )

    @classmethod
    def of_data(
        cls,
        data: dict,
        *,
        driver_id: uuid.UUID | None,
        task_id: uuid.UUID | None = None,
        row: int | None = None,
        status: str = "gepland",
    ) -> Planned:
        values = {name: data.get(name) for name in IDENTITY}
        values["chauffeur_id"] = driver_id
        vdm = (data.get("vdm_nummer") or "").strip() or None
        return cls(
            naam=data.get("naam") or "",
            type=data.get("type") or "",
            status=status,
            id=task_id,
            row=row,
            chauffeur_id=driver_id,
            vehicle_id=data.get("vehicle_id"),
            gepland_op=data.get("gepland_op"),
            duur_min=data.get("duur_min"),
            vdm_nummer=vdm,
            values=values,
        )

    @property
    def open(self) -> bool:
        return self.status in OPEN_STATUSES

    @cached_property  # a board asks each task's window once per other task of its lane
    def window(self) -> tuple[datetime, datetime] | None:
        if self.gepland_op is None:
            return None
        return self.gepland_op, self.gepland_op + timedelta(
            minutes=expected_duration(self.type, self.duur_min)
        )

    @property
    def identity(self) -> tuple:
        return tuple(_same(self.values.get(name)) for name in IDENTITY)

    def same_as(self, other: Planned) -> bool:
        if self.id is not None and self.id == other.id:
            return True
        return self.row is not None and self.row == other.row


def expected_duration(kind: str, duur_min: int | None) -> int:
    """A task's expected minutes: its own, else its activity type's default."""
    if duur_min:
        return duur_min
    return DEFAULT_DURATION_MIN.get(kind, FALLBACK_DURATION_MIN)


def vdm_format_ok(vdm: str, land: str | None) -> bool:
    """Whether a VDM number has the expected format (always, where no format is known)."""
    if (land or None) not in VDM_COUNTRIES:
        return True
    return bool(VDM_FORMAT.match(vdm.strip()))


def _same(value):
    """A value as identity compares it: text without case or surrounding spaces."""
    if isinstance(value, str):
        return " ".join(value.split()).casefold() or None
    return value


def _about(other: Planned) -> dict:
    """The parameters that name the other task in a warning."""
    return {
        "naam": other.naam,
        "task_id": other.id,
        "row": other.row,
        "start": other.gepland_op,
        "chauffeur_id": other.chauffeur_id,
    }


def _stored(carrier_id: uuid.UUID, planned: list[Planned], *, by_name: bool) -> list[Planned]:
    """The carrier's tasks the planned ones may clash with, in one query: open tasks near their
    windows with the same driver or vehicle, tasks with the same VDM numbers, and (on import)
    tasks with the same names."""
    clauses = []
    windows = [p.window for p in planned if p.open and p.window]
    drivers = {p.chauffeur_id for p in planned if p.open and p.window} - {None}
    vehicles = {p.vehicle_id for p in planned if p.open and p.window} - {None}
    if windows and (drivers or vehicles):
        reach = timedelta(minutes=MAX_DURATION_MIN)
        people = []
        if drivers:
            people.append(Task.chauffeur_id.in_(drivers))
        if vehicles:
            people.append(Task.vehicle_id.in_(vehicles))
        clauses.append(
            (Task.status.in_(OPEN_STATUSES))
            & (Task.gepland_op >= min(start for start, _ in windows) - reach)
            & (Task.gepland_op < max(end for _, end in windows))
            & or_(*people)
        )
    vdms = {p.vdm_nummer for p in planned if p.vdm_nummer and p.status != "geannuleerd"}
    if vdms:
        clauses.append(Task.vdm_nummer.in_(vdms))
    if by_name:
        names = {p.naam for p in planned if p.naam}
        if names:
            clauses.append(Task.naam.in_(names))
    if not clauses:
        return []
    # Plain rows of the columns the checks read, not ORM tasks: a board of 500 cards checks
    # them all.
    rows = db.session.execute(
        select(*_STORED_COLUMNS).where(
            Task.transporteur_id == carrier_id,
            Task.gearchiveerd_op.is_(None),
            Task.status != "geannuleerd",
            or_(*clauses),
        )
    )
    return [
        Planned.of_data(row._mapping, driver_id=row.chauffeur_id, task_id=row.id, status=row.status)
        for row in rows
    ]


_STORED_COLUMNS = [
    getattr(Task, name) for name in dict.fromkeys((*IDENTITY, "duur_min", "id", "status"))
]


def check(
    *, carrier_id: uuid.UUID, planned: list[Planned], rows: bool = False
) -> list[list[PlanningWarning]]:
    """The warnings of each planned task, in the same order. `rows`: the planned tasks are the
    rows of one import, checked against the carrier's tasks and each other (also for
    identical tasks); otherwise each is checked against the carrier's tasks as stored, itself
    replaced by its planned state (a form being edited)."""
    if not planned:
        return []
    stored = _stored(carrier_id, planned, by_name=rows)
    index = _Index.of(_pool(stored, planned, rows=rows), rows=rows)
    first_row: dict[tuple, Planned] = {}
    result = []
    for task in planned:
        warnings: list[PlanningWarning] = []
        if not task.open:
            result.append(warnings)
            continue
        twins: list[Planned] = []
        if rows:
            twins = _twins(task, planned, index, first_row, warnings)

        def unrelated(other: Planned, task=task, twins=twins) -> bool:
            return not task.same_as(other) and not any(other is t for t in twins)

        warnings += _double_bookings(task, index, unrelated)
        warnings += _vdm_warnings(task, index, unrelated)
        result.append(warnings)
    return result


def _pool(stored: list[Planned], planned: list[Planned], *, rows: bool) -> list[Planned]:
    """The tasks the planned ones are checked against: the planned state of a task wins over
    its stored one; import rows count as tasks too."""
    editing = {p.id for p in planned if p.id is not None}
    pool = [s for s in stored if s.id not in editing]
    if rows:
        # A row that repeats a task (or an earlier row) would be named twice as the same
        # double booking: the first of each counts.
        seen = {s.identity for s in stored}
        for p in planned:
            if p.identity not in seen:
                seen.add(p.identity)
                pool.append(p)
    else:
        pool += [p for p in planned if p.id is not None]
    return pool


@dataclass
class _Index:
    """The pool by driver and vehicle (open tasks with a window), by VDM number and type, and
    (on import) saved tasks by identity."""

    by_driver: dict[uuid.UUID, list[Planned]]
    by_vehicle: dict[uuid.UUID, list[Planned]]
    by_vdm: dict[tuple[str, str], list[Planned]]
    by_identity: dict[tuple, list[Planned]]

    @classmethod
    def of(cls, pool: list[Planned], *, rows: bool) -> _Index:
        index = cls(defaultdict(list), defaultdict(list), defaultdict(list), defaultdict(list))
        for other in pool:
            if other.open and other.window:
                if other.chauffeur_id:
                    index.by_driver[other.chauffeur_id].append(other)
                if other.vehicle_id:
                    index.by_vehicle[other.vehicle_id].append(other)
            if other.vdm_nummer and other.status != "geannuleerd":
                index.by_vdm[(other.vdm_nummer, other.type)].append(other)
            if rows and other.id is not None:
                index.by_identity[other.identity].append(other)
        return index


def _twins(
    task: Planned,
    planned: list[Planned],
    index: _Index,
    first_row: dict[tuple, Planned],
    warnings: list[PlanningWarning],
) -> list[Planned]:
    """An import row's twins (the identical task saved, an identical earlier row, identical
    rows): warned about once each, and not named again as a double booking."""
    twins: list[Planned] = []
    existing = index.by_identity.get(task.identity, [])
    twins += existing
    for twin in existing[:1]:
        warnings.append(PlanningWarning(IMPORT_EXISTING, _about(twin)))
    earlier = first_row.setdefault(task.identity, task)
    if earlier is not task:
        twins.append(earlier)
        warnings.append(PlanningWarning(IMPORT_REPEATED, {"row": earlier.row}))
    twins += [p for p in planned if p is not task and p.identity == task.identity]
    return twins


def _double_bookings(task: Planned, index: _Index, unrelated) -> list[PlanningWarning]:
    """The task's driver or vehicle booked on another task whose window overlaps its own."""
    window = task.window
    if not window:
        return []
    start, end = window
    warnings = []
    for code, key, by_key in (
        (DRIVER, task.chauffeur_id, index.by_driver),
        (VEHICLE, task.vehicle_id, index.by_vehicle),
    ):
        if key is None:
            continue
        clashes = [
            other
            for other in by_key.get(key, [])
            # The window first: it is cheap, and rules out nearly every task of a long period.
            if other.window[0] < end and start < other.window[1] and unrelated(other)
        ]
        for other in sorted(clashes, key=lambda o: (o.gepland_op, o.naam)):
            params = _about(other)
            if code == VEHICLE:
                params["vehicle_id"] = task.vehicle_id
            warnings.append(PlanningWarning(code, params))
    return warnings


def _vdm_warnings(task: Planned, index: _Index, unrelated) -> list[PlanningWarning]:
    """The task's VDM number used on another task of its type, or of the wrong format."""
    if not task.vdm_nummer:
        return []
    warnings = []
    same = [o for o in index.by_vdm.get((task.vdm_nummer, task.type), []) if unrelated(o)]
    for other in same[:3]:
        warnings.append(PlanningWarning(VDM_DUPLICATE, {**_about(other), "vdm": task.vdm_nummer}))
    if not vdm_format_ok(task.vdm_nummer, task.values.get("land")):
        warnings.append(
            PlanningWarning(VDM_FORMAT_WRONG, {"vdm": task.vdm_nummer, "example": VDM_EXAMPLE})
        )
    return warnings
