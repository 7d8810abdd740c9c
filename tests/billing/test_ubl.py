"""The UBL 2.1 invoice (Peppol BIS Billing 3.0): valid against the OASIS schema, totals that add
up with VAT per category, quantity x price equal to each line's amount, units, escaping, and
the refusals for what Peppol requires and the invoice lacks."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import ROUND_HALF_UP
from decimal import Decimal as D
from pathlib import Path

import pytest
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
    invoice_xml,
    problems,
    quantity_and_price,
    unit_code,
)

XSD = Path(__file__).parents[1] / "fixtures" / "ubl-2.1" / "maindoc" / "UBL-Invoice-2.1.xsd"
NS = {
    "inv": "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
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
    assert text(doc, f"{buyer}/cbc:EndpointID") == "NL001234567B02"
    assert text(doc, f"{buyer}/cbc:EndpointID/@schemeID") == "9944"
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


def test_zero_rate_is_category_z(schema):
    regels = [*TYPICAL_LINES, line(id="104", bedrag=D("40.00"), btw_procent=D("0"))]
    doc = parse(invoice_xml(invoice(regels=regels)))

    assert_valid(schema, doc)
    zero = doc.xpath("//cac:TaxSubtotal[cac:TaxCategory/cbc:Percent='0']", namespaces=NS)
    assert [text(zero[0], "cac:TaxCategory/cbc:ID"), amount(zero[0], "cbc:TaxAmount")] == [
        "Z",
        D("0.00"),
    ]
    assert text(doc, "//cac:InvoiceLine[cbc:ID='104']//cac:ClassifiedTaxCategory/cbc:ID") == "Z"


def check_lines(doc: etree._Element) -> None:
    """Each line: quantity x price, rounded to the cent, is the line amount (PEPPOL-EN16931-
    R120), price not negative, cents only."""
    for node in doc.xpath("//cac:InvoiceLine", namespaces=NS):
        quantity = amount(node, "cbc:InvoicedQuantity")
        price = amount(node, "cac:Price/cbc:PriceAmount")
        line_amount = amount(node, "cbc:LineExtensionAmount")
        assert (quantity * price).quantize(D("0.01"), ROUND_HALF_UP) == line_amount, text(
            node, "cbc:ID"
        )
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


@pytest.mark.parametrize("hoeveelheid", [None, D("0")])
def test_no_quantity_is_one_at_the_line_amount(hoeveelheid):
    assert quantity_and_price(line(hoeveelheid=hoeveelheid, bedrag=D("75.00"))) == (
        D("1"),
        "C62",
        D("75.00"),
        None,
    )


def test_negative_amount_keeps_the_price_positive(schema):
    regels = [*TYPICAL_LINES, line(id="9", hoeveelheid=D("2"), eenheid="ton", bedrag=D("-9.00"))]
    doc = parse(invoice_xml(invoice(regels=regels)))

    assert_valid(schema, doc)
    check_lines(doc)
    assert text(doc, "//cac:InvoiceLine[cbc:ID='9']/cbc:InvoicedQuantity") == "-2"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.decimals("0", "500", places=3)),
            st.decimals("-1000", "5000", places=2),
            st.sampled_from([D("0"), D("9"), D("21")]),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_any_lines_are_valid_and_add_up(schema, rows):
    regels = [
        line(id=str(i), hoeveelheid=quantity, bedrag=bedrag, btw_procent=rate)
        for i, (quantity, bedrag, rate) in enumerate(rows)
    ]
    doc = parse(invoice_xml(invoice(regels=regels, betaalvoorwaarden="14 dagen")))

    assert_valid(schema, doc)
    check_lines(doc)
    net = sum(bedrag for _, bedrag, _ in rows)
    vat = sum(
        (sum(b for _, b, r in rows if r == rate) * rate / 100).quantize(D("0.01"), ROUND_HALF_UP)
        for rate in {r for _, _, r in rows}
    )
    assert amount(doc, "//cac:LegalMonetaryTotal/cbc:LineExtensionAmount") == net
    assert amount(doc, "/inv:Invoice/cac:TaxTotal/cbc:TaxAmount") == vat
    assert amount(doc, "//cac:LegalMonetaryTotal/cbc:PayableAmount") == net + vat


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


def test_buyer_with_only_a_foreign_vat_number_is_addressed_by_it(schema):
    buyer = Party(naam="Landwirt Müller", land="DE", btw_nummer="DE123456789", stad="Goch")
    doc = parse(invoice_xml(invoice(koper=buyer)))

    assert_valid(schema, doc)
    endpoint = "//cac:AccountingCustomerParty/cac:Party/cbc:EndpointID"
    assert (text(doc, endpoint), text(doc, f"{endpoint}/@schemeID")) == ("DE123456789", "9930")


def test_buyer_with_only_a_kvk_number_is_addressed_by_it(schema):
    buyer = replace(FARMER, btw_nummer=None, kvk_nummer="87654321")
    doc = parse(invoice_xml(invoice(koper=buyer)))

    assert_valid(schema, doc)
    party = "//cac:AccountingCustomerParty/cac:Party"
    assert text(doc, f"{party}/cbc:EndpointID/@schemeID") == "0106"
    assert not doc.xpath(f"{party}/cac:PartyTaxScheme", namespaces=NS)


def test_buyer_without_vat_or_kvk_number_is_refused():
    buyer = replace(FARMER, btw_nummer=None, kvk_nummer=None)

    with pytest.raises(InvoiceError) as refused:
        invoice_xml(invoice(koper=buyer))
    assert refused.value.codes == ("buyer_no_endpoint",)
    assert isinstance(refused.value, ValueError)


def test_invoice_without_lines_is_refused():
    with pytest.raises(ValueError, match="no_lines"):
        invoice_xml(invoice(regels=[]))


def test_dutch_seller_needs_kvk_iban_address_and_vat_all_reported_at_once():
    seller = replace(CARRIER, kvk_nummer=None, btw_nummer=None, postcode=" ")

    assert problems(invoice(verkoper=seller, iban=None)) == (
        "seller_no_endpoint",
        "seller_address_incomplete",
        "seller_no_vat",
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
