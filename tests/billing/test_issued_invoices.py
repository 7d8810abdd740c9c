"""Issued invoices never change: an export issues each customer's invoice with its document
stored (number, bytes and their SHA-256, seller and buyer as they were); every later download
answers those bytes, whatever changed since. Corrections are credit notes (their own
gap-free series, never more than the invoice) and, where asked, a new invoice. The database
refuses to change or delete an issued document. Every document passes EN 16931 and Peppol."""

from __future__ import annotations

import hashlib
import re
import uuid
from datetime import datetime, timedelta
from decimal import Decimal as D
from zoneinfo import ZoneInfo

import pytest
from billing import en16931, peppol
from factories import create_task, csrf_from, in_carrier, login
from lxml import etree

from portal.accounts.models import Carrier
from portal.audit.service import SYSTEM
from portal.billing import service as billing
from portal.billing import tariffs
from portal.extensions import db

AMSTERDAM = ZoneInfo("Europe/Amsterdam")
NS = {
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
}
SELLER = {
    "btw_nummer": "NL001234567B01",
    "kvk_nummer": "12345678",
    "iban": "NL91ABNA0417164300",
    "factuur_email": "facturen@vdberg.example",
    "thuisbasis_straat": "Industrieweg 4",
    "thuisbasis_postcode": "7461 AB",
    "thuisbasis_plaats": "Rijssen",
    "thuisbasis_land": "NL",
}
BUYER = {
    "naam": "Maatschap Ter Horst",
    "debiteurnummer": "10023",
    "btw_nummer": "NL123456789B01",
    "kvk_nummer": "87654321",
    "factuur_email": "facturen@terhorst.nl",
    "factuur_adres": "Hengelosestraat 12",
    "factuur_postcode": "7468 AB",
    "factuur_plaats": "Enter",
    "factuur_land": "NL",
}


def today():
    return datetime.now(AMSTERDAM).date()


def text_of(response) -> str:
    return re.sub(r"\s+", " ", response.get_data(as_text=True))


def set_seller(app, carrier, **fields) -> None:
    def update():
        found = db.session.get(Carrier, carrier.id)
        for name, value in {**SELLER, **fields}.items():
            setattr(found, name, value)

    in_carrier(app, carrier.id, update)


def make_customer(app, carrier, **fields) -> uuid.UUID:
    from portal.customers import service as customers

    return in_carrier(
        app,
        carrier.id,
        lambda: customers.create_customer(
            carrier_id=carrier.id, data={**BUYER, **fields}, actor=SYSTEM
        ),
        lambda c: c.id,
    )


def change_customer(app, carrier, klant_id, **fields) -> None:
    from portal.customers import service as customers

    in_carrier(
        app,
        carrier.id,
        lambda: customers.update_customer(
            carrier_id=carrier.id, customer_id=klant_id, data=fields, actor=SYSTEM
        ),
    )


def make_tariff(app, carrier, klant_id=None, **fields) -> None:
    in_carrier(
        app,
        carrier.id,
        lambda: tariffs.create_tariff(
            carrier_id=carrier.id,
            data=tariffs.TariffIn(
                **{
                    "klant_id": klant_id,
                    "activity_type": "mest_laden",
                    "geldig_vanaf": today() - timedelta(days=400),
                    "grondslag": "eenheid",
                    "eenheid": "ton",
                    "prijs": D("4.35"),
                    **fields,
                }
            ),
            actor=SYSTEM,
        ),
    )


def completed(app, carrier, driver, klant_id, naam="Mest Ter Horst", hoeveelheid=30):
    from portal.tasks import service as tasks

    now = datetime.now(AMSTERDAM)
    task = create_task(
        app,
        carrier,
        driver,
        naam=naam,
        klant_id=klant_id,
        gepland_op=now,
        hoeveelheid=hoeveelheid,
        eenheid="ton",
    )

    def finish():
        found = tasks.get_task(carrier_id=carrier.id, task_id=task.id)
        found.status, found.afgerond_op = "afgerond", now
        billing.line_for_completion(carrier_id=carrier.id, task=found)

    in_carrier(app, carrier.id, finish)
    return task


