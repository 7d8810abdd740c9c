"""Drivers in the portal: the list (htmx narrows it), the form to add or change a driver, and
the driver's page with its history. Every route loads, checks and acts through the drivers
service; a POST commits once.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import partial

import orjson
from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import format_datetime
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.accounts.permissions import role_required
from portal.audit.service import ACTOR_LABELS
from portal.drivers import rules, service
from portal.drivers.models import Driver
from portal.drivers.pages import licence_fields
from portal.drivers.pages.forms import (
    CONTRACT_MESSAGE,
    LANGUAGE_LABELS,
    DriverForm,
    DriverSearchForm,
)
from portal.drivers.pages.kit import STALE_AFTER, age, bp, driver_route, kmh, metres
from portal.errors import ValidationFailed
from portal.labels import number
from portal.tacho import driving, wording
from portal.types import utcnow
from portal.unit_of_work import portal_write
from portal.web import is_fragment
from portal.web.kit import (
    Pager,
    current_actor,
    current_carrier_id,
    current_zone,
    errors_at_fields,
    format_when,
)

PER_PAGE = 50  # drivers per page of the list

ACTION_LABELS = {
    "created": _l("Aangemaakt"),
    "updated": _l("Gewijzigd"),
    "deactivated": _l("Gedeactiveerd"),
    "reactivated": _l("Weer actief gemaakt"),
    "pairing_code": _l("Koppelcode gemaakt"),
    "user_token_rotated": _l("user_token vernieuwd"),
    "signed_out": _l("Telefoon afgemeld"),
}
FIELD_LABELS = {
    "naam": _l("Naam"),
    "email": _l("E-mailadres"),
    "telefoon": _l("Telefoon"),
    "taal": _l("Taal"),
    "actief": _l("Actief"),
    "geldig_tot": _l("Geldig tot"),
    "contracturen": _l("Contracturen per week"),
    "personeelsnummer": _l("Personeelsnummer"),
    "rijbewijs_categorieen": _l("Rijbewijscategorieën"),
}


# --- the list -------------------------------------------------------------------------


@bp.get("/chauffeurs")
@role_required("planner")
def index():
    """The carrier's drivers by name: search by name, email or phone, active or not."""
    form = DriverSearchForm(request.args)
    valid = form.validate()
    status = form.status.data if valid and form.status.data else "actief"
    q = (form.q.data or "").strip() if valid else ""
    pager = Pager.asked(PER_PAGE)
    actief = {"actief": True, "inactief": False}.get(status)
    drivers, total = service.search_drivers(
        carrier_id=current_carrier_id(),
        filters=service.DriverFilters(
            q=q or None, actief=actief, limit=PER_PAGE, offset=pager.offset
        ),
    )
    pager = pager.counted(total)
    args = {k: v for k, v in (("q", q), ("status", status)) if v and (k, v) != ("status", "actief")}
    context = {
        "form": form,
        "drivers": drivers,
        "total": total,
        "pager": pager,
        "args": args,
        "q": q,
        "status": status,
        "filtered": bool(args),
        "now": utcnow(),
        "age": age,
        "when": partial(format_when, kind="recent"),
        "stale_after": STALE_AFTER,
        "language_labels": LANGUAGE_LABELS,
        "list_url": pager.url("drivers.index", **args),
    }
    template = "drivers/_results.html" if is_fragment() else "drivers/index.html"
    response = make_response(render_template(template, **context), 200 if valid else 422)
    if is_fragment():
        response.headers["HX-Push-Url"] = context["list_url"]
    return response


# --- create and edit ------------------------------------------------------------------

EMAIL_IN_USE = _l("Dit e-mailadres is al in gebruik bij een andere chauffeur.")
# The service's errors as the form words them, by their code.
WORDING = {
    "email_in_use": EMAIL_IN_USE,
    "email_invalid": _l("Vul een geldig e-mailadres in."),
    "required": _l("Vul de naam in."),
    "contracturen_ongeldig": CONTRACT_MESSAGE,
    "personeelsnummer_lang": _l("Hoogstens 30 tekens."),
}
# Two errors of the service have no code yet (tests/drivers/test_service.py pins their form):
# their code, by field and message, until they carry it themselves.
UNCODED = {("email", "already in use"): "email_in_use", ("naam", "required"): "required"}


def _apply_errors(form: DriverForm, error: ValidationFailed) -> list[str]:
    coded = [
        item if "code" in item else {**item, "code": UNCODED.get((item["field"], item["message"]))}
        for item in error.errors
    ]
    return errors_at_fields(form, coded, WORDING | licence_fields.WORDING)


def _valid(form: DriverForm, driver_id: uuid.UUID | None) -> bool:
    """The form's own checks, and the email's uniqueness, so every error shows at once."""
    valid = form.validate()
    valid = licence_fields.check(form) and valid
    if not form.email.errors and rules.email_in_use(
        carrier_id=current_carrier_id(), email=form.email.data, driver_id=driver_id
    ):
        form.email.errors = [*form.email.errors, str(EMAIL_IN_USE)]
        valid = False
    return valid


def _render_form(form: DriverForm, driver: Driver | None, status: int = 200, general=()):
    action = url_for("drivers.edit", driver_id=driver.id) if driver else url_for("drivers.new")
    html = render_template(
        "drivers/form.html", form=form, driver=driver, action=action, general=list(general)
    )
    return make_response(html, status)


