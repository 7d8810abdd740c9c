"""The planners' vehicle pages: the list, create and edit, a vehicle's page with its sessions,
deactivation and QR rotation after a confirmation, the printable QR stickers, and who drives
what right now (with the history per vehicle and per driver).

Every page works without JavaScript; the list's filters refresh the table through htmx.
Each request loads, checks and acts through the fleet services, then commits once.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from functools import partial
from urllib.parse import urlsplit

import orjson
from flask import (
    Blueprint,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import format_datetime
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.accounts.permissions import object_route, role_required
from portal.accounts.service import carrier_zone, current_carrier_of
from portal.drivers import service as drivers
from portal.errors import ValidationFailed
from portal.fleet import qr, service, sessions
from portal.fleet.forms import (
    EENHEID_LABELS,
    EENHEID_SHORT,
    END_REASONS,
    SESSION_STATUS_LABELS,
    SOORT_LABELS,
    ConfirmForm,
    SessionFilterForm,
    VehicleFilterForm,
    VehicleForm,
)
from portal.fleet.models import Vehicle, VehicleSession
from portal.types import utcnow
from portal.unit_of_work import portal_write, refused
from portal.web import is_fragment
from portal.web.kit import Pager, current_actor, current_carrier_id, format_when

bp = Blueprint("fleet", __name__)

PAGE_SIZE = 50  # vehicles per page of the list
SESSION_PAGE_SIZE = 50  # sessions per page of a history
STICKER_LIMIT = 1000  # the most stickers one sheet prints

FIELD_LABELS = {
    "kenteken": _l("Kenteken"),
    "soort": _l("Soort"),
    "omschrijving": _l("Omschrijving"),
    "capaciteit": _l("Capaciteit"),
    "capaciteit_eenheid": _l("Eenheid"),
    "kooiaap": _l("Kooiaap"),
    "opmerkingen": _l("Opmerkingen"),
    "actief": _l("Actief"),
    "qr_versie": _l("QR-sticker"),
}
ACTION_LABELS = {
    "created": _l("Aangemaakt"),
    "updated": _l("Gewijzigd"),
    "qr_rotated": _l("Nieuwe QR-sticker"),
}


# --- helpers --------------------------------------------------------------------------


def driver_page_url(driver_id: uuid.UUID) -> str:
    return url_for("drivers.show", driver_id=driver_id)


def _safe_back(target: str | None, fallback: str) -> str:
    """Where to return after a write: a path of the vehicle pages only (no open redirect)."""
    if target and target.isprintable() and "\\" not in target and " " not in target:
        parts = urlsplit(target)
        if not parts.scheme and not parts.netloc and parts.path.startswith("/voertuigen"):
            return target
    return fallback


def _duration(start: datetime | None, end: datetime | None) -> str:
    """How long a session ran (or runs): '2 u 15 min', '40 min'."""
    if start is None:
        return "—"
    minutes = max(0, int(((end or utcnow()) - start).total_seconds() // 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    if days:
        return _("%(d)s d %(h)s u", d=days, h=hours)
    if hours:
        return _("%(h)s u %(m)s min", h=hours, m=minutes)
    return _("%(m)s min", m=minutes)


def _capacity(vehicle: Vehicle) -> str:
    if vehicle.capaciteit is None:
        return ""
    number = f"{vehicle.capaciteit:g}".replace(".", ",")
    return f"{number} {EENHEID_SHORT.get(vehicle.capaciteit_eenheid, vehicle.capaciteit_eenheid)}"


def _session_status(session: VehicleSession) -> str:
    return "expired" if sessions.is_expired(session) else session.status


def _helpers() -> dict:
    """What the templates use to show vehicles and sessions."""
    return {
        "soort_labels": SOORT_LABELS,
        "eenheid_labels": EENHEID_LABELS,
        "status_labels": SESSION_STATUS_LABELS,
        "end_reasons": END_REASONS,
        "when": partial(format_when, empty="—"),
        "duration": _duration,
        "capacity": _capacity,
        "session_status": _session_status,
        "driver_page_url": driver_page_url,
        "since": since,
    }


def vehicle_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one vehicle (another carrier's id: 404 whatever the method)."""

    def load(vehicle_id: uuid.UUID):
        return service.get_vehicle(carrier_id=current_carrier_id(), vehicle_id=vehicle_id)

    return object_route(bp, rule, load, methods=methods)