def export(app, carrier, klant_id=None):
    return in_carrier(
        app,
        carrier.id,
        lambda: billing.export(
            carrier_id=carrier.id, van=today(), tot=today(), klant=klant_id, actor_label="planner"
        ),
        lambda batch: batch.id,
    )


def documents_of(app, carrier, batch_id) -> list[dict]:
    return in_carrier(
        app,
        carrier.id,
        lambda: billing.invoices_of_batch(carrier_id=carrier.id, export_id=batch_id)[0],
        lambda found: [
            {
                "id": i.id,
                "nummer": i.nummer,
                "bedrag": i.bedrag,
                "btw": i.btw_bedrag,
                "sha": i.document_sha256,
                "uitgegeven": i.uitgegeven,
            }
            for i in found
        ],
    )


def post(client, path: str, data: dict, form_path: str | None = None):
    token = csrf_from(client.get(form_path or path).get_data(as_text=True))
    return client.post(path, data={"csrf_token": token, **data})


def valid(xml: bytes) -> bytes:
    en16931.assert_valid(xml)
    assert peppol.failed(xml) == []
    return xml


@pytest.fixture
def invoiced(app, carrier, driver):
    """A customer with an invoice address and KvK, a tariff, two tasks done, exported."""
    set_seller(app, carrier)
    klant_id = make_customer(app, carrier)
    make_tariff(app, carrier)
    completed(app, carrier, driver, klant_id, "Mest Ter Horst 1", 30)
    completed(app, carrier, driver, klant_id, "Mest Ter Horst 2", 28.5)
    batch = export(app, carrier)
    return klant_id, batch, documents_of(app, carrier, batch)[0]


def test_an_export_issues_the_invoice_with_its_document_stored(
    app, client, carrier, planner, invoiced
):
    _klant, _batch, invoice = invoiced
    year = today().year
    assert invoice["uitgegeven"] and invoice["nummer"] == f"{year}-00001"
    # 30 + 28.5 ton at 4.35 = 130.50 + 123.98; VAT 21% on the sum 254.48 = 53.44
    assert (invoice["bedrag"], invoice["btw"]) == (D("254.48"), D("53.44"))
    login(client, planner)
    response = client.get(f"/facturatie/facturen/{invoice['id']}.xml")
    assert response.status_code == 200
    body = response.get_data()
    assert hashlib.sha256(body).hexdigest() == invoice["sha"]
    valid(body)
    pdf = client.get(f"/facturatie/facturen/{invoice['id']}.pdf")
    assert pdf.status_code == 200 and pdf.get_data().startswith(b"%PDF")


def test_an_issued_invoice_downloads_byte_identical_after_settings_and_customer_change(
    app, client, carrier, planner, invoiced
):
    klant_id, _batch, invoice = invoiced
    login(client, planner)
    url = f"/facturatie/facturen/{invoice['id']}"
    before = client.get(f"{url}.xml").get_data()
    before_pdf = client.get(f"{url}.pdf").get_data()

    set_seller(app, carrier, iban="NL02ABNA0123456789", thuisbasis_straat="Nieuwe Weg 1")
    change_customer(
        app,
        carrier,
        klant_id,
        naam="Ter Horst Melkvee B.V.",
        factuur_adres="Postbus 9",
        factuur_plaats="Hengelo",
        debiteurnummer="99999",
    )

    assert client.get(f"{url}.xml").get_data() == before
    assert client.get(f"{url}.pdf").get_data() == before_pdf
    root = etree.fromstring(before)
    assert root.findtext(".//cac:AccountingCustomerParty//cbc:StreetName", namespaces=NS) == (
        "Hengelosestraat 12"
    )
    page = text_of(client.get(url))
    assert "Hengelosestraat 12" in page and "Maatschap Ter Horst" in page
    assert "Postbus 9" not in page


def test_the_database_refuses_to_change_or_delete_an_issued_invoice(app, carrier, invoiced):
    from sqlalchemy import delete, update

    from portal.billing.models import Invoice, InvoiceLine

    _klant, _batch, invoice = invoiced
    one = Invoice.id == invoice["id"]
    lines = InvoiceLine.factuur_id == invoice["id"]
    for statement in (
        update(Invoice).where(one).values(bedrag=1),
        update(Invoice).where(one).values(document=None, uitgegeven_op=None, nummer=None),
        delete(Invoice).where(one),
        update(InvoiceLine).where(lines).values(bedrag=0),
        delete(InvoiceLine).where(lines),
    ):

        def attempt(statement=statement):
            try:
                db.session.execute(statement)
                db.session.flush()
            except Exception as error:  # the database's own refusal
                db.session.rollback()
                return str(error)
            db.session.rollback()
            return None

        refused = in_carrier(app, carrier.id, attempt)
        assert refused and "cannot" in refused, str(statement)


