"""The printable QR stickers: one vehicle's, or the list's selection on one sheet."""

from __future__ import annotations

from flask import render_template, request, url_for

from portal.accounts.permissions import role_required
from portal.accounts.service import current_carrier_of
from portal.fleet import qr, service
from portal.fleet.models import Vehicle
from portal.fleet.pages.forms import VehicleFilterForm
from portal.fleet.pages.kit import bp, template_helpers, vehicle_route
from portal.web.kit import current_carrier_id

STICKER_LIMIT = 1000  # the most stickers one sheet prints


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
        **template_helpers(),
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
        **template_helpers(),
    )
