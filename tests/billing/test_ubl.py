"""The UBL 2.1 invoice and credit note (Peppol BIS Billing 3.0): valid against the OASIS schema,
the official EN 16931 rules (tests/fixtures/einvoice, run with SaxonC) and the Peppol rules
(peppol.py); totals that add up with VAT per category, quantity x price equal to each line's
amount, the VAT categories S, Z, E, AE and O, units, escaping, and the refusals for what the
rules require and the document lacks."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import ROUND_HALF_UP
from decimal import Decimal as D
from pathlib import Path

import pytest
from billing import en16931, peppol
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from portal.billing.ubl import (
    CUSTOMIZATION_ID,
    PROFILE_ID,
    Invoice,
    InvoiceError,
    Line,
    Party,
    Reference,
    invoice_xml,
    peppol_problems,
    problems,
    quantity_and_price,
    unit_code,
)

MAINDOC = Path(__file__).parents[1] / "fixtures" / "ubl-2.1" / "maindoc"
XSD = MAINDOC / "UBL-Invoice-2.1.xsd"
CREDIT_XSD = MAINDOC / "UBL-CreditNote-2.1.xsd"
NS = {
    "inv": "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
    "cn": "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
}
NOVEMBER = date(2026, 11, 2)

CARRIER = Party(
    naam="Loonbedrijf De Vries B.V.",
    land="NL",
    btw_nummer="NL 8123.45.678 B01",
    kvk_nummer="1234 5678",
    adres="Dorpsstraat 12",
    postcode="7411 AB",
    stad="Deventer",
    email="facturen@devries.example",
)
FARMER = Party(
    naam="Maatschap Jansen",
    land="NL",
    btw_nummer="NL001234567B02",
    kvk_nummer="87654321",
    adres="Hoofdweg 3",
    postcode="8011 CD",
    stad="Zwolle",
)


def line(**fields) -> Line:
    return Line(
        **{
            "id": "1",
            "naam": "Mest uitrijden",
            "hoeveelheid": D("30"),
            "eenheid": "ton",
            "bedrag": D("130.50"),
            "btw_procent": D("21"),
            "datum": NOVEMBER,
            **fields,
        }
    )


TYPICAL_LINES = (
    line(id="101", hoeveelheid=D("30"), eenheid="ton", bedrag=D("130.50")),
    line(
        id="102",
        naam="Transport mest",
        omschrijving="Van Hoofdweg 3 naar Akkerweg 9",
        hoeveelheid=D("3"),
        eenheid="vracht",
        bedrag=D("255.00"),
        datum=date(2026, 11, 3),
    ),
    line(
        id="103",
        naam="Tuinaanleg",
        hoeveelheid=D("2.25"),
        eenheid="uur",
        bedrag=D("123.75"),
        btw_procent=D("9"),
        datum=date(2026, 11, 4),
    ),
)


def invoice(**fields) -> Invoice:
    return Invoice(
        **{
            "nummer": "2026-0042",
            "datum": date(2026, 12, 1),
            "vervaldatum": date(2026, 12, 15),
            "verkoper": CARRIER,
            "koper": FARMER,
            "regels": TYPICAL_LINES,
            "koper_referentie": "DEB-1017",
            "periode_van": date(2026, 11, 1),
            "periode_tot": date(2026, 11, 30),
            "iban": "NL91 ABNA 0417 1643 00",
            "betaalreferentie": "2026-0042",
            **fields,
        }
    )


@pytest.fixture(scope="module")
def schema() -> etree.XMLSchema:
    # Offline by construction: every schemaLocation is a relative path inside the fixture
    parser = etree.XMLParser(no_network=True, resolve_entities=False)
    return etree.XMLSchema(etree.parse(str(XSD), parser))


def assert_valid(schema: etree.XMLSchema, document: etree._Element) -> None:
    if not schema.validate(document):
        pytest.fail(f"not valid UBL 2.1:\n{schema.error_log}")
    checked(etree.tostring(document))


def checked(xml: bytes, *, deliverable: bool = True) -> bytes:
    """xml passes the EN 16931 rules (every rule, warnings too) and Peppol's."""
    en16931.assert_valid(xml)
    assert peppol.failed(xml, deliverable=deliverable) == []
    return xml


