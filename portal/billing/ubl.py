"""An invoice as a UBL 2.1 document under Peppol BIS Billing 3.0 (EN 16931): a pure function
over plain dataclasses, no database and no Flask, so it reads and is tested on its own.

Choices the rules leave to us, made once here:

- Electronic address (cbc:EndpointID, required for seller and buyer): the KvK number under
  scheme 0106 when the party has one, else the VAT number under its country's VAT scheme
  (NL 9944, BE 9925, DE 9930, FR 9957, ...). A party with neither cannot be addressed on
  Peppol: `invoice_xml` refuses with code `<role>_no_endpoint`.
- VAT category per rate: `S` (standard) for a rate above 0, `Z` (zero rated) for 0%. Exempt
  (E) and reverse-charged (AE) work cannot be told from a rate and needs a category on the
  line first; until then 0% is zero rated.
- VAT is computed per category, as EN 16931 does (BR-CO-17): the rate applied to the sum of
  the lines at that rate, rounded half up to the cent, not the sum of per-line VAT.
- Quantity and price: the line's quantity in its UNECE Rec 20 unit, priced at amount /
  quantity when that is exact to 4 decimals, so that quantity x price is the line amount.
  Otherwise (or with no quantity) the line is 1 C62 (one) at the line amount and the real
  quantity and unit go in the line's note. A negative amount keeps the price positive and
  makes the quantity negative (BR-27).
- Units: free text mapped to Rec 20 by `unit_code`; an unknown unit is C62 (one).
- Dutch rules (NL-R-002/003/004/007): a Dutch address needs street, postcode and city, a
  Dutch seller a KvK number and an IBAN. Everything the rules need and the invoice lacks is
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

from portal.billing.pricing import HUNDRED, cents

CUSTOMIZATION_ID = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0"
PROFILE_ID = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0"
NAMESPACES = {
    "xmlns": "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
    "xmlns:cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "xmlns:cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
}
KVK_SCHEME = "0106"  # ISO 6523 ICD / Peppol EAS: Dutch chamber of commerce (KvK)
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
# Characters XML 1.0 cannot carry at all; pasted text sometimes holds them
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True, kw_only=True)
class Party:
    """The seller (the carrier) or the buyer (its customer)."""

    naam: str
    land: str  # ISO 3166-1 alpha-2
    btw_nummer: str | None = None  # with its country prefix, e.g. NL123456789B01
    kvk_nummer: str | None = None  # 8 digits
    adres: str | None = None  # street and number
    postcode: str | None = None
    stad: str | None = None
    email: str | None = None


@dataclass(frozen=True, kw_only=True)
class Line:
    """One invoice line: work done on one day."""

    id: str
    naam: str  # item name: task and activity
    bedrag: Decimal  # net amount, in cents
    btw_procent: Decimal
    datum: date  # the day the work was done
    hoeveelheid: Decimal | None = None
    eenheid: str | None = None  # free text: ton, m3, m³, vracht, uur, km, stuks, ...
    omschrijving: str | None = None


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


class InvoiceError(ValueError):
    """The invoice cannot be made a Peppol document; `codes` say why, for the caller to show."""

    def __init__(self, codes: Sequence[str]):
        self.codes = tuple(codes)
        super().__init__("invoice cannot be sent by Peppol: " + ", ".join(self.codes))

    @property
    def code(self) -> str:
        return self.codes[0]


def unit_code(unit: str | None) -> str:
    """The UNECE Rec 20 code for a free-text unit; C62 (one) for an unknown or missing unit."""
    key = (unit or "").strip().lower().replace("³", "3").replace("²", "2").replace(" ", "")
    return UNIT_CODES.get(key.rstrip("."), ONE)


def endpoint_id(party: Party) -> tuple[str, str] | None:
    """The party's Peppol address as (scheme, id): KvK (0106), else VAT number, else None."""
    kvk = _compact(party.kvk_nummer)
    if kvk:
        return KVK_SCHEME, kvk
    vat = _compact(party.btw_nummer)
    if vat and vat[:2] in VAT_SCHEMES:
        return VAT_SCHEMES[vat[:2]], vat
    return None


def vat_breakdown(lines: Sequence[Line]) -> list[tuple[Decimal, Decimal, Decimal]]:
    """Per VAT rate, highest first: (rate, taxable amount, VAT rounded half up to the cent)."""
    taxable: dict[Decimal, Decimal] = {}
    for line in lines:
        rate = line.btw_procent.normalize()
        taxable[rate] = taxable.get(rate, Decimal(0)) + cents(line.bedrag)
    return [
        (rate, amount, cents(amount * rate / HUNDRED))
        for rate, amount in sorted(taxable.items(), reverse=True)
    ]


