"""One vehicle's page: its details, who drives it now, its sessions (paged) and its
changes as people read them."""

from __future__ import annotations

import orjson
from flask import render_template, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.drivers import service as drivers
from portal.fleet import service, sessions
from portal.fleet.models import Vehicle
from portal.fleet.pages.couplings import coupling_section
from portal.fleet.pages.forms import EENHEID_LABELS, SOORT_LABELS
from portal.fleet.pages.kit import (
    SESSION_PAGE_SIZE,
    capability_text,
    template_helpers,
    vehicle_route,
)
from portal.web.kit import Pager, current_carrier_id

FIELD_LABELS = {
    "kenteken": _l("Kenteken"),
    "vlootnummer": _l("Vlootnummer"),
    "soort": _l("Soort"),
    "max_snelheid_kmh": _l("Maximumsnelheid (km/u)"),
    "kenmerken": _l("Kenmerken"),
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
    if name == "kenmerken" and isinstance(value, dict):
        names = service.capability_names(carrier_id=current_carrier_id())
        texts = [capability_text(code, params or {}, names) for code, params in value.items()]
        return ", ".join(texts) or "—"
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
        plates={vehicle.id: vehicle.label},
        kenmerken=service.capabilities_of(carrier_id=carrier_id, vehicle_ids={vehicle.id})[
            vehicle.id
        ],
        kenmerk_names=service.capability_names(carrier_id=carrier_id),
        pager=pager,
        changes=_audit_rows(vehicle),
        back=here,
        **coupling_section(vehicle),
        **template_helpers(),
    )
