"""The planning problem of a period read from the other domains, through their services: the
unassigned tasks to place, the active drivers with their remaining EU 561 budget (tacho),
their licences and their work already planned, the vehicle combinations of each day (fleet's
couplings) with their capabilities and the licence they need, the places' opening hours
(customers) and the carrier's home base. A fixed number of queries, whatever the period.

What another domain does not tell yet is left unknown (None), never taken as met: the
solver then proposes with a warning."""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from portal.accounts import service as accounts
from portal.customers import queries as customers
from portal.drivers import service as drivers
from portal.fleet import couplings
from portal.fleet import rules as fleet_rules
from portal.fleet import service as fleet
from portal.planner.opening import parse
from portal.planner.problem import Budget, Combination, Driver, Place, Planned, Problem, Task
from portal.tacho import driving
from portal.tacho import scope as tacho_scope
from portal.tasks.combinations import towed_of_tasks
from portal.tasks.conflicts import expected_duration
from portal.tasks.listing import TaskFilters, list_tasks
from portal.tasks.models import OPEN_STATUSES

MAX_TASKS = 2000
ROAD_FACTOR = 1.3  # straight line to road kilometres, until a routing engine is configured


@dataclass(frozen=True)
class Gathered:
    """The problem and what the service needs of the rows behind it."""

    problem: Problem
    tasks: dict  # task id -> Task row (the ones to place)
    combination_vehicles: dict  # combination id -> (motor id, towed id or None)
    labels: dict  # combination id -> label


def _place(lat, lng) -> Place | None:
    return Place(lat, lng) if lat is not None and lng is not None else None


def _tasks_between(carrier_id: uuid.UUID, van: datetime, tot: datetime, **filters) -> list:
    found = list_tasks(
        carrier_id=carrier_id,
        filters=TaskFilters(statuses=OPEN_STATUSES, van=van, tot=tot, limit=MAX_TASKS, **filters),
        with_definitions=False,
    )
    return [t for t in found.tasks if t.gepland_op is not None]


def _openings(carrier_id: uuid.UUID, rows: list) -> dict:
    """Opening hours per place id of the tasks' customers: one query."""
    customer_ids = {t.klant_id for t in rows if t.klant_id is not None}
    places = customers.places_by_customer(carrier_id=carrier_id, customer_ids=customer_ids)
    return {p.id: parse(p.openingstijden) for found in places.values() for p in found}


def _needs(carrier_id: uuid.UUID, rows: list) -> dict:
    return fleet.needed_capabilities(carrier_id=carrier_id, activity_types={t.type for t in rows})


def _task(row, minutes: int, needs: frozenset, openings: dict, scope) -> Task:
    begin = _place(row.laad_lat, row.laad_lng) or _place(row.locatie_lat, row.locatie_lng)
    end = _place(row.los_lat, row.los_lng) or _place(row.locatie_lat, row.locatie_lng)
    return Task(
        id=row.id,
        start=row.gepland_op,
        minutes=minutes,
        begin=begin,
        end=end or begin,
        needs=needs,
        opening_start=openings.get(row.laadlocatie_id) if row.laadlocatie_id else None,
        opening_end=openings.get(row.loslocatie_id) if row.loslocatie_id else None,
        # the vehicle is not chosen yet: only the activity can put it out of EU 561's scope
        driving=scope.of(activity_type=row.type).geldt,
        version=row.versie,
        label=row.naam,
    )


def _budget(found) -> Budget | None:
    if found is None or found.budget is None:
        return None
    b = found.budget
    return Budget(
        today_min=b.resterend_vandaag_min,
        week_min=b.resterend_week_min,
        two_weeks_min=b.resterend_twee_weken_min,
        driven_week_min=b.gereden_week_min,
        daily_rest_due=b.volgende_dagrust_uiterlijk,
        weekly_rest_due=b.volgende_weekrust_uiterlijk,
    )


def _licences(carrier_id: uuid.UUID, driver_ids: set, day: date) -> dict:
    """Each driver's licences; None where none are on record (not known)."""
    found = drivers.licences_of(carrier_id=carrier_id, driver_ids=driver_ids, on=day)
    return {driver_id: (held or None) for driver_id, held in found.items()}


def _drivers(carrier_id, planned_rows, now: datetime, home, day: date, scope):
    people = drivers.list_drivers(carrier_id=carrier_id, active_only=True)
    ids = {d.id for d in people}
    budgets = driving.budgets(carrier_id=carrier_id, driver_ids=ids, now=now) if ids else {}
    licences = _licences(carrier_id, ids, day)
    planned = defaultdict(list)
    for row in planned_rows:
        if row.chauffeur_id in ids:
            planned[row.chauffeur_id].append(
                Planned(
                    row.id,
                    row.gepland_op,
                    expected_duration(row.type, row.duur_min),
                    end=_place(row.los_lat, row.los_lng)
                    or _place(row.locatie_lat, row.locatie_lng),
                    begin=_place(row.laad_lat, row.laad_lng),
                    driving=scope.of(activity_type=row.type, vehicle_ids=[row.vehicle_id]).geldt,
                )
            )
    return tuple(
        Driver(
            d.id,
            d.naam,
            licences.get(d.id),
            _budget(budgets.get(d.id)),
            home,
            tuple(planned[d.id]),
        )
        for d in people
    )


