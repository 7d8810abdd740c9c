"""Billing that is ready to invoice: a customer with two places and a tariff, a task planned
from its loading to its unloading place, completed by the driver with a quantity, priced on
the billing page and in the export, and invoiced per customer as a UBL 2.1 file that the
OASIS schema accepts. Lines no tariff prices are priced by hand (audited); a customer with
an unpriced line gets no invoice, and says why."""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime, timedelta
from decimal import Decimal as D
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from billing.test_issued_invoices import set_seller
from factories import bearer, create_task, csrf_from, driver_token, in_carrier, login
from lxml import etree

from portal.audit.service import SYSTEM
from portal.billing import service as billing
from portal.extensions import db

XSD = Path(__file__).parents[1] / "fixtures" / "ubl-2.1" / "maindoc" / "UBL-Invoice-2.1.xsd"
NS = {
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
}
AMSTERDAM = ZoneInfo("Europe/Amsterdam")


@pytest.fixture(scope="module")
def schema() -> etree.XMLSchema:
    parser = etree.XMLParser(no_network=True, resolve_entities=False)
    return etree.XMLSchema(etree.parse(str(XSD), parser))


def today():
    # The carrier's day: billing periods and tariffs follow the carrier's calendar.
    return datetime.now(AMSTERDAM).date()


