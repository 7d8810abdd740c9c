"""The planners' vehicle pages: the list, create and edit, a vehicle's page with its
sessions, deactivation and QR rotation after a confirmation, and the printable QR stickers."""

from __future__ import annotations

import uuid

import orjson
from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.accounts.permissions import object_route, role_required
from portal.accounts.service import current_carrier_of
from portal.drivers import service as drivers
from portal.errors import ValidationFailed
from portal.fleet import qr, service, sessions
from portal.fleet.models import Vehicle
from portal.fleet.pages.forms import (
    EENHEID_LABELS,
    SOORT_LABELS,
    ConfirmForm,
    VehicleFilterForm,
    VehicleForm,
)
from portal.fleet.pages.kit import SESSION_PAGE_SIZE, _helpers, bp
from portal.unit_of_work import portal_write, refused
from portal.web import is_fragment
from portal.web.kit import Pager, current_actor, current_carrier_id

PAGE_SIZE = 50  # vehicles per page of the list
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
