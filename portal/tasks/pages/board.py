"""The planning board: a day of tasks in a lane per driver, or a range of days by status,
filtered by the query string (`BoardQuery`)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from flask import make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from portal.accounts.permissions import landing_url, role_required
from portal.customers import service as customers
from portal.drivers import service as drivers_service
from portal.fleet import service as fleet
from portal.tacho import driving
from portal.tasks import service
from portal.tasks.models import STATUSES, Task
from portal.tasks.pages.cards import card_context
from portal.tasks.pages.forms import UNASSIGNED, BoardFilterForm
from portal.tasks.pages.kit import bp
from portal.tasks.pages.week import show as show_week
from portal.validators import FIRST_DAY, LAST_DAY
from portal.web import is_fragment
from portal.web.kit import current_carrier_id, current_zone, parse_uuid

BOARD_LIMIT = 1000  # the most tasks one board shows; more asks the planner to filter
STATUS_WEEK = 7  # the status view's default range, in days from the chosen date
FILTER_NAMES = ("chauffeur", "voertuig", "type", "status", "q")


@dataclass(frozen=True)
class BoardQuery:
    """The board's view and filters as its query string asks for them.

    Each value is read by `BoardFilterForm`: one that is not valid (a date that is no date,
    another carrier's driver, a status that does not exist) filters nothing, and the form,
    rendered with the board, shows the error at its field."""

    form: BoardFilterForm = field(repr=False, compare=False)
    view: str  # "dag" (lanes per driver on one day) or "status" (columns by status)
    day: date  # the chosen day; today when none (or no valid one) is asked for
    # The first and last day shown (`day` in the day view); named as the query string names
    # them (van, tot).
    van: date | None
    tot: date | None
    chauffeur: str | None  # a driver's id, UNASSIGNED, or None for every driver
    vehicle: str | None  # a vehicle's id
    type: str | None  # an activity type
    status: str | None
    search: str | None  # the search text, stripped; None when empty
    args: dict[str, str]  # the query string of this board, without the defaults

    @classmethod
    def from_args(cls, args, *, drivers, vehicles, today: date) -> BoardQuery:
        """The board asked for by args (request.args); drivers and vehicles: the choices a
        driver and vehicle filter may name."""
        form = BoardFilterForm(args)
        form.set_choices(drivers, vehicles)
        form.validate()
        view = form.clean("weergave") or "dag"
        day = form.clean("datum") or today

        tidy: dict[str, str] = {}
        if view != "dag":
            tidy["weergave"] = view
        if form.clean("datum") and day != today:  # today stays "today", also after midnight
            tidy["datum"] = day.isoformat()
        if view == "dag":
            start = end = day
        else:
            start = form.clean("van") if "van" in args else day
            end = form.clean("tot") if "tot" in args else day + timedelta(days=STATUS_WEEK - 1)
            if "van" in args or "tot" in args:
                tidy["van"] = start.isoformat() if start else ""
                tidy["tot"] = end.isoformat() if end else ""
        for name in FILTER_NAMES:
            value = form.clean(name)
            if value:
                tidy[name] = value.strip() if name == "q" else value

        query = cls(
            form=form,
            view=view,
            day=day,
            van=start,
            tot=end,
            chauffeur=form.clean("chauffeur"),
            vehicle=form.clean("voertuig"),
            type=form.clean("type"),
            status=form.clean("status"),
            search=(form.clean("q") or "").strip() or None,
            args=tidy,
        )
        # The inputs show the day and range in use, also when they came from the defaults.
        form.datum.data = day
        if view != "dag":
            form.van.data, form.tot.data = start, end
        return query

    def filters(self, *, limit: int) -> service.TaskFilters:
        """The selection of tasks this board shows, at most limit."""
        return service.TaskFilters(
            chauffeur_id=parse_uuid(self.chauffeur),
            vehicle_id=parse_uuid(self.vehicle),
            types=(self.type,) if self.type else (),
            statuses=(self.status,) if self.status else (),
            van=self.van,
            tot=self.tot,
            search=self.search,
            unassigned=self.chauffeur == UNASSIGNED,
            limit=limit,
        )


@dataclass
class Lane:
    key: str  # the driver's id, or "" for the unassigned tasks
    title: str
    tasks: list[Task] = field(default_factory=list)
    inactive: bool = False
    budget: object = None  # the driver's remaining driving time (tacho.driving.DriverBudget)


@bp.route("/")
def home():
    """The signed-in user's first section; the sign-in page (which lands them there) else."""
    if current_user.is_authenticated:
        return redirect(landing_url(current_user))
    return redirect(url_for("accounts.login"))


@bp.route("/taken")
@role_required("planner")
def index():
    """The board: `weergave=dag` (lanes per driver on one day), `weergave=status`, or
    `weergave=week` (portal/tasks/pages/week.py)."""
    if request.args.get("weergave") == "week":
        return show_week()
    carrier_id = current_carrier_id()
    today = datetime.now(current_zone()).date()
    drivers = drivers_service.list_drivers(carrier_id=carrier_id)
    vehicles = fleet.list_vehicles(carrier_id=carrier_id)
    query = BoardQuery.from_args(request.args, drivers=drivers, vehicles=vehicles, today=today)
    # The board shows no questionnaires: skip loading their definitions.
    page = service.list_tasks(
        carrier_id=carrier_id, filters=query.filters(limit=BOARD_LIMIT), with_definitions=False
    )
    tasks = page.tasks
    warnings = service.planning_warnings(carrier_id=carrier_id, tasks=tasks)
    names, inactive = _driver_names(drivers, tasks, warnings)
    plates = {v.id: v.label for v in vehicles}
    lanes: list[Lane] = []
    columns: list[tuple[str, list[Task]]] = []
    if query.view == "dag":
        lanes = _lanes(query, drivers, inactive, tasks, today=today)
    else:
        shown = [query.status] if query.status else list(STATUSES)
        columns = [(s, [t for t in tasks if t.status == s]) for s in shown]
    board_url = url_for("tasks.index", **query.args)
    context = {
        "form": query.form,
        "view": query.view,
        "day": query.day,
        "today": today,
        "van": query.van,
        "tot": query.tot,
        "tasks": tasks,
        "total": page.total,
        "limit": BOARD_LIMIT,
        "lanes": lanes,
        "columns": columns,
        "names": names,
        "plates": plates,
        "board_url": board_url,
        "args": query.args,
        "filtered": any(query.args.get(name) for name in FILTER_NAMES),
        "has_drivers": bool(drivers),
        "card": card_context(
            board_url,
            show_date=query.view != "dag",
            warnings=warnings,
            names=names,
            plates=plates,
            customers=customers.names_by_id(
                carrier_id=carrier_id, customer_ids={t.klant_id for t in tasks}
            ),
            combinations=page.plates,
        ),
        "links": _links(query, board_url),
        "prev_day": query.day - timedelta(days=1),
        "next_day": query.day + timedelta(days=1),
    }
    return _board_response(context, board_url)


def _driver_names(drivers: list, tasks: list[Task], warnings: dict) -> tuple[dict, dict]:
    """The names of every driver the board shows (its tasks' and its warnings', inactive
    ones too: one lookup), and those of the inactive drivers that have tasks on it."""
    names = {d.id: d.naam for d in drivers}
    missing = {t.chauffeur_id for t in tasks if t.chauffeur_id and t.chauffeur_id not in names}
    # A warning may name an inactive driver's task that is not on this board: one lookup.
    named = {w.params.get("chauffeur_id") for found in warnings.values() for w in found}
    found = drivers_service.names_by_id(
        carrier_id=current_carrier_id(), driver_ids=missing | (named - names.keys() - {None})
    )
    inactive = {key: name for key, name in found.items() if key in missing}
    names.update(found)
    return names, inactive


def _lanes(
    query: BoardQuery, drivers: list, inactive: dict, tasks: list[Task], *, today: date
) -> list[Lane]:
    """The day view's lanes: the unassigned tasks, each driver the filter shows, then the
    inactive drivers with tasks; each driver's lane with the driving time they have left."""
    chauffeur = query.chauffeur
    by_key: dict[str, Lane] = {}
    if chauffeur in (None, UNASSIGNED):
        by_key[""] = Lane("", _("Niet toegewezen"))
    for driver in drivers:
        if chauffeur is None or chauffeur == str(driver.id):
            by_key[str(driver.id)] = Lane(str(driver.id), driver.naam)
    for driver_id, name in sorted(inactive.items(), key=lambda item: item[1]):
        by_key[str(driver_id)] = Lane(str(driver_id), name, inactive=True)
    for task in tasks:
        lane = by_key.get(str(task.chauffeur_id) if task.chauffeur_id else "")
        if lane is not None:
            lane.tasks.append(task)
    lanes = list(by_key.values())
    # The driving time each driver has left now, when the board plans today or later:
    # three queries for every lane at once.
    found_budgets = (
        driving.budgets(
            carrier_id=current_carrier_id(),
            driver_ids={uuid.UUID(lane.key) for lane in lanes if lane.key},
        )
        if query.day >= today
        else {}
    )
    for lane in lanes:
        if lane.key:
            lane.budget = found_budgets.get(uuid.UUID(lane.key))
    return lanes


def _links(query: BoardQuery, board_url: str) -> dict[str, str]:
    """The board's links: the other view, the days and ranges around it, clearing the
    filters, a new task and the import; each keeps the filters in use."""
    args, day, view, chauffeur = query.args, query.day, query.view, query.chauffeur
    kept = {name: args[name] for name in FILTER_NAMES if name in args}
    links = {
        "week": url_for("tasks.index", weergave="week", datum=args.get("datum"), **kept),
        "dag": url_for("tasks.index", datum=args.get("datum"), **kept),
        "status": url_for("tasks.index", weergave="status", datum=args.get("datum"), **kept),
        "prev": url_for("tasks.index", datum=(day - timedelta(days=1)).isoformat(), **kept),
        "next": url_for("tasks.index", datum=(day + timedelta(days=1)).isoformat(), **kept),
        "today": url_for("tasks.index", **({"weergave": view} if view != "dag" else {}), **kept),
        "clear": url_for("tasks.index", **{k: v for k, v in args.items() if k not in kept}),
        "new": url_for(
            "tasks.new",
            datum=day.isoformat(),
            chauffeur=chauffeur if chauffeur != UNASSIGNED else None,
            terug=board_url,
        ),
        "import": url_for("task_import.upload"),
    }
    if view != "dag" and query.van and query.tot:
        span = (query.tot - query.van).days + 1
        for name, shift in (("prev_range", -span), ("next_range", span)):
            start, end = query.van + timedelta(days=shift), query.tot + timedelta(days=shift)
            if start >= FIRST_DAY and end <= LAST_DAY:
                links[name] = url_for(
                    "tasks.index", weergave="status", van=start.isoformat(), tot=end.isoformat(),
                    **kept,
                )  # fmt: skip
    return links


def _board_response(context: dict, board_url: str):
    """The board as a page, or (htmx) its fragment; the filter form's request also sets the
    address bar to the tidy URL."""
    if not is_fragment():
        return render_template("tasks/board.html", **context)
    response = make_response(render_template("tasks/_board.html", **context))
    if request.headers.get("HX-Trigger") == "board-filters":
        # The filter form's request: the address bar shows the tidy URL, not every empty field.
        response.headers["HX-Push-Url"] = board_url
    return response