def test_a_concept_waits_for_the_details_and_takes_the_next_number_when_issued(
    app, client, carrier, driver, planner
):
    klant_id = make_customer(app, carrier, factuur_adres=None)  # no invoice address yet
    make_tariff(app, carrier)
    completed(app, carrier, driver, klant_id)
    batch = export(app, carrier)
    [concept] = documents_of(app, carrier, batch)
    assert not concept["uitgegeven"] and concept["nummer"] is None

    login(client, planner)
    page = text_of(client.get(f"/facturatie/exports/{batch}"))
    assert "Niet uitgegeven" in page and "het IBAN van je bedrijf" in page
    assert "het factuuradres van de klant" in page
    refused = client.get(f"/facturatie/facturen/{concept['id']}.xml")
    assert refused.status_code == 303  # no document yet: its page says what it lacks

    set_seller(app, carrier)
    change_customer(app, carrier, klant_id, factuur_adres="Hengelosestraat 12")
    issued = post(
        client,
        f"/facturatie/facturen/{concept['id']}/uitgeven",
        {},
        form_path=f"/facturatie/facturen/{concept['id']}",
    )
    assert issued.status_code == 303
    shown = text_of(client.get(issued.headers["Location"]))
    number = f"{today().year}-00001"  # the concept took no number: no gap
    assert f"Factuur {number} is uitgegeven." in shown
    valid(client.get(f"/facturatie/facturen/{concept['id']}.xml").get_data())


def credit_page(client, invoice_id):
    return f"/facturatie/facturen/{invoice_id}/crediteren"


def test_a_credit_note_is_checked_confirmed_issued_and_validates(
    app, client, carrier, planner, invoiced
):
    _klant, _batch, invoice = invoiced
    login(client, planner)
    form = client.get(credit_page(client, invoice["id"]))
    html = form.get_data(as_text=True)
    line_ids = re.findall(r'name="bedrag-([0-9a-f-]{36})"', html)
    assert len(line_ids) == 2 and "130,50" in html

    # Without a reason, and more than the line: errors at their fields, nothing issued.
    refused = post(
        client,
        credit_page(client, invoice["id"]),
        {f"bedrag-{line_ids[0]}": "200,00", "reden": ""},
    )
    assert refused.status_code == 422
    page = text_of(refused)
    assert "Schrijf op waarom je crediteert" in page
    assert "Er staat nog € 130,50 open op deze regel." in page
    assert 'value="200,00"' in page  # what was typed is kept

    data = {f"bedrag-{line_ids[0]}": "30,50", f"bedrag-{line_ids[1]}": "", "reden": "Te veel"}
    check = post(client, credit_page(client, invoice["id"]), data)
    assert check.status_code == 200
    assert "Creditnota bij factuur" in text_of(check) and "€ 30,50" in text_of(check)
    issued = post(client, credit_page(client, invoice["id"]), {**data, "bevestigd": "1"})
    assert issued.status_code == 303
    note_page = text_of(client.get(issued.headers["Location"]))
    number = f"C{today().year}-00001"
    assert f"Creditnota {number} is uitgegeven." in note_page
    note_id = issued.headers["Location"].rsplit("/", 1)[1]
    xml = client.get(f"/facturatie/facturen/{note_id}.xml").get_data()
    valid(xml)
    root = etree.fromstring(xml)
    assert (
        root.findtext("cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID", namespaces=NS)
        == invoice["nummer"]
    )
    assert root.findtext("cac:LegalMonetaryTotal/cbc:PayableAmount", namespaces=NS) == "36.91"

    # What is left: 100.00 on the first line, all of the second.
    again = post(
        client,
        credit_page(client, invoice["id"]),
        {f"bedrag-{line_ids[0]}": "100,01", "reden": "Nog eens"},
    )
    assert again.status_code == 422
    assert "Er staat nog € 100,00 open op deze regel." in text_of(again)


