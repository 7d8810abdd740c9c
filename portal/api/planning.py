"""The planning of a period for integrations: `GET /transporteurs/{id}/planning?van=&tot=`,
the period's tasks grouped per driver (every active driver, and an inactive one that has
tasks in it) plus the tasks no driver has, as the planner's week view shows them.

A task belongs to the period when its planned time and expected duration overlap it (one
that starts the evening before and runs past midnight too). A period is 1 to 14 days; a
longer one, or one that ends before it starts, answers 422 with a code."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from portal.accounts.service import carrier_zone
from portal.api.core import integration_of, json_response, operation, parse_query
from portal.api.tasks import CARRIER_ID
from portal.drivers import service as drivers_service
from portal.errors import ValidationFailed
from portal.schemas import Timestamp, in_range
from portal.tasks import service
from portal.tasks.conflicts import expected_duration
from portal.tasks.period import period_tasks

MAX_DAYS = 14
DEFAULT_DAYS = 7
TASK_LIMIT = 5000  # the most tasks one answer holds; more asks for a shorter period


class PlanningQuery(BaseModel):
    """The period: `van` and `tot` (inclusive), days in the carrier's time zone."""

    model_config = ConfigDict(extra="forbid")

    van: Annotated[date, AfterValidator(in_range)] | None = Field(
        default=None, description="the first day; default Monday of this week"
    )
    tot: Annotated[date, AfterValidator(in_range)] | None = Field(
        default=None, description=f"the last day (inclusive); default van + {DEFAULT_DAYS - 1}"
    )


class PlanningWarningOut(BaseModel):
    """A planning warning as the board shows it: a stable code and its params."""

    code: str
    params: dict[str, Any] = {}


class PlanningTask(BaseModel):
    id: uuid.UUID
    naam: str
    type: str
    status: str
    gepland_op: Timestamp
    einde: Timestamp = Field(description="gepland_op plus the expected duration")
    duur_min: int | None = Field(description="the task's own expected duration, if any")
    verwachte_duur_min: int = Field(description="duur_min, else the default of its type")
    duur_geschat: bool = Field(description="true: verwachte_duur_min is the type's default")
    chauffeur_id: uuid.UUID | None
    vehicle_id: uuid.UUID | None
    klant_id: uuid.UUID | None
    stad: str | None
    versie: int
    waarschuwingen: list[PlanningWarningOut]


class PlanningDriver(BaseModel):
    chauffeur_id: uuid.UUID
    user_token: str
    naam: str
    actief: bool
    taken: list[PlanningTask]


class PlanningOut(BaseModel):
    """A period's tasks per driver, ordered by name, each driver's tasks by time."""

    model_config = ConfigDict(title="Planning")

    van: date
    tot: date
    chauffeurs: list[PlanningDriver]
    niet_toegewezen: list[PlanningTask]
    totaal: int


def period_of(query: PlanningQuery, today: date) -> tuple[date, date]:
    """The period asked for; 422 when it ends before it starts or is longer than 14 days."""
    van = query.van or today - timedelta(days=today.weekday())
    tot = query.tot or van + timedelta(days=DEFAULT_DAYS - 1)
    if tot < van:
        raise ValidationFailed(
            [
                {
                    "field": "tot",
                    "code": "period_reversed",
                    "params": {},
                    "message": "tot lies before van",
                }
            ]
        )
    if (tot - van).days + 1 > MAX_DAYS:
        raise ValidationFailed(
            [
                {
                    "field": "tot",
                    "code": "period_too_long",
                    "params": {"max_days": MAX_DAYS},
                    "message": f"a period is at most {MAX_DAYS} days",
                }
            ]
        )
    return van, tot


