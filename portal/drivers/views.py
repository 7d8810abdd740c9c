"""Drivers in the portal: the list, the driver form, the driver page with its access
actions (pairing a phone by QR code, a new user_token, signing a phone out, deactivating),
the map of last known positions and a driver's track of a day.

Every route loads, checks and acts through the drivers service, then commits once. Pages
work without JavaScript; htmx narrows the list and refreshes the map's positions.
"""

from __future__ import annotations

import itertools
import math
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import partial
from urllib.parse import quote, urlencode

import orjson
import segno
from flask import (
    Blueprint,
    current_app,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import format_datetime, format_decimal, format_timedelta
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.accounts import tokens
from portal.accounts.permissions import object_route, role_required
from portal.audit.service import ACTOR_LABELS
from portal.drivers import locations, service
from portal.drivers.forms import LANGUAGE_LABELS, DriverForm, DriverSearchForm, TrackForm
from portal.drivers.models import Driver, DriverLocation
from portal.errors import ValidationFailed
from portal.messages import service as messages
from portal.tacho import driving, wording
from portal.types import iso, utcnow
from portal.unit_of_work import portal_write
from portal.web import errors_at_fields, is_fragment
from portal.web.kit import (
    Pager,
    current_actor,
    current_carrier_id,
    current_zone,
    format_when,
)

bp = Blueprint("drivers", __name__)

PER_PAGE = 50  # drivers per page of the list
MAP_LIMIT = 1000  # drivers on the map; a carrier with more filters the list instead
TRACK_LIMIT = 10_000  # points of one day's track (a point every 10 s is 8,640 a day)
TRACK_PER_PAGE = 100  # rows of the track's table per page
STALE_AFTER = timedelta(minutes=30)  # a position older than this is shown as stale
PAIRING_SCHEME = "rijplan://activate"

ACTION_LABELS = {
    "created": _l("Aangemaakt"),
    "updated": _l("Gewijzigd"),
    "deactivated": _l("Gedeactiveerd"),
    "reactivated": _l("Weer actief gemaakt"),
    "pairing_code": _l("Koppelcode gemaakt"),
    "user_token_rotated": _l("user_token vernieuwd"),
    "signed_out": _l("Telefoon afgemeld"),
}
FIELD_LABELS = {
    "naam": _l("Naam"),
    "email": _l("E-mailadres"),
    "telefoon": _l("Telefoon"),
    "taal": _l("Taal"),
    "actief": _l("Actief"),
    "geldig_tot": _l("Geldig tot"),
}


# --- helpers --------------------------------------------------------------------------


def driver_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one driver (another carrier's id: 404 whatever the method)."""

    def load(driver_id: uuid.UUID):
        return service.get_driver(carrier_id=current_carrier_id(), driver_id=driver_id)

    return object_route(bp, rule, load, methods=methods)


def age(moment: datetime | None, now: datetime) -> str:
    """How long ago, as people say it: "5 minuten geleden"."""
    if moment is None:
        return ""
    delta = min(moment - now, timedelta(0))
    if delta > -timedelta(minutes=1):
        return _("zojuist")
    return format_timedelta(delta, granularity="minute", add_direction=True)


def _metres(value: float | None) -> str:
    return f"± {format_decimal(round(value))} m" if value is not None else ""


def _kmh(value: float | None) -> str:
    return f"{format_decimal(round(value * 3.6))} km/u" if value is not None else ""


# --- the list -------------------------------------------------------------------------


@bp.get("/chauffeurs")
@role_required("planner")
def index():
    """The carrier's drivers by name: search by name, email or phone, active or not."""
    form = DriverSearchForm(request.args)
    valid = form.validate()
    status = form.status.data if valid and form.status.data else "actief"
    q = (form.q.data or "").strip() if valid else ""
    pager = Pager.asked(PER_PAGE)
    actief = {"actief": True, "inactief": False}.get(status)
    drivers, total = service.search_drivers(
        carrier_id=current_carrier_id(),
        filters=service.DriverFilters(
            q=q or None, actief=actief, limit=PER_PAGE, offset=pager.offset
        ),
    )
    pager = pager.counted(total)
    args = {k: v for k, v in (("q", q), ("status", status)) if v and (k, v) != ("status", "actief")}
    context = {
        "form": form,
        "drivers": drivers,
        "total": total,
        "pager": pager,
        "args": args,
        "q": q,
        "status": status,
        "filtered": bool(args),
        "now": utcnow(),
        "age": age,
        "when": partial(format_when, kind="recent"),
        "stale_after": STALE_AFTER,
        "language_labels": LANGUAGE_LABELS,
        "list_url": pager.url("drivers.index", **args),
    }
    template = "drivers/_results.html" if is_fragment() else "drivers/index.html"
    response = make_response(render_template(template, **context), 200 if valid else 422)
    if is_fragment():
        response.headers["HX-Push-Url"] = context["list_url"]
    return response


# --- create and edit ------------------------------------------------------------------

SERVICE_MESSAGES = {
    ("email", "already in use"): _l("Dit e-mailadres is al in gebruik bij een andere chauffeur."),
    ("email", "not an email address"): _l("Vul een geldig e-mailadres in."),
    ("naam", "required"): _l("Vul de naam in."),
}


def _apply_errors(form: DriverForm, error: ValidationFailed) -> list[str]:
    return errors_at_fields(form, error.errors, SERVICE_MESSAGES)


def _valid(form: DriverForm, driver_id: uuid.UUID | None) -> bool:
    """The form's own checks, and the email's uniqueness, so every error shows at once."""
    valid = form.validate()
    if not form.email.errors and service.email_in_use(
        carrier_id=current_carrier_id(), email=form.email.data, driver_id=driver_id
    ):
        form.email.errors = [*form.email.errors, str(SERVICE_MESSAGES[("email", "already in use")])]
        valid = False
    return valid


def _render_form(form: DriverForm, driver: Driver | None, status: int = 200, general=()):
    action = url_for("drivers.edit", driver_id=driver.id) if driver else url_for("drivers.new")
    html = render_template(
        "drivers/form.html", form=form, driver=driver, action=action, general=list(general)
    )
    return make_response(html, status)


@bp.route("/chauffeurs/nieuw", methods=["GET", "POST"])
@role_required("planner")
@portal_write
def new():
    """Add a driver; then the driver's page offers to pair the phone."""
    form = DriverForm()
    if request.method == "GET":
        return _render_form(form, None)
    if not _valid(form, None):
        return _render_form(form, None, 422)
    try:
        driver = service.create_driver(
            carrier_id=current_carrier_id(),
            naam=form.naam.data,
            email=form.email.data,
            telefoon=form.telefoon.data,
            taal=form.taal.data,
            actor=current_actor(),
        )
    except ValidationFailed as error:
        general = _apply_errors(form, error)
        return _render_form(form, None, 422, general)
    driver_id, naam = driver.id, driver.naam
    flash(_("Chauffeur “%(naam)s” is toegevoegd. Koppel nu de telefoon.", naam=naam))
    return redirect(url_for("drivers.show", driver_id=driver_id), code=303)


@driver_route("/chauffeurs/<uuid:driver_id>/bewerken", methods=("GET", "POST"))
def edit(driver: Driver):
    """Change a driver's name, email, phone number and app language."""
    form = DriverForm(obj=driver if request.method == "GET" else None)
    if request.method == "GET":
        form.taal.data = driver.taal or "nl"
        return _render_form(form, driver)
    driver_id = driver.id
    if not _valid(form, driver_id):
        return _render_form(form, driver, 422)
    try:
        saved = service.update_driver(
            carrier_id=current_carrier_id(),
            driver_id=driver_id,
            naam=form.naam.data,
            email=form.email.data,
            telefoon=form.telefoon.data,
            taal=form.taal.data,
            actor=current_actor(),
        )
    except ValidationFailed as error:
        general = _apply_errors(form, error)
        driver = service.get_driver(carrier_id=current_carrier_id(), driver_id=driver_id)
        return _render_form(form, driver, 422, general)
    naam = saved.naam
    flash(_("Chauffeur “%(naam)s” is opgeslagen.", naam=naam))
    return redirect(url_for("drivers.show", driver_id=driver_id), code=303)


# --- the driver's page ----------------------------------------------------------------


@dataclass
class HistoryItem:
    at: datetime
    who: str
    via: str
    what: str
    changes: list[tuple[str, str, str]]


def _value(name: str, value) -> str:
    if value is None or value == "":
        return "—"
    if name == "taal":
        return str(LANGUAGE_LABELS.get(value, value))
    if name == "actief":
        return _("ja") if value else _("nee")
    if name == "geldig_tot":
        try:
            return format_datetime(datetime.fromisoformat(str(value)), "d MMM yyyy HH:mm")
        except ValueError:
            return str(value)
    return str(value)


def _history(driver: Driver) -> list[HistoryItem]:
    items = []
    for entry in reversed(service.history(carrier_id=current_carrier_id(), driver_id=driver.id)):
        try:
            changes = orjson.loads(entry.changes or "{}")
        except orjson.JSONDecodeError:
            changes = {}
        rows = []
        if entry.action not in ("created", "deactivated", "reactivated"):
            for name, pair in changes.items():
                old, new = [*pair, None, None][:2] if isinstance(pair, list) else (None, pair)
                label = str(FIELD_LABELS.get(name, name))
                rows.append((label, _value(name, old), _value(name, new)))
        items.append(
            HistoryItem(
                at=entry.at,
                who=entry.actor_label,
                via=str(ACTOR_LABELS.get(entry.actor_type, entry.actor_type)),
                what=str(ACTION_LABELS.get(entry.action, entry.action)),
                changes=rows,
            )
        )
    return items


@driver_route("/chauffeurs/<uuid:driver_id>")
def show(driver: Driver):
    """A driver: details, last position, access actions and history."""
    today = datetime.now(current_zone()).date()
    return render_template(
        "drivers/show.html",
        driver=driver,
        history=_history(driver),
        now=utcnow(),
        age=age,
        when=partial(format_when, kind="recent"),
        metres=_metres,
        kmh=_kmh,
        stale_after=STALE_AFTER,
        language_labels=LANGUAGE_LABELS,
        today=today,
        rijtijden=driving.budget_of(carrier_id=current_carrier_id(), chauffeur_id=driver.id),
        wording=wording,
    )


# --- access actions -------------------------------------------------------------------

CONFIRMATIONS = {
    "deactivate": {
        "title": _l("Chauffeur “%(naam)s” deactiveren?"),
        "text": _l(
            "De chauffeur kan daarna niet meer inloggen en de app op de telefoon wordt "
            "direct afgemeld. Taken, uren en gereden routes blijven bewaard. Je kunt de "
            "chauffeur later weer actief maken."
        ),
        "button": _l("Ja, deactiveer"),
        "danger": True,
    },
    "rotate": {
        "title": _l("Nieuwe user_token voor “%(naam)s”?"),
        "text": _l(
            "Adressen met de oude user_token werken daarna niet meer (404). De app krijgt "
            "de nieuwe bij de volgende keer dat hij zijn sleutel vernieuwt; koppelingen met "
            "eigen systemen moeten de nieuwe gebruiken."
        ),
        "button": _l("Ja, vernieuw de user_token"),
        "danger": True,
    },
    "sign_out": {
        "title": _l("Telefoon van “%(naam)s” afmelden?"),
        "text": _l(
            "Voor een verloren of gestolen telefoon: de app op die telefoon wordt direct "
            "afgemeld en kan niets meer ophalen of versturen. De chauffeur blijft actief; "
            "koppel daarna een nieuwe telefoon met een koppelcode."
        ),
        "button": _l("Ja, meld de telefoon af"),
        "danger": True,
    },
}


def _confirm(driver: Driver, kind: str, endpoint: str):
    spec = CONFIRMATIONS[kind]
    return render_template(
        "drivers/confirm.html",
        driver=driver,
        title=str(spec["title"]) % {"naam": driver.naam},
        text=spec["text"],
        button=spec["button"],
        danger=spec["danger"],
        action=url_for(endpoint, driver_id=driver.id),
    )


def _done(driver_id: uuid.UUID, text: str):
    flash(text)
    return redirect(url_for("drivers.show", driver_id=driver_id), code=303)


@driver_route("/chauffeurs/<uuid:driver_id>/deactiveren", methods=("GET", "POST"))
def deactivate(driver: Driver):
    """Deactivate a driver who left, after confirmation."""
    if request.method == "GET":
        return _confirm(driver, "deactivate", "drivers.deactivate")
    driver_id, naam = driver.id, driver.naam
    service.deactivate_driver(
        carrier_id=current_carrier_id(), driver_id=driver_id, actor=current_actor()
    )
    return _done(driver_id, _("Chauffeur “%(naam)s” is gedeactiveerd en afgemeld.", naam=naam))


@driver_route("/chauffeurs/<uuid:driver_id>/activeren", methods=("POST",))
def reactivate(driver: Driver):
    """Make a deactivated driver active again."""
    driver_id, naam = driver.id, driver.naam
    service.reactivate_driver(
        carrier_id=current_carrier_id(), driver_id=driver_id, actor=current_actor()
    )
    return _done(
        driver_id,
        _("Chauffeur “%(naam)s” is weer actief. Koppel de telefoon opnieuw.", naam=naam),
    )


@driver_route("/chauffeurs/<uuid:driver_id>/user-token", methods=("GET", "POST"))
def rotate_token(driver: Driver):
    """Give a driver a new user_token, after confirmation."""
    if request.method == "GET":
        return _confirm(driver, "rotate", "drivers.rotate_token")
    driver_id, naam = driver.id, driver.naam
    service.rotate_user_token(
        carrier_id=current_carrier_id(), driver_id=driver_id, actor=current_actor()
    )
    return _done(driver_id, _("“%(naam)s” heeft een nieuwe user_token.", naam=naam))


@driver_route("/chauffeurs/<uuid:driver_id>/afmelden", methods=("GET", "POST"))
def sign_out(driver: Driver):
    """Sign a driver's phone out (revoke its tokens), after confirmation."""
    if request.method == "GET":
        return _confirm(driver, "sign_out", "drivers.sign_out")
    driver_id, naam = driver.id, driver.naam
    tokens.sign_out_phone(
        carrier_id=current_carrier_id(), driver_id=driver_id, actor=current_actor()
    )
    messages.unsubscribe(carrier_id=current_carrier_id(), chauffeur_id=driver_id)  # a lost phone
    return _done(driver_id, _("De telefoon van “%(naam)s” is afgemeld.", naam=naam))


# --- pairing --------------------------------------------------------------------------


def api_base_url() -> str:
    """The API's address as the phone reaches it: this portal's own, plus /api/v1."""
    return request.url_root.rstrip("/") + "/api/v1"


def pairing_payload(code: str, server: str) -> str:
    """What the pairing QR code holds: the code and the API address, as an app link."""
    return f"{PAIRING_SCHEME}?{urlencode({'code': code, 'server': server}, quote_via=quote)}"


def qr_svg(payload: str, title: str) -> str:
    """The QR code as inline SVG markup (no style attributes: the CSP holds)."""
    qr = segno.make(payload, error="m")
    return qr.svg_inline(
        scale=1, border=4, dark="#000", light="#fff", svgclass="qr-code", omitsize=True, title=title
    )


def _grouped(code: str) -> str:
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}"


@driver_route("/chauffeurs/<uuid:driver_id>/koppelen", methods=("GET", "POST"))
def pair(driver: Driver):
    """Pair a phone: a one-time code, shown once as QR code and text; earlier codes lapse."""
    if request.method == "GET" or not driver.actief:
        status = 200 if request.method == "GET" else 409
        return make_response(render_template("drivers/pair.html", driver=driver), status)
    driver_id = driver.id
    try:
        driver, code, expires_at = tokens.create_pairing_code(
            carrier_id=current_carrier_id(), driver_id=driver_id, actor=current_actor()
        )
    except ValidationFailed:
        driver = service.get_driver(carrier_id=current_carrier_id(), driver_id=driver_id)
        return make_response(render_template("drivers/pair.html", driver=driver), 409)
    naam = driver.naam
    server = api_base_url()
    payload = pairing_payload(code, server)
    ttl = current_app.config["ACTIVATION_CODE_TTL"]
    context = {
        "driver": driver,
        "code": code,
        "code_grouped": _grouped(code),
        "expires_at": expires_at,
        "expires_text": format_datetime(expires_at, "HH:mm"),
        "ttl_minutes": int(ttl.total_seconds() // 60),
        "server": server,
        "payload": payload,
        "qr": qr_svg(payload, _("Koppelcode voor %(naam)s", naam=naam)),
    }
    return render_template("drivers/pair.html", **context)


# --- the map --------------------------------------------------------------------------


def _marker(driver: Driver, now: datetime) -> dict:
    return {
        "id": str(driver.id),
        "naam": driver.naam,
        "lat": driver.last_lat,
        "lng": driver.last_lng,
        "recorded_at": iso(driver.last_recorded_at),
        "tijd": format_when(driver.last_recorded_at, kind="recent"),
        "leeftijd": age(driver.last_recorded_at, now),
        "nauwkeurigheid": driver.last_accuracy,
        "oud": now - driver.last_recorded_at > STALE_AFTER,
        "url": url_for("drivers.track", driver_id=driver.id),
    }


def map_settings() -> dict:
    return {
        "tile_url": current_app.config.get("MAP_TILE_URL") or "",
        "attribution": current_app.config.get("MAP_TILE_ATTRIBUTION") or "",
    }


@bp.get("/chauffeurs/kaart")
@role_required("planner")
def positions():
    """Where the active drivers are: a map of last known positions and the same in a table."""
    now = utcnow()
    drivers, total = service.search_drivers(
        carrier_id=current_carrier_id(), filters=service.DriverFilters(actief=True, limit=MAP_LIMIT)
    )
    located = [d for d in drivers if d.last_recorded_at is not None]
    located.sort(key=lambda d: d.last_recorded_at, reverse=True)
    context = {
        "drivers": drivers,
        "total": total,
        "located": located,
        "unlocated": [d for d in drivers if d.last_recorded_at is None],
        "markers": [_marker(d, now) for d in located],
        "now": now,
        "age": age,
        "when": partial(format_when, kind="recent"),
        "metres": _metres,
        "kmh": _kmh,
        "stale_after": STALE_AFTER,
        "map": map_settings(),
        "limit": MAP_LIMIT,
    }
    template = "drivers/_positions.html" if is_fragment() else "drivers/map.html"
    return render_template(template, **context)


# --- a day's track --------------------------------------------------------------------


def _distance_km(points: list[DriverLocation]) -> float:
    """The length of the track along its points (great-circle), in kilometres."""
    total = 0.0
    for a, b in itertools.pairwise(points):
        lat1, lng1, lat2, lng2 = map(math.radians, (a.lat, a.lng, b.lat, b.lng))
        h = (
            math.sin((lat2 - lat1) / 2) ** 2
            + math.cos(lat1) * math.cos(lat2) * math.sin((lng2 - lng1) / 2) ** 2
        )
        total += 2 * 6371.0088 * math.asin(min(1.0, math.sqrt(h)))
    return total


@driver_route("/chauffeurs/<uuid:driver_id>/rit")
def track(driver: Driver):
    """A driver's track of one day (carrier's time zone): a line on the map and a table."""
    zone = current_zone()
    today = datetime.now(zone).date()
    form = TrackForm(request.args)
    valid = form.validate()
    day: date = (form.datum.data if valid else None) or today
    if not valid or form.datum.data is None:
        form.datum.data = day
    start = datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)
    end = datetime.combine(day + timedelta(days=1), time(0), tzinfo=zone).astimezone(UTC)
    points = locations.track(
        carrier_id=current_carrier_id(),
        driver_id=driver.id,
        van=start,
        tot=end,
        limit=TRACK_LIMIT + 1,
    )
    truncated = len(points) > TRACK_LIMIT
    points = points[:TRACK_LIMIT]
    pager, shown = Pager.asked(TRACK_PER_PAGE).of(points)
    day_args = {} if day == today else {"datum": day.isoformat()}
    context = {
        "driver": driver,
        "form": form,
        "day": day,
        "today": today,
        "points": points,
        "shown": shown,
        "first_index": pager.offset,
        "pager": pager,
        "truncated": truncated,
        "limit": TRACK_LIMIT,
        "line": [[round(p.lat, 6), round(p.lng, 6)] for p in points],
        "distance": _distance_km(points),
        "day_args": day_args,
        "prev_day": (day - timedelta(days=1)).isoformat(),
        "next_day": (day + timedelta(days=1)).isoformat() if day < today else None,
        "metres": _metres,
        "kmh": _kmh,
        "map": map_settings(),
    }
    return make_response(render_template("drivers/track.html", **context), 200 if valid else 422)