def parse(xml: bytes) -> etree._Element:
    return etree.fromstring(xml, etree.XMLParser(no_network=True, resolve_entities=False))


def text(document: etree._Element, path: str) -> str:
    found = document.xpath(path, namespaces=NS)
    assert len(found) == 1, f"{path}: {len(found)} matches"
    return found[0] if isinstance(found[0], str) else found[0].text


def amount(document: etree._Element, path: str) -> D:
    return D(text(document, path))


def test_typical_invoice_is_valid_ubl_2_1(schema):
    xml = invoice_xml(invoice())

    assert xml.startswith(b"<?xml version='1.0' encoding='UTF-8'?>")
    assert b"<cbc:CustomizationID>" in xml and b"<cac:InvoiceLine>" in xml
    assert_valid(schema, parse(xml))


def test_typical_invoice_carries_the_peppol_header_and_parties():
    doc = parse(invoice_xml(invoice()))

    assert text(doc, "/inv:Invoice/cbc:CustomizationID") == CUSTOMIZATION_ID
    assert text(doc, "/inv:Invoice/cbc:ProfileID") == PROFILE_ID
    assert text(doc, "/inv:Invoice/cbc:InvoiceTypeCode") == "380"
    assert text(doc, "/inv:Invoice/cbc:DocumentCurrencyCode") == "EUR"
    assert text(doc, "/inv:Invoice/cbc:BuyerReference") == "DEB-1017"
    assert text(doc, "/inv:Invoice/cac:InvoicePeriod/cbc:StartDate") == "2026-11-01"
    assert text(doc, "/inv:Invoice/cac:InvoicePeriod/cbc:EndDate") == "2026-11-30"
    seller = "/inv:Invoice/cac:AccountingSupplierParty/cac:Party"
    assert text(doc, f"{seller}/cbc:EndpointID") == "12345678"
    assert text(doc, f"{seller}/cbc:EndpointID/@schemeID") == "0106"
    assert text(doc, f"{seller}/cac:PartyTaxScheme/cbc:CompanyID") == "NL812345678B01"
    assert text(doc, f"{seller}/cac:PartyLegalEntity/cbc:CompanyID/@schemeID") == "0106"
    assert text(doc, f"{seller}/cac:Contact/cbc:ElectronicMail") == "facturen@devries.example"
    buyer = "/inv:Invoice/cac:AccountingCustomerParty/cac:Party"
    assert text(doc, f"{buyer}/cbc:EndpointID") == "87654321"
    assert text(doc, f"{buyer}/cbc:EndpointID/@schemeID") == "0106"
    assert text(doc, f"{buyer}/cac:PostalAddress/cac:Country/cbc:IdentificationCode") == "NL"
    means = "/inv:Invoice/cac:PaymentMeans"
    assert text(doc, f"{means}/cbc:PaymentMeansCode") == "58"
    assert text(doc, f"{means}/cbc:PaymentID") == "2026-0042"
    assert text(doc, f"{means}/cac:PayeeFinancialAccount/cbc:ID") == "NL91ABNA0417164300"


def test_totals_add_up_with_vat_per_rate():
    doc = parse(invoice_xml(invoice()))

    lines = [
        amount(n, "cbc:LineExtensionAmount") for n in doc.xpath("//cac:InvoiceLine", namespaces=NS)
    ]
    totals = "/inv:Invoice/cac:LegalMonetaryTotal"
    net = amount(doc, f"{totals}/cbc:LineExtensionAmount")
    assert net == sum(lines) == D("509.25")
    assert amount(doc, f"{totals}/cbc:TaxExclusiveAmount") == net
    subtotals = {
        text(s, "cac:TaxCategory/cbc:Percent"): (
            text(s, "cac:TaxCategory/cbc:ID"),
            amount(s, "cbc:TaxableAmount"),
            amount(s, "cbc:TaxAmount"),
        )
        for s in doc.xpath("//cac:TaxTotal/cac:TaxSubtotal", namespaces=NS)
    }
    # 385.50 x 21% = 80.955 -> 80.96 (half up); 123.75 x 9% = 11.1375 -> 11.14
    assert subtotals == {"21": ("S", D("385.50"), D("80.96")), "9": ("S", D("123.75"), D("11.14"))}
    vat = amount(doc, "/inv:Invoice/cac:TaxTotal/cbc:TaxAmount")
    assert vat == D("92.10")
    assert amount(doc, f"{totals}/cbc:TaxInclusiveAmount") == net + vat == D("601.35")
    assert amount(doc, f"{totals}/cbc:PayableAmount") == net + vat
    assert all(n.get("currencyID") == "EUR" for n in doc.xpath("//*[contains(name(), 'Amount')]"))


