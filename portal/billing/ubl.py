"""An invoice or a credit note as a UBL 2.1 document under Peppol BIS Billing 3.0 (EN 16931): a
pure function over plain dataclasses, no database and no Flask, so it reads and is tested on its
own. docs/einvoice.md cites the rules; tests/billing check every document against the official
EN 16931 rules (XSLT) and the Peppol rules written out from the BIS 3.0 specification.

Choices the rules leave to us, made once here:

- Electronic address (cbc:EndpointID) as Peppol routes it: the party's Peppol participant id
  (`scheme:id`) when it has one, else its KvK number (scheme 0106), else its GLN (0088); a
  seller without any of them by its VAT number under its country's scheme (NL 9944, ...). A
  buyer without one gets a document without an EndpointID: valid EN 16931, sent by e-mail,
  not over Peppol (`peppol_problems` says so: `buyer_no_endpoint`).
- VAT categories as EN 16931 defines them (UNCL 5305): `S` standard (rate above 0), `Z` zero
  rate (transport directly linked to export or import; the line names its evidence), `E`
  exempt (with the reason), `AE` reverse charge (the buyer's VAT number on the invoice, the
  exemption reason "Btw verlegd", code VATEX-EU-AE), `O` not subject to VAT (no VAT numbers
  on the document, no rate, VATEX-EU-O; an invoice with O lines holds nothing else). A line
  without a category is S above 0% and Z at 0%.
- VAT is computed per category and rate, as EN 16931 does (BR-CO-17): the rate applied to
  the sum of the lines at that rate, rounded half up to the cent, not the sum of per-line VAT.
- Quantity and price: the line's quantity in its UNECE Rec 20 unit, priced at amount /
  quantity when that is exact to 4 decimals, so that quantity x price is the line amount
  (PEPPOL-EN16931-R120). Otherwise (or with no quantity) the line is 1 C62 (one) at the line
  amount and the real quantity and unit go in the line's note. A quantity of 0 stays 0, at the
  tariff's price; an amount on it (a minimum) is a line charge. A negative amount keeps the
  price positive and makes the quantity negative (BR-27).
- Units: free text mapped to Rec 20 by `unit_code`; an unknown unit is C62 (one).
- A credit note (UBL CreditNote, type 381) refers to the invoice it corrects
  (BillingReference, NL-R-001); its amounts are positive; instead of a due date it says in its
  payment terms that the amount is paid back or set off.
- Dutch rules (NL-R-002/003/004/007): a Dutch address needs street, postcode and city, a
  Dutch seller a KvK number and an IBAN. Everything the rules need and the document lacks is
  reported at once as codes (`problems`), for the caller to show.

The XML is written with the standard library's ElementTree (lxml is only for tests). Tags
carry their `cac:`/`cbc:` prefixes literally and the root declares them, so the output has
the usual prefixes without touching ElementTree's global namespace registry.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from portal import countries
from portal.billing.pricing import HUNDRED, cents
from portal.identifiers import (
    GLN_SCHEME,
    KVK_SCHEME,
    gln_valid,
    parse_peppol_id,
)
from portal.identifiers import (
    compact as _compact,
)

CUSTOMIZATION_ID = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0"
PROFILE_ID = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0"
INVOICE_NS = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
CREDIT_NOTE_NS = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
COMMON_NS = {
    "xmlns:cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "xmlns:cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
}
NAMESPACES = {"xmlns": INVOICE_NS, **COMMON_NS}
# Peppol EAS schemes for VAT numbers, by the number's prefix (Greece writes EL)
VAT_SCHEMES = {
    "AD": "9922", "AL": "9923", "BA": "9924", "BE": "9925", "BG": "9926", "CH": "9927",
    "CY": "9928", "CZ": "9929", "DE": "9930", "EE": "9931", "GB": "9932", "EL": "9933",
    "GR": "9933", "HR": "9934", "IE": "9935", "LI": "9936", "LT": "9937", "LU": "9938",
    "LV": "9939", "MC": "9940", "ME": "9941", "MK": "9942", "MT": "9943", "NL": "9944",
    "PL": "9945", "PT": "9946", "RO": "9947", "RS": "9948", "SI": "9949", "SK": "9950",
    "SM": "9951", "TR": "9952", "VA": "9953", "FR": "9957",
}  # fmt: skip
# UNECE Recommendation 20 codes for the units planners type (normalised: lower case, m3)
UNIT_CODES = {
    **dict.fromkeys(["ton", "tonne", "tonnes", "t"], "TNE"),
    **dict.fromkeys(["kg", "kilo", "kilogram"], "KGM"),
    **dict.fromkeys(["m3", "kuub", "kubiekemeter"], "MTQ"),
    **dict.fromkeys(["m2", "vierkantemeter"], "MTK"),
    **dict.fromkeys(["m", "meter"], "MTR"),
    **dict.fromkeys(["l", "liter", "litre", "liters"], "LTR"),
    **dict.fromkeys(["uur", "uren", "u", "hour", "hours", "h"], "HUR"),
    **dict.fromkeys(["min", "minuut", "minuten"], "MIN"),
    **dict.fromkeys(["dag", "dagen", "day", "days"], "DAY"),
    **dict.fromkeys(["km", "kilometer", "kilometers"], "KMT"),
    **dict.fromkeys(["stuks", "stuk", "st", "pcs", "piece", "pieces"], "H87"),
    **dict.fromkeys(["vracht", "vrachten", "rit", "ritten", "load", "loads"], "C62"),
}
ONE = "C62"
PRICE_STEP = Decimal("0.0001")
# VAT categories (UNCL 5305 as EN 16931 uses them) in the order a breakdown lists them
CATEGORIES = ("S", "Z", "E", "AE", "O")
ZERO_RATED = ("Z", "E", "AE")  # rate 0 on the document
NEEDS_REASON = ("E", "AE", "O")  # BR-E-10, BR-AE-10, BR-O-10
EXEMPTION_CODES = {"AE": "VATEX-EU-AE", "O": "VATEX-EU-O"}
DEFAULT_REASONS = {"AE": "Btw verlegd", "O": "Niet onderworpen aan btw in Nederland"}
MINIMUM_CHARGE = "Minimumbedrag"
# Characters XML 1.0 cannot carry at all; pasted text sometimes holds them
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True, kw_only=True)
class Party:
    """The seller (the carrier) or the buyer (its customer)."""

    naam: str
    land: str  # ISO 3166-1 alpha-2 (EN 16931's list)
    btw_nummer: str | None = None  # with its country prefix, e.g. NL123456789B01
    kvk_nummer: str | None = None  # 8 digits
    adres: str | None = None  # street and number
    postcode: str | None = None
    stad: str | None = None
    email: str | None = None
    gln: str | None = None  # 13 digits, GS1 check digit
    peppol_id: str | None = None  # scheme:id, e.g. 0106:12345678


@dataclass(frozen=True, kw_only=True)
class Line:
    """One line: work done on one day (on a credit note: what of an invoice line is credited)."""

    id: str
    naam: str  # item name: task and activity
    bedrag: Decimal  # net amount, in cents
    btw_procent: Decimal | None  # none for category O
    datum: date  # the day the work was done
    hoeveelheid: Decimal | None = None
    eenheid: str | None = None  # free text: ton, m3, m³, vracht, uur, km, stuks, ...
    omschrijving: str | None = None
    prijs: Decimal | None = None  # the tariff's price per unit, when known
    btw_categorie: str | None = None  # S, Z, E, AE, O; none: S above 0%, Z at 0%
    btw_vrijstellingsreden: str | None = None  # E, AE, O: why no VAT; Z: the evidence
    notitie: str | None = None


@dataclass(frozen=True, kw_only=True)
class Reference:
    """The invoice a credit note corrects."""

    nummer: str
    datum: date


@dataclass(frozen=True, kw_only=True)
class Invoice:
    nummer: str
    datum: date
    verkoper: Party
    koper: Party
    regels: Sequence[Line]
    koper_referentie: str  # BT-10, required by Peppol: the customer's reference or debtor no.
    vervaldatum: date | None = None
    periode_van: date | None = None
    periode_tot: date | None = None
    iban: str | None = None
    betaalreferentie: str | None = None  # what the customer quotes when paying
    betaalvoorwaarden: str | None = None  # free text payment terms
    valuta: str = "EUR"
    soort: str = "factuur"  # or "creditnota"
    gecrediteerd: Reference | None = None  # a credit note: the invoice it corrects

    @property
    def is_creditnota(self) -> bool:
        return self.soort == "creditnota"


@dataclass(frozen=True)
class Subtotal:
    """One row of the VAT breakdown: a category at a rate, its base, its VAT, its reason."""

    categorie: str
    procent: Decimal | None
    grondslag: Decimal
    btw: Decimal
    reden: str | None = None
    reden_code: str | None = None


class InvoiceError(ValueError):
    """The document cannot be made; `codes` say why, for the caller to show."""

    def __init__(self, codes: Sequence[str]):
        self.codes = tuple(codes)
        super().__init__("invoice cannot be made: " + ", ".join(self.codes))

    @property
    def code(self) -> str:
        return self.codes[0]


def unit_code(unit: str | None) -> str:
    """The UNECE Rec 20 code for a free-text unit; C62 (one) for an unknown or missing unit."""
    key = (unit or "").strip().lower().replace("³", "3").replace("²", "2").replace(" ", "")
    return UNIT_CODES.get(key.rstrip("."), ONE)


def category(line: Line) -> str:
    """The line's VAT category: its own, else S above 0% and Z at 0%."""
    if line.btw_categorie:
        return line.btw_categorie
    return "S" if (line.btw_procent or 0) > 0 else "Z"