def month_args() -> str:
    first = today().replace(day=1)
    last = (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    return f"van={first.isoformat()}&tot={last.isoformat()}"


def text(html: str) -> str:
    return re.sub(r"\s+", " ", html)


def post_form(client, path: str, data: dict, form_path: str | None = None):
    token = csrf_from(client.get(form_path or path).get_data(as_text=True))
    return client.post(path, data={"csrf_token": token, **data})


def set_invoicing_details(app, carrier, **fields):
    set_seller(app, carrier, **fields)


def created_id(location: str) -> str:
    return re.search(r"/klanten/([0-9a-f-]{36})", location).group(1)


def customer_with_places(client) -> tuple[str, str]:
    """A planner makes a customer with a loading and an unloading place (the portal's forms);
    returns the customer's id and page."""
    made = post_form(
        client,
        "/klanten/nieuw",
        {
            "naam": "Maatschap Ter Horst",
            "debiteurnummer": "10023",
            "btw_nummer": "NL123456789B01",
            "kvk_nummer": "87654321",
            "factuur_email": "facturen@terhorst.nl",
            "factuur_adres": "Hengelosestraat 12",
            "factuur_postcode": "7468 AB",
            "factuur_plaats": "Enter",
            "factuur_land": "NL",
            "btw_categorie": "",
        },
    )
    assert made.status_code == 303, made.get_data(as_text=True)
    page = made.headers["Location"]
    klant_id = created_id(page)
    for place in (
        {
            "naam": "Erf Enter",
            "soort": "laden",
            "adres": "Hengelosestraat 12",
            "postcode": "7468 AB",
            "stad": "Enter",
            "land": "NL",
            "locatie_lat": "52,2936",
            "locatie_lng": "6,5714",
        },
        {
            "naam": "Mestverwerking Deventer",
            "soort": "lossen",
            "adres": "Zutphenseweg 51",
            "postcode": "7418 AH",
            "stad": "Deventer",
            "land": "NL",
        },
    ):
        added = post_form(client, f"{page}/locaties/nieuw", place)
        assert added.status_code == 303, added.get_data(as_text=True)
    return klant_id, page


def places_of(app, carrier, klant_id: str) -> dict[str, str]:
    import uuid

    from portal.customers import service as customers

    return in_carrier(
        app,
        carrier.id,
        lambda: customers.list_places(carrier_id=carrier.id, customer_id=uuid.UUID(klant_id)),
        lambda places: {p.naam: str(p.id) for p in places},
    )


def plan_task(client, klant_id: str, places: dict[str, str], driver) -> str:
    page = client.get("/taken/nieuw").get_data(as_text=True)
    response = client.post(
        "/taken/nieuw",
        data={
            "csrf_token": csrf_from(page),
            "type": "mest_laden",
            "naam": "Mest Ter Horst",
            "hoeveelheid": "30",
            "eenheid": "ton",
            "land": "",
            "klant_id": klant_id,
            "laadlocatie_id": places["Erf Enter"],
            "loslocatie_id": places["Mestverwerking Deventer"],
            "gepland_datum": today().isoformat(),
            "gepland_tijd": "07:30",
            "chauffeur_id": str(driver.id),
        },
    )
    assert response.status_code == 303, text(response.get_data(as_text=True))[-3000:]
    return response


def task_named(app, carrier, naam: str):
    from sqlalchemy import select

    from portal.tasks.models import Task

    return in_carrier(
        app,
        carrier.id,
        lambda: db.session.scalar(
            select(Task).where(Task.transporteur_id == carrier.id, Task.naam == naam)
        ),
        lambda t: {
            name: getattr(t, name)
            for name in (
                "id",
                "klant_id",
                "laad_naam",
                "laad_adres",
                "laad_stad",
                "laad_lat",
                "los_naam",
                "los_adres",
                "los_stad",
                "adres",
                "stad",
                "locatie_lat",
            )
        },
    )


def tariff_for(client, klant_id: str, **fields):
    response = post_form(
        client,
        "/facturatie/tarieven/nieuw",
        {
            "klant_id": klant_id,
            "activity_type": "mest_laden",
            "geldig_vanaf": "2026-01-01",
            "grondslag": "eenheid",
            "eenheid": "ton",
            "prijs": "4,35",
            "minimum": "",
            "wachttijd_vrij_minuten": "0",
            "wachttijd_per_uur": "",
            "weekend_toeslag_procent": "",
            "btw_procent": "21",
            **fields,
        },
    )
    assert response.status_code == 303, text(response.get_data(as_text=True))[-2000:]


def complete_as_driver(client, driver, task_id, **work):
    headers = bearer(driver_token(client, driver))
    started = client.patch(
        f"/api/v1/taken/{task_id}/status", json={"status": "gestart"}, headers=headers
    )
    assert started.status_code == 200, started.get_json()
    done = client.post(f"/api/v1/taken/{task_id}/afronding", json=work, headers=headers)
    assert done.status_code == 200, done.get_json()
    return done.get_json()


def test_from_customer_to_ubl_invoice(app, client, carrier, driver, planner, schema):
    login(client, planner)
    klant_id, _page = customer_with_places(client)
    places = places_of(app, carrier, klant_id)
    tariff_for(client, klant_id)
    plan_task(client, klant_id, places, driver)

    task = task_named(app, carrier, "Mest Ter Horst")
    assert task["laad_naam"] == "Erf Enter" and task["laad_adres"] == "Hengelosestraat 12"
    assert task["laad_lat"] == pytest.approx(52.2936)
    assert task["los_naam"] == "Mestverwerking Deventer" and task["los_stad"] == "Deventer"
    # No main address given: the driver app navigates to the loading place.
    assert task["adres"] == "Hengelosestraat 12" and task["stad"] == "Enter"
    assert task["locatie_lat"] == pytest.approx(52.2936)

    # The driver sees the route, additive to the seed's fields, and reports 28.5 ton.
    shown = client.get(
        f"/api/v1/taken/{task['id']}", headers=bearer(driver_token(client, driver))
    ).get_json()
    assert shown["klant_id"] == klant_id and shown["los_adres"] == "Zutphenseweg 51"
    assert shown["adres"] == "Hengelosestraat 12"
    done = complete_as_driver(client, driver, task["id"], hoeveelheid=28.5, eenheid="ton")
    assert done["facturatieregel"]["bedrag"] == "123.98"  # 28.5 x 4.35 = 123.975, half up

    page = text(client.get(f"/facturatie?{month_args()}&klant={klant_id}").get_data(as_text=True))
    assert "Maatschap Ter Horst" in page and "€ 123,98" in page and "€ 26,04" in page
    assert "tarief € 4,35 per ton" in page

    confirm = text(
        client.get(f"/facturatie/export?{month_args()}&klant={klant_id}&formaat=csv").get_data(
            as_text=True
        )
    )
    assert "De export maakt een factuur voor Maatschap Ter Horst." in confirm
    exported = post_form(
        client,
        "/facturatie/export",
        {
            **dict(pair.split("=") for pair in month_args().split("&")),
            "chauffeur": "",
            "klant": klant_id,
            "formaat": "csv",
        },
        form_path=f"/facturatie/export?{month_args()}&klant={klant_id}&formaat=csv",
    )
    assert exported.status_code == 303
    index = client.get(exported.headers["Location"]).get_data(as_text=True)
    download = re.search(r'href="(/facturatie/exports/[0-9a-f-]{36})\.csv"', index).group(1)
    rows = list(
        csv.DictReader(
            io.StringIO(client.get(f"{download}.csv").get_data().decode("utf-8-sig")),
            delimiter=";",
        )
    )
    assert [
        (r["klant"], r["hoeveelheid"], r["tarief_prijs"], r["tarief_per"], r["bedrag"])
        for r in rows
    ] == [("Maatschap Ter Horst", "28,5", "4,3500", "ton", "123,98")]
    assert rows[0]["btw_bedrag"] == "26,04"

    batch = text(client.get(download).get_data(as_text=True))
    number = f"{today().year}-00001"
    # Without the carrier's invoicing details the invoice waits as a concept, without a
    # number: the batch's page says what it lacks.
    assert "Niet uitgegeven" in batch and number not in batch and "€ 150,02" in batch
    assert "Voor een e-factuur is nog nodig" in batch and "het IBAN van je bedrijf" in batch
    invoice_id = re.search(r'href="/facturatie/facturen/([0-9a-f-]{36})"', batch).group(1)
    ubl_url = f"/facturatie/facturen/{invoice_id}.xml"
    assert client.get(ubl_url).status_code == 303  # no document yet

    set_invoicing_details(app, carrier)
    issued = post_form(
        client,
        f"/facturatie/facturen/{invoice_id}/uitgeven",
        {},
        form_path=f"/facturatie/facturen/{invoice_id}",
    )
    assert issued.status_code == 303
    assert f"Factuur {number} is uitgegeven." in text(
        client.get(issued.headers["Location"]).get_data(as_text=True)
    )
    response = client.get(ubl_url)
    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == f"attachment; filename=factuur-{number}.xml"
    document = etree.fromstring(response.get_data(), etree.XMLParser(no_network=True))
    if not schema.validate(document):
        pytest.fail(f"not valid UBL 2.1:\n{schema.error_log}")

    def one(path: str) -> str:
        return document.findtext(path, namespaces=NS)

    assert one("cbc:ID") == number
    assert one("cbc:BuyerReference") == "10023"
    assert (
        one("cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName")
        == "Maatschap Ter Horst"
    )
    assert one("cac:TaxTotal/cbc:TaxAmount") == "26.04"
    assert one("cac:LegalMonetaryTotal/cbc:LineExtensionAmount") == "123.98"
    assert one("cac:LegalMonetaryTotal/cbc:PayableAmount") == "150.02"
    quantity = document.find("cac:InvoiceLine/cbc:InvoicedQuantity", NS)
    assert quantity.get("unitCode") == "TNE" and D(quantity.text) == D("28.5")


def test_a_line_without_a_tariff_is_priced_by_hand_and_audited(
    app, client, carrier, driver, planner
):
    task = create_task(
        app,
        carrier,
        driver,
        status="ontvangen",
        gepland_op=datetime.now(AMSTERDAM),
        hoeveelheid=12,
        eenheid="ton",
    )
    complete_as_driver(client, driver, task.id, hoeveelheid=12)
    login(client, planner)
    page = text(client.get(f"/facturatie?{month_args()}").get_data(as_text=True))
    assert "geen tarief" in page and "Prijs invullen" in page
    form_url = f"/facturatie/regels/{task.id}/prijs"

    wrong = post_form(client, form_url, {"bedrag": "veel", "btw_procent": "21"})
    assert wrong.status_code == 422
    assert "Vul een bedrag in, bijvoorbeeld 4,35." in wrong.get_data(as_text=True)

    saved = post_form(client, form_url, {"bedrag": "95,50", "btw_procent": "9", "actie": "prijs"})
    assert saved.status_code == 303
    page = text(client.get(saved.headers["Location"]).get_data(as_text=True))
    assert "De prijs van “Mest laden Enter” is vastgelegd." in page
    assert "€ 95,50" in page and "met de hand" in page

    # The driver reporting again leaves the hand price as it is.
    complete_again = client.post(
        f"/api/v1/taken/{task.id}/afronding",
        json={"hoeveelheid": 13},
        headers=bearer(driver_token(client, driver)),
    )
    assert complete_again.get_json()["facturatieregel"]["bedrag"] == "95.50"
    history = text(client.get(f"/taken/{task.id}").get_data(as_text=True))
    assert "Prijs met de hand vastgelegd" in history and "€ 95,50" in history

    back = post_form(client, form_url, {"actie": "tarief", "bedrag": "", "btw_procent": ""})
    assert back.status_code == 303
    page = text(client.get(back.headers["Location"]).get_data(as_text=True))
    assert "volgt weer het tarief" in page and "€ 95,50" not in page


def test_a_customer_with_an_unpriced_line_gets_no_invoice_and_is_told(
    app, client, carrier, driver, planner
):
    login(client, planner)
    klant_id, _ = customer_with_places(client)
    places = places_of(app, carrier, klant_id)
    plan_task(client, klant_id, places, driver)  # no tariff: unpriced
    task = task_named(app, carrier, "Mest Ter Horst")
    complete_as_driver(client, driver, task["id"], hoeveelheid=20)
    confirm = text(
        client.get(f"/facturatie/export?{month_args()}&formaat=csv").get_data(as_text=True)
    )
    assert "Geen factuur voor Maatschap Ter Horst: een regel heeft nog geen bedrag." in confirm
    args = dict(pair.split("=") for pair in month_args().split("&"))
    exported = post_form(
        client,
        "/facturatie/export",
        {**args, "chauffeur": "", "klant": "", "formaat": "csv"},
        form_path=f"/facturatie/export?{month_args()}&formaat=csv",
    )
    index = client.get(exported.headers["Location"]).get_data(as_text=True)
    assert "0 facturen" in index
    batch = re.search(r'href="(/facturatie/exports/[0-9a-f-]{36})"', index).group(1)
    page = text(client.get(batch).get_data(as_text=True))
    assert "Geen factuur voor: Maatschap Ter Horst (1 regel zonder bedrag)" in page


def test_invoice_numbers_run_on_and_vat_is_per_rate(app, carrier, driver):
    from portal.billing import tariffs
    from portal.customers import service as customers
    from portal.tasks import service as tasks

    set_invoicing_details(app, carrier)
    klant = in_carrier(
        app,
        carrier.id,
        lambda: customers.create_customer(
            carrier_id=carrier.id,
            data={
                "naam": "De Heus Voeders",
                "factuur_adres": "Rubensstraat 175",
                "factuur_postcode": "6717 VE",
                "factuur_plaats": "Ede",
                "kvk_nummer": "09012345",
            },
            actor=SYSTEM,
        ),
        lambda c: c.id,
    )
    in_carrier(
        app,
        carrier.id,
        lambda: tariffs.create_tariff(
            carrier_id=carrier.id,
            data=tariffs.TariffIn(
                klant_id=klant,
                activity_type="voer_leveren",
                geldig_vanaf=today() - timedelta(days=400),
                grondslag="vracht",
                prijs=D("0.05"),
            ),
            actor=SYSTEM,
        ),
    )
    now = datetime.now(AMSTERDAM)

    def completed(naam):
        task = create_task(
            app, carrier, driver, type="voer_leveren", naam=naam, klant_id=klant, gepland_op=now
        )

        def finish():
            found = tasks.get_task(carrier_id=carrier.id, task_id=task.id)
            found.status, found.afgerond_op = "afgerond", now
            billing.line_for_completion(carrier_id=carrier.id, task=found)

        in_carrier(app, carrier.id, finish)

    def export():
        return in_carrier(
            app,
            carrier.id,
            lambda: billing.export(
                carrier_id=carrier.id, van=today(), tot=today(), actor_label="planner"
            ),
            lambda batch: batch.id,
        )

    # Each line: 0.05 net, VAT 0.0105 -> 0.01 per line; the invoice's VAT is computed on
    # the rate's sum: 0.15 x 21% = 0.0315 -> 0.03, the same as the page's totals.
    for n in range(3):
        completed(f"Voer {n}")
    first = export()
    completed("Voer 4")
    second = export()

    def invoices_of(batch_id):
        return in_carrier(
            app,
            carrier.id,
            lambda: billing.invoices_of_batch(carrier_id=carrier.id, export_id=batch_id)[0],
            lambda found: [(i.nummer, i.bedrag, i.btw_bedrag) for i in found],
        )

    year = today().year
    assert invoices_of(first) == [(f"{year}-00001", D("0.15"), D("0.03"))]
    assert invoices_of(second) == [(f"{year}-00002", D("0.05"), D("0.01"))]