def _combinations(carrier_id: uuid.UUID, days: list[date]):
    """The combinations of each day: (combinations, vehicles by combination, labels)."""
    vehicles = {v.id: v for v in fleet.list_vehicles(carrier_id=carrier_id, active_only=True)}
    caps = fleet.capabilities_of(carrier_id=carrier_id, vehicle_ids=set(vehicles))
    on_days: dict[tuple, set] = defaultdict(set)
    for day in days:
        for motor_id, towed in couplings.combinations(carrier_id=carrier_id, day=day).items():
            on_days[(motor_id, towed.id if towed else None)].add(day)
    out, parts, labels = [], {}, {}
    for (motor_id, towed_id), found_days in on_days.items():
        motor, towed = vehicles.get(motor_id), vehicles.get(towed_id)
        if motor is None:
            continue
        key = f"{motor_id}+{towed_id}" if towed_id else str(motor_id)
        needed = fleet_rules.needed_licence(motor.soort, towed.soort if towed else None)
        label = f"{motor.label} + {towed.label}" if towed else motor.label
        capabilities = set(caps.get(motor_id, {})) | set(caps.get(towed_id, {}) if towed else {})
        out.append(
            Combination(
                key,
                label,
                (motor_id, towed_id) if towed_id else (motor_id,),
                frozenset(capabilities),
                None if needed == fleet_rules.LICENCE_UNKNOWN else needed,
                frozenset(found_days),
            )
        )
        parts[key], labels[key] = (motor_id, towed_id), label
    return out, parts, labels


def _vehicle_busy(carrier_id: uuid.UUID, rows: list) -> dict:
    """The vehicles (and what they tow) of tasks that stay as they are: when they are taken."""
    busy: dict = defaultdict(list)
    with_vehicle = [r for r in rows if r.vehicle_id is not None]
    towed = towed_of_tasks(carrier_id=carrier_id, tasks=with_vehicle) if with_vehicle else {}
    for row in with_vehicle:
        span = (
            row.gepland_op,
            row.gepland_op + timedelta(minutes=expected_duration(row.type, row.duur_min)),
        )
        busy[row.vehicle_id].append(span)
        trailer = towed.get(row.id)
        if trailer is not None:
            busy[getattr(trailer, "id", trailer)].append(span)
    return dict(busy)


def gather(
    *,
    carrier_id: uuid.UUID,
    van: datetime,
    tot: datetime,
    now: datetime,
    task_ids: set[uuid.UUID] | None = None,
) -> Gathered:
    """The problem of placing the unassigned open tasks planned in [van, tot) (or only
    task_ids among them), with all other work in and around the period as it stands."""
    zone = accounts.carrier_zone(carrier_id)
    carrier = accounts.get_carrier(carrier_id=carrier_id)
    home = _place(
        getattr(carrier, "thuisbasis_lat", None), getattr(carrier, "thuisbasis_lng", None)
    )
    rows = _tasks_between(carrier_id, van, tot, unassigned=True)
    if task_ids is not None:
        rows = [r for r in rows if r.id in task_ids]
    around = _tasks_between(carrier_id, min(van, now) - timedelta(days=1), tot + timedelta(days=1))
    others = [r for r in around if r.chauffeur_id is not None]
    placing = {r.id for r in rows}
    openings, needs = _openings(carrier_id, rows), _needs(carrier_id, rows)
    scope = tacho_scope.rules_of(carrier_id=carrier_id)
    tasks = tuple(
        _task(
            r,
            expected_duration(r.type, r.duur_min),
            needs.get(r.type, frozenset()),
            openings,
            scope,
        )
        for r in rows
    )
    first = van.astimezone(zone).date()
    days = [first + timedelta(days=i) for i in range((tot - van).days + 1)]
    combos, parts, labels = _combinations(carrier_id, days)
    problem = Problem(
        tasks=tasks,
        drivers=_drivers(carrier_id, others, now, home, first, scope),
        combinations=tuple(combos),
        now=now,
        zone=zone,
        road_factor=ROAD_FACTOR,
        vehicle_busy=_vehicle_busy(carrier_id, [r for r in around if r.id not in placing]),
    )
    return Gathered(problem, {r.id: r for r in rows}, parts, labels)