def test_vat_is_rounded_per_category_not_per_line(schema):
    # Per line 0.50 x 9% = 0.045 -> 0.05, twice 0.10; per category 1.00 x 9% = 0.09
    regels = [
        line(id="1", hoeveelheid=D("1"), bedrag=D("0.50"), btw_procent=D("9")),
        line(id="2", hoeveelheid=D("1"), bedrag=D("0.50"), btw_procent=D("9.00")),
    ]
    doc = parse(invoice_xml(invoice(regels=regels)))

    assert_valid(schema, doc)
    assert len(doc.xpath("//cac:TaxSubtotal", namespaces=NS)) == 1  # 9 and 9.00 are one rate
    assert amount(doc, "//cac:TaxSubtotal/cbc:TaxAmount") == D("0.09")
    assert amount(doc, "//cac:LegalMonetaryTotal/cbc:PayableAmount") == D("1.09")


def test_vat_rounds_half_up():
    # 0.50 x 9% = 0.045: half up is 0.05 (half even would make it 0.04)
    regels = [line(hoeveelheid=D("1"), bedrag=D("0.50"), btw_procent=D("9"))]
    doc = parse(invoice_xml(invoice(regels=regels)))

    assert amount(doc, "/inv:Invoice/cac:TaxTotal/cbc:TaxAmount") == D("0.05")


def test_zero_rate_is_category_z_with_its_evidence_named(schema):
    evidence = "Vervoer bij uitvoer, MRN 26NL0000000000001"
    zero = line(id="104", bedrag=D("40.00"), btw_procent=D("0"), btw_vrijstellingsreden=evidence)
    doc = parse(invoice_xml(invoice(regels=[*TYPICAL_LINES, zero])))

    assert_valid(schema, doc)
    subtotal = doc.xpath("//cac:TaxSubtotal[cac:TaxCategory/cbc:ID='Z']", namespaces=NS)[0]
    assert amount(subtotal, "cbc:TaxAmount") == D("0.00")
    assert not subtotal.xpath("cac:TaxCategory/cbc:TaxExemptionReason", namespaces=NS)  # BR-Z-10
    assert text(doc, "//cac:InvoiceLine[cbc:ID='104']//cac:ClassifiedTaxCategory/cbc:ID") == "Z"
    assert evidence in text(doc, "//cac:InvoiceLine[cbc:ID='104']/cbc:Note")


def test_zero_rate_without_evidence_is_refused():
    zero = line(id="104", bedrag=D("40.00"), btw_procent=D("0"))

    assert problems(invoice(regels=[zero])) == ("line_zero_no_evidence",)


def check_lines(doc: etree._Element) -> None:
    """Each line: quantity x price, rounded to the cent, plus its charges less its allowances
    is the line amount (PEPPOL-EN16931-R120), price not negative, cents only."""
    for node in doc.xpath("//cac:InvoiceLine", namespaces=NS):
        quantity = amount(node, "cbc:InvoicedQuantity")
        price = amount(node, "cac:Price/cbc:PriceAmount")
        line_amount = amount(node, "cbc:LineExtensionAmount")
        charges = sum(
            (D(a) if i == "true" else -D(a))
            for i, a in zip(
                node.xpath("cac:AllowanceCharge/cbc:ChargeIndicator/text()", namespaces=NS),
                node.xpath("cac:AllowanceCharge/cbc:Amount/text()", namespaces=NS),
                strict=True,
            )
        )
        total = (quantity * price).quantize(D("0.01"), ROUND_HALF_UP) + charges
        assert total == line_amount, text(node, "cbc:ID")
        assert price >= 0
        assert line_amount == line_amount.quantize(D("0.01"))
        assert price == price.quantize(D("0.0001"))