@bp.route("/chauffeurs/nieuw", methods=["GET", "POST"])
@role_required("planner")
@portal_write
def new():
    """Add a driver; then the driver's page offers to pair the phone."""
    form = DriverForm()
    if request.method == "GET":
        return _render_form(form, None)
    if not _valid(form, None):
        return _render_form(form, None, 422)
    try:
        driver = service.create_driver(
            carrier_id=current_carrier_id(),
            naam=form.naam.data,
            email=form.email.data,
            telefoon=form.telefoon.data,
            taal=form.taal.data,
            contracturen=form.contracturen.data,
            personeelsnummer=form.personeelsnummer.data,
            actor=current_actor(),
        )
        service.set_licences(
            carrier_id=current_carrier_id(),
            driver_id=driver.id,
            categorieen=form.licences(),
            actor=current_actor(),
        )
    except ValidationFailed as error:
        general = _apply_errors(form, error)
        return _render_form(form, None, 422, general)
    driver_id, naam = driver.id, driver.naam
    flash(_("Chauffeur “%(naam)s” is toegevoegd. Koppel nu de telefoon.", naam=naam))
    return redirect(url_for("drivers.show", driver_id=driver_id), code=303)


@driver_route("/chauffeurs/<uuid:driver_id>/bewerken", methods=("GET", "POST"))
def edit(driver: Driver):
    """Change a driver's name, email, phone number, app language, contract hours and
    payroll number."""
    form = DriverForm(obj=driver if request.method == "GET" else None)
    if request.method == "GET":
        form.taal.data = driver.taal or "nl"
        licence_fields.fill(form, carrier_id=current_carrier_id(), driver_id=driver.id)
        return _render_form(form, driver)
    driver_id = driver.id
    if not _valid(form, driver_id):
        return _render_form(form, driver, 422)
    try:
        saved = service.update_driver(
            carrier_id=current_carrier_id(),
            driver_id=driver_id,
            naam=form.naam.data,
            email=form.email.data,
            telefoon=form.telefoon.data,
            taal=form.taal.data,
            contracturen=form.contracturen.data,
            personeelsnummer=form.personeelsnummer.data,
            actor=current_actor(),
        )
        service.set_licences(
            carrier_id=current_carrier_id(),
            driver_id=driver_id,
            categorieen=form.licences(),
            actor=current_actor(),
        )
    except ValidationFailed as error:
        general = _apply_errors(form, error)
        driver = service.get_driver(carrier_id=current_carrier_id(), driver_id=driver_id)
        return _render_form(form, driver, 422, general)
    naam = saved.naam
    flash(_("Chauffeur “%(naam)s” is opgeslagen.", naam=naam))
    return redirect(url_for("drivers.show", driver_id=driver_id), code=303)


# --- the driver's page ----------------------------------------------------------------


@dataclass
class HistoryItem:
    at: datetime
    who: str
    via: str
    what: str
    changes: list[tuple[str, str, str]]


def _value(name: str, value) -> str:
    if value is None or value == "":
        return "—"
    if name == "taal":
        return str(LANGUAGE_LABELS.get(value, value))
    if name == "contracturen":
        return _("%(uren)s uur", uren=number(Decimal(str(value))))
    if name == "actief":
        return _("ja") if value else _("nee")
    if name == "geldig_tot":
        try:
            return format_datetime(datetime.fromisoformat(str(value)), "d MMM yyyy HH:mm")
        except ValueError:
            return str(value)
    return str(value)


def _history(driver: Driver) -> list[HistoryItem]:
    items = []
    for entry in reversed(service.history(carrier_id=current_carrier_id(), driver_id=driver.id)):
        try:
            changes = orjson.loads(entry.changes or "{}")
        except orjson.JSONDecodeError:
            changes = {}
        rows = []
        if entry.action not in ("created", "deactivated", "reactivated"):
            for name, pair in changes.items():
                old, new = [*pair, None, None][:2] if isinstance(pair, list) else (None, pair)
                label = str(FIELD_LABELS.get(name, name))
                rows.append((label, _value(name, old), _value(name, new)))
        items.append(
            HistoryItem(
                at=entry.at,
                who=entry.actor_label,
                via=str(ACTOR_LABELS.get(entry.actor_type, entry.actor_type)),
                what=str(ACTION_LABELS.get(entry.action, entry.action)),
                changes=rows,
            )
        )
    return items


@driver_route("/chauffeurs/<uuid:driver_id>")
def show(driver: Driver):
    """A driver: details, last position, access actions and history."""
    today = datetime.now(current_zone()).date()
    return render_template(
        "drivers/show.html",
        driver=driver,
        history=_history(driver),
        now=utcnow(),
        age=age,
        when=partial(format_when, kind="recent"),
        metres=metres,
        kmh=kmh,
        stale_after=STALE_AFTER,
        language_labels=LANGUAGE_LABELS,
        today=today,
        rijtijden=driving.budget_of(carrier_id=current_carrier_id(), driver_id=driver.id),
        rijbewijs=licence_fields.recorded(carrier_id=current_carrier_id(), driver_id=driver.id),
        wording=wording,
    )
