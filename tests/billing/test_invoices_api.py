"""A carrier's accounting package reads issued invoices and credit notes through the API
(invoices:read), as JSON or as the stored UBL, credits an invoice, and runs the billing export
itself: a dry run first, then the real run quoting its token, so nothing is exported twice or
differently from what was shown."""

from __future__ import annotations

import hashlib
import uuid

from billing import en16931
from billing.test_issued_invoices import (
    completed,
    documents_of,
    export,
    make_customer,
    make_tariff,
    set_seller,
    today,
)
from factories import bearer, create_api_key, in_carrier, login

from portal.accounts.service import create_api_key as make_key


def key_with(app, carrier, scopes: str) -> dict:
    key = in_carrier(
        app,
        carrier.id,
        lambda: make_key(carrier_id=carrier.id, naam="Boekhouding", scopes=scopes),
        lambda pair: pair[1],
    )
    return bearer(key)


def ready(app, carrier, driver, tasks=2):
    set_seller(app, carrier)
    klant_id = make_customer(app, carrier)
    make_tariff(app, carrier)
    for n in range(tasks):
        completed(app, carrier, driver, klant_id, f"Mest {n}", 30)
    return klant_id


def test_issued_invoices_are_listed_and_read_as_json_or_their_stored_ubl(
    app, client, carrier, driver, planner
):
    klant_id = ready(app, carrier, driver)
    batch = export(app, carrier)
    [invoice] = documents_of(app, carrier, batch)
    headers = bearer(create_api_key(app, carrier).key)

    listed = client.get(f"/api/v1/facturen?van={today().isoformat()}", headers=headers)
    assert listed.status_code == 200 and listed.headers["X-Total-Count"] == "1"
    [summary] = listed.get_json()
    assert summary["nummer"] == invoice["nummer"] and summary["soort"] == "factuur"
    assert summary["totaal"] == "315.81"  # 261.00 + 21% = 54.81
    assert summary["sha256"] == invoice["sha"]

    one = client.get(f"/api/v1/facturen/{invoice['id']}", headers=headers)
    assert one.status_code == 200
    body = one.get_json()
    assert body["koper"]["naam"] == "Maatschap Ter Horst" and body["peppol"] is True
    assert [line["bedrag"] for line in body["regels"]] == ["130.50", "130.50"]
    assert body["btw_uitsplitsing"] == [
        {"categorie": "S", "procent": "21", "grondslag": "261.00", "btw": "54.81", "reden": None}
    ]

    xml = client.get(
        f"/api/v1/facturen/{invoice['id']}", headers={**headers, "Accept": "application/xml"}
    )
    assert xml.status_code == 200 and xml.mimetype == "application/xml"
    assert hashlib.sha256(xml.get_data()).hexdigest() == invoice["sha"]
    login(client, planner)
    portal = client.get(f"/facturatie/facturen/{invoice['id']}.xml").get_data()
    assert xml.get_data() == portal  # the one stored document
    en16931.assert_valid(portal)

    again = client.get(
        f"/api/v1/facturen/{invoice['id']}",
        headers={**headers, "Accept": "application/xml", "If-None-Match": f'"{invoice["sha"]}"'},
    )
    assert again.status_code == 304

    wrong = client.get(f"/api/v1/facturen?klant_id={uuid.uuid4()}", headers=headers)
    assert wrong.get_json() == [] and wrong.headers["X-Total-Count"] == "0"
    assert client.get(f"/api/v1/facturen?klant_id={klant_id}", headers=headers).get_json()
    reversed_period = client.get("/api/v1/facturen?van=2026-12-01&tot=2026-11-01", headers=headers)
    assert reversed_period.status_code == 422


def test_invoices_need_their_scope_and_stay_within_the_carrier(
    app, client, carrier, other_carrier, driver
):
    ready(app, carrier, driver, tasks=1)
    [invoice] = documents_of(app, carrier, export(app, carrier))
    tasks_only = key_with(app, carrier, "tasks:read")
    refused = client.get("/api/v1/facturen", headers=tasks_only)
    assert refused.status_code == 403 and refused.get_json()["required_scope"] == "invoices:read"
    stranger = key_with(app, other_carrier, "invoices:write")
    assert client.get(f"/api/v1/facturen/{invoice['id']}", headers=stranger).status_code == 404
    credited = client.post(
        f"/api/v1/facturen/{invoice['id']}/creditnota", json={"reden": "x"}, headers=stranger
    )
    assert credited.status_code == 404