def test_quantity_times_price_is_the_line_amount(schema):
    regels = [
        *TYPICAL_LINES,
        # 12.345 m³ at 4.35 = 53.70075 -> 53.70: 12.345 x 4.3499 rounds to 53.70, as R120 checks
        line(id="106", hoeveelheid=D("12.345"), eenheid="m³", bedrag=D("53.70")),
        # No price of 4 decimals gives these amounts, even rounded to the cent
        line(id="104", hoeveelheid=D("1000"), eenheid="m³", bedrag=D("0.01")),
        line(id="105", hoeveelheid=D("123456"), eenheid="km", bedrag=D("10.00")),
    ]
    doc = parse(invoice_xml(invoice(regels=regels)))

    assert_valid(schema, doc)
    check_lines(doc)
    exact = "//cac:InvoiceLine[cbc:ID='103']"
    assert text(doc, f"{exact}/cbc:InvoicedQuantity") == "2.25"
    assert text(doc, f"{exact}/cbc:InvoicedQuantity/@unitCode") == "HUR"
    assert text(doc, f"{exact}/cac:Price/cbc:PriceAmount") == "55.00"
    assert not doc.xpath(f"{exact}/cbc:Note", namespaces=NS)
    rounded = "//cac:InvoiceLine[cbc:ID='106']"
    assert text(doc, f"{rounded}/cbc:InvoicedQuantity") == "12.345"
    assert text(doc, f"{rounded}/cbc:InvoicedQuantity/@unitCode") == "MTQ"
    assert text(doc, f"{rounded}/cac:Price/cbc:PriceAmount") == "4.3499"
    for inexact, note in (("104", "1000 m³"), ("105", "123456 km")):
        path = f"//cac:InvoiceLine[cbc:ID='{inexact}']"
        assert text(doc, f"{path}/cbc:InvoicedQuantity") == "1"
        assert text(doc, f"{path}/cbc:InvoicedQuantity/@unitCode") == "C62"
        assert text(doc, f"{path}/cbc:Note") == note


def test_price_keeps_up_to_four_decimals_and_no_more():
    quarter = line(hoeveelheid=D("4"), bedrag=D("0.01"))
    eighth = line(hoeveelheid=D("8"), bedrag=D("0.01"))
    thousandth = line(hoeveelheid=D("1000"), bedrag=D("0.01"))

    assert quantity_and_price(quarter) == (D("4"), "TNE", D("0.0025"), None)
    # 8 x 0.0013 = 0.0104, which rounds to the line's cent
    assert quantity_and_price(eighth) == (D("8"), "TNE", D("0.0013"), None)
    assert quantity_and_price(thousandth) == (D("1"), "C62", D("0.01"), "1000 ton")
    doc = parse(invoice_xml(invoice(regels=[quarter])))
    assert text(doc, "//cac:Price/cbc:PriceAmount") == "0.0025"


def test_no_quantity_is_one_at_the_line_amount():
    assert quantity_and_price(line(hoeveelheid=None, bedrag=D("75.00"))) == (
        D("1"),
        "C62",
        D("75.00"),
        None,
    )


def test_a_quantity_of_zero_keeps_its_quantity(schema):
    # Nothing delivered, nothing billed: 0 ton at the tariff's price.
    nothing = line(id="1", hoeveelheid=D("0"), bedrag=D("0.00"), prijs=D("4.35"))
    # Nothing delivered and still a minimum: 0 ton, the minimum as a line charge (R120).
    minimum = line(id="2", hoeveelheid=D("0"), bedrag=D("75.00"), prijs=D("4.35"))
    doc = parse(invoice_xml(invoice(regels=[*TYPICAL_LINES, nothing, minimum])))

    assert_valid(schema, doc)
    for line_id in ("1", "2"):
        path = f"//cac:InvoiceLine[cbc:ID='{line_id}']"
        assert text(doc, f"{path}/cbc:InvoicedQuantity") == "0"
        assert text(doc, f"{path}/cbc:InvoicedQuantity/@unitCode") == "TNE"
        assert text(doc, f"{path}/cac:Price/cbc:PriceAmount") == "4.35"
    charge = "//cac:InvoiceLine[cbc:ID='2']/cac:AllowanceCharge"
    assert text(doc, f"{charge}/cbc:ChargeIndicator") == "true"
    assert amount(doc, f"{charge}/cbc:Amount") == D("75.00")
    assert amount(doc, "//cac:InvoiceLine[cbc:ID='2']/cbc:LineExtensionAmount") == D("75.00")


