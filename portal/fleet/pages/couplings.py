"""Couplings on the vehicle pages: the section of a vehicle's page (its current couplings and
their history), coupling a trailer to a motorised vehicle (or the other way round) for a
day, and uncoupling after a confirmation. A refusal is worded at the field by its code."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from flask import make_response, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import SelectField
from wtforms.validators import DataRequired

from portal.accounts.permissions import object_route
from portal.accounts.service import carrier_zone
from portal.errors import NotFound, ValidationFailed
from portal.fleet import couplings, rules, service
from portal.fleet.coupling_models import Coupling
from portal.fleet.models import Vehicle
from portal.fleet.pages.forms import ConfirmForm
from portal.fleet.pages.kit import bp, done, template_helpers, vehicle_route
from portal.validators import DayField, PortalForm
from portal.web.kit import current_actor, current_carrier_id, errors_at_fields

# A refusal's code worded for the planner; the params name the vehicles.
COUPLING_WORDS = {
    "two_motorised": _l(
        "%(trekkend)s en %(getrokken)s rijden allebei zelf: koppel een aanhangwagen, oplegger "
        "of landbouwaanhanger."
    ),
    "not_motorised": _l("Het trekkende voertuig moet zelf rijden."),
    "not_towed": _l(
        "Het getrokken voertuig moet een aanhangwagen, oplegger of landbouwaanhanger zijn."
    ),
    "semi_trailer_needs_tractor_unit": _l("Een oplegger koppel je alleen aan een opleggertrekker."),
    "drawbar_trailer_needs_truck_or_tractor": _l(
        "Een aanhangwagen koppel je alleen aan een vrachtwagen of een landbouwtrekker."
    ),
    "agricultural_trailer_needs_agricultural_tractor": _l(
        "Een landbouwaanhanger koppel je alleen aan een landbouwtrekker."
    ),
    "towed_in_use": _l("%(getrokken)s is dan al gekoppeld aan %(trekkend)s."),
    "motor_pulls_other": _l("%(trekkend)s trekt dan al %(getrokken)s; ontkoppel die eerst."),
    "vehicle_inactive": _l("%(voertuig)s is gedeactiveerd."),
    "same_vehicle": _l("Een voertuig kan zichzelf niet trekken."),
    "not_the_tasks_vehicle": _l("De taak is niet op %(trekkend)s gepland."),
    "no_such_vehicle": _l("Kies een voertuig."),
    "changed_meanwhile": _l("Er werd tegelijk een andere koppeling gemaakt; probeer het opnieuw."),
    "already_uncoupled": _l("Deze koppeling is al beëindigd."),
}
BRON_LABELS = {"planner": _l("planner"), "qr_scan": _l("QR-scan"), "api": _l("koppeling (API)")}


class CoupleForm(PortalForm):
    ander_id = SelectField(_l("Koppelen aan"), validators=[DataRequired()], choices=[])
    datum = DayField(_l("Dag"), validators=[DataRequired()])


def _today() -> date:
    return datetime.now(carrier_zone(current_carrier_id())).date()


def _partners(vehicle: Vehicle) -> list[Vehicle]:
    """The carrier's active vehicles that couple to vehicle by their kinds."""
    others = service.list_vehicles(carrier_id=current_carrier_id(), active_only=True)
    if vehicle.soort in rules.MOTORISED:
        return [v for v in others if rules.coupling_problem(vehicle.soort, v.soort) is None]
    return [v for v in others if rules.coupling_problem(v.soort, vehicle.soort) is None]


def coupling_section(vehicle: Vehicle) -> dict:
    """What the vehicle's page shows of its couplings: those of today and later, and the
    history (vehicles named by label)."""
    carrier_id = current_carrier_id()
    history = couplings.history(carrier_id=carrier_id, vehicle_id=vehicle.id)
    today = _today()
    current = [
        c for c in history if c.ontkoppeld_op is None and (c.datum is None or c.datum >= today)
    ]
    ids = {c.trekkend_id for c in history} | {c.getrokken_id for c in history}
    found = couplings.vehicles_by_id(carrier_id=carrier_id, vehicle_ids=ids)
    return {
        "coupling_current": current,
        "coupling_history": history,
        "coupling_labels": {k: v.label for k, v in found.items()},
        "coupling_sources": BRON_LABELS,
        "can_couple": vehicle.actief and (vehicle.soort in rules.MOTORISED | rules.TOWED),
    }


