"""The planning board: a day of tasks in a lane per driver, or a range of days by status.

Tasks move by drag and drop (static/js/board.js) or by a keyboard-friendly form, change
status through the lifecycle's state machine, and are created and edited in one form. Every
route works as a plain page and form without JavaScript; htmx requests get fragments.
Each request loads, checks and acts through the tasks service, then commits once.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

from babel import dates as babel_dates
from flask import (
    Blueprint,
    current_app,
    flash,
    get_template_attribute,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import get_locale, get_timezone
from flask_babel import gettext as _
from flask_login import current_user
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

from portal import problems, reads
from portal.accounts.permissions import landing_url, object_route, role_required
from portal.drivers import service as drivers_service
from portal.errors import Conflict, ValidationFailed
from portal.fleet import service as fleet
from portal.questionnaires import service as questionnaires
from portal.tacho import driving
from portal.tasks import lifecycle, service
from portal.tasks.forms import (
    BLOCKER_LABELS,
    MOVE_LABELS,
    REOPEN_LABEL,
    STATUS_LABELS,
    UNASSIGNED,
    VEHICLE_ALONG,
    VEHICLE_STAYS,
    BoardFilterForm,
    MoveForm,
    TaskForm,
)
from portal.tasks.models import STATUSES, Task
from portal.unit_of_work import portal_write, refused
from portal.validators import FIRST_DAY, LAST_DAY
from portal.web import is_fragment
from portal.web.kit import current_actor, current_carrier_id, current_zone, format_when

bp = Blueprint("tasks", __name__)

BOARD_LIMIT = 1000  # the most tasks one board shows; more asks the planner to filter
STATUS_WEEK = 7  # the status view's default range, in days from the chosen date
FILTER_NAMES = ("chauffeur", "voertuig", "type", "status", "q")
CLOSED = ("afgerond", "geannuleerd")


# --- helpers --------------------------------------------------------------------------


def task_page_url(task_id: uuid.UUID) -> str:
    return url_for("task_detail.show", task_id=task_id)


def _safe_back(target: str | None) -> str:
    """Where to return after a write: a board URL only (no open redirect)."""
    if target and target.isprintable() and "\\" not in target and " " not in target:
        parts = urlsplit(target)
        if not parts.scheme and not parts.netloc and parts.path == url_for("tasks.index"):
            return target
    return url_for("tasks.index")


def _back() -> str:
    return _safe_back(request.values.get("terug"))


def _local(moment: datetime | None) -> datetime | None:
    return moment.astimezone(current_zone()) if moment else None


def _instant(day: date, clock: time) -> datetime:
    """A wall-clock time on a day in the carrier's zone, as a UTC instant."""
    return datetime.combine(
        day, clock.replace(second=0, microsecond=0), tzinfo=current_zone()
    ).astimezone(UTC)


def _trigger(response, **events):
    """Tell the page's other regions that tasks changed (HX-Trigger)."""
    response.headers["HX-Trigger"] = json.dumps({"tasksChanged": True, **events})
    return response


def _message(text: str, category: str = "info", status: int = 200, *, changed: bool = True):
    """The outcome of a write: for htmx a message in the board's message region (also when
    the request came from the dialog) and a board refresh; without JavaScript a flash and a
    redirect back to the board with its filters."""
    if not is_fragment():
        flash(text, category)
        back = redirect(_back(), code=303)
        return refused(back) if status >= 400 else back
    response = make_response(
        render_template("tasks/_message.html", text=text, category=category), status
    )
    if request.headers.get("HX-Target") != "board-message":
        response.headers["HX-Retarget"] = "#board-message"
        response.headers["HX-Reswap"] = "innerHTML"
    return _trigger(response) if changed else response


def _load(task_id: uuid.UUID) -> Task:
    return service.get_task(carrier_id=current_carrier_id(), task_id=task_id)