def endpoint_id(party: Party, *, seller: bool = False) -> tuple[str, str] | None:
    """The party's Peppol address as (scheme, id): its participant id, KvK (0106), GLN (0088);
    a seller's VAT number under its country's scheme; else None."""
    peppol = parse_peppol_id(party.peppol_id)
    if peppol:
        return peppol
    kvk = _compact(party.kvk_nummer)
    if kvk:
        return KVK_SCHEME, kvk
    gln = _compact(party.gln)
    if gln:
        return GLN_SCHEME, gln
    vat = _compact(party.btw_nummer)
    if seller and vat and vat[:2] in VAT_SCHEMES:
        return VAT_SCHEMES[vat[:2]], vat
    return None


def vat_breakdown(lines: Sequence[Line]) -> list[Subtotal]:
    """Per category and rate, in CATEGORIES order and highest rate first: the taxable amount,
    its VAT rounded half up to the cent, and why there is none (E, AE, O)."""
    groups: dict[tuple[str, Decimal | None], list[Line]] = {}
    for line in lines:
        cat = category(line)
        rate = None if cat == "O" else (line.btw_procent or Decimal(0)).normalize()
        groups.setdefault((cat, rate), []).append(line)
    rows = []
    for (cat, rate), members in groups.items():
        base = sum((cents(line.bedrag) for line in members), Decimal(0))
        vat = cents(base * rate / HUNDRED) if cat == "S" and rate else Decimal("0.00")
        reasons = [r for r in dict.fromkeys(_clean(m.btw_vrijstellingsreden) for m in members) if r]
        reason = None
        if cat in NEEDS_REASON:
            reason = "; ".join(reasons) or DEFAULT_REASONS.get(cat)
        rows.append(Subtotal(cat, rate, base, vat, reason, EXEMPTION_CODES.get(cat)))
    order = {cat: index for index, cat in enumerate(CATEGORIES)}
    return sorted(rows, key=lambda r: (order.get(r.categorie, 9), -(r.procent or 0)))


