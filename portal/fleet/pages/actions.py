"""Deactivating, activating a vehicle and giving it a new QR sticker, each after a
confirmation."""

from __future__ import annotations

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _

from portal.drivers import service as drivers
from portal.fleet import service, sessions
from portal.fleet.models import Vehicle
from portal.fleet.pages.forms import ConfirmForm
from portal.fleet.pages.kit import changed, done, vehicle_route
from portal.web.kit import current_actor, current_carrier_id


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
        return done(vehicle.id, _("Voertuig %(plate)s is al gedeactiveerd.", plate=vehicle.label))
    vehicle_id, plate = vehicle.id, vehicle.label
    try:
        service.set_active(
            carrier_id=current_carrier_id(),
            vehicle_id=vehicle_id,
            actief=False,
            actor=current_actor(),
        )
    except service.PreconditionFailed:
        return changed(vehicle_id)
    return done(
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
    vehicle_id, plate = vehicle.id, vehicle.label
    try:
        service.set_active(
            carrier_id=current_carrier_id(),
            vehicle_id=vehicle_id,
            actief=True,
            actor=current_actor(),
        )
    except service.PreconditionFailed:
        return changed(vehicle_id)
    return done(vehicle_id, _("Voertuig %(plate)s is weer actief.", plate=plate))


@vehicle_route("/voertuigen/<uuid:vehicle_id>/qr-vernieuwen", methods=("GET", "POST"))
def rotate_qr(vehicle: Vehicle):
    """A new QR sticker after a confirmation: the old sticker stops working."""
    if request.method == "GET":
        return _confirm(vehicle, "rotate")
    vehicle_id, plate = vehicle.id, vehicle.label
    try:
        rotated = service.rotate_qr(
            carrier_id=current_carrier_id(), vehicle_id=vehicle_id, actor=current_actor()
        )
    except service.PreconditionFailed:
        return changed(vehicle_id)
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
