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

import xml.etree.ElementTree as ET
from datetime import date
from decimal import Decimal

from portal.billing.pricing import cents
from portal.billing.ubl_checks import peppol_problems, problems
from portal.billing.ubl_model import (  # noqa: F401  (the names callers use as ubl.X)
    CATEGORIES,
    COMMON_NS,
    CREDIT_NOTE_NS,
    CUSTOMIZATION_ID,
    DEFAULT_REASONS,
    EXEMPTION_CODES,
    INVOICE_NS,
    MINIMUM_CHARGE,
    NAMESPACES,
    NEEDS_REASON,
    ONE,
    PRICE_STEP,
    PROFILE_ID,
    UNIT_CODES,
    VAT_SCHEMES,
    ZERO_RATED,
    Invoice,
    InvoiceError,
    Line,
    Party,
    Reference,
    Subtotal,
    _clean,
    _number,
    category,
    endpoint_id,
    quantity_and_price,
    totals,
    unit_code,
    vat_breakdown,
)
from portal.identifiers import KVK_SCHEME
from portal.identifiers import compact as _compact

__all__ = ["peppol_problems", "problems"]


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
    _payment(root, invoice)
    _tax_and_totals(root, invoice, currency)
    for line in invoice.regels:
        _line(root, line, currency, credit=credit)
    ET.indent(root)
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


def _payment(root: ET.Element, invoice: Invoice) -> None:
    """How to pay (an invoice with an IBAN: SEPA credit transfer) and the payment terms."""
    credit = invoice.is_creditnota
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


def _tax_and_totals(root: ET.Element, invoice: Invoice, currency: str) -> None:
    """The VAT total with its breakdown per category and rate, and the document's totals."""
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


# The name callers and tests have used for an invoice; a credit note goes through it as well.
invoice_xml = document_xml


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
