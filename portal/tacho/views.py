"""The planners' tachograph pages: the list with its filters and the upload of several files at
once, one file's page (what it is, links to a driver and vehicle, its period, a download link
to hand out) and the download itself.

Every page works without JavaScript (the upload then posts all files in one form); with it,
static/js/tacho-upload.js sends each file on its own with a progress bar and the filters
refresh the list through htmx. Each request loads, checks and acts through the tacho service,
then commits once.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urljoin

import orjson
from flask import (
    Blueprint,
    flash,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import format_date, format_datetime, format_decimal
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from werkzeug.exceptions import RequestEntityTooLarge

from portal.accounts.permissions import object_route, role_required
from portal.drivers import service as drivers
from portal.errors import Conflict, ValidationFailed
from portal.extensions import csrf
from portal.fleet import service as fleet
from portal.tacho import service, wording
from portal.tacho.forms import (
    GENERATIE_LABELS,
    LINK_LABELS,
    SOORT_LABELS,
    LinkForm,
    PeriodForm,
    ShareForm,
    TachoFilterForm,
    UploadForm,
)
from portal.tacho.models import TachoFile
from portal.types import period_bound
from portal.unit_of_work import kept, portal_write
from portal.web import is_fragment
from portal.web.kit import Pager, current_actor, current_carrier_id, current_zone

bp = Blueprint("tacho", __name__)

PAGE_SIZE = 50
EN_DASH = "\u2013"
DOWNLOAD_SECONDS = 60  # the download button's own link: just long enough to start
CARD_NAMES = {
    "workshop": _l("werkplaatskaart"),
    "control": _l("controlekaart"),
    "company": _l("bedrijfskaart"),
}
ACTION_LABELS = {
    "uploaded": _l("Geüpload"),
    "linked": _l("Koppeling gewijzigd"),
    "period_set": _l("Periode ingevuld"),
    "link_created": _l("Downloadlink gemaakt"),
}


# --- helpers --------------------------------------------------------------------------


def _uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value) if value else None
    except ValueError:
        return None


def refusal(error: service.Refused) -> str:
    """Why a file is refused, in plain Dutch."""
    reason = error.reason
    if reason == "too_large":
        limit = size(error.params["limit"])
        return _("Te groot: een tachograafbestand is hooguit %(size)s.", size=limit)
    if reason == "empty":
        return _("Geen tachograafbestand: het bestand is leeg.")
    if reason == "card_structure":
        return _(
            "Geen tachograafbestand: het begint als de download van een bestuurderskaart, "
            "maar de opbouw klopt niet. Is het afgebroken of beschadigd? Download de kaart "
            "opnieuw."
        )
    if reason == "vu_structure":
        return _(
            "Geen tachograafbestand: het begint als de download van een voertuigeenheid, "
            "maar de opbouw klopt niet. Is het afgebroken of beschadigd? Download de "
            "tachograaf opnieuw."
        )
    if reason == "other_card":
        card = CARD_NAMES.get(error.params.get("card_type"), _l("andere kaart"))
        return _(
            "Geen tachograafbestand van een chauffeur: dit is de download van een %(kaart)s, "
            "geen bestuurderskaart.",
            kaart=card,
        )
    if error.params.get("where"):
        return _(
            "Beschadigd tachograafbestand: de gegevens bij %(waar)s kloppen niet. Download "
            "de kaart of tachograaf opnieuw.",
            waar=error.params["where"],
        )
    return _(
        "Geen tachograafbestand: de inhoud is geen download van een bestuurderskaart of een "
        "voertuigeenheid (zoals een .DDD-, .TGD-, .C1B- of .V1B-bestand)."
    )


def size(grootte: int) -> str:
    if grootte < 1024:
        return _("%(n)s bytes", n=grootte)
    if grootte < 1024 * 1024:
        return _("%(n)s kB", n=format_decimal(grootte / 1024, "#,##0.#"))
    return _("%(n)s MB", n=format_decimal(grootte / (1024 * 1024), "#,##0.#"))


def when(moment: datetime | None) -> str:
    return format_datetime(moment, "d MMM yyyy HH:mm") if moment else "—"


def days(row: TachoFile) -> tuple[date, date] | None:
    """The first and last day a file covers: UTC days, as a tachograph records them."""
    if row.periode_van is None or row.periode_tot is None:
        return None
    last = row.periode_tot - timedelta(seconds=1)  # the end is exclusive
    return row.periode_van.astimezone(UTC).date(), last.astimezone(UTC).date()


def period(row: TachoFile) -> str:
    """The days a file covers ("3 nov 2026 - 9 nov 2026", with an en dash), or ''."""
    span = days(row)
    if span is None:
        return ""
    first, last = (format_date(day, "d MMM yyyy") for day in span)
    return first if first == last else f"{first} {EN_DASH} {last}"


def _helpers() -> dict:
    return {
        "soort_labels": SOORT_LABELS,
        "generatie_labels": GENERATIE_LABELS,
        "size": size,
        "when": when,
        "period": period,
    }


def tacho_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one tachograph file (another carrier's id: 404 first)."""

    def load(tacho_file_id: uuid.UUID):
        return service.get_file(carrier_id=current_carrier_id(), tacho_file_id=tacho_file_id)

    return object_route(bp, rule, load, methods=methods)