def _done(vehicle_id: uuid.UUID, text: str, category: str = "info"):
    flash(text, category)
    return redirect(url_for("fleet.show", vehicle_id=vehicle_id), code=303)


def _changed(vehicle_id: uuid.UUID):
    """Someone saved the vehicle at the same moment: nothing happened, try again."""
    return refused(
        _done(
            vehicle_id,
            _("Dit voertuig is intussen gewijzigd. Bekijk het en probeer het opnieuw."),
            "error",
        )
    )


# --- the list -------------------------------------------------------------------------


@bp.route("/voertuigen")
@role_required("planner")
def index():
    """The carrier's vehicles by licence plate: search, status and kind, paged, with who
    drives each one right now."""
    carrier_id = current_carrier_id()
    form = VehicleFilterForm(request.args)
    form.validate()
    status, soort = form.clean("status"), form.clean("soort")
    search = (form.clean("q") or "").strip()
    pager = Pager.asked(PAGE_SIZE)
    result = service.find_vehicles(
        carrier_id=carrier_id,
        filters=service.VehicleFilters(
            search=search or None,
            actief={"actief": True, "inactief": False}.get(status),
            soort=soort or None,
            limit=PAGE_SIZE,
            offset=pager.offset,
        ),
    )
    pager = pager.counted(result.total)
    active = sessions.active_by_vehicle(
        carrier_id=carrier_id, vehicle_ids={v.id for v in result.vehicles}
    )
    names = drivers.names_by_id(
        carrier_id=carrier_id, driver_ids={s.chauffeur_id for s in active.values()}
    )
    args = {
        k: v
        for k, v in (
            ("q", search),
            ("status", status if status != "actief" else ""),
            ("soort", soort),
        )
        if v
    }
    links = {
        "stickers": url_for("fleet.stickers", **args),
        "clear": url_for("fleet.index"),
    }
    context = {
        "form": form,
        "vehicles": result.vehicles,
        "total": result.total,
        "pager": pager,
        "page_args": args,
        "active": active,
        "names": names,
        "links": links,
        "filtered": bool(args),
        "list_url": pager.url("fleet.index", **args),
        **_helpers(),
    }
    if is_fragment():
        response = make_response(render_template("fleet/_list.html", **context))
        response.headers["HX-Push-Url"] = context["list_url"]
        return response
    return render_template("fleet/index.html", **context)


# --- create and edit ------------------------------------------------------------------

DUPLICATE_ACTIVE = _l("Er is al een voertuig met kenteken %(plate)s.")
DUPLICATE_INACTIVE = _l(
    "Er is al een gedeactiveerd voertuig met kenteken %(plate)s: maak dat weer actief in "
    "plaats van een nieuw aan te maken."
)


def _apply_errors(form: VehicleForm, error: ValidationFailed) -> list[str]:
    """Put the service's {field, message} errors at the form's fields; the rest in a list."""
    general = []
    for item in error.errors:
        name = item.get("field")
        if name == "kenteken" and item.get("message") == service.DUPLICATE:
            plate = form.kenteken.data
            existing = service.find_vehicles(
                carrier_id=current_carrier_id(),
                filters=service.VehicleFilters(kenteken=plate, limit=1),
            ).vehicles
            painted = existing[0].kenteken if existing else plate
            inactive = bool(existing) and not existing[0].actief
            text = DUPLICATE_INACTIVE if inactive else DUPLICATE_ACTIVE
            form.kenteken.errors = [*form.kenteken.errors, str(text) % {"plate": painted}]
        elif name in form:
            form[name].errors = [*form[name].errors, _("Controleer dit veld.")]
        else:
            general.append(f"{name}: {item.get('message')}")
    return general