def test_credits_never_add_up_to_more_than_the_invoice(app, carrier, invoiced):
    from portal.billing import invoicing
    from portal.errors import ValidationFailed

    _klant, _batch, invoice = invoiced

    def credit(amounts=None):
        return invoicing.credit(
            carrier_id=carrier.id,
            invoice_id=invoice["id"],
            reden="Correctie",
            bedragen=amounts,
            actor_label="planner",
        )

    in_carrier(app, carrier.id, lambda: credit())  # everything
    with pytest.raises(ValidationFailed) as refused:
        in_carrier(app, carrier.id, lambda: credit())
    assert refused.value.errors[0]["code"] == "nothing_to_credit"


def test_a_correction_invoice_bills_the_line_again_at_its_right_amount(
    app, client, carrier, planner, invoiced
):
    _klant, _batch, invoice = invoiced
    login(client, planner)
    html = client.get(credit_page(client, invoice["id"])).get_data(as_text=True)
    first, second = re.findall(r'name="bedrag-([0-9a-f-]{36})"', html)
    data = {
        f"bedrag-{first}": "130,50",
        f"correctie-{first}": "121,80",  # 28 ton, not 30
        f"bedrag-{second}": "",
        "reden": "28 ton geleverd, niet 30",
        "bevestigd": "1",
    }
    issued = post(client, credit_page(client, invoice["id"]), data)
    assert issued.status_code == 303
    page = text_of(client.get(issued.headers["Location"]))
    year = today().year
    assert f"Creditnota C{year}-00001 en de nieuwe factuur {year}-00002 zijn uitgegeven." in page

    listing = text_of(client.get("/facturatie/facturen"))
    assert f"{year}-00002" in listing and f"C{year}-00001" in listing
    correction = re.search(
        rf'href="/facturatie/facturen/([0-9a-f-]{{36}})">{year}-00002<',
        client.get("/facturatie/facturen").get_data(as_text=True),
    ).group(1)
    valid(client.get(f"/facturatie/facturen/{correction}.xml").get_data())

    # A correction needs the whole line credited.
    html = client.get(credit_page(client, invoice["id"])).get_data(as_text=True)
    half = post(
        client,
        credit_page(client, invoice["id"]),
        {f"bedrag-{second}": "10,00", f"correctie-{second}": "100,00", "reden": "x"},
    )
    assert half.status_code == 422
    assert "alleen opnieuw gefactureerd als je hem helemaal crediteert" in text_of(half)


def test_another_carriers_invoice_cannot_be_credited(app, client, carrier, other_carrier, invoiced):
    from factories import create_user

    _klant, _batch, invoice = invoiced
    stranger = create_user(app, other_carrier, "planner")
    login(client, stranger)
    assert client.get(credit_page(client, invoice["id"])).status_code == 404
    assert client.get(f"/facturatie/facturen/{invoice['id']}.xml").status_code == 404


def test_the_vat_overview_subtracts_credit_notes_and_exports_csv(
    app, client, carrier, planner, invoiced
):
    from portal.billing import invoicing

    _klant, _batch, invoice = invoiced
    in_carrier(
        app,
        carrier.id,
        lambda: invoicing.credit(
            carrier_id=carrier.id,
            invoice_id=invoice["id"],
            reden="Korting",
            bedragen=None,
            actor_label="planner",
        ),
    )
    login(client, planner)
    period = f"van={today().isoformat()}&tot={today().isoformat()}"
    page = text_of(client.get(f"/facturatie/btw-overzicht?{period}"))
    assert "1 factuur" in page and "1 creditnota" in page
    assert "1a" in page and "€ 0,00" in page  # 254.48 invoiced, 254.48 credited
    csv_file = client.get(f"/facturatie/btw-overzicht?{period}&formaat=csv")
    assert csv_file.status_code == 200
    rows = csv_file.get_data().decode("utf-8-sig").splitlines()
    assert rows[0].startswith("Rubriek;Categorie") and rows[1].startswith("1a;S;")
    assert rows[1].split(";")[4:6] == ["0,00", "0,00"]


