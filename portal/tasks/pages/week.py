"""The planner's week: `/taken?weergave=week`, a lane per driver (or per vehicle, or per
combination) with the period's days side by side on one time axis.

The period and the filters live in the query string: `van` (the first day; Monday of this
week when absent), `dagen` (2-14, default 7), `baan` (chauffeur, voertuig, combinatie) and
the day board's filters (chauffeur, voertuig, type, status, q). Cards move by drag and drop
(across days and lanes) or by the day board's keyboard dialog, through the same move route.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from flask import make_response, render_template, request, url_for
from flask_babel import gettext as _

from portal.customers import service as customers
from portal.drivers import service as drivers_service
from portal.fleet import service as fleet
from portal.tacho import driving
from portal.tasks import service
from portal.tasks.combinations import plates_of_tasks
from portal.tasks.pages.cards import card_context
from portal.tasks.pages.forms import UNASSIGNED
from portal.tasks.pages.kit import bp
from portal.tasks.pages.week_cards import WeekCards, week_texts
from portal.tasks.pages.week_forms import LANE_KINDS, MAX_DAYS, MIN_DAYS, WEEK_DAYS, WeekFilterForm
from portal.tasks.pages.week_layout import (
    Lane,
    Period,
    fill,
    monday,
    placements,
    position_css,
    weeks_of,
)
from portal.tasks.period import period_tasks
from portal.validators import FIRST_DAY, LAST_DAY
from portal.web import is_fragment
from portal.web.kit import current_carrier_id, current_zone, parse_uuid

WEEK_LIMIT = 5000  # the most tasks one week view loads; more asks the planner to filter
FILTER_NAMES = ("chauffeur", "voertuig", "type", "status", "q")
DAY_CHOICES = (5, 7, 14)  # the periods offered as links; any of 2-14 days works by URL


@dataclass(frozen=True)
class WeekQuery:
    """The week asked for by the query string; a value that is not valid is ignored and
    shown as an error at its field."""

    form: WeekFilterForm = field(repr=False, compare=False)
    first: date
    days: int
    lanes: str  # one of LANE_KINDS
    chauffeur: str | None
    vehicle: str | None
    type: str | None
    status: str | None
    search: str | None
    args: dict[str, str]  # the query string of this view, without its defaults

    @classmethod
    def from_args(cls, args, *, drivers, vehicles, today: date) -> WeekQuery:
        form = WeekFilterForm(args, combinations=True)
        form.set_choices(drivers, vehicles)
        form.validate()
        first = form.clean("van") or monday(form.clean("datum") or today)
        days = form.clean("dagen") or WEEK_DAYS
        if first + timedelta(days=days - 1) > LAST_DAY:
            first = LAST_DAY - timedelta(days=days - 1)
        lanes = form.clean("baan") or LANE_KINDS[0]
        tidy: dict[str, str] = {"weergave": "week"}
        if form.clean("van"):
            tidy["van"] = first.isoformat()
        if days != WEEK_DAYS:
            tidy["dagen"] = str(days)
        if lanes != LANE_KINDS[0]:
            tidy["baan"] = lanes
        for name in FILTER_NAMES:
            value = form.clean(name)
            if value:
                tidy[name] = value.strip() if name == "q" else value
        form.van.data, form.dagen.data, form.baan.data = first, days, lanes
        return cls(
            form=form,
            first=first,
            days=days,
            lanes=lanes,
            chauffeur=form.clean("chauffeur"),
            vehicle=form.clean("voertuig"),
            type=form.clean("type"),
            status=form.clean("status"),
            search=(form.clean("q") or "").strip() or None,
            args=tidy,
        )

    def filters(self, *, limit: int) -> service.TaskFilters:
        """The period's tasks; from the day before, whose late tasks run into the first day."""
        return service.TaskFilters(
            chauffeur_id=parse_uuid(self.chauffeur),
            vehicle_id=parse_uuid(self.vehicle),
            types=(self.type,) if self.type else (),
            statuses=(self.status,) if self.status else (),
            van=self.first - timedelta(days=1),
            tot=self.first + timedelta(days=self.days - 1),
            search=self.search,
            unassigned=self.chauffeur == UNASSIGNED,
            limit=limit,
        )


POSITIONS = position_css()
POSITIONS_VERSION = hashlib.sha256(POSITIONS.encode()).hexdigest()[:12]


@bp.route("/taken/week.css")
def positions():
    """The classes that place the week's cards (no style attributes under the page's CSP)."""
    response = make_response(POSITIONS)
    response.mimetype = "text/css"
    response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