def totals(lines: Sequence[Line]) -> tuple[Decimal, Decimal]:
    """(net, VAT) of the lines as the document states them."""
    net = sum((cents(line.bedrag) for line in lines), Decimal(0))
    return net, sum((row.btw for row in vat_breakdown(lines)), Decimal(0))


def quantity_and_price(line: Line) -> tuple[Decimal, str, Decimal, str | None]:
    """(quantity, unit code, price, note) with quantity x price, rounded to the cent, the
    line's amount (as Peppol checks it); else 1 x C62 at the amount, the quantity in the note.
    A quantity of 0 stays 0 at the tariff's price (an amount on it is a line charge)."""
    amount = cents(line.bedrag)
    quantity = line.hoeveelheid
    note = None
    if quantity == 0:
        return Decimal(0), unit_code(line.eenheid), abs(line.prijs or Decimal(0)), None
    if quantity:
        price = (amount / quantity).quantize(PRICE_STEP, rounding=ROUND_HALF_UP)
        # PEPPOL-EN16931-R120: quantity x price, rounded to the cent, is the line amount.
        if cents(price * quantity) == amount:
            if price < 0:
                quantity, price = -quantity, -price
            return quantity, unit_code(line.eenheid), price, None
        note = f"{_number(quantity).replace('.', ',')} {_clean(line.eenheid) or ''}".strip()
    return Decimal(-1 if amount < 0 else 1), ONE, abs(amount), note