def test_deleting_the_task_the_tariff_or_the_customer_leaves_the_invoice_as_issued(
    app, client, carrier, planner, invoiced
):
    from sqlalchemy import select

    from portal.billing.models import InvoiceLine, Tariff
    from portal.customers import service as customers
    from portal.errors import Conflict
    from portal.tasks import service as tasks

    klant_id, _batch, invoice = invoiced
    login(client, planner)
    url = f"/facturatie/facturen/{invoice['id']}"
    before = client.get(f"{url}.xml").get_data()

    def delete_everything():
        lines = db.session.scalars(
            select(InvoiceLine).where(InvoiceLine.factuur_id == invoice["id"])
        ).all()
        for line in lines:
            tasks.delete_task(carrier_id=carrier.id, task_id=line.taak_id, actor=SYSTEM)
        for tariff_id in db.session.scalars(select(Tariff.id)):
            tariffs.delete_tariff(carrier_id=carrier.id, tariff_id=tariff_id, actor=SYSTEM)
        with pytest.raises(Conflict):  # a customer with invoices is deactivated, not deleted
            customers.delete_customer(carrier_id=carrier.id, customer_id=klant_id, actor=SYSTEM)

    in_carrier(app, carrier.id, delete_everything)
    assert client.get(f"{url}.xml").get_data() == before
    page = text_of(client.get(url))
    assert "Mest Ter Horst 1 (Mest laden)" in page and "€ 307,92" in page  # 254.48 + 53.44


def test_zero_rated_transport_names_its_evidence_on_the_invoice(app, client, carrier, driver,
                                                                 planner):  # fmt: skip
    from portal.errors import ValidationFailed

    set_seller(app, carrier)
    klant_id = make_customer(app, carrier)
    with pytest.raises(ValidationFailed) as refused:
        make_tariff(app, carrier, klant_id, btw_categorie="Z", btw_procent=D(0))
    assert [(e["field"], e["code"]) for e in refused.value.errors] == [
        ("btw_vrijstellingsreden", "required")
    ]
    evidence = "Vervoer bij uitvoer: MRN 26NL0000000000017 op de CMR"
    make_tariff(app, carrier, klant_id, btw_categorie="Z", btw_procent=D(0),
                btw_vrijstellingsreden=evidence)  # fmt: skip
    completed(app, carrier, driver, klant_id, "Mest naar de haven", 30)
    [invoice] = documents_of(app, carrier, export(app, carrier))
    assert invoice["uitgegeven"] and invoice["btw"] == D("0.00")

    login(client, planner)
    xml = valid(client.get(f"/facturatie/facturen/{invoice['id']}.xml").get_data())
    root = etree.fromstring(xml)
    assert root.findtext(".//cac:TaxSubtotal/cac:TaxCategory/cbc:ID", namespaces=NS) == "Z"
    assert evidence in root.findtext(".//cac:InvoiceLine/cbc:Note", namespaces=NS)
    assert root.find(".//cac:TaxSubtotal/cac:TaxCategory/cbc:TaxExemptionReason", NS) is None


def test_a_price_by_hand_at_zero_percent_names_its_reason_or_evidence(
    app, client, carrier, driver, planner
):
    klant_id = make_customer(app, carrier)
    task = completed(app, carrier, driver, klant_id, "Mest zonder tarief", 10)  # no tariff
    login(client, planner)
    url = f"/facturatie/regels/{task.id}/prijs"
    data = {"bedrag": "95,00", "btw_procent": "0", "actie": "prijs"}
    refused = post(client, url, {**data, "btw_vrijstellingsreden": ""})
    assert refused.status_code == 422
    assert "Noem het bewijs voor het nultarief" in text_of(refused)
    saved = post(client, url, {**data, "btw_vrijstellingsreden": "Uitvoer, MRN 26NL0000000000018"})
    assert saved.status_code == 303

    from portal.billing.models import BillingLine

    line = in_carrier(
        app,
        carrier.id,
        lambda: db.session.query(BillingLine).filter_by(taak_id=task.id).one(),
        lambda found: (found.btw_categorie, found.btw_vrijstellingsreden, found.bedrag),
    )
    assert line == ("Z", "Uitvoer, MRN 26NL0000000000018", D("95.00"))