def show():
    """The week view (the board's route dispatches here for `weergave=week`)."""
    carrier_id = current_carrier_id()
    zone = current_zone()
    today = datetime.now(zone).date()
    drivers = drivers_service.list_drivers(carrier_id=carrier_id)
    vehicles = fleet.list_vehicles(carrier_id=carrier_id)
    query = WeekQuery.from_args(request.args, drivers=drivers, vehicles=vehicles, today=today)
    page = period_tasks(carrier_id=carrier_id, filters=query.filters(limit=WEEK_LIMIT))
    placed, period = placements(page.tasks, Period(query.first, query.days, zone))
    tasks = [p.task for p in placed]
    warnings = service.planning_warnings(carrier_id=carrier_id, tasks=tasks)
    names, inactive = driver_names(drivers, tasks, warnings)
    plates = {v.id: v.label for v in vehicles}
    lanes = lanes_of(carrier_id, query, drivers, vehicles, inactive, placed)
    if query.lanes == "chauffeur" and period.last >= today:
        add_budgets(carrier_id, lanes)
    week_url = url_for("tasks.index", **query.args)
    context = {
        "form": query.form,
        "query": query,
        "period": period,
        "today": today,
        "lanes": lanes,
        "tasks": tasks,
        "total": len(tasks),
        "over_limit": page.total > WEEK_LIMIT,
        "limit": WEEK_LIMIT,
        "names": names,
        "plates": plates,
        "board_url": week_url,
        "filtered": any(query.args.get(name) for name in FILTER_NAMES),
        "has_drivers": bool(drivers),
        "budgets_shown": query.lanes == "chauffeur" and period.last >= today,
        "card": card_context(
            week_url,
            show_date=True,
            warnings=warnings,
            names=names,
            plates=plates,
            customers=customers.names_by_id(
                carrier_id=carrier_id, customer_ids={t.klant_id for t in tasks}
            ),
        ),
        "links": week_links(query, today),
        "positions_version": POSITIONS_VERSION,
        "print_weeks": print_weeks(carrier_id, query, drivers, vehicles, inactive, page.tasks),
    }
    context["card"].week = week_texts()
    context["card"].week_html = WeekCards(context["card"], names, plates)
    return _response(context, week_url)


def driver_names(drivers: list, tasks: list, warnings: dict) -> tuple[dict, dict]:
    """The names of every driver the view shows (its tasks' and its warnings', inactive ones
    too: one lookup), and those of the inactive drivers that have tasks in it."""
    names = {d.id: d.naam for d in drivers}
    missing = {t.chauffeur_id for t in tasks if t.chauffeur_id and t.chauffeur_id not in names}
    named = {w.params.get("chauffeur_id") for found in warnings.values() for w in found}
    found = drivers_service.names_by_id(
        carrier_id=current_carrier_id(), driver_ids=missing | (named - names.keys() - {None})
    )
    names.update(found)
    return names, {key: name for key, name in found.items() if key in missing}


def week_lanes(query: WeekQuery, drivers, vehicles, inactive: dict, placed) -> list[Lane]:
    """The lanes the query asks for, each with its tasks placed and stacked."""
    lanes: dict[str, Lane] = {}
    if query.lanes == "voertuig":
        if query.vehicle is None:
            lanes[""] = Lane("", _("Zonder voertuig"))
        for vehicle in vehicles:
            if query.vehicle in (None, str(vehicle.id)):
                lanes[str(vehicle.id)] = Lane(str(vehicle.id), vehicle.label)
        return fill(lanes, placed, lambda t: str(t.vehicle_id) if t.vehicle_id else "")
    if query.chauffeur in (None, UNASSIGNED):
        lanes[""] = Lane("", _("Niet toegewezen"), driver="")
    for driver in drivers:
        if query.chauffeur in (None, str(driver.id)):
            lanes[str(driver.id)] = Lane(str(driver.id), driver.naam, driver=str(driver.id))
    for driver_id, name in sorted(inactive.items(), key=lambda item: item[1]):
        key = str(driver_id)
        lanes[key] = Lane(key, name, driver=key, inactive=True)
    return fill(lanes, placed, lambda t: str(t.chauffeur_id) if t.chauffeur_id else "")


