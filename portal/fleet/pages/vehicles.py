"""The planners' vehicle list (search, status and kind, paged, with who drives each one
now), and creating and editing a vehicle."""

from __future__ import annotations

from functools import partial

from flask import make_response, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.accounts.permissions import role_required
from portal.drivers import service as drivers
from portal.errors import ValidationFailed
from portal.fleet import catalogue, service, sessions
from portal.fleet.models import Vehicle
from portal.fleet.pages.forms import (
    VehicleFilterForm,
    VehicleForm,
    capability_error_fields,
    fill_capabilities,
    vehicle_form,
)
from portal.fleet.pages.kit import bp, done, template_helpers, vehicle_route
from portal.labels import number
from portal.unit_of_work import portal_write
from portal.web import is_fragment
from portal.web.kit import Pager, current_actor, current_carrier_id, errors_at_fields

PAGE_SIZE = 50  # vehicles per page of the list


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
        **_capabilities_shown(result.vehicles),
        "links": links,
        "filtered": bool(args),
        "list_url": pager.url("fleet.index", **args),
        **template_helpers(),
    }
    if is_fragment():
        response = make_response(render_template("fleet/_list.html", **context))
        response.headers["HX-Push-Url"] = context["list_url"]
        return response
    return render_template("fleet/index.html", **context)


def _capabilities_shown(vehicles) -> dict:
    carrier_id = current_carrier_id()
    return {
        "kenmerken": service.capabilities_of(
            carrier_id=carrier_id, vehicle_ids={v.id for v in vehicles}
        ),
        "kenmerk_names": service.capability_names(carrier_id=carrier_id),
    }


# --- create and edit ------------------------------------------------------------------

DUPLICATE_ACTIVE = _l("Er is al een voertuig met kenteken %(plate)s.")
# The service's codes a person reads at the field, in their language.
WORDING = {
    "plate_required": _l(
        "Vul het kenteken in. Alleen een landbouwaanhanger mag zonder (met een vlootnummer)."
    ),
    "fleet_number_required": _l("Een voertuig zonder kenteken heeft een vlootnummer nodig."),
    "fleet_number_taken": _l("Er is al een voertuig met dit vlootnummer."),
    "fleet_number_format": _l("Alleen letters, cijfers en streepjes, hoogstens 20 tekens."),
    "parameter_range": lambda e: _(
        "Vul een getal van %(min)s tot %(max)s in.",
        min=number(float(e["params"]["min"])),
        max=number(float(e["params"]["max"])),
    ),
    "required": _l("Vul dit in."),
    "range_order": _l("De hoogste temperatuur ligt onder de laagste."),
    "unknown_capability": _l("Dit kenmerk staat niet (meer) in jullie lijst."),
    "capability_off": _l("Dit kenmerk is uitgezet; kies een ander."),
    "kind_renamed": _l("Kies een soort."),
}
DUPLICATE_INACTIVE = _l(
    "Er is al een gedeactiveerd voertuig met kenteken %(plate)s: maak dat weer actief in "
    "plaats van een nieuw aan te maken."
)


def _apply_errors(form: VehicleForm, error: ValidationFailed) -> list[str]:
    """Put the service's errors at the form's fields; the rest in a list."""
    check = _("Controleer dit veld.")
    wording = (
        dict.fromkeys(FIELD_CODES, check)
        | {code: text if callable(text) else str(text) for code, text in WORDING.items()}
        | {"plate_taken": partial(_plate_taken, form)}
    )
    return errors_at_fields(form, capability_error_fields(error.errors), wording)


# The service's codes of a field the form checks itself already: a plain "check this field".
FIELD_CODES = (
    "plate_format",
    "choice",
    "too_long",
    "not_an_object",
    "out_of_range",
    "not_a_boolean",
    "required_with_capacity",
    "required_with_unit",
    "not_editable",
)


def _plate_taken(form: VehicleForm, _error: dict) -> str:
    """The plate is another vehicle's: say so, and whether that one is deactivated."""
    plate = form.kenteken.data
    existing = service.find_vehicles(
        carrier_id=current_carrier_id(),
        filters=service.VehicleFilters(kenteken=plate, limit=1),
    ).vehicles
    painted = existing[0].kenteken if existing else plate
    inactive = bool(existing) and not existing[0].actief
    text = DUPLICATE_INACTIVE if inactive else DUPLICATE_ACTIVE
    return str(text) % {"plate": painted}


def _form(vehicle: Vehicle | None, has: dict | None = None) -> VehicleForm:
    """The vehicle form with the capabilities offered: those switched on, and those the
    vehicle has."""
    has = has or {}
    items = [
        item
        for item in catalogue.catalogue(carrier_id=current_carrier_id())
        if item.actief or item.code in has
    ]
    return vehicle_form(items, request.form if request.method == "POST" else None)


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
    form = _form(None)
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
    vehicle_id, plate = vehicle.id, vehicle.label
    return done(
        vehicle_id,
        _(
            "Voertuig %(plate)s is toegevoegd. Druk de QR-sticker af voor in de cabine.",
            plate=plate,
        ),
    )


@vehicle_route("/voertuigen/<uuid:vehicle_id>/bewerken", methods=("GET", "POST"))
def edit(vehicle: Vehicle):
    """Edit a vehicle; the version it started from guards against overwriting a change."""
    has = service.capabilities_of(carrier_id=current_carrier_id(), vehicle_ids={vehicle.id})
    form = _form(vehicle, has[vehicle.id])
    if request.method == "GET":
        for name in EDITED:
            form[name].data = getattr(vehicle, name)
        form.capaciteit_eenheid.data = vehicle.capaciteit_eenheid or ""
        fill_capabilities(form, has[vehicle.id])
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
    vehicle_id, plate = saved.id, saved.label
    return done(vehicle_id, _("Voertuig %(plate)s is opgeslagen.", plate=plate))


EDITED = (
    "kenteken",
    "vlootnummer",
    "soort",
    "omschrijving",
    "capaciteit",
    "max_snelheid_kmh",
    "opmerkingen",
)