def test_negative_amount_keeps_the_price_positive(schema):
    regels = [*TYPICAL_LINES, line(id="9", hoeveelheid=D("2"), eenheid="ton", bedrag=D("-9.00"))]
    doc = parse(invoice_xml(invoice(regels=regels)))

    assert_valid(schema, doc)
    check_lines(doc)
    assert text(doc, "//cac:InvoiceLine[cbc:ID='9']/cbc:InvoicedQuantity") == "-2"


# A line's VAT treatment: (category, rate, reason or evidence)
TREATMENTS = [
    ("S", D("21"), None),
    ("S", D("9"), None),
    ("Z", D("0"), "Vervoer bij uitvoer, MRN 26NL0000000000001"),
    ("E", D("0"), "Vrijgesteld, art. 11 Wet OB"),
    ("AE", D("0"), None),
]
ROWS = st.lists(
    st.tuples(
        st.one_of(st.none(), st.decimals("0", "500", places=3)),
        st.decimals("-1000", "5000", places=2),
        st.sampled_from(TREATMENTS),
    ),
    min_size=1,
    max_size=8,
)


def expected_vat(rows) -> D:
    """VAT per category and rate on the sum of its lines, each rounded half up (BR-CO-17)."""
    groups: dict = {}
    for _quantity, bedrag, (cat, rate, _reason) in rows:
        groups[(cat, rate)] = groups.get((cat, rate), D(0)) + bedrag
    return sum(
        ((total * rate / 100).quantize(D("0.01"), ROUND_HALF_UP) if cat == "S" else D("0"))
        for (cat, rate), total in groups.items()
    )


@settings(max_examples=80, deadline=None)
@given(ROWS)
def test_any_invoice_passes_en16931_and_peppol_and_adds_up(schema, rows):
    regels = [
        line(
            id=str(i),
            hoeveelheid=quantity,
            bedrag=bedrag,
            btw_categorie=cat,
            btw_procent=rate,
            btw_vrijstellingsreden=reason,
        )
        for i, (quantity, bedrag, (cat, rate, reason)) in enumerate(rows)
    ]
    doc = parse(invoice_xml(invoice(regels=regels, betaalvoorwaarden="14 dagen")))

    assert_valid(schema, doc)
    check_lines(doc)
    net = sum(bedrag for _, bedrag, _ in rows)
    vat = expected_vat(rows)
    assert amount(doc, "//cac:LegalMonetaryTotal/cbc:LineExtensionAmount") == net
    assert amount(doc, "/inv:Invoice/cac:TaxTotal/cbc:TaxAmount") == vat
    assert amount(doc, "//cac:LegalMonetaryTotal/cbc:PayableAmount") == net + vat


@settings(max_examples=40, deadline=None)
@given(st.lists(st.decimals("0.01", "5000", places=2), min_size=1, max_size=6))
def test_any_invoice_not_subject_to_vat_passes_en16931_and_peppol(schema, amounts):
    regels = [
        line(id=str(i), bedrag=bedrag, btw_categorie="O", btw_procent=None)
        for i, bedrag in enumerate(amounts)
    ]
    buyer = Party(naam="Agro Trading AG", land="CH", adres="Hauptstrasse 1", stad="Basel",
                  peppol_id="0088:7612345678900")  # fmt: skip
    doc = parse(invoice_xml(invoice(regels=regels, koper=buyer)))

    assert_valid(schema, doc)
    assert not doc.xpath("//cac:PartyTaxScheme", namespaces=NS)  # BR-O-02..04: no VAT ids
    assert not doc.xpath("//cac:TaxCategory/cbc:Percent", namespaces=NS)  # BR-O-05, BR-O-09
    assert text(doc, "//cac:TaxSubtotal/cac:TaxCategory/cbc:TaxExemptionReasonCode") == (
        "VATEX-EU-O"
    )
    assert amount(doc, "/inv:Invoice/cac:TaxTotal/cbc:TaxAmount") == D("0.00")


@pytest.fixture(scope="module")
def credit_schema() -> etree.XMLSchema:
    parser = etree.XMLParser(no_network=True, resolve_entities=False)
    return etree.XMLSchema(etree.parse(str(CREDIT_XSD), parser))


def credit_note(**fields) -> Invoice:
    return invoice(
        **{
            "nummer": "C2026-00001",
            "soort": "creditnota",
            "gecrediteerd": Reference(nummer="2026-0042", datum=date(2026, 12, 1)),
            "vervaldatum": None,
            "iban": None,
            **fields,
        }
    )