def problems(invoice: Invoice) -> tuple[str, ...]:
    """Codes for what the document needs and lacks (EN 16931, the Dutch rules, the law);
    empty when it can be made."""
    found: list[str] = []
    lines = invoice.regels
    if not lines:
        found.append("no_lines")
    if not _clean(invoice.nummer):
        found.append("no_number")
    if not _clean(invoice.koper_referentie):
        found.append("no_buyer_reference")
    if not countries.is_currency((invoice.valuta or "").upper()):
        found.append("currency_invalid")  # BR-CL-04, ISO 4217
    start, end = invoice.periode_van, invoice.periode_tot
    if start and end and start > end:
        found.append("period_reversed")
    if any((start and line.datum < start) or (end and line.datum > end) for line in lines):
        found.append("line_outside_period")  # PEPPOL-EN16931-R110/R111
    if invoice.is_creditnota and not invoice.gecrediteerd:
        found.append("no_invoice_reference")  # NL-R-001
    net, vat = totals(lines)
    if (
        not invoice.is_creditnota
        and net + vat > 0
        and not invoice.vervaldatum
        and not _clean(invoice.betaalvoorwaarden)
    ):
        found.append("no_due_date")  # BR-CO-25
    if any(not _clean(line.naam) for line in lines):
        found.append("line_no_name")
    found += _category_problems(invoice)
    for role, party in (("seller", invoice.verkoper), ("buyer", invoice.koper)):
        found += [f"{role}_{code}" for code in _party_problems(party, seller=role == "seller")]
    seller = invoice.verkoper
    if (seller.land or "").upper() == "NL":
        if not _compact(seller.kvk_nummer):
            found.append("seller_no_kvk")  # NL-R-003
        if not invoice.is_creditnota and not _compact(invoice.iban):
            found.append("seller_no_iban")  # NL-R-007: a way to pay
    if _compact(invoice.iban) and not _iban_valid(_compact(invoice.iban)):
        found.append("seller_iban_invalid")
    return tuple(dict.fromkeys(found))


def peppol_problems(invoice: Invoice) -> tuple[str, ...]:
    """What keeps a document that can be made from going over Peppol (it goes by e-mail)."""
    found = []
    if endpoint_id(invoice.koper) is None:
        found.append("buyer_no_endpoint")  # PEPPOL-EN16931-R010
    dutch = (invoice.verkoper.land or "").upper() == (invoice.koper.land or "").upper() == "NL"
    if dutch and not _compact(invoice.koper.kvk_nummer):
        found.append("buyer_no_kvk")  # NL-R-005
    return tuple(found)