def lanes_of(carrier_id: uuid.UUID, query: WeekQuery, drivers, vehicles, inactive, placed):
    """The lanes the query asks for (per driver, vehicle or combination), filled."""
    if query.lanes == "combinatie":
        return combination_lanes(carrier_id, query, placed)
    return week_lanes(query, drivers, vehicles, inactive, placed)


def print_weeks(carrier_id: uuid.UUID, query: WeekQuery, drivers, vehicles, inactive, tasks):
    """A period longer than a week prints a page per week: each week's lanes, its cards
    drawn as copies (the screen's period is one axis; paper's are seven days at most)."""
    if query.days <= WEEK_DAYS:
        return []
    pages = []
    for part in weeks_of(Period(query.first, query.days, current_zone())):
        placed, part = placements(tasks, part)
        for item in placed:
            item.copy = True
        pages.append((part, lanes_of(carrier_id, query, drivers, vehicles, inactive, placed)))
    return pages


def combination_lanes(carrier_id: uuid.UUID, query: WeekQuery, placed) -> list[Lane]:
    """A lane per combination the period's tasks drive with (the vehicle and what it tows
    for that task: a day's coupling or the task's own), by name; first the tasks without a
    vehicle. Two queries (tasks.combinations)."""
    found = plates_of_tasks(carrier_id=carrier_id, tasks=[p.task for p in placed])

    def key_of(task) -> str:
        if task.vehicle_id is None or task.id not in found:
            return ""
        return f"{task.vehicle_id}+{found[task.id][1] or ''}"

    lanes: dict[str, Lane] = {}
    if query.vehicle is None:
        lanes[""] = Lane("", _("Zonder voertuig"))
    named: dict[str, Lane] = {}
    for item in placed:
        key = key_of(item.task)
        if key and key not in named:
            label, towed_id, plate, fleet_number = found[item.task.id]
            towed = plate or fleet_number or "?"
            named[key] = Lane(key, f"{label} + {towed}" if towed_id else (label or "?"))
    lanes.update(sorted(named.items(), key=lambda pair: pair[1].title))
    return fill(lanes, placed, key_of)


def add_budgets(carrier_id: uuid.UUID, lanes: list[Lane]) -> None:
    """Each driver's lane with the driving time they have left now: three queries in all."""
    found = driving.budgets(
        carrier_id=carrier_id, driver_ids={uuid.UUID(lane.key) for lane in lanes if lane.key}
    )
    for lane in lanes:
        if lane.key:
            lane.budget = found.get(uuid.UUID(lane.key))


def week_links(query: WeekQuery, today: date) -> dict:
    """The view's links: the periods around it, this week, the other views, the lane kinds
    and period lengths, clearing the filters; each keeps what else is chosen."""
    args = query.args
    kept = {name: args[name] for name in FILTER_NAMES if name in args}

    def week(**changes) -> str:
        return url_for("tasks.index", **{**args, **changes})

    shift = timedelta(days=query.days)
    links = {
        "dag": url_for("tasks.index", datum=query.first.isoformat(), **kept),
        "status": url_for(
            "tasks.index",
            weergave="status",
            van=query.first.isoformat(),
            tot=(query.first + timedelta(days=query.days - 1)).isoformat(),
            **kept,
        ),
        "week": week(),
        "today": url_for("tasks.index", **{k: v for k, v in args.items() if k != "van"}),
        "clear": url_for("tasks.index", **{k: v for k, v in args.items() if k not in kept}),
        "lanes": {kind: week(baan=kind) for kind in LANE_KINDS},
        "days": {n: week(dagen=str(n)) for n in DAY_CHOICES if MIN_DAYS <= n <= MAX_DAYS},
        "new": url_for("tasks.new", datum=max(query.first, today).isoformat(), terug=week()),
        "import": url_for("task_import.upload"),
    }
    for name, start in (("prev", query.first - shift), ("next", query.first + shift)):
        if start >= FIRST_DAY and start + shift - timedelta(days=1) <= LAST_DAY:
            links[name] = week(van=start.isoformat())
    links["days_of"] = {
        day: url_for("tasks.index", datum=day.isoformat(), **kept)
        for day in (query.first + timedelta(days=n) for n in range(query.days))
    }
    return links


def _response(context: dict, week_url: str):
    """The week as a page, or (htmx) its region; the filter form's request also sets the
    address bar to the tidy URL."""
    if not is_fragment():
        return render_template("tasks/week.html", **context)
    response = make_response(render_template("tasks/_week.html", **context))
    if request.headers.get("HX-Trigger") == "board-filters":
        response.headers["HX-Push-Url"] = week_url
    return response