def _render_form(form: VehicleForm, vehicle: Vehicle | None, status: int = 200, **notice):
    action = url_for("fleet.edit", vehicle_id=vehicle.id) if vehicle else url_for("fleet.new")
    back = url_for("fleet.show", vehicle_id=vehicle.id) if vehicle else url_for("fleet.index")
    html = render_template(
        "fleet/form.html", form=form, vehicle=vehicle, action=action, back=back, notice=notice
    )
    return make_response(html, status)


@bp.route("/voertuigen/nieuw", methods=["GET", "POST"])
@role_required("planner")
@portal_write
def new():
    """A new vehicle."""
    form = VehicleForm(request.form if request.method == "POST" else None)
    if request.method == "GET":
        return _render_form(form, None)
    if not form.validate():
        return _render_form(form, None, 422)
    try:
        vehicle = service.create_vehicle(
            carrier_id=current_carrier_id(), actor=current_actor(), **form.vehicle_data()
        )
    except ValidationFailed as error:
        general = _apply_errors(form, error)
        return _render_form(form, None, 422, errors=general)
    vehicle_id, plate = vehicle.id, vehicle.kenteken
    return _done(
        vehicle_id,
        _(
            "Voertuig %(plate)s is toegevoegd. Druk de QR-sticker af voor in de cabine.",
            plate=plate,
        ),
    )


@vehicle_route("/voertuigen/<uuid:vehicle_id>/bewerken", methods=("GET", "POST"))
def edit(vehicle: Vehicle):
    """Edit a vehicle; the version it started from guards against overwriting a change."""
    form = VehicleForm(request.form if request.method == "POST" else None)
    if request.method == "GET":
        for name in ("kenteken", "soort", "omschrijving", "capaciteit", "kooiaap", "opmerkingen"):
            form[name].data = getattr(vehicle, name)
        form.capaciteit_eenheid.data = vehicle.capaciteit_eenheid or ""
        form.versie.data = str(vehicle.versie)
        return _render_form(form, vehicle)
    if not form.validate():
        return _render_form(form, vehicle, 422)
    try:
        expected = int(form.versie.data)
    except (TypeError, ValueError):
        expected = None
    try:
        saved = service.update_vehicle(
            carrier_id=current_carrier_id(),
            vehicle_id=vehicle.id,
            data=form.vehicle_data(),
            actor=current_actor(),
            expected_version=expected,
        )
    except service.PreconditionFailed:
        current = service.get_vehicle(carrier_id=current_carrier_id(), vehicle_id=vehicle.id)
        form.versie.data = str(current.versie)
        form.versie.raw_data = [str(current.versie)]
        return _render_form(form, current, 412, conflict=True)
    except ValidationFailed as error:
        general = _apply_errors(form, error)
        current = service.get_vehicle(carrier_id=current_carrier_id(), vehicle_id=vehicle.id)
        return _render_form(form, current, 422, errors=general)
    vehicle_id, plate = saved.id, saved.kenteken
    return _done(vehicle_id, _("Voertuig %(plate)s is opgeslagen.", plate=plate))


# --- one vehicle ----------------------------------------------------------------------


def _audit_rows(vehicle: Vehicle) -> list[dict]:
    """The vehicle's changes as people read them, newest first."""
    rows = []
    for entry in reversed(service.history(carrier_id=current_carrier_id(), vehicle_id=vehicle.id)):
        changes = []
        for name, pair in orjson.loads(entry.changes or "{}").items():
            old, new = [*pair, None, None][:2] if isinstance(pair, list) else (None, pair)
            changes.append(
                {
                    "label": str(FIELD_LABELS.get(name, name)),
                    "old": _value(name, old),
                    "new": _value(name, new),
                }
            )
        rows.append(
            {
                "at": entry.at,
                "who": _("systeem") if entry.actor_type == "system" else entry.actor_label,
                "what": str(ACTION_LABELS.get(entry.action, entry.action)),
                "changes": changes,
            }
        )
    return rows


