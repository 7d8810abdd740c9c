"""The e-invoice as plain values: the parties, lines and documents ubl.py writes, the code
lists it names them by, and what follows from them alone (a line's VAT category, a party's
electronic address, the VAT breakdown and totals, quantity and price). No database, no Flask,
no XML: ubl_checks.py judges these values, ubl.py writes them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from portal.billing.pricing import HUNDRED, cents
from portal.identifiers import GLN_SCHEME, KVK_SCHEME, parse_peppol_id
from portal.identifiers import compact as _compact

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


def _number(value: Decimal) -> str:
    """A Decimal without exponent or trailing zeros: 12.500 -> 12.5, 2E+1 -> 20."""
    return "0" if value == 0 else f"{value.normalize():f}"


def _clean(text: str | None) -> str | None:
    return _NOT_XML.sub("", text).strip() if text else None
