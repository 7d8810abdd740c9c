"""One tachograph file's page: what it is and covers, its links to a driver and vehicle, its
period, a download link to hand out, and the download itself. Every page works without
JavaScript; each request loads, checks and acts through the tacho service.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from urllib.parse import urljoin

import orjson
from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.drivers import service as drivers
from portal.errors import Conflict, ValidationFailed
from portal.fleet import service as fleet
from portal.tacho import service, wording
from portal.tacho.models import TachoFile
from portal.tacho.pages.forms import LINK_LABELS, LinkForm, PeriodForm, ShareForm
from portal.tacho.pages.kit import (
    days,
    helpers,
    refusal,
    set_choices,
    tacho_route,
    when,
)
from portal.web.kit import current_actor, current_carrier_id, parse_uuid

DOWNLOAD_SECONDS = 60  # the download button's own link: just long enough to start
ACTION_LABELS = {
    "uploaded": _l("Geüpload"),
    "linked": _l("Koppeling gewijzigd"),
    "period_set": _l("Periode ingevuld"),
    "link_created": _l("Downloadlink gemaakt"),
}


def _history(row: TachoFile) -> list[dict]:
    """The file's audit trail as people read it, newest first."""
    entries = service.history(carrier_id=current_carrier_id(), tacho_file_id=row.id)
    parsed = [(entry, orjson.loads(entry.changes or "{}")) for entry in entries]
    show = _shown_links(parsed)
    return [
        {
            "at": entry.at,
            "who": entry.actor_label,
            "what": str(ACTION_LABELS.get(entry.action, entry.action)),
            "lines": _entry_lines(entry, changes, show),
        }
        for entry, changes in reversed(parsed)
    ]


def _shown_links(parsed: list[tuple]) -> Callable[[str, object], str]:
    """How the trail shows a driver or vehicle it names (by id): their name or registration,
    read at once for every entry."""
    driver_ids, vehicle_ids = set(), set()
    for _entry, changes in parsed:
        for name, target in (("chauffeur_id", driver_ids), ("vehicle_id", vehicle_ids)):
            value = changes.get(name)
            for item in value if isinstance(value, list) else [value]:
                if parse_uuid(item or ""):
                    target.add(uuid.UUID(item))
    names = drivers.names_by_id(carrier_id=current_carrier_id(), driver_ids=driver_ids)
    plates = fleet.plates_by_id(carrier_id=current_carrier_id(), vehicle_ids=vehicle_ids)

    def show(name: str, value) -> str:
        key = parse_uuid(value or "") if isinstance(value, str) else None
        if name == "chauffeur_id":
            return names.get(key, _("onbekende chauffeur")) if key else _("niemand")
        if name == "vehicle_id":
            return plates.get(key, _("onbekend voertuig")) if key else _("geen")
        return str(value)

    return show


def _entry_lines(entry, changes: dict, show: Callable[[str, object], str]) -> list[str]:
    """The lines under one entry of the trail: who and what it linked, until when a link
    holds, a period set."""
    lines = []
    if entry.action == "uploaded":
        automatic = set(changes.get("automatisch") or [])
        notes = {
            "chauffeur_id": _("herkend aan het kaartnummer"),
            "vehicle_id": _("herkend aan het kenteken in het bestand"),
        }
        for name, label in (("chauffeur_id", _("Chauffeur")), ("vehicle_id", _("Voertuig"))):
            if changes.get(name):
                note = f" ({notes[name]})" if name in automatic else ""
                lines.append(f"{label}: {show(name, changes[name])}{note}")
    elif entry.action == "linked":
        # Linked by the system: a card number given to a driver brought its earlier downloads.
        notes_linked = {"chauffeur_id": _("via het kaartnummer van de chauffeur")}
        automatic = set(changes.get("automatisch") or [])
        for name, label in (("chauffeur_id", _("Chauffeur")), ("vehicle_id", _("Voertuig"))):
            if name in changes:
                old, new = changes[name]
                note = f" ({notes_linked[name]})" if name in automatic & set(notes_linked) else ""
                lines.append(f"{label}: {show(name, old)} → {show(name, new)}{note}")
    elif entry.action == "link_created" and changes.get("geldig_tot"):
        until = datetime.fromisoformat(changes["geldig_tot"].replace("Z", "+00:00"))
        lines.append(_("Geldig tot %(when)s", when=when(until)))
    elif entry.action == "period_set":
        lines.append(_("Periode aangepast"))
    return lines