def _value(name: str, value) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return _("ja") if value else _("nee")
    if name == "soort":
        return str(SOORT_LABELS.get(value, value))
    if name == "capaciteit_eenheid":
        return str(EENHEID_LABELS.get(value, value))
    if name == "qr_versie":
        return _("versie %(n)s", n=value)
    if isinstance(value, float):
        return f"{value:g}".replace(".", ",")
    return str(value)


@vehicle_route("/voertuigen/<uuid:vehicle_id>")
def show(vehicle: Vehicle):
    """A vehicle: its details, who drives it now, its sessions (paged) and its changes."""
    carrier_id = current_carrier_id()
    pager = Pager.asked(SESSION_PAGE_SIZE)
    current = sessions.active_by_vehicle(carrier_id=carrier_id, vehicle_ids={vehicle.id}).get(
        vehicle.id
    )
    history = sessions.list_sessions(
        carrier_id=carrier_id,
        filters=sessions.SessionFilters(
            vehicle_id=vehicle.id,
            limit=SESSION_PAGE_SIZE,
            offset=pager.offset,
        ),
    )
    pager = pager.counted(history.total)
    names = drivers.names_by_id(
        carrier_id=carrier_id,
        driver_ids={s.chauffeur_id for s in history.sessions}
        | ({current.chauffeur_id} if current else set()),
    )
    here = url_for("fleet.show", vehicle_id=vehicle.id)
    return render_template(
        "fleet/show.html",
        vehicle=vehicle,
        current=current,
        history=history.sessions,
        total=history.total,
        names=names,
        plates={vehicle.id: vehicle.kenteken},
        pager=pager,
        changes=_audit_rows(vehicle),
        back=here,
        **_helpers(),
    )


# --- deactivate, activate, rotate the QR ----------------------------------------------


def _confirm(vehicle: Vehicle, kind: str, status: int = 200):
    current = sessions.active_by_vehicle(
        carrier_id=current_carrier_id(), vehicle_ids={vehicle.id}
    ).get(vehicle.id)
    driver = (
        drivers.names_by_id(carrier_id=current_carrier_id(), driver_ids={current.chauffeur_id}).get(
            current.chauffeur_id
        )
        if current
        else None
    )
    endpoint = {"deactivate": "fleet.deactivate", "rotate": "fleet.rotate_qr"}[kind]
    html = render_template(
        "fleet/confirm.html",
        kind=kind,
        vehicle=vehicle,
        driver=driver,
        form=ConfirmForm(),
        action=url_for(endpoint, vehicle_id=vehicle.id),
        back=url_for("fleet.show", vehicle_id=vehicle.id),
    )
    return make_response(html, status)


@vehicle_route("/voertuigen/<uuid:vehicle_id>/deactiveren", methods=("GET", "POST"))
def deactivate(vehicle: Vehicle):
    """Deactivate a vehicle after a confirmation: it ends its session, its history stays."""
    if request.method == "GET":
        return _confirm(vehicle, "deactivate")
    if not vehicle.actief:
        return _done(
            vehicle.id, _("Voertuig %(plate)s is al gedeactiveerd.", plate=vehicle.kenteken)
        )
    vehicle_id, plate = vehicle.id, vehicle.kenteken
    try:
        service.set_active(
            carrier_id=current_carrier_id(),
            vehicle_id=vehicle_id,
            actief=False,
            actor=current_actor(),
        )
    except service.PreconditionFailed:
        return _changed(vehicle_id)
    return _done(
        vehicle_id,
        _(
            "Voertuig %(plate)s is gedeactiveerd. De QR-sticker werkt niet meer; de "
            "geschiedenis blijft bewaard.",
            plate=plate,
        ),
    )