def _category_problems(invoice: Invoice) -> list[str]:
    found = []
    cats = {category(line) for line in invoice.regels}
    for line in invoice.regels:
        cat, rate = category(line), line.btw_procent
        if cat not in CATEGORIES:
            found.append("line_vat_category_invalid")
        elif cat == "S" and not (rate is not None and 0 < rate <= HUNDRED):
            found.append("line_vat_invalid")  # BR-S-05
        elif cat in ZERO_RATED and rate not in (None, 0):
            found.append("line_vat_not_zero")  # BR-Z-05, BR-E-05, BR-AE-05
        elif cat == "Z" and not _clean(line.btw_vrijstellingsreden):
            found.append("line_zero_no_evidence")
        elif cat == "E" and not _clean(line.btw_vrijstellingsreden):
            found.append("line_exempt_no_reason")  # BR-E-10
    if "O" in cats and len(cats) > 1:
        found.append("not_subject_mixed")  # BR-O-11..14
    if cats - {"O"} and not _compact(invoice.verkoper.btw_nummer):
        found.append("seller_no_vat")  # BR-S-02, BR-Z-02, BR-E-02, BR-AE-02
    if "AE" in cats and not _compact(invoice.koper.btw_nummer):
        found.append("buyer_no_vat_reverse_charge")  # BR-AE-02
    return found


def document_xml(invoice: Invoice) -> bytes:
    """The invoice as a UBL 2.1 Invoice (or the credit note as a CreditNote) document, UTF-8
    with declaration; InvoiceError if it lacks what EN 16931 and the Dutch rules require."""
    found = problems(invoice)
    if found:
        raise InvoiceError(found)
    credit = invoice.is_creditnota
    currency = invoice.valuta.upper()
    only_o = {category(line) for line in invoice.regels} == {"O"}
    root = ET.Element(
        "CreditNote" if credit else "Invoice",
        {"xmlns": CREDIT_NOTE_NS if credit else INVOICE_NS, **COMMON_NS},
    )
    _text(root, "cbc:CustomizationID", CUSTOMIZATION_ID)
    _text(root, "cbc:ProfileID", PROFILE_ID)
    _text(root, "cbc:ID", invoice.nummer)
    _text(root, "cbc:IssueDate", invoice.datum.isoformat())
    if invoice.vervaldatum and not credit:
        _text(root, "cbc:DueDate", invoice.vervaldatum.isoformat())
    if credit:
        _text(root, "cbc:CreditNoteTypeCode", "381")
    else:
        _text(root, "cbc:InvoiceTypeCode", "380")  # commercial invoice
    _text(root, "cbc:DocumentCurrencyCode", currency)
    _text(root, "cbc:BuyerReference", invoice.koper_referentie)
    if invoice.periode_van or invoice.periode_tot:
        _period(root, invoice.periode_van, invoice.periode_tot)
    if invoice.gecrediteerd:
        reference = _add(_add(root, "cac:BillingReference"), "cac:InvoiceDocumentReference")
        _text(reference, "cbc:ID", invoice.gecrediteerd.nummer)
        _text(reference, "cbc:IssueDate", invoice.gecrediteerd.datum.isoformat())
    _party(root, "cac:AccountingSupplierParty", invoice.verkoper, seller=True, vat=not only_o)
    _party(root, "cac:AccountingCustomerParty", invoice.koper, seller=False, vat=not only_o)
    if _compact(invoice.iban) and not credit:
        means = _add(root, "cac:PaymentMeans")
        _text(means, "cbc:PaymentMeansCode", "58")  # SEPA credit transfer
        _text(means, "cbc:PaymentID", invoice.betaalreferentie)
        account = _add(means, "cac:PayeeFinancialAccount")
        _text(account, "cbc:ID", _compact(invoice.iban))
    terms = _clean(invoice.betaalvoorwaarden)
    if credit and not terms:
        terms = f"Creditering van factuur {invoice.gecrediteerd.nummer}: terugbetaald of verrekend."
    if terms:
        _text(_add(root, "cac:PaymentTerms"), "cbc:Note", terms)

    breakdown = vat_breakdown(invoice.regels)
    net, vat = totals(invoice.regels)
    tax_total = _add(root, "cac:TaxTotal")
    _amount(tax_total, "cbc:TaxAmount", vat, currency)
    for row in breakdown:
        subtotal = _add(tax_total, "cac:TaxSubtotal")
        _amount(subtotal, "cbc:TaxableAmount", row.grondslag, currency)
        _amount(subtotal, "cbc:TaxAmount", row.btw, currency)
        _tax_category(subtotal, "cac:TaxCategory", row.categorie, row.procent, row)
    totals_node = _add(root, "cac:LegalMonetaryTotal")
    _amount(totals_node, "cbc:LineExtensionAmount", net, currency)
    _amount(totals_node, "cbc:TaxExclusiveAmount", net, currency)
    _amount(totals_node, "cbc:TaxInclusiveAmount", net + vat, currency)
    _amount(totals_node, "cbc:PayableAmount", net + vat, currency)

    for line in invoice.regels:
        _line(root, line, currency, credit=credit)
    ET.indent(root)
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