def test_a_credit_note_through_the_api_never_credits_more_than_the_invoice(
    app, client, carrier, driver
):
    ready(app, carrier, driver)
    [invoice] = documents_of(app, carrier, export(app, carrier))
    headers = bearer(create_api_key(app, carrier).key)
    lines = client.get(f"/api/v1/facturen/{invoice['id']}", headers=headers).get_json()["regels"]
    first = lines[0]["id"]

    too_much = client.post(
        f"/api/v1/facturen/{invoice['id']}/creditnota",
        json={"reden": "Te veel", "regels": [{"regel_id": first, "bedrag": "130.51"}]},
        headers=headers,
    )
    assert too_much.status_code == 422
    [error] = too_much.get_json()["errors"]
    assert error["field"] == f"regels.{first}.bedrag" and error["code"] == "more_than_invoiced"

    made = client.post(
        f"/api/v1/facturen/{invoice['id']}/creditnota",
        json={"reden": "Te veel", "regels": [{"regel_id": first, "bedrag": "30.50"}]},
        headers={**headers, "Idempotency-Key": "credit-1"},
    )
    assert made.status_code == 201
    note = made.get_json()["creditnota"]
    assert note["soort"] == "creditnota" and note["nummer"] == f"C{today().year}-00001"
    assert note["gecrediteerde_factuur_id"] == str(invoice["id"])
    assert note["regels"][0]["gecrediteerde_regel_id"] == first
    replay = client.post(
        f"/api/v1/facturen/{invoice['id']}/creditnota",
        json={"reden": "Te veel", "regels": [{"regel_id": first, "bedrag": "30.50"}]},
        headers={**headers, "Idempotency-Key": "credit-1"},
    )
    assert replay.status_code == 201 and replay.get_json()["creditnota"]["id"] == note["id"]
    xml = client.get(
        f"/api/v1/facturen/{note['id']}", headers={**headers, "Accept": "application/xml"}
    )
    en16931.assert_valid(xml.get_data())

    credit_of_credit = client.post(
        f"/api/v1/facturen/{note['id']}/creditnota", json={"reden": "x"}, headers=headers
    )
    assert credit_of_credit.status_code == 409
    assert credit_of_credit.get_json()["code"] == "not_an_invoice"
    listed = client.get("/api/v1/facturen?soort=creditnota", headers=headers).get_json()
    assert [d["nummer"] for d in listed] == [note["nummer"]]


def test_the_export_runs_exactly_what_its_dry_run_showed(app, client, carrier, driver):
    klant_id = ready(app, carrier, driver)
    headers = bearer(create_api_key(app, carrier).key)
    period = {"van": today().isoformat(), "tot": today().isoformat()}

    dry = client.post("/api/v1/facturatie/exporten", json={**period, "dry_run": True},
                      headers=headers)  # fmt: skip
    assert dry.status_code == 200
    shown = dry.get_json()
    assert shown["regels"] == 2 and shown["bedrag"] == "261.00" and shown["id"] is None
    assert shown["klanten"] == ["Maatschap Ter Horst"] and shown["token"]

    without = client.post("/api/v1/facturatie/exporten", json=period, headers=headers)
    assert without.status_code == 422
    assert without.get_json()["errors"][0]["field"] == "token"

    # A line more since the dry run: the real run refuses and exports nothing.
    completed(app, carrier, driver, klant_id, "Mest later", 10)
    stale = client.post(
        "/api/v1/facturatie/exporten", json={**period, "token": shown["token"]}, headers=headers
    )
    assert stale.status_code == 409 and stale.get_json()["code"] == "export_changed"

    fresh = client.post("/api/v1/facturatie/exporten", json={**period, "dry_run": True},
                        headers=headers).get_json()  # fmt: skip
    assert fresh["regels"] == 3 and fresh["token"] != shown["token"]
    real = client.post(
        "/api/v1/facturatie/exporten", json={**period, "token": fresh["token"]}, headers=headers
    )
    assert real.status_code == 201
    made = real.get_json()
    assert made["regels"] == 3 and made["bedrag"] == fresh["bedrag"]
    assert [i["nummer"] for i in made["facturen"]] == [f"{today().year}-00001"]

    twice = client.post(
        "/api/v1/facturatie/exporten", json={**period, "token": fresh["token"]}, headers=headers
    )
    assert twice.status_code == 422  # billed once: nothing left to export