def test_a_credit_note_refers_to_its_invoice_and_validates(credit_schema):
    xml = invoice_xml(credit_note())
    doc = parse(xml)

    if not credit_schema.validate(doc):
        pytest.fail(f"not valid UBL 2.1 CreditNote:\n{credit_schema.error_log}")
    checked(xml)
    assert etree.QName(doc).localname == "CreditNote"
    assert text(doc, "/cn:CreditNote/cbc:CreditNoteTypeCode") == "381"
    reference = "/cn:CreditNote/cac:BillingReference/cac:InvoiceDocumentReference"
    assert text(doc, f"{reference}/cbc:ID") == "2026-0042"  # NL-R-001
    assert text(doc, f"{reference}/cbc:IssueDate") == "2026-12-01"
    assert len(doc.xpath("//cac:CreditNoteLine", namespaces=NS)) == len(TYPICAL_LINES)
    assert not doc.xpath("//cac:InvoiceLine | /cn:CreditNote/cbc:DueDate", namespaces=NS)
    assert amount(doc, "//cac:LegalMonetaryTotal/cbc:PayableAmount") == D("601.35")
    assert "2026-0042" in text(doc, "/cn:CreditNote/cac:PaymentTerms/cbc:Note")


@settings(max_examples=40, deadline=None)
@given(ROWS.map(lambda rows: [(q, abs(b) or D("0.01"), t) for q, b, t in rows]))
def test_any_credit_note_passes_en16931_and_peppol(credit_schema, rows):
    regels = [
        line(id=str(i), hoeveelheid=quantity, bedrag=bedrag, btw_categorie=cat,
             btw_procent=rate, btw_vrijstellingsreden=reason)
        for i, (quantity, bedrag, (cat, rate, reason)) in enumerate(rows)
    ]  # fmt: skip
    xml = invoice_xml(credit_note(regels=regels))
    doc = parse(xml)

    if not credit_schema.validate(doc):
        pytest.fail(f"not valid UBL 2.1 CreditNote:\n{credit_schema.error_log}")
    checked(xml)
    vat = expected_vat(rows)
    assert (
        amount(
            doc,
            "/cn:CreditNote/cac:TaxTotal/cbc:TaxAmount",
        )
        == vat
    )


def test_a_credit_note_without_its_invoice_is_refused():
    assert problems(credit_note(gecrediteerd=None)) == ("no_invoice_reference",)


BELGIAN = Party(naam="Biogas Vlaanderen NV", land="BE", btw_nummer="BE0123456749",
                adres="Kerkstraat 1", postcode="2000", stad="Antwerpen",
                peppol_id="0208:0123456749")  # fmt: skip


def test_reverse_charge_names_the_buyers_vat_number_and_the_reason(schema):
    regels = [line(id="1", bedrag=D("250.00"), btw_categorie="AE", btw_procent=D("0"))]
    doc = parse(invoice_xml(invoice(regels=regels, koper=BELGIAN)))

    assert_valid(schema, doc)
    buyer = "//cac:AccountingCustomerParty/cac:Party"
    assert text(doc, f"{buyer}/cac:PartyTaxScheme/cbc:CompanyID") == "BE0123456749"
    category = "//cac:TaxSubtotal/cac:TaxCategory"
    assert text(doc, f"{category}/cbc:ID") == "AE"
    assert text(doc, f"{category}/cbc:Percent") == "0"
    assert text(doc, f"{category}/cbc:TaxExemptionReasonCode") == "VATEX-EU-AE"
    assert text(doc, f"{category}/cbc:TaxExemptionReason") == "Btw verlegd"
    assert amount(doc, "//cac:LegalMonetaryTotal/cbc:PayableAmount") == D("250.00")


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        (
            {"koper": replace(BELGIAN, btw_nummer=None), "regels": [
                line(bedrag=D("250.00"), btw_categorie="AE", btw_procent=D("0"))]},
            "buyer_no_vat_reverse_charge",
        ),
        ({"regels": [line(btw_categorie="E", btw_procent=D("0"))]}, "line_exempt_no_reason"),
        ({"regels": [line(btw_categorie="S", btw_procent=D("0"))]}, "line_vat_invalid"),
        ({"regels": [line(btw_categorie="AE", btw_procent=D("21"))]}, "line_vat_not_zero"),
        ({"regels": [line(btw_categorie="X")]}, "line_vat_category_invalid"),
        (
            {"regels": [line(id="1"), line(id="2", btw_categorie="O", btw_procent=None)]},
            "not_subject_mixed",
        ),
        ({"koper": replace(FARMER, land="IC")}, "buyer_no_country"),  # BR-CL-14
        ({"koper": replace(FARMER, land="EA")}, "buyer_no_country"),
        ({"valuta": "XYZ"}, "currency_invalid"),  # BR-CL-04
        ({"koper": replace(FARMER, gln="8712345678900")}, "buyer_gln_invalid"),
        ({"koper": replace(FARMER, peppol_id="1234:abc")}, "buyer_peppol_id_invalid"),
        ({"koper": replace(FARMER, adres=None)}, "buyer_address_incomplete"),  # NL-R-004
    ],
)  # fmt: skip
def test_every_refusal_names_what_the_rules_need(fields, code):
    assert code in problems(invoice(**fields))
    with pytest.raises(InvoiceError) as refused:
        invoice_xml(invoice(**fields))
    assert code in refused.value.codes