# The name callers and tests have used for an invoice; a credit note goes through it as well.
invoice_xml = document_xml


def _party_problems(party: Party, *, seller: bool) -> list[str]:
    found = []
    if not _clean(party.naam):
        found.append("no_name")
    if not countries.is_country((party.land or "").upper()):
        found.append("no_country")  # BR-CL-14
    if seller and endpoint_id(party, seller=True) is None:
        found.append("no_endpoint")  # PEPPOL-EN16931-R020
    if party.peppol_id and parse_peppol_id(party.peppol_id) is None:
        found.append("peppol_id_invalid")  # PEPPOL-EN16931-CL008
    kvk = _compact(party.kvk_nummer)
    if kvk and not re.fullmatch(r"\d{8}", kvk):
        found.append("kvk_invalid")
    if _compact(party.gln) and not gln_valid(_compact(party.gln)):
        found.append("gln_invalid")  # PEPPOL-COMMON-R040
    vat = _compact(party.btw_nummer)
    if vat and not re.fullmatch(r"[A-Z]{2}[0-9A-Z+*]{2,13}", vat):
        found.append("vat_invalid")  # BR-CO-09: a country prefix
    dutch = (party.land or "").upper() == "NL"
    if dutch and not all(_clean(v) for v in (party.adres, party.postcode, party.stad)):
        found.append("address_incomplete")  # NL-R-002, NL-R-004
    return found


def _iban_valid(iban: str) -> bool:
    """Whether iban is shaped like one and its check digits hold (ISO 13616, mod 97)."""
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", iban):
        return False
    return int("".join(str(int(c, 36)) for c in iban[4:] + iban[:4])) % 97 == 1


def _party(parent: ET.Element, tag: str, party: Party, *, seller: bool, vat: bool) -> None:
    node = _add(_add(parent, tag), "cac:Party")
    endpoint = endpoint_id(party, seller=seller)
    if endpoint:
        _text(node, "cbc:EndpointID", endpoint[1], schemeID=endpoint[0])
    address = _add(node, "cac:PostalAddress")
    _text(address, "cbc:StreetName", party.adres)
    _text(address, "cbc:CityName", party.stad)
    _text(address, "cbc:PostalZone", party.postcode)
    _text(_add(address, "cac:Country"), "cbc:IdentificationCode", party.land.upper())
    number = _compact(party.btw_nummer)
    if number and vat:
        tax_scheme = _add(node, "cac:PartyTaxScheme")
        _text(tax_scheme, "cbc:CompanyID", number)
        _text(_add(tax_scheme, "cac:TaxScheme"), "cbc:ID", "VAT")
    legal = _add(node, "cac:PartyLegalEntity")
    _text(legal, "cbc:RegistrationName", party.naam)
    kvk = _compact(party.kvk_nummer)
    if kvk:
        _text(legal, "cbc:CompanyID", kvk, schemeID=KVK_SCHEME)
    if _clean(party.email):
        _text(_add(node, "cac:Contact"), "cbc:ElectronicMail", party.email)