# --- the list and the upload ----------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """How the upload of one file went, as the page shows it."""

    naam: str
    resultaat: str  # nieuw, dubbel or fout
    bericht: str
    url: str | None = None
    soort: str | None = None


def _choices(form, *, active_only: bool, empty_driver, empty_vehicle) -> None:
    carrier_id = current_carrier_id()
    form.set_choices(
        drivers.list_drivers(carrier_id=carrier_id, active_only=active_only),
        fleet.list_vehicles(carrier_id=carrier_id, active_only=active_only),
        empty_driver,
        empty_vehicle,
    )


def _upload_form() -> UploadForm:
    form = UploadForm(request.form if request.method == "POST" else None)
    _choices(form, active_only=True, empty_driver=_l("— niet —"), empty_vehicle=_l("— niet —"))
    return form


def _list_context() -> dict:
    """The filtered, paged list and everything its region needs."""
    carrier_id = current_carrier_id()
    form = TachoFilterForm(request.args)
    _choices(
        form,
        active_only=False,
        empty_driver=_l("Alle chauffeurs"),
        empty_vehicle=_l("Alle voertuigen"),
    )
    form.validate()
    chauffeur, voertuig = form.chosen("chauffeur"), form.chosen("voertuig")
    soort = form.chosen("soort")
    van = form.van.data if not form.van.errors else None
    tot = form.tot.data if not (form.tot.errors or form.van.errors) else None
    pager = Pager.asked(PAGE_SIZE)
    zone = current_zone()
    result = service.list_files(
        carrier_id=carrier_id,
        filters=service.TachoFilters(
            chauffeur_id=_uuid(chauffeur),
            vehicle_id=_uuid(voertuig),
            soort=soort or None,
            van=period_bound(van, zone, end=False) if van else None,
            tot=period_bound(tot, zone, end=True) if tot else None,
            limit=PAGE_SIZE,
            offset=pager.offset,
        ),
    )
    pager = pager.counted(result.total)
    names = drivers.names_by_id(
        carrier_id=carrier_id, driver_ids={row.chauffeur_id for row in result.files}
    )
    plates = fleet.plates_by_id(
        carrier_id=carrier_id, vehicle_ids={row.vehicle_id for row in result.files}
    )
    args = {
        name: value
        for name, value in (
            ("chauffeur", chauffeur),
            ("voertuig", voertuig),
            ("soort", soort),
            ("van", van.isoformat() if van else ""),
            ("tot", tot.isoformat() if tot else ""),
        )
        if value
    }
    return {
        "form": form,
        "files": result.files,
        "total": result.total,
        "pager": pager,
        "page_args": args,
        "names": names,
        "plates": plates,
        "filtered": bool(args),
        "links": {
            "clear": url_for("tacho.index"),
        },
        "list_url": pager.url("tacho.index", **args),
        **_helpers(),
    }