def _render_show(
    row: TachoFile,
    *,
    link_form: LinkForm | None = None,
    period_form: PeriodForm | None = None,
    share_form: ShareForm | None = None,
    shared: service.SignedLink | None = None,
    status: int = 200,
):
    carrier_id = current_carrier_id()
    if link_form is None:
        link_form = LinkForm(formdata=None)
        link_form.chauffeur.data = str(row.chauffeur_id) if row.chauffeur_id else ""
        link_form.voertuig.data = str(row.vehicle_id) if row.vehicle_id else ""
    # Every driver and vehicle: a file may stay linked to one that is deactivated since.
    set_choices(
        link_form,
        active_only=False,
        empty_driver=_l("— geen chauffeur —"),
        empty_vehicle=_l("— geen voertuig —"),
    )
    if period_form is None:
        period_form = PeriodForm(formdata=None)
        span = days(row)
        if span is not None:
            period_form.van.data, period_form.tot.data = span
    names = drivers.names_by_id(carrier_id=carrier_id, driver_ids={row.chauffeur_id})
    plates = fleet.plates_by_id(carrier_id=carrier_id, vehicle_ids={row.vehicle_id})
    try:
        file_days, unreadable = service.file_days(carrier_id=carrier_id, tacho_file_id=row.id), None
    except service.Refused as error:  # stored before files were read, and damaged
        file_days, unreadable = [], refusal(error)
    html = render_template(
        "tacho/show.html",
        file_days=file_days,
        unreadable=unreadable,
        duur=wording.duur,
        note=wording.note,
        file=row,
        driver_name=names.get(row.chauffeur_id),
        plate=plates.get(row.vehicle_id),
        link_form=link_form,
        period_form=period_form,
        share_form=share_form or ShareForm(formdata=None),
        shared=shared,
        shared_url=urljoin(request.host_url, shared.url) if shared else None,
        link_labels=LINK_LABELS,
        history=_history(row),
        **helpers(),
    )
    return make_response(html, status)


@tacho_route("/tachograaf/<uuid:tacho_file_id>")
def show(row: TachoFile):
    """One file: what it is and covers, its links, its period, a link to hand out."""
    return _render_show(row)


@tacho_route("/tachograaf/<uuid:tacho_file_id>/koppelen", methods=("POST",))
def link(row: TachoFile):
    """Link the file to a driver and/or vehicle, or unlink it: only the selects sent change."""
    form = LinkForm(request.form)
    set_choices(
        form,
        active_only=False,
        empty_driver=_l("— geen chauffeur —"),
        empty_vehicle=_l("— geen voertuig —"),
    )
    changes = {}
    for name, key in (("chauffeur", "driver_id"), ("voertuig", "vehicle_id")):
        if name not in request.form:
            continue
        value = form.chosen(name)
        if request.form.get(name) and not value:
            form[name].errors = [_("Kies uit de lijst.")]
        changes[key] = parse_uuid(value)
    if form.chauffeur.errors or form.voertuig.errors:
        return _render_show(row, link_form=form, status=422)
    try:
        service.link(
            carrier_id=current_carrier_id(), tacho_file_id=row.id, actor=current_actor(), **changes
        )
    except ValidationFailed:
        form.chauffeur.errors = [_("Kies uit de lijst.")]
        return _render_show(row, link_form=form, status=422)
    file_id = row.id
    flash(_("De koppeling is opgeslagen."))
    return redirect(url_for("tacho.show", tacho_file_id=file_id), code=303)


@tacho_route("/tachograaf/<uuid:tacho_file_id>/periode", methods=("POST",))
def set_period(row: TachoFile):
    """Give the period of a file that does not state its own."""
    form = PeriodForm(request.form)
    if not form.validate():
        return _render_show(row, period_form=form, status=422)
    try:
        service.set_period(
            carrier_id=current_carrier_id(),
            tacho_file_id=row.id,
            van=form.van.data,
            tot=form.tot.data,
            actor=current_actor(),
        )
    except Conflict:
        form.van.errors = [_("Dit bestand geeft zijn eigen periode; die is niet te wijzigen.")]
        return _render_show(row, period_form=form, status=409)
    file_id = row.id
    flash(_("De periode is opgeslagen."))
    return redirect(url_for("tacho.show", tacho_file_id=file_id), code=303)


@tacho_route("/tachograaf/<uuid:tacho_file_id>/downloadlink", methods=("POST",))
def share(row: TachoFile):
    """Make a download link, valid for the time chosen, to hand to an inspector or payroll
    office; shown once, with its expiry, and kept in the file's history."""
    form = ShareForm(request.form)
    if not form.validate():
        return _render_show(row, share_form=form, status=422)
    shared = service.share_link(
        carrier_id=current_carrier_id(),
        tacho_file_id=row.id,
        seconds=int(form.geldigheid.data),
        actor=current_actor(),
    )
    row = service.get_file(carrier_id=current_carrier_id(), tacho_file_id=row.id)
    return _render_show(row, share_form=form, shared=shared)


@tacho_route("/tachograaf/<uuid:tacho_file_id>/download")
def download(row: TachoFile):
    """The file's bytes: a redirect to a freshly signed link of a minute."""
    link = service.signed_link(
        carrier_id=current_carrier_id(), tacho_file=row, seconds=DOWNLOAD_SECONDS
    )
    return redirect(link.url, code=303)