def _render_form(vehicle: Vehicle, form: CoupleForm, general=(), status: int = 200):
    html = render_template(
        "fleet/_couplings_form.html",
        vehicle=vehicle,
        form=form,
        general=general,
        motorised=vehicle.soort in rules.MOTORISED,
        **template_helpers(),
    )
    return make_response(html, status)


@vehicle_route("/voertuigen/<uuid:vehicle_id>/koppelen", methods=("GET", "POST"))
def couple(vehicle: Vehicle):
    """Couple a trailer to this motorised vehicle (or this trailer to one) for a day."""
    form = CoupleForm()
    form.ander_id.choices = [("", "—")] + [(str(v.id), v.label) for v in _partners(vehicle)]
    if request.method == "GET":
        form.datum.data = _today()
        return _render_form(vehicle, form)
    if not form.validate():
        return _render_form(vehicle, form, status=422)
    other = uuid.UUID(form.ander_id.data)
    pair = (vehicle.id, other) if vehicle.soort in rules.MOTORISED else (other, vehicle.id)
    try:
        made = couplings.couple(
            carrier_id=current_carrier_id(),
            motor_id=pair[0],
            towed_id=pair[1],
            day=form.datum.data,
            actor=current_actor(),
        )
    except (couplings.CouplingRefused, ValidationFailed) as error:
        errors = [{**e, "field": "ander_id"} for e in error.errors]
        general = errors_at_fields(form, errors, COUPLING_WORDS)
        return _render_form(vehicle, form, general, status=422)
    labels = {v.id: v.label for v in _partners(vehicle)} | {vehicle.id: vehicle.label}
    return done(
        vehicle.id,
        _(
            "%(trekkend)s en %(getrokken)s zijn gekoppeld op %(dag)s.",
            trekkend=labels.get(made.trekkend_id, "?"),
            getrokken=labels.get(made.getrokken_id, "?"),
            dag=made.datum.strftime("%d-%m-%Y"),
        ),
    )


def _load_coupling(vehicle_id: uuid.UUID, koppeling_id: uuid.UUID):
    carrier_id = current_carrier_id()
    vehicle = service.get_vehicle(carrier_id=carrier_id, vehicle_id=vehicle_id)
    coupling = couplings.get_coupling(carrier_id=carrier_id, coupling_id=koppeling_id)
    if vehicle.id not in (coupling.trekkend_id, coupling.getrokken_id):
        raise NotFound("No such coupling of this vehicle.")
    return vehicle, coupling


@object_route(
    bp,
    "/voertuigen/<uuid:vehicle_id>/koppelingen/<uuid:koppeling_id>/ontkoppelen",
    _load_coupling,
    methods=("GET", "POST"),
)
def uncouple(vehicle: Vehicle, coupling: Coupling):
    """Uncouple after a confirmation; the coupling stays in the history."""
    back = url_for("fleet.show", vehicle_id=vehicle.id)
    ids = {coupling.trekkend_id, coupling.getrokken_id}
    found = couplings.vehicles_by_id(carrier_id=current_carrier_id(), vehicle_ids=ids)
    names = {
        "trekkend": found[coupling.trekkend_id].label,
        "getrokken": found[coupling.getrokken_id].label,
    }
    if request.method == "GET":
        return render_template(
            "fleet/_couplings_confirm.html",
            coupling=coupling,
            names=names,
            form=ConfirmForm(),
            action=request.path,
            back=back,
        )
    if coupling.ontkoppeld_op is not None:
        return done(vehicle.id, str(COUPLING_WORDS["already_uncoupled"]))
    couplings.uncouple(
        carrier_id=current_carrier_id(), coupling_id=coupling.id, actor=current_actor()
    )
    return done(vehicle.id, _("%(getrokken)s is losgekoppeld van %(trekkend)s.", **names))
