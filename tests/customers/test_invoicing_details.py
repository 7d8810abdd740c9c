"""A customer's invoicing details: an invoice address of its own, KvK, GLN and Peppol id, its
VAT treatment (reverse charge, not subject) checked against its VAT number and country, and
its VAT number checked in VIES (a fake VIES on loopback). Country codes are EN 16931's."""

from __future__ import annotations

import re
from decimal import Decimal as D
from pathlib import Path

import pytest
from billing import en16931
from billing.test_issued_invoices import (
    BUYER,
    completed,
    documents_of,
    export,
    make_customer,
    make_tariff,
    set_seller,
)
from factories import csrf_from, in_carrier, login, served
from flask import Flask, jsonify, request
from lxml import etree

from portal import countries

XSLT = Path(__file__).parents[1] / "fixtures" / "einvoice" / "EN16931-UBL-validation.xslt"
NS = {
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
}


def text_of(response) -> str:
    return re.sub(r"\s+", " ", response.get_data(as_text=True))


def test_the_country_list_is_the_one_en16931_checks():
    rule = re.search(r"contains\(' (1A AD [A-Z0-9 ]+) ', concat", XSLT.read_text())
    assert set(rule.group(1).split()) == countries.codes()  # BR-CL-14
    assert {"IC", "EA", "XK", "QO"}.isdisjoint(countries.codes())
    assert countries.vat_country("EL123456789") == "GR"
    assert [code for code, _name in countries.choices("nl")[:3]] == ["NL", "BE", "DE"]


def customer_form(client, **fields):
    page = client.get("/klanten/nieuw")
    data = {
        "csrf_token": csrf_from(page.get_data(as_text=True)),
        **{k: v for k, v in BUYER.items()},
        "btw_categorie": "",
        "peppol_id": "",
        "gln": "",
        "btw_vrijstellingsreden": "",
        "opmerkingen": "",
        **fields,
    }
    return client.post("/klanten/nieuw", data=data)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"factuur_land": "IC"}, "Geen landcode uit ISO 3166"),
        ({"kvk_nummer": "1234"}, "Een KvK-nummer heeft 8 cijfers"),
        ({"gln": "8712345678900"}, "Een GLN heeft 13 cijfers en een geldig controlecijfer."),
        ({"peppol_id": "12:34"}, "Schrijf een Peppol-ID als schema:nummer"),
        ({"btw_categorie": "AE", "btw_nummer": ""}, "Btw verleggen kan alleen met het btw-nummer"),
        ({"btw_categorie": "AE"}, "Btw verleggen is voor een ondernemer in een ander EU-land"),
        ({"btw_categorie": "O"}, "Niet onderworpen aan btw is voor een ondernemer buiten de EU"),
        ({"btw_categorie": "Z"}, "Noem het bewijs voor het nultarief"),
    ],
)
def test_bad_invoicing_details_are_refused_at_their_field(client, planner, fields, message):
    login(client, planner)
    response = customer_form(client, **fields)
    assert response.status_code == 422
    page = text_of(response)
    assert message in page
    assert "De klant is niet opgeslagen" in page and "Hengelosestraat 12" in page  # kept


def test_a_belgian_business_is_reverse_charged_and_a_swiss_one_not_subject(client, planner):
    login(client, planner)
    belgian = customer_form(
        client,
        naam="Biogas Vlaanderen NV",
        debiteurnummer="77",
        btw_nummer="BE 0123.456.749",
        factuur_land="BE",
        factuur_postcode="2300",
        btw_categorie="AE",
        peppol_id="0208:0123456749",
    )
    assert belgian.status_code == 303
    page = text_of(client.get(belgian.headers["Location"]))
    assert "BE0123456749" in page and "Btw verlegd (ondernemer in een ander EU-land)" in page
    assert "Via Peppol" in page and "Niet gecontroleerd in VIES" in page
    swiss = customer_form(
        client,
        naam="Agro Trading AG",
        debiteurnummer="78",
        btw_nummer="",
        kvk_nummer="",
        factuur_land="CH",
        factuur_postcode="4001",
        factuur_plaats="Basel",
        btw_categorie="O",
    )
    assert swiss.status_code == 303
    page = text_of(client.get(swiss.headers["Location"]))
    assert "Zwitserland" in page and "Niet via Peppol: UBL en pdf per e-mail" in page


@pytest.fixture
def fake_vies():
    """A VIES on loopback: BE0123456749 is valid, BE0999999926 is not, DE... is down."""
    vies = Flask("fake-vies")
    asked = []

    @vies.post("/check-vat-number")
    def check():
        body = request.get_json()
        asked.append(body)
        if body["countryCode"] == "DE":
            return jsonify(
                {"actionSucceed": False, "errorWrappers": [{"error": "MS_UNAVAILABLE"}]}
            ), 500
        return jsonify(
            {
                "countryCode": body["countryCode"],
                "vatNumber": body["vatNumber"],
                "valid": body["vatNumber"] == "0123456749",
                "name": "BIOGAS VLAANDEREN NV" if body["vatNumber"] == "0123456749" else "---",
                "requestIdentifier": "WAPIAAAAZ1234567",
            }
        )  # fmt: skip

    with served(vies, "fake-vies") as port:
        yield f"http://127.0.0.1:{port}/check-vat-number", asked


