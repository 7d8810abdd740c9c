"""Billing's blueprints and what its pages share: the wording of what an e-invoice lacks, of
the VAT categories and of a credit note's refusals, and the errors of a page without a
form. The billing blueprint serves the lines of a period and their export (lines.py); the
invoices blueprint a batch's invoices, issuing, the stored file and hand prices
(invoices.py), and the list of documents, one document, crediting and the VAT overview
(documents.py); the tariffs blueprint the tariffs (tariffs.py)."""

from __future__ import annotations

from types import SimpleNamespace

from flask import Blueprint
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

billing_bp = Blueprint("billing", __name__)
invoices_bp = Blueprint("invoices", __name__, url_prefix="/facturatie")
tariffs_bp = Blueprint("tariffs", __name__, url_prefix="/facturatie/tarieven")

# What an e-invoice still lacks (ubl.problems codes), as the planner reads it.
PROBLEMS = {
    "seller_no_vat": _l("het btw-nummer van je bedrijf"),
    "seller_vat_invalid": _l("een geldig btw-nummer van je bedrijf"),
    "seller_no_kvk": _l("het KvK-nummer van je bedrijf"),
    "seller_kvk_invalid": _l("een geldig KvK-nummer van je bedrijf"),
    "seller_no_iban": _l("het IBAN van je bedrijf"),
    "seller_iban_invalid": _l("een geldig IBAN van je bedrijf"),
    "seller_no_endpoint": _l("het KvK-nummer van je bedrijf"),
    "seller_address_incomplete": _l("het adres van je bedrijf (straat, postcode en plaats)"),
    "seller_no_name": _l("de naam van je bedrijf"),
    "seller_no_country": _l("het land van je bedrijf"),
    "buyer_vat_invalid": _l("een geldig btw-nummer van de klant"),
    "buyer_kvk_invalid": _l("een geldig KvK-nummer van de klant"),
    "buyer_gln_invalid": _l("een geldig GLN van de klant"),
    "buyer_peppol_id_invalid": _l("een geldig Peppol-ID van de klant"),
    "buyer_address_incomplete": _l("het factuuradres van de klant (straat, postcode en plaats)"),
    "buyer_no_name": _l("de naam van de klant"),
    "buyer_no_country": _l("het land van het factuuradres van de klant"),
    "buyer_no_vat_reverse_charge": _l("het btw-nummer van de klant (btw verlegd)"),
    "buyer_vat_not_in_vies": _l(
        "een btw-nummer van de klant dat VIES als geldig kent (btw verlegd kan anders niet)"
    ),
    "line_vat_invalid": _l("een btw-percentage boven 0 bij het standaardtarief"),
    "line_vat_not_zero": _l("btw 0 procent bij regels met btw verlegd, vrijgesteld of nultarief"),
    "line_zero_no_evidence": _l("het bewijs bij regels met het nultarief (bij het tarief)"),
    "line_exempt_no_reason": _l("de reden bij vrijgestelde regels (bij het tarief)"),
    "line_vat_category_invalid": _l("een geldige btw-categorie bij elke regel"),
    "not_subject_mixed": _l("regels die niet onder de btw vallen op een factuur apart"),
    "line_no_name": _l("een naam bij elke regel"),
    "line_outside_period": _l("regels binnen de periode van de factuur"),
    "no_lines": _l("minstens één regel"),
    "currency_invalid": _l("een valuta uit ISO 4217"),
    "no_due_date": _l("een vervaldatum"),
}
# Why an issued invoice cannot go over Peppol (ubl.peppol_problems), as the page says it.
PEPPOL = {
    "buyer_no_endpoint": _l(
        "de klant heeft geen Peppol-ID, KvK-nummer of GLN: stuur de UBL en de pdf per e-mail"
    ),
    "buyer_no_kvk": _l("het KvK-nummer van de klant ontbreekt (Nederlandse regel NL-R-005)"),
}
VAT_CATEGORIES = {
    "S": _l("Standaard"),
    "Z": _l("Nultarief"),
    "E": _l("Vrijgesteld"),
    "AE": _l("Btw verlegd"),
    "O": _l("Niet onderworpen aan btw"),
}
KIND_LABELS = {"factuur": _l("Factuur"), "creditnota": _l("Creditnota")}
VIES_LABELS = {
    "geldig": _l("geldig in VIES"),
    "ongeldig": _l("niet geldig in VIES"),
    "niet_gecontroleerd": _l("niet gecontroleerd in VIES"),
}
# A credit note's refusals (credit_notes.credit error codes), at their field.
CREDIT_MESSAGES = {
    "required": _l("Schrijf op waarom je crediteert; de klant leest het op de creditnota."),
    "too_long": _l("Dit is te lang."),
    "not_a_number": _l("Vul een bedrag in, bijvoorbeeld 125,50."),
    "negative": _l("Een bedrag kan niet negatief zijn."),
    "cents": _l("Gebruik hoogstens twee decimalen."),
    "more_than_invoiced": _l("Er staat nog %(resterend)s open op deze regel."),
    "not_credited_in_full": _l(
        "Een regel wordt alleen opnieuw gefactureerd als je hem helemaal crediteert."
    ),
    "nothing_to_credit": _l("Kies wat je crediteert: vul bij minstens één regel een bedrag in."),
    "unknown_line": _l("Deze regel hoort niet bij de factuur."),
}


def problem_text(codes) -> str:
    """The codes as one sentence: "Voor een e-factuur is nog nodig: het IBAN van je bedrijf"."""
    parts = [str(PROBLEMS.get(code, code)) for code in codes]
    return _("Voor een e-factuur is nog nodig: %(list)s.", list=", ".join(parts))


def peppol_text(codes) -> str:
    parts = [str(PEPPOL.get(code, code)) for code in codes]
    return _("Niet via Peppol: %(list)s.", list="; ".join(parts))


class FieldErrors(dict):
    """The errors of a page without a WTForm (a credit's lines), by field name, as
    portal.web.kit.errors_at_fields places them: every field the errors name is on it."""

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str)

    def __missing__(self, name: str) -> SimpleNamespace:
        field = self[name] = SimpleNamespace(errors=[])
        return field

    def first(self) -> dict[str, str]:
        """Each field's first error."""
        return {name: field.errors[0] for name, field in self.items() if field.errors}