@vehicle_route("/voertuigen/<uuid:vehicle_id>/activeren", methods=("POST",))
def activate(vehicle: Vehicle):
    """Make a deactivated vehicle active again (its current sticker works again)."""
    vehicle_id, plate = vehicle.id, vehicle.kenteken
    try:
        service.set_active(
            carrier_id=current_carrier_id(),
            vehicle_id=vehicle_id,
            actief=True,
            actor=current_actor(),
        )
    except service.PreconditionFailed:
        return _changed(vehicle_id)
    return _done(vehicle_id, _("Voertuig %(plate)s is weer actief.", plate=plate))


@vehicle_route("/voertuigen/<uuid:vehicle_id>/qr-vernieuwen", methods=("GET", "POST"))
def rotate_qr(vehicle: Vehicle):
    """A new QR sticker after a confirmation: the old sticker stops working."""
    if request.method == "GET":
        return _confirm(vehicle, "rotate")
    vehicle_id, plate = vehicle.id, vehicle.kenteken
    try:
        rotated = service.rotate_qr(
            carrier_id=current_carrier_id(), vehicle_id=vehicle_id, actor=current_actor()
        )
    except service.PreconditionFailed:
        return _changed(vehicle_id)
    versie = rotated.qr_versie
    flash(
        _(
            "Nieuwe QR-sticker (versie %(n)s) voor %(plate)s. Druk hem af en vervang de oude "
            "sticker in de cabine: die werkt niet meer.",
            n=versie,
            plate=plate,
        )
    )
    return redirect(url_for("fleet.sticker", vehicle_id=vehicle_id), code=303)


# --- QR stickers ----------------------------------------------------------------------


def _label(vehicle: Vehicle) -> dict:
    payload = service.sticker_payload(vehicle)
    return {"vehicle": vehicle, "payload": payload, "svg": qr.svg(payload)}


@vehicle_route("/voertuigen/<uuid:vehicle_id>/qr")
def sticker(vehicle: Vehicle):
    """The printable QR sticker of one vehicle."""
    return render_template(
        "fleet/stickers.html",
        labels=[_label(vehicle)],
        single=vehicle,
        carrier=current_carrier_of(current_carrier_id()),
        back=url_for("fleet.show", vehicle_id=vehicle.id),
        truncated=False,
        **_helpers(),
    )


@bp.route("/voertuigen/qr")
@role_required("planner")
def stickers():
    """The printable QR stickers of the list's selection (by default every active vehicle)."""
    form = VehicleFilterForm(request.args)
    form.validate()
    status, soort = form.clean("status"), form.clean("soort")
    search = (form.clean("q") or "").strip()
    result = service.find_vehicles(
        carrier_id=current_carrier_id(),
        filters=service.VehicleFilters(
            search=search or None,
            actief={"actief": True, "inactief": False}.get(status),
            soort=soort or None,
            limit=STICKER_LIMIT,
        ),
    )
    args = {k: v for k, v in (("q", search), ("status", status), ("soort", soort)) if v}
    return render_template(
        "fleet/stickers.html",
        labels=[_label(v) for v in result.vehicles],
        single=None,
        carrier=current_carrier_of(current_carrier_id()),
        back=url_for("fleet.index", **{k: v for k, v in args.items() if v != "actief"}),
        truncated=result.total > len(result.vehicles),
        total=result.total,
        **_helpers(),
    )


# --- who drives what ------------------------------------------------------------------