def check_in_vies(client, customer_url):
    token = csrf_from(client.get(customer_url).get_data(as_text=True))
    return client.post(f"{customer_url}/vies", data={"csrf_token": token})


def test_a_vat_number_is_checked_in_vies_and_the_answer_kept_with_its_date(
    app, client, carrier, planner, fake_vies
):
    url, asked = fake_vies
    app.config["VIES_URL"] = url
    login(client, planner)
    made = customer_form(
        client, naam="Biogas Vlaanderen NV", btw_nummer="BE0123456749", factuur_land="BE",
        factuur_postcode="2300", btw_categorie="AE",
    )  # fmt: skip
    customer_url = made.headers["Location"]

    checked = check_in_vies(client, customer_url)
    assert checked.status_code == 303
    page = text_of(client.get(customer_url))
    assert "VIES kent BE0123456749 als geldig btw-nummer." in page
    assert "Geldig in VIES" in page and "BIOGAS VLAANDEREN NV" in page
    assert asked == [{"countryCode": "BE", "vatNumber": "0123456749"}]

    history = client.get(customer_url).get_data(as_text=True)
    assert "Controleer in VIES" in history


def test_vies_down_keeps_the_last_answer_and_says_so(app, client, carrier, planner, fake_vies):
    url, _asked = fake_vies
    app.config["VIES_URL"] = url
    login(client, planner)
    made = customer_form(client, naam="Landwirt Müller", btw_nummer="DE123456789",
                         factuur_land="DE", factuur_postcode="47574")  # fmt: skip
    answer = check_in_vies(client, made.headers["Location"])
    page = text_of(client.get(answer.headers["Location"]))
    assert "VIES geeft nu geen antwoord" in page and "Niet gecontroleerd in VIES" in page


def test_unreachable_vies_is_said_plainly(app, client, carrier, planner):
    app.config["VIES_URL"] = "http://127.0.0.1:9/check-vat-number"  # nothing listens there
    app.config["VIES_TIMEOUT"] = 2
    login(client, planner)
    made = customer_form(client, naam="Biogas Vlaanderen NV", btw_nummer="BE0123456749",
                         factuur_land="BE", factuur_postcode="2300")  # fmt: skip
    answer = check_in_vies(client, made.headers["Location"])
    assert "VIES geeft nu geen antwoord" in text_of(client.get(answer.headers["Location"]))


def test_a_reverse_charged_invoice_names_the_buyers_vat_number_and_the_vies_answer(
    app, client, carrier, driver, planner, fake_vies
):
    url, _asked = fake_vies
    app.config["VIES_URL"] = url
    set_seller(app, carrier)
    klant_id = make_customer(
        app, carrier, naam="Biogas Vlaanderen NV", btw_nummer="BE0123456749",
        kvk_nummer=None, peppol_id="0208:0123456749", factuur_land="BE",
        factuur_postcode="2300", factuur_plaats="Turnhout", btw_categorie="AE",
    )  # fmt: skip
    make_tariff(app, carrier)
    login(client, planner)
    check_in_vies(client, f"/klanten/{klant_id}")
    completed(app, carrier, driver, klant_id, "Mest naar Turnhout", 28)
    [invoice] = documents_of(app, carrier, export(app, carrier))
    assert invoice["uitgegeven"] and invoice["btw"] == 0

    xml = client.get(f"/facturatie/facturen/{invoice['id']}.xml").get_data()
    en16931.assert_valid(xml)
    root = etree.fromstring(xml)
    assert root.findtext(".//cac:TaxSubtotal/cac:TaxCategory/cbc:ID", namespaces=NS) == "AE"
    assert (
        root.findtext(
            ".//cac:AccountingCustomerParty//cac:PartyTaxScheme/cbc:CompanyID", namespaces=NS
        )
        == "BE0123456749"
    )
    page = text_of(client.get(f"/facturatie/facturen/{invoice['id']}"))
    assert "Btw verlegd naar BE0123456749: <strong>geldig in VIES</strong>" in page


def test_a_customer_that_becomes_reverse_charged_has_its_open_lines_priced_again(
    app, carrier, driver
):
    from portal.billing.models import BillingLine
    from portal.extensions import db

    klant_id = make_customer(app, carrier, naam="Biogas Vlaanderen NV",
                             btw_nummer="BE0123456749", kvk_nummer=None, factuur_land="BE",
                             factuur_postcode="2300")  # fmt: skip
    make_tariff(app, carrier)
    completed(app, carrier, driver, klant_id, "Mest", 10)

    def line():
        found = db.session.query(BillingLine).filter_by(klant_id=klant_id).one()
        return found.btw_categorie, found.btw_procent, found.btw_bedrag

    assert in_carrier(app, carrier.id, line) == ("S", 21, D("9.14"))  # 43.50 x 21%
    from billing.test_issued_invoices import change_customer

    change_customer(app, carrier, klant_id, btw_categorie="AE")
    assert in_carrier(app, carrier.id, line) == ("AE", 0, 0)