@operation(
    "/transporteurs/<uuid:transporteur_id>/planning",
    "GET",
    scope="tasks:read",
    summary="A period's tasks per driver, and those without a driver (the week view)",
    tag="tasks",
    description=(
        f"`van` to `tot` inclusive, 1 to {MAX_DAYS} days (default: this week, Monday to "
        "Sunday; or a week from van), in the carrier's time zone. A task is in the period "
        "when its planned time plus its expected duration (`verwachte_duur_min`: its own, "
        "else its type's default, then `duur_geschat` is true) overlaps it. Every active "
        "driver is listed, also without tasks; an inactive one only with tasks. Each task "
        "carries the planning warnings the board shows (double bookings, driving time). A "
        "longer period answers 422 `period_too_long`, one ending before it starts "
        f"`period_reversed`; more than {TASK_LIMIT} tasks `too_many_tasks`."
    ),
    query=PlanningQuery,
    response=PlanningOut,
    errors=(401, 403, 404, 422),
    path_params=CARRIER_ID,
)
def carrier_planning(transporteur_id: uuid.UUID):
    who = integration_of(transporteur_id, drivers_read="GET /users/{user_token}/taken")
    carrier_id = who.carrier_id
    zone = carrier_zone(carrier_id)
    van, tot = period_of(parse_query(PlanningQuery), datetime.now(zone).date())
    start = datetime.combine(van, time(0), tzinfo=zone).astimezone(UTC)
    end = datetime.combine(tot + timedelta(days=1), time(0), tzinfo=zone).astimezone(UTC)
    # From the day before: a task of that evening may run into the first day.
    filters = service.TaskFilters(van=van - timedelta(days=1), tot=tot, limit=TASK_LIMIT)
    page = period_tasks(carrier_id=carrier_id, filters=filters)
    if page.total > TASK_LIMIT:
        raise ValidationFailed(
            [
                {
                    "field": "tot",
                    "code": "too_many_tasks",
                    "params": {"limit": TASK_LIMIT},
                    "message": f"more than {TASK_LIMIT} tasks: ask for a shorter period",
                }
            ]
        )
    tasks = [(t, s) for t in page.tasks if (s := _span(t)) and s[1] > start and t.gepland_op < end]
    warnings = service.planning_warnings(carrier_id=carrier_id, tasks=[t for t, _ in tasks])
    by_driver: dict[uuid.UUID | None, list[dict]] = {}
    for task, span in tasks:
        by_driver.setdefault(task.chauffeur_id, []).append(
            _task_out(task, span, warnings.get(task.id, ()))
        )
    drivers = drivers_service.list_drivers(carrier_id=carrier_id, active_only=False)
    listed = [
        {
            "chauffeur_id": d.id,
            "user_token": d.user_token,
            "naam": d.naam,
            "actief": d.actief,
            "taken": by_driver.get(d.id, []),
        }
        for d in sorted(drivers, key=lambda d: (d.naam.lower(), str(d.id)))
        if d.actief or d.id in by_driver
    ]
    out = PlanningOut(
        van=van,
        tot=tot,
        chauffeurs=listed,
        niet_toegewezen=by_driver.get(None, []),
        totaal=len(tasks),
    )
    return json_response(out.model_dump(mode="json"))


def _span(task) -> tuple[int, datetime] | None:
    if task.gepland_op is None:
        return None
    minutes = expected_duration(task.type, task.duur_min)
    return minutes, task.gepland_op + timedelta(minutes=minutes)


def _task_out(task, span: tuple[int, datetime], warnings) -> dict:
    minutes, end = span
    return {
        "id": task.id,
        "naam": task.naam,
        "type": task.type,
        "status": task.status,
        "gepland_op": task.gepland_op,
        "einde": end,
        "duur_min": task.duur_min,
        "verwachte_duur_min": minutes,
        "duur_geschat": not task.duur_min,
        "chauffeur_id": task.chauffeur_id,
        "vehicle_id": task.vehicle_id,
        "klant_id": task.klant_id,
        "stad": task.stad,
        "versie": task.versie,
        "waarschuwingen": [{"code": w.code, "params": _plain(w.params)} for w in warnings],
    }


def _plain(params: dict) -> dict:
    """A warning's params as JSON holds them (ids and times as text)."""
    return {
        k: (str(v) if isinstance(v, (uuid.UUID, datetime, date)) else v) for k, v in params.items()
    }
