"""The admin page of the carrier's settings: its name, time zone, home base address and the
invoicing details its e-invoices name it by."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from babel import Locale
from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import SelectChoice

from portal import countries, timezones
from portal.accounts import carrier_settings, invoicing
from portal.accounts.models import Carrier
from portal.accounts.pages.forms import SettingsForm
from portal.accounts.pages.kit import (
    FIELD_LABELS,
    ROLES,
    WORDING,
    admin_bp,
    coded,
    history_of,
    page_context,
)
from portal.accounts.permissions import role_required
from portal.accounts.service import current_carrier_of
from portal.billing import documents, ubl
from portal.errors import ValidationFailed
from portal.unit_of_work import portal_write
from portal.web.kit import current_actor, current_carrier_id, errors_at_fields

# The service's errors of the invoicing details as the page words them, by their code
INVOICING_WORDING = {
    "vat_dutch": _l(
        "Een Nederlands btw-nummer is NL, 9 cijfers, B en 2 cijfers, bijvoorbeeld NL123456789B01."
    ),
    "vat_format": _l(
        "Geen btw-nummer: begin met de landcode en 2 tot 13 letters of cijfers, bijvoorbeeld "
        "DE123456789."
    ),
    "kvk_format": _l("Een KvK-nummer is 8 cijfers, bijvoorbeeld 12345678."),
    "iban_format": _l(
        "Een IBAN begint met een landcode en 2 cijfers, bijvoorbeeld NL91 ABNA 0417 1643 00."
    ),
    "iban_country": _l(
        "Geen IBAN: de eerste twee letters zijn geen landcode van een land met IBAN."
    ),
    "iban_check": _l(
        "Dit IBAN klopt niet: de controlecijfers passen niet bij het nummer. Kijk of er een "
        "tikfout in zit."
    ),
    "email_invalid": _l("Vul een geldig e-mailadres in, bijvoorbeeld facturen@voorbeeld.nl."),
}
PAYMENT_TERM = _l("Een betaaltermijn is 1 tot en met 365 dagen.")
# The invoicing details in the settings' history (the audit trail's field names)
FIELD_LABELS.update(
    {
        "btw_nummer": _l("Btw-nummer"),
        "kvk_nummer": _l("KvK-nummer"),
        "iban": _l("IBAN"),
        "factuur_email": _l("E-mail voor facturen"),
        "betaaltermijn_dagen": _l("Betaaltermijn in dagen"),
        "bewijs_chauffeur": _l("Chauffeur op het bewijs van aflevering"),
    }
)
# What the seller on an e-invoice lacks (ubl.problems, seller_<code>), as the admin fills it in
STILL_NEEDED = {
    "no_vat": _l("btw-nummer"),
    "vat_invalid": _l("btw-nummer"),
    "no_kvk": _l("KvK-nummer"),
    "kvk_invalid": _l("KvK-nummer"),
    "no_endpoint": _l("KvK-nummer"),
    "no_iban": _l("IBAN"),
    "iban_invalid": _l("IBAN"),
    "address_incomplete": _l("straat, postcode en plaats van de thuisbasis"),
    "no_country": _l("land van de thuisbasis"),
    "no_name": _l("naam van de transporteur"),
}


def _countries() -> list[SelectChoice]:
    """Countries an e-invoice may name (ISO 3166-1 and EN 16931's additions), by their name
    in the user's language, NL first."""
    locale = get_locale() or Locale("nl")
    return [SelectChoice("", "—")] + [
        SelectChoice(code, name) for code, name in countries.choices(locale)
    ]


def still_needed(carrier: Carrier) -> list[str]:
    """What the carrier's e-invoices still lack of the seller, in the words of this page.

    Asks the UBL writer's own rules (ubl.problems) about an invoice with the carrier as seller,
    as the billing export makes it, and keeps the seller's codes: the page cannot say
    "complete" while the export refuses."""
    seller = documents.seller(carrier)
    # A standard-rated line: the VAT rules that ask for the seller's VAT number apply.
    line = ubl.Line(
        id="1", naam="-", bedrag=Decimal(1), btw_procent=Decimal(21), datum=date.today()
    )
    invoice = ubl.Invoice(
        nummer="",
        datum=date.today(),
        verkoper=seller,
        koper=seller,
        regels=(line,),
        koper_referentie="",
        iban=carrier.iban,
    )
    codes = {c.removeprefix("seller_") for c in ubl.problems(invoice) if c.startswith("seller_")}
    return list(dict.fromkeys(str(label) for code, label in STILL_NEEDED.items() if code in codes))


def _wording(form: SettingsForm) -> dict:
    """The service's errors as the page words them; an IBAN's length names its country's."""
    iban = invoicing.compact_iban(form.iban.data or "")
    country = iban[:2]
    length = _(
        "Een IBAN uit %(country)s heeft %(expected)d tekens; dit heeft er %(found)d.",
        country=(get_locale() or Locale("nl")).territories.get(country, country),
        expected=invoicing.IBAN_LENGTHS.get(country, 0),
        found=len(iban),
    )
    return {
        **WORDING,
        **INVOICING_WORDING,
        "iban_length": lambda _error: length,
        "out_of_range": _out_of_range,
    }


def _out_of_range(error: dict) -> str:
    if error["field"] == "betaaltermijn_dagen":
        return str(PAYMENT_TERM)
    return error["message"]


def _days(form: SettingsForm) -> int:
    """The payment term as typed; an empty field is the default, 30 days."""
    days = form.betaaltermijn_dagen.data
    return 30 if days is None else days


def _render_settings(form: SettingsForm, status: int = 200, general=()):
    carrier = current_carrier_of(current_carrier_id())
    html = render_template(
        "admin/settings.html",
        **page_context(
            form=form,
            general=list(general),
            still_needed=still_needed(carrier),
            history=history_of("carrier", carrier.id),
        ),
    )
    return make_response(html, status)


@admin_bp.route("/instellingen", methods=["GET", "POST"])
@role_required(*ROLES)
@portal_write
def settings():
    """The carrier's name, time zone, home base address and invoicing details."""
    carrier = current_carrier_of(current_carrier_id())
    form = SettingsForm(obj=carrier if request.method == "GET" else None)
    form.thuisbasis_land.choices = _countries()
    form.tijdzone.choices = timezones.choices(
        str(get_locale() or "nl"),
        form.tijdzone.data if request.method == "POST" else carrier.tijdzone,
    )
    if request.method == "GET":
        if not carrier.thuisbasis_land:
            form.thuisbasis_land.data = "NL"
        return _render_settings(form)
    if not form.validate():
        return _render_settings(form, 422)
    try:
        carrier_settings.update_settings(
            carrier_id=current_carrier_id(),
            settings=carrier_settings.CarrierSettings(
                naam=form.naam.data,
                tijdzone=(form.tijdzone.data or "").strip(),
                thuisbasis_straat=form.thuisbasis_straat.data,
                thuisbasis_postcode=form.thuisbasis_postcode.data,
                thuisbasis_plaats=form.thuisbasis_plaats.data,
                thuisbasis_land=form.thuisbasis_land.data,
                thuisbasis_lat=form.thuisbasis_lat.data,
                thuisbasis_lng=form.thuisbasis_lng.data,
                btw_nummer=form.btw_nummer.data,
                kvk_nummer=form.kvk_nummer.data,
                iban=form.iban.data,
                factuur_email=form.factuur_email.data,
                betaaltermijn_dagen=_days(form),
                bewijs_chauffeur=form.bewijs_chauffeur.data,
            ),
            actor=current_actor(),
        )
    except ValidationFailed as error:
        general = errors_at_fields(form, coded(error.errors), _wording(form))
        return _render_settings(form, 422, general)
    flash(_("De instellingen zijn opgeslagen."))
    return redirect(url_for("admin.settings"), code=303)