def _render_index(
    upload_form: UploadForm,
    outcomes: list[Outcome] | None = None,
    upload_error: str | None = None,
    status: int = 200,
):
    context = _list_context()
    html = render_template(
        "tacho/index.html",
        upload_form=upload_form,
        outcomes=outcomes or [],
        upload_error=upload_error,
        max_size=size(service.max_bytes()),
        **context,
    )
    return make_response(html, status)


@bp.route("/tachograaf")
@role_required("planner")
def index():
    """The carrier's tachograph files, newest upload first: filters, pages, the upload form."""
    if is_fragment():
        context = _list_context()
        response = make_response(render_template("tacho/_list.html", **context))
        response.headers["HX-Push-Url"] = context["list_url"]
        return response
    return _render_index(_upload_form())


def _wants_json() -> bool:
    return request.accept_mimetypes.best_match(["text/html", "application/json"]) == (
        "application/json"
    )


def _upload_one(upload, chauffeur_id, vehicle_id) -> Outcome:
    name = upload.filename or _("(zonder naam)")
    try:
        result = service.upload(
            carrier_id=current_carrier_id(),
            stream=upload.stream,
            filename=upload.filename,
            actor=current_actor(),
            chauffeur_id=chauffeur_id,
            vehicle_id=vehicle_id,
        )
    except service.Refused as error:
        return Outcome(name, "fout", refusal(error))
    except ValidationFailed:
        return Outcome(name, "fout", _("De gekozen chauffeur of het voertuig bestaat niet meer."))
    row = result.file
    url = url_for("tacho.show", tacho_file_id=row.id)
    label = str(SOORT_LABELS.get(row.soort, row.soort))
    if result.nieuw:
        return Outcome(name, "nieuw", _("Geüpload als %(soort)s.", soort=label), url, label)
    return Outcome(
        name,
        "dubbel",
        _(
            "Dit bestand is al eerder geüpload (%(naam)s, op %(when)s); het is niet nog eens "
            "opgeslagen.",
            naam=row.bestandsnaam,
            when=when(row.geupload_op),
        ),
        url,
        label,
    )


@bp.route("/tachograaf/upload", methods=["POST"])
@role_required("planner")
@csrf.exempt  # checked inside, so a body over the request limit gets a plain answer
@portal_write
def upload():
    """Upload one or more tachograph files (the `bestanden` parts), optionally linked to a
    driver and a vehicle. A page shows each file's outcome; with `Accept: application/json`
    (one file per request, as tacho-upload.js sends) the outcome is JSON: 201 new, 200
    already there, 422 refused."""
    wants_json = _wants_json()
    try:
        csrf.protect()
    except RequestEntityTooLarge:
        text = _(
            "Te veel tegelijk: samen zijn de bestanden groter dan wat één keer uploaden toelaat. "
            "Upload ze in kleinere groepen."
        )
        if wants_json:
            return jsonify(resultaat="fout", bericht=text), 413
        return _render_index(_upload_form_blank(), upload_error=text, status=413)
    form = _upload_form()
    form.validate()
    chauffeur_id, vehicle_id = _uuid(form.chosen("chauffeur")), _uuid(form.chosen("voertuig"))
    uploads = [f for f in request.files.getlist("bestanden") if f and f.filename]
    if not uploads:
        text = _("Kies een of meer tachograafbestanden.")
        if wants_json:
            return jsonify(resultaat="fout", bericht=text), 422
        return _render_index(form, upload_error=text, status=422)
    outcomes = [_upload_one(f, chauffeur_id, vehicle_id) for f in uploads]
    if wants_json:
        outcome = outcomes[0]
        status = {"nieuw": 201, "dubbel": 200}.get(outcome.resultaat, 422)
        body = {
            "naam": outcome.naam,
            "resultaat": outcome.resultaat,
            "bericht": outcome.bericht,
            "url": outcome.url,
            "soort": outcome.soort,
        }
        return kept(make_response(orjson.dumps(body), status, {"Content-Type": "application/json"}))
    failed = any(o.resultaat == "fout" for o in outcomes)
    # Each file stands alone: the ones that were stored are kept when another was refused.
    return kept(_render_index(_upload_form(), outcomes=outcomes, status=422 if failed else 200))