def test_each_refusal_is_a_rule_the_official_validation_enforces():
    # The same documents, written without our refusals, break EN 16931 or Peppol rules:
    # what we refuse is what a receiving access point would reject.
    from portal.billing import ubl

    cases = {
        "buyer_no_country": invoice(koper=replace(FARMER, land="IC")),
        "line_exempt_no_reason": invoice(regels=[line(btw_categorie="E", btw_procent=D("0"))]),
        "line_vat_invalid": invoice(regels=[line(btw_categorie="S", btw_procent=D("0"))]),
        "buyer_no_vat_reverse_charge": invoice(
            koper=replace(BELGIAN, btw_nummer=None),
            regels=[line(btw_categorie="AE", btw_procent=D("0"))],
        ),
        "currency_invalid": invoice(valuta="XYZ"),
    }
    for code, data in cases.items():
        original = ubl.problems
        try:
            ubl.problems = lambda invoice: ()  # write it anyway
            xml = ubl.document_xml(data)
        finally:
            ubl.problems = original
        broken = [f.id for f in en16931.fatal(xml)] + peppol.failed(xml)
        assert broken, f"{code}: the official rules accept what we refuse"


@pytest.mark.parametrize(
    ("unit", "code"),
    [
        ("ton", "TNE"),
        ("Ton", "TNE"),
        ("kg", "KGM"),
        ("m3", "MTQ"),
        ("m³", "MTQ"),
        ("liter", "LTR"),
        ("uur", "HUR"),
        ("km", "KMT"),
        ("stuks", "H87"),
        ("stuk", "H87"),
        ("vracht", "C62"),
        ("rit", "C62"),
        ("balen", "C62"),
        ("", "C62"),
        (None, "C62"),
    ],
)
def test_unit_codes(unit, code):
    assert unit_code(unit) == code


def test_special_characters_are_escaped(schema):
    seller = replace(CARRIER, naam='De Vries & Zn. <"loon"> \'t Hoekje', stad="Één\x0bhuis")
    buyer = replace(FARMER, naam="Coöperatie Boerenbond — ëéè & ß")
    regels = [line(naam="Mest <rundvee> & varkens", omschrijving="“Perceel” 5 > 4")]
    xml = invoice_xml(invoice(verkoper=seller, koper=buyer, regels=regels))
    doc = parse(xml)

    assert_valid(schema, doc)
    party = "cac:Party/cac:PartyLegalEntity/cbc:RegistrationName"
    assert text(doc, f"//cac:AccountingSupplierParty/{party}") == seller.naam
    assert text(doc, f"//cac:AccountingCustomerParty/{party}") == buyer.naam
    assert text(doc, "//cac:AccountingSupplierParty//cbc:CityName") == "Éénhuis"  # \v dropped
    assert text(doc, "//cac:Item/cbc:Name") == "Mest <rundvee> & varkens"
    assert text(doc, "//cac:Item/cbc:Description") == "“Perceel” 5 > 4"
    assert "Coöperatie".encode() in xml  # UTF-8, not character references