def quantity_and_price(line: Line) -> tuple[Decimal, str, Decimal, str | None]:
    """(quantity, unit code, price, note) with quantity x price, rounded to the cent, the
    line's amount (as Peppol checks it); else 1 x C62 at the amount, the quantity in the note."""
    amount = cents(line.bedrag)
    quantity = line.hoeveelheid
    note = None
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
    """Codes for what Peppol requires and the invoice lacks; empty when it can be sent."""
    found: list[str] = []
    if not invoice.regels:
        found.append("no_lines")
    if not _clean(invoice.nummer):
        found.append("no_number")
    if not _clean(invoice.koper_referentie):
        found.append("no_buyer_reference")
    if not re.fullmatch(r"[A-Za-z]{3}", invoice.valuta or ""):
        found.append("currency_invalid")
    start, end = invoice.periode_van, invoice.periode_tot
    if start and end and start > end:
        found.append("period_reversed")
    if any((start and line.datum < start) or (end and line.datum > end) for line in invoice.regels):
        found.append("line_outside_period")  # PEPPOL-EN16931-R110/R111
    payable = sum((cents(line.bedrag) for line in invoice.regels), Decimal(0)) + sum(
        (vat for _, _, vat in vat_breakdown(invoice.regels)), Decimal(0)
    )
    if payable > 0 and not invoice.vervaldatum and not _clean(invoice.betaalvoorwaarden):
        found.append("no_due_date")  # BR-CO-25
    if any(not _clean(line.naam) for line in invoice.regels):
        found.append("line_no_name")
    if any(not 0 <= line.btw_procent <= HUNDRED for line in invoice.regels):
        found.append("line_vat_invalid")
    for role, party in (("seller", invoice.verkoper), ("buyer", invoice.koper)):
        found += [f"{role}_{code}" for code in _party_problems(party)]
    seller = invoice.verkoper
    if not _compact(seller.btw_nummer):
        found.append("seller_no_vat")  # BR-S-02, BR-Z-02
    if (seller.land or "").upper() == "NL":
        if not _compact(seller.kvk_nummer):
            found.append("seller_no_kvk")
        if not _compact(invoice.iban):
            found.append("seller_no_iban")  # NL-R-007: a way to pay
    if _compact(invoice.iban) and not _iban_valid(_compact(invoice.iban)):
        found.append("seller_iban_invalid")
    return tuple(dict.fromkeys(found))


def invoice_xml(invoice: Invoice) -> bytes:
    """The invoice as a UBL 2.1 Invoice document (UTF-8, with declaration); InvoiceError if
    it lacks what Peppol BIS Billing 3.0 requires."""
    found = problems(invoice)
    if found:
        raise InvoiceError(found)
    currency = invoice.valuta.upper()
    root = ET.Element("Invoice", NAMESPACES)
    _text(root, "cbc:CustomizationID", CUSTOMIZATION_ID)
    _text(root, "cbc:ProfileID", PROFILE_ID)
    _text(root, "cbc:ID", invoice.nummer)
    _text(root, "cbc:IssueDate", invoice.datum.isoformat())
    if invoice.vervaldatum:
        _text(root, "cbc:DueDate", invoice.vervaldatum.isoformat())
    _text(root, "cbc:InvoiceTypeCode", "380")  # commercial invoice
    _text(root, "cbc:DocumentCurrencyCode", currency)
    _text(root, "cbc:BuyerReference", invoice.koper_referentie)
    if invoice.periode_van or invoice.periode_tot:
        _period(root, invoice.periode_van, invoice.periode_tot)
    _party(root, "cac:AccountingSupplierParty", invoice.verkoper)
    _party(root, "cac:AccountingCustomerParty", invoice.koper)
    if _compact(invoice.iban):
        means = _add(root, "cac:PaymentMeans")
        _text(means, "cbc:PaymentMeansCode", "58")  # SEPA credit transfer
        _text(means, "cbc:PaymentID", invoice.betaalreferentie)
        account = _add(means, "cac:PayeeFinancialAccount")
        _text(account, "cbc:ID", _compact(invoice.iban))
    if _clean(invoice.betaalvoorwaarden):
        _text(_add(root, "cac:PaymentTerms"), "cbc:Note", invoice.betaalvoorwaarden)

    breakdown = vat_breakdown(invoice.regels)
    net = sum((cents(line.bedrag) for line in invoice.regels), Decimal(0))
    vat = sum((amount for _, _, amount in breakdown), Decimal(0))
    tax_total = _add(root, "cac:TaxTotal")
    _amount(tax_total, "cbc:TaxAmount", vat, currency)
    for rate, taxable, amount in breakdown:
        subtotal = _add(tax_total, "cac:TaxSubtotal")
        _amount(subtotal, "cbc:TaxableAmount", taxable, currency)
        _amount(subtotal, "cbc:TaxAmount", amount, currency)
        _tax_category(subtotal, "cac:TaxCategory", rate)
    totals = _add(root, "cac:LegalMonetaryTotal")
    _amount(totals, "cbc:LineExtensionAmount", net, currency)
    _amount(totals, "cbc:TaxExclusiveAmount", net, currency)
    _amount(totals, "cbc:TaxInclusiveAmount", net + vat, currency)
    _amount(totals, "cbc:PayableAmount", net + vat, currency)

    for line in invoice.regels:
        _line(root, line, currency)
    ET.indent(root)
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


