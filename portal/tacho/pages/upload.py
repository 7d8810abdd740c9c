"""The planners' tachograph list and upload: the carrier's files with their filters and
pages, and the upload of several files at once.

Without JavaScript the upload form posts all files in one request to `tacho.upload`, which
answers the page with each file's outcome. With it, static/js/tacho-upload.js sends each file
on its own to `tacho.upload_one`, which answers that file's outcome as JSON, and the filters
refresh the list through htmx.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson
from flask import jsonify, make_response, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from werkzeug.exceptions import RequestEntityTooLarge

from portal.accounts.permissions import role_required
from portal.drivers import service as drivers
from portal.errors import ValidationFailed
from portal.extensions import csrf
from portal.fleet import service as fleet
from portal.tacho import service
from portal.tacho.pages.forms import SOORT_LABELS, TachoFilterForm, UploadForm
from portal.tacho.pages.kit import (
    bp,
    helpers,
    refusal,
    set_choices,
    size,
    when,
)
from portal.types import period_bound
from portal.unit_of_work import kept, portal_write
from portal.web import is_fragment
from portal.web.kit import Pager, current_actor, current_carrier_id, current_zone, parse_uuid

PAGE_SIZE = 50


@dataclass(frozen=True)
class Outcome:
    """How the upload of one file went, as the page shows it."""

    naam: str
    resultaat: str  # nieuw, dubbel or fout
    bericht: str
    url: str | None = None
    soort: str | None = None


def _upload_form() -> UploadForm:
    form = UploadForm(request.form if request.method == "POST" else None)
    set_choices(form, active_only=True, empty_driver=_l("— niet —"), empty_vehicle=_l("— niet —"))
    return form


def _upload_form_blank() -> UploadForm:
    """The upload form without reading the request (whose body was too large to read)."""
    form = UploadForm(formdata=None)
    set_choices(form, active_only=True, empty_driver=_l("— niet —"), empty_vehicle=_l("— niet —"))
    return form


def _list_context() -> dict:
    """The filtered, paged list and everything its region needs."""
    carrier_id = current_carrier_id()
    form = TachoFilterForm(request.args)
    set_choices(
        form,
        active_only=False,
        empty_driver=_l("Alle chauffeurs"),
        empty_vehicle=_l("Alle voertuigen"),
    )
    form.validate()
    driver, vehicle = form.chosen("chauffeur"), form.chosen("voertuig")
    kind = form.chosen("soort")
    start = form.van.data if not form.van.errors else None
    end = form.tot.data if not (form.tot.errors or form.van.errors) else None
    pager = Pager.asked(PAGE_SIZE)
    zone = current_zone()
    result = service.list_files(
        carrier_id=carrier_id,
        filters=service.TachoFilters(
            chauffeur_id=parse_uuid(driver),
            vehicle_id=parse_uuid(vehicle),
            soort=kind or None,
            van=period_bound(start, zone, end=False) if start else None,
            tot=period_bound(end, zone, end=True) if end else None,
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
    args = _page_args(driver, vehicle, kind, start, end)
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
        **helpers(),
    }


def _page_args(driver, vehicle, kind, start, end) -> dict:
    """The filters chosen, as the list's query string names them (empty ones left out)."""
    return {
        name: value
        for name, value in (
            ("chauffeur", driver),
            ("voertuig", vehicle),
            ("soort", kind),
            ("van", start.isoformat() if start else ""),
            ("tot", end.isoformat() if end else ""),
        )
        if value
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


def _upload_one(upload, chauffeur_id, vehicle_id) -> Outcome:
    name = upload.filename or _("(zonder naam)")
    try:
        result = service.upload(
            carrier_id=current_carrier_id(),
            stream=upload.stream,
            filename=upload.filename,
            actor=current_actor(),
            driver_id=chauffeur_id,
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


def _too_much() -> str:
    return _(
        "Te veel tegelijk: samen zijn de bestanden groter dan wat één keer uploaden toelaat. "
        "Upload ze in kleinere groepen."
    )


def _no_file() -> str:
    return _("Kies een of meer tachograafbestanden.")


def _uploads() -> list:
    """The files the request carries (the `bestanden` parts that have a name)."""
    return [f for f in request.files.getlist("bestanden") if f and f.filename]


def _chosen_links() -> tuple:
    """The driver and vehicle the upload form chose (None when none or not valid)."""
    form = _upload_form()
    form.validate()
    return form, parse_uuid(form.chosen("chauffeur")), parse_uuid(form.chosen("voertuig"))


@bp.route("/tachograaf/upload", methods=["POST"])
@role_required("planner")
@csrf.exempt  # checked inside, so a body over the request limit gets a plain answer
@portal_write
def upload():
    """Upload one or more tachograph files (the `bestanden` parts), optionally linked to a
    driver and a vehicle; the page shows each file's outcome."""
    try:
        csrf.protect()
    except RequestEntityTooLarge:
        return _render_index(_upload_form_blank(), upload_error=_too_much(), status=413)
    form, chauffeur_id, vehicle_id = _chosen_links()
    uploads = _uploads()
    if not uploads:
        return _render_index(form, upload_error=_no_file(), status=422)
    outcomes = [_upload_one(f, chauffeur_id, vehicle_id) for f in uploads]
    failed = any(o.resultaat == "fout" for o in outcomes)
    # Each file stands alone: the ones that were stored are kept when another was refused.
    return kept(_render_index(_upload_form(), outcomes=outcomes, status=422 if failed else 200))


@bp.route("/tachograaf/upload.json", methods=["POST"])
@role_required("planner")
@csrf.exempt  # checked inside, so a body over the request limit gets a plain answer
@portal_write
def upload_one():
    """Upload one tachograph file (the `bestanden` part), optionally linked to a driver and a
    vehicle, as tacho-upload.js sends it for its progress bar; the outcome is JSON: 201 new,
    200 already there, 422 refused, 413 over the request limit."""
    try:
        csrf.protect()
    except RequestEntityTooLarge:
        return jsonify(resultaat="fout", bericht=_too_much()), 413
    _form, chauffeur_id, vehicle_id = _chosen_links()
    uploads = _uploads()
    if not uploads:
        return jsonify(resultaat="fout", bericht=_no_file()), 422
    outcome = _upload_one(uploads[0], chauffeur_id, vehicle_id)
    status = {"nieuw": 201, "dubbel": 200}.get(outcome.resultaat, 422)
    body = {
        "naam": outcome.naam,
        "resultaat": outcome.resultaat,
        "bericht": outcome.bericht,
        "url": outcome.url,
        "soort": outcome.soort,
    }
    # The status tells the file's outcome: a refused file is no failed request.
    return kept(make_response(orjson.dumps(body), status, {"Content-Type": "application/json"}))