def test_buyer_without_peppol_id_kvk_or_gln_gets_a_document_for_e_mail(schema):
    buyer = Party(naam="Landwirt Müller", land="DE", btw_nummer="DE123456789", stad="Goch")
    xml = invoice_xml(invoice(koper=buyer))
    doc = parse(xml)

    assert not doc.xpath("//cac:AccountingCustomerParty/cac:Party/cbc:EndpointID", namespaces=NS)
    en16931.assert_valid(xml)
    assert peppol.failed(xml) == ["PEPPOL-EN16931-R010"]  # Peppol needs the address
    assert peppol_problems(invoice(koper=buyer)) == ("buyer_no_endpoint",)


@pytest.mark.parametrize(
    ("fields", "scheme", "endpoint"),
    [
        ({"peppol_id": "9925:BE0123456749"}, "9925", "BE0123456749"),
        ({"kvk_nummer": "87654321"}, "0106", "87654321"),
        ({"gln": "8712345678906"}, "0088", "8712345678906"),
    ],
)
def test_buyer_is_addressed_by_peppol_id_then_kvk_then_gln(schema, fields, scheme, endpoint):
    buyer = replace(FARMER, **{"btw_nummer": None, "kvk_nummer": None, **fields})
    doc = parse(invoice_xml(invoice(koper=buyer)))

    assert_valid(schema, doc)
    party = "//cac:AccountingCustomerParty/cac:Party"
    assert text(doc, f"{party}/cbc:EndpointID/@schemeID") == scheme
    assert text(doc, f"{party}/cbc:EndpointID") == endpoint
    assert not doc.xpath(f"{party}/cac:PartyTaxScheme", namespaces=NS)


def test_a_dutch_buyer_without_kvk_number_cannot_go_over_peppol():
    buyer = replace(FARMER, kvk_nummer=None, gln="8712345678906")

    assert peppol_problems(invoice(koper=buyer)) == ("buyer_no_kvk",)  # NL-R-005


def test_invoice_without_lines_is_refused():
    with pytest.raises(ValueError, match="no_lines"):
        invoice_xml(invoice(regels=[]))


def test_dutch_seller_needs_kvk_iban_address_and_vat_all_reported_at_once():
    seller = replace(CARRIER, kvk_nummer=None, btw_nummer=None, postcode=" ")

    assert problems(invoice(verkoper=seller, iban=None)) == (
        "seller_no_vat",
        "seller_no_endpoint",
        "seller_address_incomplete",
        "seller_no_kvk",
        "seller_no_iban",
    )


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"koper_referentie": " "}, "no_buyer_reference"),
        ({"vervaldatum": None}, "no_due_date"),
        ({"periode_van": date(2026, 12, 1)}, "period_reversed"),
        ({"periode_van": date(2026, 11, 3)}, "line_outside_period"),
        ({"iban": "NL92ABNA0417164300"}, "seller_iban_invalid"),
        ({"valuta": "€"}, "currency_invalid"),
        ({"regels": [line(naam=" ")]}, "line_no_name"),
        ({"koper": replace(FARMER, btw_nummer="001234567B02")}, "buyer_vat_invalid"),
        ({"koper": replace(FARMER, kvk_nummer="1234")}, "buyer_kvk_invalid"),
    ],
)
def test_what_peppol_needs_is_reported(fields, code):
    assert code in problems(invoice(**fields))


def test_payment_terms_stand_in_for_a_due_date(schema):
    doc = parse(invoice_xml(invoice(vervaldatum=None, betaalvoorwaarden="Binnen 14 dagen")))

    assert_valid(schema, doc)
    assert text(doc, "/inv:Invoice/cac:PaymentTerms/cbc:Note") == "Binnen 14 dagen"
    assert not doc.xpath("/inv:Invoice/cbc:DueDate", namespaces=NS)


def test_the_schema_rejects_a_document_without_its_id(schema):
    doc = parse(invoice_xml(invoice()))
    number = doc.find("cbc:ID", NS)
    doc.remove(number)

    assert not schema.validate(doc)
    assert "ID" in str(schema.error_log)


def test_the_schema_rejects_elements_out_of_order(schema):
    doc = parse(invoice_xml(invoice()))
    doc.append(doc.find("cbc:BuyerReference", NS))  # moved after the invoice lines

    assert not schema.validate(doc)
