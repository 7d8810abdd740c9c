"""The Peppol BIS Billing 3.0 rules that come on top of EN 16931, written out from the rule
texts of its specification (docs/einvoice.md lists them), for an Invoice or a CreditNote:
`failed(xml)` answers the ids of the rules the document breaks.

Only the rules that can apply to what Rijplan writes are here: the document level rules
(R001-R004, R007, R008, R053), the parties' electronic addresses (R010, R020, CL008), currency
(R051, CL007), the lines (R110, R111, R120, R121), the type codes (P0100, P0101), dates
(F001), exemption reason codes (P0105, P0107), GLN and Belgian enterprise numbers
(COMMON-R040, COMMON-R043) and the Dutch rules NL-R-001 to NL-R-008.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

import pycountry
from lxml import etree

from portal.identifiers import EAS_SCHEMES

CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
NS = {"cbc": CBC, "cac": CAC}
INVOICE_TYPES = {
    "71", "80", "82", "84", "102", "218", "219", "331", "380", "382", "383", "386", "388",
    "393", "395", "553", "575", "623", "780", "817", "870", "875", "876", "877",
}  # fmt: skip
CREDIT_TYPES = {"381", "396", "81", "83", "532"}
NL_PAYMENT_MEANS = {"30", "48", "49", "57", "58", "59"}
# exemption reason code: (the category it needs, the rule)
EXEMPTION_CATEGORY = {
    "VATEX-EU-G": ("G", "PEPPOL-EN16931-P0104"),
    "VATEX-EU-O": ("O", "PEPPOL-EN16931-P0105"),
    "VATEX-EU-AE": ("AE", "PEPPOL-EN16931-P0107"),
}
CURRENCIES = {c.alpha_3 for c in pycountry.currencies}


def _x(node, path: str) -> list:
    return node.xpath(path, namespaces=NS)


def _t(node, path: str) -> str | None:
    found = _x(node, path)
    return found[0].text.strip() if found and found[0].text else None


def _gln(value: str) -> bool:
    if not re.fullmatch(r"\d+", value):
        return False
    digits = [int(c) for c in value[:-1]][::-1]
    weighted = sum(d * (3 if i % 2 == 0 else 1) for i, d in enumerate(digits))
    return (10 - weighted % 10) % 10 == int(value[-1])


def _be_enterprise(value: str) -> bool:
    return bool(re.fullmatch(r"\d{10}", value)) and 97 - int(value[:8]) % 97 == int(value[8:])


def failed(xml: bytes, *, deliverable: bool = True) -> list[str]:
    """The Peppol rules the document breaks. deliverable=False leaves out the buyer's
    electronic address (R010): a document sent by e-mail, not over Peppol."""
    root = etree.fromstring(xml)
    credit = etree.QName(root).localname == "CreditNote"
    found: list[str] = []

    def rule(ok: bool, rule_id: str) -> None:
        if not ok:
            found.append(rule_id)

    profile = _t(root, "cbc:ProfileID")
    rule(profile is not None, "PEPPOL-EN16931-R001")
    process = r"urn:fdc:peppol\.eu:2017:poacc:billing:\d{2}:1\.0"
    rule(bool(profile and re.fullmatch(process, profile)), "PEPPOL-EN16931-R007")
    rule(len(_x(root, "cbc:Note")) <= 1, "PEPPOL-EN16931-R002")
    rule(bool(_x(root, "cbc:BuyerReference") or _x(root, "cac:OrderReference/cbc:ID")),
         "PEPPOL-EN16931-R003")  # fmt: skip
    rule(
        (_t(root, "cbc:CustomizationID") or "").startswith(
            "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0"
        ),
        "PEPPOL-EN16931-R004",
    )
    rule(len(_x(root, "cac:TaxTotal[cac:TaxSubtotal]")) == 1, "PEPPOL-EN16931-R053")
    for element in root.iter():
        if isinstance(element.tag, str) and len(element) == 0 and not (element.text or "").strip():
            found.append("PEPPOL-EN16931-R008")
            break
    if deliverable:
        rule(bool(_x(root, "cac:AccountingCustomerParty/cac:Party/cbc:EndpointID")),
             "PEPPOL-EN16931-R010")  # fmt: skip
    rule(bool(_x(root, "cac:AccountingSupplierParty/cac:Party/cbc:EndpointID")),
         "PEPPOL-EN16931-R020")  # fmt: skip
    for endpoint in _x(root, "//cbc:EndpointID"):
        rule(endpoint.get("schemeID") in EAS_SCHEMES, "PEPPOL-EN16931-CL008")
    identified = "//cbc:EndpointID[@schemeID='{0}'] | //cbc:CompanyID[@schemeID='{0}']"
    for node in _x(root, identified.format("0088")):
        rule(_gln(node.text.strip()), "PEPPOL-COMMON-R040")
    for node in _x(root, identified.format("0208")):
        rule(_be_enterprise(node.text.strip()), "PEPPOL-COMMON-R043")
    currency = _t(root, "cbc:DocumentCurrencyCode")
    rule(currency in CURRENCIES, "PEPPOL-EN16931-CL007")
    amounts = ("Amount", "BaseAmount", "PriceAmount", "TaxableAmount", "LineExtensionAmount",
               "TaxExclusiveAmount", "TaxInclusiveAmount", "PayableAmount")  # fmt: skip
    for element in root.iter(*(f"{{{CBC}}}{name}" for name in amounts)):
        rule(element.get("currencyID") == currency, "PEPPOL-EN16931-R051")
    for element in _x(root, "cac:TaxTotal[cac:TaxSubtotal]/cbc:TaxAmount"):
        rule(element.get("currencyID") == currency, "PEPPOL-EN16931-R051")
    if credit:
        rule(_t(root, "cbc:CreditNoteTypeCode") in CREDIT_TYPES, "PEPPOL-EN16931-P0101")
    else:
        rule(_t(root, "cbc:InvoiceTypeCode") in INVOICE_TYPES, "PEPPOL-EN16931-P0100")
    for element in _x(root, "//cbc:IssueDate | //cbc:DueDate | //cbc:StartDate | //cbc:EndDate"):
        text = element.text or ""
        try:
            ok = len(text) == 10 and bool(date.fromisoformat(text))
        except ValueError:
            ok = False
        rule(ok, "PEPPOL-EN16931-F001")
    for category in _x(root, "//cac:TaxCategory[cbc:TaxExemptionReasonCode]"):
        code = _t(category, "cbc:TaxExemptionReasonCode").upper()
        if code in EXEMPTION_CATEGORY:
            wanted, rule_id = EXEMPTION_CATEGORY[code]
            rule(_t(category, "cbc:ID") == wanted, rule_id)
    _lines(root, credit, rule)
    _dutch(root, credit, rule)
    return found


def _lines(root, credit: bool, rule) -> None:
    start = _t(root, "cac:InvoicePeriod/cbc:StartDate")
    end = _t(root, "cac:InvoicePeriod/cbc:EndDate")
    for line in _x(root, "cac:CreditNoteLine" if credit else "cac:InvoiceLine"):
        line_start = _t(line, "cac:InvoicePeriod/cbc:StartDate")
        line_end = _t(line, "cac:InvoicePeriod/cbc:EndDate")
        if start and line_start:
            rule(line_start >= start, "PEPPOL-EN16931-R110")
        if end and line_end:
            rule(line_end <= end, "PEPPOL-EN16931-R111")
        amount = Decimal(_t(line, "cbc:LineExtensionAmount") or "0")
        quantity = Decimal(
            _t(line, "cbc:CreditedQuantity" if credit else "cbc:InvoicedQuantity") or "1"
        )
        price = Decimal(_t(line, "cac:Price/cbc:PriceAmount") or "0")
        base = _t(line, "cac:Price/cbc:BaseQuantity")
        base_quantity = Decimal(base) if base and Decimal(base) != 0 else Decimal(1)
        if base is not None:
            rule(Decimal(base) > 0, "PEPPOL-EN16931-R121")
        charge = "cac:AllowanceCharge[cbc:ChargeIndicator='{}']/cbc:Amount"
        charges = sum((Decimal(a.text) for a in _x(line, charge.format("true"))), Decimal(0))
        allowances = sum((Decimal(a.text) for a in _x(line, charge.format("false"))), Decimal(0))
        expected = quantity * (price / base_quantity) + charges - allowances
        rule(abs(amount - expected) <= Decimal("0.02"), "PEPPOL-EN16931-R120")


def _dutch(root, credit: bool, rule) -> None:
    country = "cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode"
    seller_nl = (_t(root, f"cac:AccountingSupplierParty/{country}") or "").upper() == "NL"
    buyer_nl = (_t(root, f"cac:AccountingCustomerParty/{country}") or "").upper() == "NL"
    if not seller_nl:
        return
    if credit:
        rule(bool(_x(root, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID")), "NL-R-001")
    for address in _x(root, "cac:AccountingSupplierParty/cac:Party/cac:PostalAddress"):
        rule(all(_x(address, f"cbc:{n}") for n in ("StreetName", "CityName", "PostalZone")),
             "NL-R-002")  # fmt: skip
    legal_id = "cac:Party/cac:PartyLegalEntity/cbc:CompanyID"
    for legal in _x(root, f"cac:AccountingSupplierParty/{legal_id}"):
        rule(legal.get("schemeID") in ("0106", "0190") and bool(legal.text), "NL-R-003")
    if buyer_nl:
        for address in _x(root, "cac:AccountingCustomerParty/cac:Party/cac:PostalAddress"):
            rule(all(_x(address, f"cbc:{n}") for n in ("StreetName", "CityName", "PostalZone")),
                 "NL-R-004")  # fmt: skip
        for legal in _x(root, f"cac:AccountingCustomerParty/{legal_id}"):
            rule(legal.get("schemeID") in ("0106", "0190") and bool(legal.text), "NL-R-005")
    payable = Decimal(_t(root, "cac:LegalMonetaryTotal/cbc:PayableAmount") or "0")
    means = bool(_x(root, "//cac:PaymentMeans"))
    rule((not credit and payable <= 0) or (credit and payable >= 0) or means, "NL-R-007")
    for means in _x(root, "cac:PaymentMeans"):
        rule(_t(means, "cbc:PaymentMeansCode") in NL_PAYMENT_MEANS, "NL-R-008")