def _upload_form_blank() -> UploadForm:
    """The upload form without reading the request (whose body was too large to read)."""
    form = UploadForm(formdata=None)
    _choices(form, active_only=True, empty_driver=_l("— niet —"), empty_vehicle=_l("— niet —"))
    return form


# --- one file -------------------------------------------------------------------------


def _history(row: TachoFile) -> list[dict]:
    """The file's audit trail as people read it, newest first."""
    entries = service.history(carrier_id=current_carrier_id(), tacho_file_id=row.id)
    driver_ids, vehicle_ids = set(), set()
    parsed = []
    for entry in entries:
        changes = orjson.loads(entry.changes or "{}")
        parsed.append((entry, changes))
        for name, target in (("chauffeur_id", driver_ids), ("vehicle_id", vehicle_ids)):
            value = changes.get(name)
            for item in value if isinstance(value, list) else [value]:
                if _uuid(item or ""):
                    target.add(uuid.UUID(item))
    names = drivers.names_by_id(carrier_id=current_carrier_id(), driver_ids=driver_ids)
    plates = fleet.plates_by_id(carrier_id=current_carrier_id(), vehicle_ids=vehicle_ids)

    def show(name: str, value) -> str:
        key = _uuid(value or "") if isinstance(value, str) else None
        if name == "chauffeur_id":
            return names.get(key, _("onbekende chauffeur")) if key else _("niemand")
        if name == "vehicle_id":
            return plates.get(key, _("onbekend voertuig")) if key else _("geen")
        return str(value)

    # Linked by the system: a card number given to a driver brought its earlier downloads.
    notes_linked = {"chauffeur_id": _("via het kaartnummer van de chauffeur")}
    rows = []
    for entry, changes in reversed(parsed):
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
            automatic = set(changes.get("automatisch") or [])
            for name, label in (("chauffeur_id", _("Chauffeur")), ("vehicle_id", _("Voertuig"))):
                if name in changes:
                    old, new = changes[name]
                    note = (
                        f" ({notes_linked[name]})" if name in automatic & set(notes_linked) else ""
                    )
                    lines.append(f"{label}: {show(name, old)} → {show(name, new)}{note}")
        elif entry.action == "link_created" and changes.get("geldig_tot"):
            until = datetime.fromisoformat(changes["geldig_tot"].replace("Z", "+00:00"))
            lines.append(_("Geldig tot %(when)s", when=when(until)))
        elif entry.action == "period_set":
            lines.append(_("Periode aangepast"))
        rows.append(
            {
                "at": entry.at,
                "who": entry.actor_label,
                "what": str(ACTION_LABELS.get(entry.action, entry.action)),
                "lines": lines,
            }
        )
    return rows


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
    _choices(
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
        **_helpers(),
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
    _choices(
        form,
        active_only=False,
        empty_driver=_l("— geen chauffeur —"),
        empty_vehicle=_l("— geen voertuig —"),
    )
    changes = {}
    for name, key in (("chauffeur", "chauffeur_id"), ("voertuig", "vehicle_id")):
        if name not in request.form:
            continue
        value = form.chosen(name)
        if request.form.get(name) and not value:
            form[name].errors = [_("Kies uit de lijst.")]
        changes[key] = _uuid(value)
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