def session_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one vehicle session (another carrier's id: 404 first)."""

    def load(session_id: uuid.UUID):
        return sessions.get_session(carrier_id=current_carrier_id(), session_id=session_id)

    return object_route(bp, rule, load, methods=methods)


def _parse_uuid(value: str | None) -> uuid.UUID | None:
    try:
        return uuid.UUID(value) if value else None
    except ValueError:
        return None


@bp.route("/voertuigen/sessies")
@role_required("planner")
def sessions_page():
    """Who drives what right now, and the history of sessions, for all or for one driver or
    vehicle (?chauffeur=<driver id>, ?voertuig=<vehicle id>), newest first and paged."""
    carrier_id = current_carrier_id()
    all_drivers = drivers.list_drivers(carrier_id=carrier_id, active_only=False)
    vehicles = service.list_vehicles(carrier_id=carrier_id)
    form = SessionFilterForm(request.args)
    form.set_choices(all_drivers, vehicles)
    chauffeur, voertuig, status = (
        form.clean("chauffeur"),
        form.clean("voertuig"),
        form.clean("status"),
    )
    chauffeur_id, vehicle_id = _parse_uuid(chauffeur), _parse_uuid(voertuig)
    pager = Pager.asked(SESSION_PAGE_SIZE)

    current = [
        (s, plate)
        for s, plate in sessions.current_sessions(carrier_id=carrier_id)
        if (chauffeur_id is None or s.chauffeur_id == chauffeur_id)
        and (vehicle_id is None or s.vehicle_id == vehicle_id)
    ]
    history = sessions.list_sessions(
        carrier_id=carrier_id,
        filters=sessions.SessionFilters(
            chauffeur_id=chauffeur_id,
            vehicle_id=vehicle_id,
            statuses=(status,) if status else (),
            limit=SESSION_PAGE_SIZE,
            offset=pager.offset,
        ),
    )
    pager = pager.counted(history.total)
    names = {d.id: d.naam for d in all_drivers}
    plates = {v.id: v.kenteken for v in vehicles}
    args = {
        k: v for k, v in (("chauffeur", chauffeur), ("voertuig", voertuig), ("status", status)) if v
    }
    here = pager.url("fleet.sessions_page", **args)
    return render_template(
        "fleet/sessions.html",
        form=form,
        current=current,
        history=history.sessions,
        total=history.total,
        names=names,
        plates=plates,
        driver_name=names.get(chauffeur_id) if chauffeur_id else None,
        vehicle_plate=plates.get(vehicle_id) if vehicle_id else None,
        filtered=bool(args),
        pager=pager,
        page_args=args,
        back=here,
        **_helpers(),
    )


@session_route("/voertuigen/sessies/<uuid:session_id>/beeindigen", methods=("GET", "POST"))
def end_session(session: VehicleSession):
    """End a driver's session from the office (e.g. the driver forgot), after confirmation."""
    fallback = url_for("fleet.sessions_page")
    back = _safe_back(request.values.get("terug"), fallback)
    plate = (
        service.plates_by_id(carrier_id=current_carrier_id(), vehicle_ids={session.vehicle_id}).get(
            session.vehicle_id
        )
        if session.vehicle_id
        else None
    )
    name = drivers.names_by_id(
        carrier_id=current_carrier_id(), driver_ids={session.chauffeur_id}
    ).get(session.chauffeur_id, "?")
    if request.method == "GET":
        if session.status == "ended":
            flash(_("Deze sessie is al beëindigd."))
            return redirect(back, code=303)
        return render_template(
            "fleet/confirm.html",
            kind="end",
            session=session,
            plate=plate,
            driver=name,
            form=ConfirmForm(),
            action=url_for("fleet.end_session", session_id=session.id),
            back=back,
            when=partial(format_when, empty="—"),
        )
    try:
        sessions.end_session(
            carrier_id=current_carrier_id(), session_id=session.id, actor=current_actor()
        )
    except sessions.SessionConflict:
        flash(_("Deze sessie is al beëindigd."))
        return refused(redirect(back, code=303))
    if plate:
        flash(_("De sessie van %(naam)s op %(plate)s is beëindigd.", naam=name, plate=plate))
    else:
        flash(_("De wachtende sessie van %(naam)s is afgebroken.", naam=name))
    return redirect(back, code=303)


def since(moment: datetime | None) -> str:
    """When a session started: the time today, else the day and time."""
    if moment is None:
        return "—"
    zone = carrier_zone(current_carrier_id())
    if moment.astimezone(zone).date() == datetime.now(zone).date():
        return format_datetime(moment, "HH:mm")
    if utcnow() - moment < timedelta(days=6):
        return format_datetime(moment, "EEE HH:mm")
    return format_datetime(moment, "d MMM HH:mm")