def _line(parent: ET.Element, line: Line, currency: str, *, credit: bool) -> None:
    quantity, unit, price, note = quantity_and_price(line)
    notes = [n for n in (_clean(line.notitie), note) if n]
    if category(line) == "Z" and _clean(line.btw_vrijstellingsreden):
        notes.append(f"Btw 0%: {_clean(line.btw_vrijstellingsreden)}")
    node = _add(parent, "cac:CreditNoteLine" if credit else "cac:InvoiceLine")
    _text(node, "cbc:ID", line.id)
    _text(node, "cbc:Note", "; ".join(notes) or None)
    _text(
        node,
        "cbc:CreditedQuantity" if credit else "cbc:InvoicedQuantity",
        _number(quantity),
        unitCode=unit,
    )
    _amount(node, "cbc:LineExtensionAmount", line.bedrag, currency)
    _period(node, line.datum, line.datum)
    amount = cents(line.bedrag)
    if quantity == 0 and amount != 0:
        # Nothing delivered and still an amount (a minimum): a line charge keeps R120 true.
        charge = _add(node, "cac:AllowanceCharge")
        _text(charge, "cbc:ChargeIndicator", "true" if amount > 0 else "false")
        _text(charge, "cbc:AllowanceChargeReason", MINIMUM_CHARGE)
        _amount(charge, "cbc:Amount", abs(amount), currency)
    item = _add(node, "cac:Item")
    _text(item, "cbc:Description", line.omschrijving)
    _text(item, "cbc:Name", line.naam)
    cat = category(line)
    _tax_category(item, "cac:ClassifiedTaxCategory", cat, _line_rate(line, cat), None)
    price_node = _add(node, "cac:Price")
    text = _number(price) if price != cents(price) else f"{cents(price):f}"
    _text(price_node, "cbc:PriceAmount", text, currencyID=currency)


def _line_rate(line: Line, cat: str) -> Decimal | None:
    if cat == "O":
        return None
    if cat in ZERO_RATED:
        return Decimal(0)
    return line.btw_procent


def _tax_category(
    parent: ET.Element, tag: str, cat: str, rate: Decimal | None, row: Subtotal | None
) -> None:
    node = _add(parent, tag)
    _text(node, "cbc:ID", cat)
    if cat != "O":  # BR-O-05, BR-O-09: no rate where no VAT applies
        _text(node, "cbc:Percent", _number(rate or Decimal(0)))
    if row is not None and row.categorie in NEEDS_REASON:
        _text(node, "cbc:TaxExemptionReasonCode", row.reden_code)
        _text(node, "cbc:TaxExemptionReason", row.reden)
    _text(_add(node, "cac:TaxScheme"), "cbc:ID", "VAT")


def _period(parent: ET.Element, start: date | None, end: date | None) -> None:
    period = _add(parent, "cac:InvoicePeriod")
    _text(period, "cbc:StartDate", start.isoformat() if start else None)
    _text(period, "cbc:EndDate", end.isoformat() if end else None)


def _amount(parent: ET.Element, tag: str, amount: Decimal, currency: str) -> None:
    _text(parent, tag, f"{cents(amount):f}", currencyID=currency)


def _add(parent: ET.Element, tag: str) -> ET.Element:
    """An aggregate child element (cac:...), to fill."""
    return ET.SubElement(parent, tag)


def _text(parent: ET.Element, tag: str, text: str | None, **attributes: str) -> None:
    """A basic child element holding text; none for blank text (Peppol forbids empty ones)."""
    text = _clean(text)
    if text:
        ET.SubElement(parent, tag, attributes).text = text


def _number(value: Decimal) -> str:
    """A Decimal without exponent or trailing zeros: 12.500 -> 12.5, 2E+1 -> 20."""
    return "0" if value == 0 else f"{value.normalize():f}"


def _clean(text: str | None) -> str | None:
    return _NOT_XML.sub("", text).strip() if text else None