def _party_problems(party: Party) -> list[str]:
    found = []
    if not _clean(party.naam):
        found.append("no_name")
    if not re.fullmatch(r"[A-Za-z]{2}", party.land or ""):
        found.append("no_country")
    if endpoint_id(party) is None:
        found.append("no_endpoint")
    kvk = _compact(party.kvk_nummer)
    if kvk and not re.fullmatch(r"\d{8}", kvk):
        found.append("kvk_invalid")
    vat = _compact(party.btw_nummer)
    if vat and not re.fullmatch(r"[A-Z]{2}[0-9A-Z+*]{2,13}", vat):
        found.append("vat_invalid")  # BR-CO-09: a country prefix
    dutch = (party.land or "").upper() == "NL"
    if dutch and not all(_clean(v) for v in (party.adres, party.postcode, party.stad)):
        found.append("address_incomplete")
    return found


def _iban_valid(iban: str) -> bool:
    """Whether iban is shaped like one and its check digits hold (ISO 13616, mod 97)."""
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", iban):
        return False
    return int("".join(str(int(c, 36)) for c in iban[4:] + iban[:4])) % 97 == 1


def _party(parent: ET.Element, tag: str, party: Party) -> None:
    node = _add(_add(parent, tag), "cac:Party")
    scheme, endpoint = endpoint_id(party) or ("", "")
    _text(node, "cbc:EndpointID", endpoint, schemeID=scheme)
    address = _add(node, "cac:PostalAddress")
    _text(address, "cbc:StreetName", party.adres)
    _text(address, "cbc:CityName", party.stad)
    _text(address, "cbc:PostalZone", party.postcode)
    _text(_add(address, "cac:Country"), "cbc:IdentificationCode", party.land.upper())
    vat = _compact(party.btw_nummer)
    if vat:
        tax_scheme = _add(node, "cac:PartyTaxScheme")
        _text(tax_scheme, "cbc:CompanyID", vat)
        _text(_add(tax_scheme, "cac:TaxScheme"), "cbc:ID", "VAT")
    legal = _add(node, "cac:PartyLegalEntity")
    _text(legal, "cbc:RegistrationName", party.naam)
    kvk = _compact(party.kvk_nummer)
    if kvk:
        _text(legal, "cbc:CompanyID", kvk, schemeID=KVK_SCHEME)
    if _clean(party.email):
        _text(_add(node, "cac:Contact"), "cbc:ElectronicMail", party.email)


def _line(parent: ET.Element, line: Line, currency: str) -> None:
    quantity, unit, price, note = quantity_and_price(line)
    node = _add(parent, "cac:InvoiceLine")
    _text(node, "cbc:ID", line.id)
    _text(node, "cbc:Note", note)
    _text(node, "cbc:InvoicedQuantity", _number(quantity), unitCode=unit)
    _amount(node, "cbc:LineExtensionAmount", line.bedrag, currency)
    _period(node, line.datum, line.datum)
    item = _add(node, "cac:Item")
    _text(item, "cbc:Description", line.omschrijving)
    _text(item, "cbc:Name", line.naam)
    _tax_category(item, "cac:ClassifiedTaxCategory", line.btw_procent)
    price_node = _add(node, "cac:Price")
    text = _number(price) if price != cents(price) else f"{cents(price):f}"
    _text(price_node, "cbc:PriceAmount", text, currencyID=currency)


def _tax_category(parent: ET.Element, tag: str, rate: Decimal) -> None:
    category = _add(parent, tag)
    _text(category, "cbc:ID", "S" if rate > 0 else "Z")
    _text(category, "cbc:Percent", _number(rate))
    _text(_add(category, "cac:TaxScheme"), "cbc:ID", "VAT")


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


def _compact(identifier: str | None) -> str | None:
    """An identifier without spaces, dots and dashes, upper case (NL 1234.56.789 B01)."""
    return re.sub(r"[\s.\-]", "", identifier).upper() if identifier else None