def task_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one task (another carrier's id: 404 whatever the method)."""
    return object_route(bp, rule, lambda task_id: _load(task_id), methods=methods)


def _drivers_for(task: Task | None = None) -> list:
    """Active drivers, plus the task's own driver when that one is no longer active."""
    drivers = drivers_service.list_drivers(carrier_id=current_carrier_id())
    if task and task.chauffeur_id and task.chauffeur_id not in {d.id for d in drivers}:
        drivers.append(
            drivers_service.get_driver(carrier_id=current_carrier_id(), driver_id=task.chauffeur_id)
        )
    return drivers


def _parse_uuid(value: str | None) -> uuid.UUID | None:
    try:
        return uuid.UUID(value) if value else None
    except ValueError:
        return None


# --- the board ------------------------------------------------------------------------


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
    """The board: `weergave=dag` (lanes per driver on one day) or `weergave=status`."""
    carrier_id = current_carrier_id()
    today = datetime.now(current_zone()).date()
    drivers = drivers_service.list_drivers(carrier_id=carrier_id)
    vehicles = fleet.list_vehicles(carrier_id=carrier_id)
    form = BoardFilterForm(request.args)
    form.set_choices(drivers, vehicles)
    form.validate()
    view = form.clean("weergave") or "dag"
    day = form.clean("datum") or today
    chauffeur = form.clean("chauffeur")
    status = form.clean("status")

    args: dict[str, str] = {}
    if view != "dag":
        args["weergave"] = view
    if form.clean("datum") and day != today:  # today stays "today", also after midnight
        args["datum"] = day.isoformat()
    if view == "dag":
        van = tot = day
    else:
        van = form.clean("van") if "van" in request.args else day
        tot = form.clean("tot") if "tot" in request.args else day + timedelta(days=STATUS_WEEK - 1)
        if "van" in request.args or "tot" in request.args:
            args["van"] = van.isoformat() if van else ""
            args["tot"] = tot.isoformat() if tot else ""
    for name in FILTER_NAMES:
        value = form.clean(name)
        if value:
            args[name] = value.strip() if name == "q" else value

    # The inputs show the day and range in use, also when they came from the defaults.
    form.datum.data = day
    if view != "dag":
        form.van.data, form.tot.data = van, tot
    filters = service.TaskFilters(
        chauffeur_id=_parse_uuid(chauffeur),
        vehicle_id=_parse_uuid(form.clean("voertuig")),
        types=(form.clean("type"),) if form.clean("type") else (),
        statuses=(status,) if status else (),
        van=van,
        tot=tot,
        search=(form.clean("q") or "").strip() or None,
        unassigned=chauffeur == UNASSIGNED,
        limit=BOARD_LIMIT,
    )
    # The board shows no questionnaires: skip loading their definitions.
    page = service.list_tasks(carrier_id=carrier_id, filters=filters, with_definitions=False)
    tasks = page.tasks
    total = page.total
    warnings = service.planning_warnings(carrier_id=carrier_id, tasks=tasks)

    names = {d.id: d.naam for d in drivers}
    missing = {t.chauffeur_id for t in tasks if t.chauffeur_id and t.chauffeur_id not in names}
    # A warning may name an inactive driver's task that is not on this board: one lookup.
    named = {w.params.get("chauffeur_id") for found in warnings.values() for w in found}
    found = drivers_service.names_by_id(
        carrier_id=carrier_id, driver_ids=missing | (named - names.keys() - {None})
    )
    inactive = {key: naam for key, naam in found.items() if key in missing}
    names.update(found)
    plates = {v.id: v.kenteken for v in vehicles}

    lanes: list[Lane] = []
    columns: list[tuple[str, list[Task]]] = []
    if view == "dag":
        by_key: dict[str, Lane] = {}
        if chauffeur in (None, UNASSIGNED):
            by_key[""] = Lane("", _("Niet toegewezen"))
        for driver in drivers:
            if chauffeur is None or chauffeur == str(driver.id):
                by_key[str(driver.id)] = Lane(str(driver.id), driver.naam)
        for driver_id, naam in sorted(inactive.items(), key=lambda item: item[1]):
            by_key[str(driver_id)] = Lane(str(driver_id), naam, inactive=True)
        for task in tasks:
            lane = by_key.get(str(task.chauffeur_id) if task.chauffeur_id else "")
            if lane is not None:
                lane.tasks.append(task)
        lanes = list(by_key.values())
        # The driving time each driver has left now, when the board plans today or later:
        # three queries for every lane at once.
        found_budgets = (
            driving.budgets(
                carrier_id=carrier_id,
                chauffeur_ids={uuid.UUID(lane.key) for lane in lanes if lane.key},
            )
            if day >= today
            else {}
        )
        for lane in lanes:
            if lane.key:
                lane.budget = found_budgets.get(uuid.UUID(lane.key))
    else:
        shown = [status] if status else list(STATUSES)
        columns = [(s, [t for t in tasks if t.status == s]) for s in shown]

    board_url = url_for("tasks.index", **args)
    filtered = any(args.get(name) for name in FILTER_NAMES)
    kept = {name: args[name] for name in FILTER_NAMES if name in args}
    links = {
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
    if view != "dag" and van and tot:
        span = (tot - van).days + 1
        for name, shift in (("prev_range", -span), ("next_range", span)):
            start, end = van + timedelta(days=shift), tot + timedelta(days=shift)
            if start >= FIRST_DAY and end <= LAST_DAY:
                links[name] = url_for(
                    "tasks.index", weergave="status", van=start.isoformat(), tot=end.isoformat(),
                    **kept,
                )  # fmt: skip
    context = {
        "form": form,
        "view": view,
        "day": day,
        "today": today,
        "van": van,
        "tot": tot,
        "tasks": tasks,
        "total": total,
        "limit": BOARD_LIMIT,
        "lanes": lanes,
        "columns": columns,
        "names": names,
        "plates": plates,
        "board_url": board_url,
        "args": args,
        "filtered": filtered,
        "has_drivers": bool(drivers),
        "card": card_context(
            board_url, show_date=view != "dag", warnings=warnings, names=names, plates=plates
        ),
        "links": links,
        "prev_day": day - timedelta(days=1),
        "next_day": day + timedelta(days=1),
    }
    if not is_fragment():
        return render_template("tasks/board.html", **context)
    response = make_response(render_template("tasks/_board.html", **context))
    if request.headers.get("HX-Trigger") == "board-filters":
        # The filter form's request: the address bar shows the tidy URL, not every empty field.
        response.headers["HX-Push-Url"] = board_url
    return response


class _PerRequest(dict):
    """A dict that fills itself: key -> make(key), computed once per request (a board)."""

    def __init__(self, make):
        super().__init__()
        self._make = make

    def __missing__(self, key):
        self[key] = value = self._make(key)
        return value


# The id a card's URLs are built for once per request, then swapped for the task's own id
# (at its first occurrence: in the path, before the query; any id would do).
_PLACEHOLDER_ID = uuid.UUID("00000000-0000-4000-8000-0000000c0de0")


def _card_urls(back: str):
    """A card's URLs by name, for a task id: url_for runs once per endpoint and request (for
    a placeholder id), not once per card. The id sits in the path, before any query (`terug`),
    so the URL is split at the placeholder's first occurrence."""
    placeholder = str(_PLACEHOLDER_ID)
    built: dict[str, tuple[str, str]] = {}

    def split(url: str) -> tuple[str, str]:
        head, found, tail = url.partition(placeholder)
        assert found, url
        return head, tail

    def urls(task_id: uuid.UUID) -> SimpleNamespace:
        if not built:
            terug = {"terug": back}
            for name, endpoint, args in (
                ("move", "tasks.move", {}),
                ("status", "tasks.change_status", {}),
                ("cancel", "tasks.cancel", terug),
                ("reopen", "tasks.reopen", terug),
                ("move_back", "tasks.move", terug),
                ("edit", "tasks.edit", terug),
                ("duplicate", "tasks.duplicate", {}),
                ("delete", "tasks.delete", terug),
            ):
                built[name] = split(url_for(endpoint, task_id=_PLACEHOLDER_ID, **args))
            built["page"] = split(task_page_url(_PLACEHOLDER_ID))
        key = str(task_id)
        return SimpleNamespace(**{name: head + key + tail for name, (head, tail) in built.items()})

    return urls


def _trusted(text) -> Markup:
    """A text of our own catalog, rendered as a template renders `_()` or a lazy label:
    unescaped (jinja2.ext's gettext under autoescape gives Markup, LazyString.__html__ the
    plain text). Never for what a user typed."""
    return Markup(str(text))  # noqa: S704


def _card_texts() -> SimpleNamespace:
    """A card's fixed texts in the user's language. Markup, as `_()` in a template gives it
    (jinja2.ext's gettext under autoescape: Markup(text) % {})."""
    return SimpleNamespace(
        **{
            key: _trusted(text) % {}
            for key, text in (
                ("zonder_datum", _("zonder datum")),
                ("voertuig", _("Voertuig")),
                ("niet_toegewezen", _("Niet toegewezen")),
                ("eisen", _("Eisen")),
                ("vdm", _("VDM-nummer")),
                ("verplaats", _("Verplaats")),
                ("bewerken", _("Bewerken")),
                ("meer", _("Meer")),
                ("details", _("Details en historie")),
                ("dupliceren", _("Dupliceren")),
                ("verwijderen", _("Verwijderen…")),
            )
        }
    )


def card_context(
    back: str,
    *,
    show_date: bool,
    warnings: dict | None = None,
    names: dict | None = None,
    plates: dict | None = None,
) -> SimpleNamespace:
    """What every card on a board needs besides its task; warnings by task id, drivers'
    names and plates by id. Everything that is the same for every card (labels, texts, the
    URLs but for the id) is looked up here once per request, not once per card. A namespace,
    not a dict: `card.back` in a template then finds the attribute at once (Jinja tries an
    attribute before an item). `card.html(task, task_card)` renders a card through the
    per-process cache of cards (KEPT_CARDS)."""
    demand_texts = _demand_texts()
    card = SimpleNamespace(
        back=back,
        show_date=show_date,
        warnings=warnings or {},
        status_labels={key: _trusted(label) for key, label in STATUS_LABELS.items()},
        move_labels={key: _trusted(label) for key, label in MOVE_LABELS.items()},
        reopen_label=_trusted(REOPEN_LABEL),
        activity_labels=_PerRequest(current_app.jinja_env.filters["activity_label"]),
        text=_card_texts(),
        allowed_moves=lambda task: lifecycle.allowed_moves(task, office=True),
        urls=_card_urls(back),
        closed=CLOSED,
        demands=lambda task: card_demands(task, demand_texts),
        time=_time_formatter(),
        # The card's forms carry a mark where the session's CSRF token goes: a kept card is
        # the same for every planner; card.html() puts this request's token in its place.
        csrf_token=lambda: _CSRF_MARK,
    )
    card.html = _KeptCards(card, names or {}, plates or {})
    return card


# A card's HTML follows from its task (id and version: every change raises `versie`), the
# user's language and time zone, the board's view and return URL, the names of its driver
# and vehicle, and its warnings. Cards without warnings (nearly all) are kept per process,
# by all of those, so a board that is loaded again renders only the cards that changed.
KEPT_CARDS = reads.ByteCache(max_bytes=32 * 1024 * 1024)
_CSRF_MARK = "csrf-token-of-this-request"


class _KeptCards:
    """card.html(task, macro, notice=None): the card's HTML, kept or rendered."""

    def __init__(self, card: SimpleNamespace, names: dict, plates: dict) -> None:
        self.card = card
        self.names = names
        self.plates = plates
        self.language = (str(get_locale()), str(get_timezone()))
        self.token = _once(generate_csrf)  # the same all through a request (flask_wtf's g)

    def __call__(self, task: Task, macro, notice: dict | None = None) -> Markup:
        key = None
        if notice is None:
            key = (
                task.id,
                task.versie,
                task.updated_at,
                *self.language,
                self.card.show_date,
                self.card.back,
                self.names.get(task.chauffeur_id),
                self.plates.get(task.vehicle_id),
                self._warned(task),
            )
            try:
                kept = KEPT_CARDS.get(key)
            except TypeError:  # a warning's parameter that cannot be a key
                kept = key = None
            if kept is not None:
                return self._with_token(kept.decode())
        html = str(macro(task, notice))
        if key is not None:
            KEPT_CARDS.put(key, html.encode())
        return self._with_token(html)

    def _warned(self, task: Task) -> tuple:
        """The card's warnings as they are worded: code, parameters, and the names and
        plates they mention."""
        if task.status in CLOSED:
            return ()
        return tuple(
            (
                w.code,
                tuple(sorted(w.params.items())),
                self.names.get(w.params.get("chauffeur_id")),
                self.plates.get(w.params.get("vehicle_id")),
            )
            for w in self.card.warnings.get(task.id, ())
        )

    def _with_token(self, html: str) -> Markup:
        if _CSRF_MARK not in html:
            return Markup(html)  # noqa: S704 (rendered by Jinja, escaped there)
        return Markup(html.replace(_CSRF_MARK, self.token()))  # noqa: S704


def _once(make):
    """make(), called on first use only: what a request may not need (a card-less board)."""
    made: list = []

    def value():
        if not made:
            made.append(make())
        return made[0]

    return value


def _time_formatter():
    """format_datetime (the `datetimeformat` filter) with the user's locale and time zone
    looked up once per request instead of once per card."""
    locale, zone = get_locale(), get_timezone()

    def time_of(moment: datetime, pattern: str) -> str:
        return babel_dates.format_datetime(moment, pattern, locale=locale, tzinfo=zone)

    return time_of


def _demand_texts() -> dict[str, str]:
    return {
        "fotos": _("Foto's"),
        "fotos_verplicht": _("Foto's verplicht"),
        "handtekening": _("Handtekening"),
        "handtekening_verplicht": _("Handtekening verplicht"),
        "scan": _("Scan"),
        "scan_verplicht": _("Documentscan verplicht"),
        "agr": _("AGR"),
        "agr_verplicht": _("AGR-GPS-registratie verplicht"),
        "locatie": _("Locatie"),
        "locatie_vastleggen": _("Locatie vastleggen"),
        "temperatuur": _("Vereiste temperatuur (°C)"),
        "desinfectie": _("Desinfectie"),
        "desinfectie_bevestigen": _("Desinfectie bevestigen"),
        "kooiaap": _("Kooiaap"),
        "kooiaap_nodig": _("Kooiaap nodig"),
    }


def card_demands(task: Task, texts: dict[str, str] | None = None) -> list[tuple[str, str, str]]:
    """What the driver must deliver, as (kind, short text, explanation) for a card; texts:
    _demand_texts() of this request (looked up here when not given)."""
    t = texts or _demand_texts()
    demands = []
    if task.require_photos:
        low, high = task.min_fotos, task.max_fotos
        count = ""
        if low is not None and high is not None:
            count = f" {low}\u2013{high}"
        elif low is not None:
            count = f" \u2265{low}"
        elif high is not None:
            count = f" \u2264{high}"
        demands.append(("foto", t["fotos"] + count, task.photo_label or t["fotos_verplicht"]))
    if task.require_signature:
        demands.append(("handtekening", t["handtekening"], t["handtekening_verplicht"]))
    if task.require_document_scan:
        demands.append(("scan", t["scan"], t["scan_verplicht"]))
    if task.agr_verplicht:
        demands.append(("locatie", t["agr"], t["agr_verplicht"]))
    elif task.require_location:
        demands.append(("locatie", t["locatie"], t["locatie_vastleggen"]))
    if task.required_temperatuur is not None:
        demands.append(("temperatuur", f"{task.required_temperatuur:g} °C", t["temperatuur"]))
    if task.required_desinfectie:
        demands.append(("desinfectie", t["desinfectie"], t["desinfectie_bevestigen"]))
    if task.kooiaap:
        demands.append(("kooiaap", t["kooiaap"], t["kooiaap_nodig"]))
    return demands


def _card(task: Task, status: int = 200, *, notice: dict | None = None):
    """One card, re-rendered after a status change (htmx)."""
    back = _back()
    show_date = parse_qs(urlsplit(back).query).get("weergave") == ["status"]
    warnings = service.planning_warnings(carrier_id=current_carrier_id(), tasks=[task])
    others = {w.params.get("chauffeur_id") for w in warnings.get(task.id, [])}
    names = drivers_service.names_by_id(
        carrier_id=current_carrier_id(), driver_ids={task.chauffeur_id, *others} - {None}
    )
    plates = fleet.plates_by_id(carrier_id=current_carrier_id(), vehicle_ids={task.vehicle_id})
    html = render_template(
        "tasks/_card_fragment.html",
        task=task,
        names=names,
        plates=plates,
        notice=notice,
        card=card_context(back, show_date=show_date, warnings=warnings, names=names, plates=plates),
    )
    return make_response(html, status)


# --- status ---------------------------------------------------------------------------


@task_route("/taken/<uuid:task_id>/status", methods=("POST",))
def change_status(task: Task):
    """Move a task along the state machine; completion lists what still blocks it."""
    to = request.form.get("status", "")
    task_id, naam = task.id, task.naam
    try:
        moved = lifecycle.move_task(
            carrier_id=current_carrier_id(),
            task_id=task_id,
            to=to,
            actor=current_actor(),
            office=True,
        )
    except lifecycle.IllegalMove as error:
        allowed = [str(STATUS_LABELS[s]) for s in error.extra.get("allowed", [])]
        text = (
            _("Deze statuswijziging kan niet. Mogelijk: %(allowed)s.", allowed=", ".join(allowed))
            if allowed
            else _("Deze taak kan geen andere status meer krijgen.")
        )
        return _status_refused(task_id, naam, text, [], 409)
    except ValidationFailed as error:
        # A blocker with a code says itself in the planner's language; the rest by its field.
        blockers = [
            {"label": None, "message": problems.say(e["code"], e.get("params"), e["message"])}
            if e.get("code")
            else {"label": BLOCKER_LABELS.get(e["field"], e["field"]), "message": e["message"]}
            for e in error.errors
        ]
        text = (
            _("Taak “%(naam)s” kan nog niet worden afgerond:", naam=naam)
            if to == "afgerond"
            else _("Deze status bestaat niet.")
        )
        return _status_refused(task_id, naam, text, blockers, 422)
    label = STATUS_LABELS[moved.status]
    if not is_fragment():
        flash(_("Taak “%(naam)s” is nu %(status)s.", naam=naam, status=str(label).lower()))
        return redirect(_back(), code=303)
    return _trigger(_card(moved))


def _status_refused(task_id, naam, text: str, blockers: list[dict], status: int):
    if not is_fragment():
        flash(text, "error")
        for blocker in blockers:
            label = f"{blocker['label']}: " if blocker["label"] else ""
            flash(f"{label}{blocker['message']}", "error")
        return refused(redirect(_back(), code=303))
    task = _load(task_id)
    return _card(task, status, notice={"text": text, "blockers": blockers})


# --- moving ---------------------------------------------------------------------------


@task_route("/taken/<uuid:task_id>/verplaats", methods=("GET", "POST"))
def move(task: Task):
    """Move a task to another driver, day or time: dropped on the board, or by this form."""
    form = MoveForm(request.form if request.method == "POST" else None)
    form.set_choices(_drivers_for(task))
    if request.method == "GET":
        local = _local(task.gepland_op)
        form.chauffeur_id.data = str(task.chauffeur_id) if task.chauffeur_id else ""
        form.datum.data = local.date() if local else datetime.now(current_zone()).date()
        form.tijd.data = local.time() if local else None
        form.versie.data = task.versie
        form.terug.data = _back()
        form.voertuig.data = VEHICLE_ALONG
        # A card dropped on another driver's lane, with a vehicle: ask whether it goes along.
        dropped = request.args.get("chauffeur_id")
        choices = {value for value, *_rest in form.chauffeur_id.iter_choices()}
        if dropped is not None and dropped in choices:
            form.chauffeur_id.data = dropped
            if task.vehicle_id and dropped != (str(task.chauffeur_id) if task.chauffeur_id else ""):
                return _move_form(task, form, ask_vehicle=True)
        return _move_form(task, form)

    data: dict = {}
    if form.validate():
        if "chauffeur_id" in request.form:
            data["chauffeur_id"] = _parse_uuid(form.chauffeur_id.data)
            # Without the answer "los", the vehicle goes along (as a drop always did).
            changed = data["chauffeur_id"] != task.chauffeur_id
            if changed and task.vehicle_id and form.voertuig.data == VEHICLE_STAYS:
                data["vehicle_id"] = None
        if "datum" in request.form or "tijd" in request.form:
            local = _local(task.gepland_op)
            day = form.datum.data or (local.date() if local else None)
            clock = form.tijd.data or (local.time() if local else None)
            if day is None:
                form.datum.errors.append(_("Kies een datum."))
            elif clock is None:
                form.tijd.errors.append(_("Kies een tijd."))
            else:
                data["gepland_op"] = _instant(day, clock)
    if any(f.errors for f in form):
        if request.headers.get("HX-Target") == "board-message":
            errors = "; ".join(str(e) for f in form for e in f.errors)
            return _message(errors, "error", 422, changed=False)
        return _move_form(task, form, 422)

    naam = task.naam
    try:
        moved = service.update_task(
            carrier_id=current_carrier_id(),
            task_id=task.id,
            data=data,
            actor=current_actor(),
            expected_version=form.versie.data,
        )
    except service.PreconditionFailed:
        return _message(
            _("Deze taak is intussen gewijzigd. Het bord is ververst; probeer het opnieuw."),
            "error",
            412,
        )
    except Conflict:
        return _message(
            _("Een afgeronde of geannuleerde taak kan niet meer worden verplaatst."), "error", 409
        )
    except ValidationFailed:
        return _message(_("Deze chauffeur bestaat niet (meer)."), "error", 422)
    driver = drivers_service.names_by_id(
        carrier_id=current_carrier_id(), driver_ids={moved.chauffeur_id}
    ).get(moved.chauffeur_id) or _("niet toegewezen")
    when = format_when(moved.gepland_op, empty=_("zonder datum"))
    return _message(
        _("“%(naam)s” verplaatst: %(driver)s, %(when)s.", naam=naam, driver=driver, when=when)
    )


def _move_form(task: Task, form: MoveForm, status: int = 200, *, ask_vehicle: bool = False):
    """The move dialog (or page); ask_vehicle: the short question after a drop on another
    driver's lane, whether the task's vehicle goes along."""
    if ask_vehicle and is_fragment():
        template = "tasks/_move_vehicle.html"
    else:
        template = "tasks/_move.html" if is_fragment() else "tasks/move.html"
    plate = None
    if task.vehicle_id:
        plate = fleet.plates_by_id(
            carrier_id=current_carrier_id(), vehicle_ids={task.vehicle_id}
        ).get(task.vehicle_id)
    to = _parse_uuid(form.chauffeur_id.data)
    driver = drivers_service.names_by_id(carrier_id=current_carrier_id(), driver_ids={to}).get(to)
    html = render_template(template, task=task, form=form, back=_back(), plate=plate, driver=driver)
    return make_response(html, status)


# --- cancel, delete, duplicate ----------------------------------------------------------


@task_route("/taken/<uuid:task_id>/annuleren", methods=("GET", "POST"))
def cancel(task: Task):
    """Cancel a task after a confirmation (a dialog with JavaScript, this page without)."""
    if request.method == "GET":
        return _confirm(task, "cancel")
    naam = task.naam
    try:
        lifecycle.move_task(
            carrier_id=current_carrier_id(),
            task_id=task.id,
            to="geannuleerd",
            actor=current_actor(),
            office=True,
        )
    except lifecycle.IllegalMove:
        return _message(
            _("Taak “%(naam)s” kan niet meer worden geannuleerd.", naam=naam), "error", 409
        )
    return _message(_("Taak “%(naam)s” is geannuleerd.", naam=naam))


@task_route("/taken/<uuid:task_id>/heropenen", methods=("GET", "POST"))
def reopen(task: Task):
    """Reopen a completed task after a confirmation: its billing line waits for the next
    completion (an exported one stays as it was)."""
    if request.method == "GET":
        return _confirm(task, "reopen")
    naam = task.naam
    if task.status != "afgerond":
        return _message(
            _("Taak “%(naam)s” is niet afgerond en kan dus niet worden heropend.", naam=naam),
            "error",
            409,
        )
    lifecycle.move_task(
        carrier_id=current_carrier_id(),
        task_id=task.id,
        to="gestart",
        actor=current_actor(),
        office=True,
    )
    return _message(_("Taak “%(naam)s” is heropend en staat weer op gestart.", naam=naam))


@task_route("/taken/<uuid:task_id>/verwijderen", methods=("GET", "POST"))
def delete(task: Task):
    """Delete a task after a confirmation; one that holds work is archived instead."""
    if request.method == "GET":
        return _confirm(task, "delete")
    naam = task.naam
    outcome = service.delete_task(
        carrier_id=current_carrier_id(), task_id=task.id, actor=current_actor()
    )
    if outcome == "archived":
        return _message(
            _(
                "Taak “%(naam)s” is gearchiveerd, niet verwijderd: er is al werk op "
                "vastgelegd, en dat blijft bewaard.",
                naam=naam,
            )
        )
    return _message(_("Taak “%(naam)s” is verwijderd.", naam=naam))


def _confirm(task: Task, action: str):
    template = "tasks/_confirm.html" if is_fragment() else "tasks/confirm.html"
    can_cancel = "geannuleerd" in lifecycle.allowed_moves(task, office=True)
    return render_template(
        template,
        task=task,
        action=action,
        can_cancel=can_cancel,
        can_reopen=task.status == "afgerond",
        back=_back(),
        when=format_when(task.gepland_op, empty=_("zonder datum")),
    )


@task_route("/taken/<uuid:task_id>/dupliceer", methods=("POST",))
def duplicate(task: Task):
    """Copy a task as a new planned one and open the copy's form."""
    copy = service.duplicate_task(
        carrier_id=current_carrier_id(), task_id=task.id, actor=current_actor()
    )
    flash(_("Kopie gemaakt van “%(naam)s”. Pas aan wat anders is en sla op.", naam=task.naam))
    target = url_for("tasks.edit", task_id=copy.id, terug=_back())
    if is_fragment():
        response = make_response("", 200)
        response.headers["HX-Redirect"] = target
        return response
    return redirect(target, code=303)


# --- create and edit ------------------------------------------------------------------


def _task_form(task: Task | None) -> TaskForm:
    form = TaskForm(request.form if request.method == "POST" else None)
    types = {task.type} if task else set()
    active, _total = questionnaires.list_active(carrier_id=current_carrier_id(), limit=200)
    types |= {revision.activity_type for revision in active}
    form.set_choices(
        drivers=_drivers_for(task),
        vehicles=fleet.list_vehicles(carrier_id=current_carrier_id()),
        types=types,
    )
    return form


def _render_form(form: TaskForm, task: Task | None, status: int = 200, *, notice=None):
    template = "tasks/_form.html" if is_fragment() else "tasks/form.html"
    action = url_for("tasks.edit", task_id=task.id) if task else url_for("tasks.new")
    locked = bool(task and task.status in CLOSED)
    html = render_template(
        template,
        form=form,
        task=task,
        action=action,
        notice=notice,
        back=_safe_back(form.terug.data),
        locked=locked,
        status_labels=STATUS_LABELS,
        task_page_url=task_page_url,
        check_url=_check_url(task),
        **_warning_context([] if locked else _form_warnings(form, task)),
    )
    return make_response(html, status)


def _check_url(task: Task | None) -> str:
    return url_for("tasks.check", task_id=task.id) if task else url_for("tasks.check_new")


def _form_warnings(form: TaskForm, task: Task | None) -> list:
    """The planning warnings of what the form would save, as far as its fields read."""

    def ok(name: str) -> bool:
        return not form[name].errors

    def text(name: str) -> str | None:
        value = form[name].data
        return value.strip() or None if ok(name) and isinstance(value, str) else None

    data = {
        "type": form.type.data if ok("type") and form.type.data else (task.type if task else ""),
        "naam": text("naam") or (task.naam if task else ""),
        "gepland_op": _gepland_op(form) if ok("gepland_datum") and ok("gepland_tijd") else None,
        "duur_min": form.duur_min.data if ok("duur_min") else None,
        "vehicle_id": _parse_uuid(form.vehicle_id.data) if ok("vehicle_id") else None,
        "vdm_nummer": text("vdm_nummer"),
        "land": text("land"),
    }
    chauffeur_id = _parse_uuid(form.chauffeur_id.data) if ok("chauffeur_id") else None
    if data["gepland_op"] is None and not data["vdm_nummer"]:
        return []  # nothing to check yet (a new, empty form): no query
    return service.draft_warnings(
        carrier_id=current_carrier_id(), chauffeur_id=chauffeur_id, data=data, task=task
    )


def _warning_context(warnings: list) -> dict:
    """The warnings with the driver names and plates their texts need."""
    if not warnings:
        return {"warnings": [], "warning_names": {}, "warning_plates": {}}
    driver_ids = {w.params.get("chauffeur_id") for w in warnings} - {None}
    vehicle_ids = {w.params.get("vehicle_id") for w in warnings} - {None}
    return {
        "warnings": warnings,
        "warning_names": drivers_service.names_by_id(
            carrier_id=current_carrier_id(), driver_ids=driver_ids
        ),
        "warning_plates": fleet.plates_by_id(
            carrier_id=current_carrier_id(), vehicle_ids=vehicle_ids
        ),
    }


def _warnings_fragment(form: TaskForm, task: Task | None):
    """The form's warnings region (htmx, while the planner edits)."""
    form.validate()
    html = render_template(
        "tasks/_form_warnings.html", **_warning_context(_form_warnings(form, task))
    )
    return make_response(html)


@bp.route("/taken/nieuw/controle", methods=["POST"])
@role_required("planner")
@portal_write
def check_new():
    """The planning warnings of a new task's form as filled in so far; saves nothing."""
    return _warnings_fragment(_task_form(None), None)


@task_route("/taken/<uuid:task_id>/controle", methods=("POST",))
def check(task: Task):
    """The planning warnings of a task's form as changed so far; saves nothing."""
    return _warnings_fragment(_task_form(task), task)


def _apply_service_errors(form: TaskForm, error: ValidationFailed) -> list[str]:
    """Put the service's {field, message} errors at the form's fields; the rest in a list."""
    general = []
    messages = {
        "chauffeur_id": _("Deze chauffeur bestaat niet (meer)."),
        "vehicle_id": _("Dit voertuig bestaat niet (meer)."),
        "min_fotos": _("Het minimum is groter dan het maximum."),
    }
    for item in error.errors:
        name = item.get("field")
        if name in form and name in messages:
            form[name].errors.append(messages[name])
        else:
            general.append(f"{name}: {item.get('message')}")
    return general


def _after_save(task: Task) -> str:
    """Back to the board the planner came from, else to the task's day."""
    back = _safe_back(request.form.get("terug"))
    if back != url_for("tasks.index"):
        return back
    local = _local(task.gepland_op)
    return url_for("tasks.index", datum=local.date().isoformat()) if local else back


def _saved(task: Task, text: str):
    flash(text)
    # Saved, and still worth a second look: the warnings come along to the board.
    context = _warning_context(
        service.planning_warnings(carrier_id=current_carrier_id(), tasks=[task]).get(task.id, [])
    )
    wording = get_template_attribute("tasks/_warnings.html", "warning_text")
    for warning in context["warnings"]:
        # The macro answers Markup (autoescaped); the flash wants the plain sentence.
        line = wording(warning, context["warning_names"], context["warning_plates"])
        flash(_("Let op: %(warning)s", warning=line.striptags()), "warning")
    target = _after_save(task)
    if is_fragment():
        response = make_response("", 200)
        response.headers["HX-Redirect"] = target
        return response
    return redirect(target, code=303)


def _gepland_op(form: TaskForm) -> datetime | None:
    if form.gepland_datum.data is None or form.gepland_tijd.data is None:
        return None
    return _instant(form.gepland_datum.data, form.gepland_tijd.data)


@bp.route("/taken/nieuw", methods=["GET", "POST"])
@role_required("planner")
@portal_write
def new():
    """A new task: the form, prefilled with the board's day and driver."""
    form = _task_form(None)
    if request.method == "GET":
        try:
            form.gepland_datum.data = date.fromisoformat(request.args.get("datum", ""))
        except ValueError:
            form.gepland_datum.data = datetime.now(current_zone()).date()
        chauffeur = request.args.get("chauffeur", "")
        if chauffeur in {value for value, *_rest in form.chauffeur_id.iter_choices()}:
            form.chauffeur_id.data = chauffeur
        form.land.data = "NL"
        form.terug.data = _safe_back(request.args.get("terug"))
        return _render_form(form, None)
    if not form.validate():
        return _render_form(form, None, 422)
    data = form.task_data()
    data["gepland_op"] = _gepland_op(form)
    try:
        task = service.create_task(
            carrier_id=current_carrier_id(),
            chauffeur_id=_parse_uuid(form.chauffeur_id.data),
            data=data,
            actor=current_actor(),
        )
    except ValidationFailed as error:
        general = _apply_service_errors(form, error)
        return _render_form(form, None, 422, notice={"errors": general})
    return _saved(task, _("Taak “%(naam)s” is aangemaakt.", naam=task.naam))


@task_route("/taken/<uuid:task_id>/bewerken", methods=("GET", "POST"))
def edit(task: Task):
    """Edit every field of a task; the version it started from guards against overwrites."""
    form = _task_form(task)
    if request.method == "GET":
        local = _local(task.gepland_op)
        for name in (*TaskForm.TEXT_FIELDS, *TaskForm.NUMBER_FIELDS, *TaskForm.FLAG_FIELDS):
            form[name].data = getattr(task, name)
        form.type.data = task.type
        form.chauffeur_id.data = str(task.chauffeur_id) if task.chauffeur_id else ""
        form.vehicle_id.data = str(task.vehicle_id) if task.vehicle_id else ""
        form.gepland_datum.data = local.date() if local else None
        form.gepland_tijd.data = local.time() if local else None
        form.versie.data = task.versie
        form.terug.data = _back()
        return _render_form(form, task)
    if not form.validate():
        return _render_form(form, task, 422)
    data = form.task_data()
    data["gepland_op"] = _gepland_op(form)
    data["chauffeur_id"] = _parse_uuid(form.chauffeur_id.data)
    if form.versie.data is None:
        form.versie.errors = [_("Laad het formulier opnieuw.")]
        return _render_form(form, task, 422)
    try:
        saved = service.update_task(
            carrier_id=current_carrier_id(),
            task_id=task.id,
            data=data,
            actor=current_actor(),
            expected_version=form.versie.data,
        )
    except service.PreconditionFailed:
        # Keep the planner's input; saving again knowingly overwrites the other change.
        current = _load(task.id)
        form.versie.data = current.versie
        form.versie.raw_data = [str(current.versie)]
        return _render_form(form, current, 412, notice={"conflict": True})
    except Conflict:
        return _render_form(form, _load(task.id), 409, notice={"closed": True})
    except ValidationFailed as error:
        general = _apply_service_errors(form, error)
        return _render_form(form, _load(task.id), 422, notice={"errors": general})
    return _saved(saved, _("Taak “%(naam)s” is opgeslagen.", naam=saved.naam))
