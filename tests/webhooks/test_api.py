"""Webhooks through the API, as an integration with a key manages them."""

from __future__ import annotations

import pytest
from factories import bearer, create_api_key, create_task, driver_token, in_carrier

from portal.accounts import service as accounts
from webhooks.support import register, run_pass


@pytest.fixture
def key(app, carrier):
    ref = create_api_key(app, carrier)
    return bearer(ref.key)


@pytest.fixture
def allow_private(app):
    app.config["WEBHOOKS_ALLOW_PRIVATE"] = True


def test_an_integration_registers_an_endpoint_and_reads_its_deliveries(
    app, client, carrier, key, receiver, allow_private
):
    made = client.post(
        "/api/v1/webhooks",
        json={"url": receiver.url(), "gebeurtenissen": ["taak.aangemaakt"], "omschrijving": "TMS"},
        headers=key,
    )
    assert made.status_code == 201, made.get_json()
    body = made.get_json()
    assert body["geheim"].startswith("whsec_")
    assert made.headers["Cache-Control"] == "no-store"
    assert made.headers["Location"] == f"/api/v1/webhooks/{body['id']}"
    shown = client.get(f"/api/v1/webhooks/{body['id']}", headers=key).get_json()
    assert "geheim" not in shown and shown["actief"] is True

    receiver.script = [503]
    create_task(app, carrier, None)
    run_pass(app)
    page = client.get(f"/api/v1/webhooks/{body['id']}/leveringen", headers=key)
    assert page.headers["X-Total-Count"] == "1"
    (delivery,) = page.get_json()
    assert delivery["status"] == "queued" and delivery["fout_code"] == "unavailable"
    assert delivery["log"][0]["http_status"] == 503
    assert delivery["log"][0]["fout"] == "the endpoint is temporarily unavailable (HTTP 503)"

    test = client.post(f"/api/v1/webhooks/{body['id']}/test", headers=key)
    assert test.status_code == 202
    paused = client.patch(f"/api/v1/webhooks/{body['id']}", json={"actief": False}, headers=key)
    assert paused.get_json()["actief"] is False
    assert client.delete(f"/api/v1/webhooks/{body['id']}", headers=key).status_code == 204
    assert client.get(f"/api/v1/webhooks/{body['id']}", headers=key).status_code == 404


def test_a_private_address_is_a_problem_with_a_code(client, key):
    refused = client.post(
        "/api/v1/webhooks",
        json={"url": "https://192.168.2.1/in", "gebeurtenissen": ["taak.afgerond"]},
        headers=key,
    )
    assert refused.status_code == 422
    assert refused.headers["Content-Type"].startswith("application/problem+json")
    (error,) = refused.get_json()["errors"]
    assert error["field"] == "url" and error["code"] == "private_host"


def test_an_unknown_event_type_is_refused(client, key):
    refused = client.post(
        "/api/v1/webhooks",
        json={"url": "https://tms.transport.nl/in", "gebeurtenissen": ["taak.gegeten"]},
        headers=key,
    )
    assert refused.status_code == 422


def test_resend_a_failed_delivery_keeps_its_event_id(app, client, carrier, key, receiver):
    endpoint_id, _ = register(app, carrier, receiver.url(), ["taak.aangemaakt"])
    receiver.script = [400]
    create_task(app, carrier, None)
    run_pass(app)
    (delivery,) = client.get(f"/api/v1/webhooks/{endpoint_id}/leveringen", headers=key).get_json()
    url = f"/api/v1/webhooks/{endpoint_id}/leveringen/{delivery['id']}/opnieuw"
    again = client.post(url, headers=key)
    assert again.status_code == 202 and again.get_json()["status"] == "queued"
    assert client.post(url, headers=key).status_code == 409
    run_pass(app)
    assert receiver.events[0]["id"] == receiver.events[1]["id"]


def test_a_key_without_the_scope_and_a_driver_are_refused(app, client, carrier, driver):
    narrow = in_carrier(
        app,
        carrier.id,
        lambda: accounts.create_api_key(carrier_id=carrier.id, naam="Lezer", scopes="tasks:read"),
        lambda pair: pair[1],
    )
    assert client.get("/api/v1/webhooks", headers=bearer(narrow)).status_code == 403
    token = driver_token(client, driver)
    assert client.get("/api/v1/webhooks", headers=bearer(token)).status_code == 403


def test_another_carriers_endpoint_is_404(app, client, other_carrier, key):
    foreign, _ = register(app, other_carrier, "https://tms.example.com/in")
    assert client.get(f"/api/v1/webhooks/{foreign}", headers=key).status_code == 404
    assert client.post(f"/api/v1/webhooks/{foreign}/test", headers=key).status_code == 404
    assert client.delete(f"/api/v1/webhooks/{foreign}", headers=key).status_code == 404
