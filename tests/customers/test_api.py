"""The customer operations of the API: CRUD of customers and places with a key, problems
naming the field, another carrier's ids 404, drivers refused."""

from __future__ import annotations

import uuid

from factories import bearer, create_api_key, driver_token

API = "/api/v1"


def test_an_integration_manages_a_customer_and_its_places(client, api_key):
    headers = bearer(api_key.key)
    created = client.post(
        f"{API}/klanten",
        json={
            "naam": "Maatschap Ter Horst",
            "debiteurnummer": "10023",
            "btw_nummer": "NL 1234 56789 B01",
            "factuur_email": "facturen@terhorst.nl",
        },
        headers=headers,
    )
    assert created.status_code == 201, created.get_json()
    customer = created.get_json()
    assert customer["btw_nummer"] == "NL123456789B01" and customer["locaties"] == []
    assert created.headers["Location"] == f"{API}/klanten/{customer['id']}"
    base = f"{API}/klanten/{customer['id']}"

    place = client.post(
        f"{base}/locaties",
        json={
            "naam": "Erf Enter",
            "soort": "laden",
            "postcode": "7468ab",
            "stad": "Enter",
            "locatie_lat": 52.2936,
            "locatie_lng": 6.5714,
            "opmerkingen": "Achterste inrit",
        },
        headers=headers,
    )
    assert place.status_code == 201, place.get_json()
    assert place.get_json()["postcode"] == "7468 AB" and place.get_json()["land"] == "NL"
    place_url = f"{base}/locaties/{place.get_json()['id']}"

    changed = client.patch(place_url, json={"openingstijden": "ma-vr 6-17"}, headers=headers)
    assert changed.status_code == 200 and changed.get_json()["openingstijden"] == "ma-vr 6-17"
    listed = client.get(f"{base}/locaties", headers=headers)
    assert [p["naam"] for p in listed.get_json()] == ["Erf Enter"]

    one = client.get(base, headers=headers).get_json()
    assert [p["naam"] for p in one["locaties"]] == ["Erf Enter"]
    found = client.get(f"{API}/klanten?q=enter", headers=headers)
    assert found.headers["X-Total-Count"] == "1"

    off = client.patch(base, json={"actief": False, "naam": "Ter Horst"}, headers=headers)
    assert off.status_code == 200
    assert (off.get_json()["actief"], off.get_json()["naam"]) == (False, "Ter Horst")
    active = client.get(f"{API}/klanten?actief=true", headers=headers)
    assert active.get_json() == []

    assert client.delete(place_url, headers=headers).status_code == 204
    assert client.get(place_url.rsplit("/", 1)[0], headers=headers).get_json() == []
    assert client.delete(base, headers=headers).status_code == 204
    assert client.get(base, headers=headers).status_code == 404


def test_refusals_name_the_field(client, api_key):
    headers = bearer(api_key.key)
    client.post(f"{API}/klanten", json={"naam": "Eerste", "debiteurnummer": "1"}, headers=headers)
    response = client.post(
        f"{API}/klanten",
        json={"naam": "Tweede", "debiteurnummer": "1", "btw_nummer": "NL12"},
        headers=headers,
    )
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    errors = {(e["field"], e["code"]) for e in response.get_json()["errors"]}
    assert errors == {("btw_nummer", "vat_dutch"), ("debiteurnummer", "duplicate")}

    customer = client.post(f"{API}/klanten", json={"naam": "Derde"}, headers=headers).get_json()
    half = client.post(
        f"{API}/klanten/{customer['id']}/locaties",
        json={"naam": "Erf", "locatie_lat": 52.3},
        headers=headers,
    )
    assert half.status_code == 422
    assert [e["field"] for e in half.get_json()["errors"]] == ["locatie_lng"]
    unknown = client.post(f"{API}/klanten", json={"naam": "X", "kleur": "rood"}, headers=headers)
    assert unknown.status_code == 422


def test_another_carriers_customer_is_404(app, client, carrier, other_carrier, api_key):
    own = client.post(
        f"{API}/klanten", json={"naam": "Van ons"}, headers=bearer(api_key.key)
    ).get_json()
    place = client.post(
        f"{API}/klanten/{own['id']}/locaties", json={"naam": "Erf"}, headers=bearer(api_key.key)
    ).get_json()
    foreign = bearer(create_api_key(app, other_carrier).key)
    base = f"{API}/klanten/{own['id']}"
    assert client.get(base, headers=foreign).status_code == 404
    assert client.patch(base, json={"naam": "Van mij"}, headers=foreign).status_code == 404
    assert client.delete(base, headers=foreign).status_code == 404
    assert client.get(f"{base}/locaties", headers=foreign).status_code == 404
    place_url = f"{base}/locaties/{place['id']}"
    assert client.patch(place_url, json={"naam": "x"}, headers=foreign).status_code == 404
    assert client.delete(place_url, headers=foreign).status_code == 404
    assert client.get(f"{API}/klanten", headers=foreign).get_json() == []
    # A place of another customer of the same carrier is not found under this one.
    other = client.post(
        f"{API}/klanten", json={"naam": "Ander"}, headers=bearer(api_key.key)
    ).get_json()
    wrong = f"{API}/klanten/{other['id']}/locaties/{place['id']}"
    assert client.delete(wrong, headers=bearer(api_key.key)).status_code == 404
    assert (
        client.get(f"{API}/klanten/{uuid.uuid4()}", headers=bearer(api_key.key)).status_code == 404
    )


def test_drivers_are_refused(client, driver):
    response = client.get(f"{API}/klanten", headers=bearer(driver_token(client, driver)))
    assert response.status_code == 403


def test_a_read_key_can_not_write(app, client, carrier):
    from factories import in_carrier

    from portal.accounts.service import create_api_key as create

    key = in_carrier(
        app,
        carrier.id,
        lambda: create(carrier_id=carrier.id, naam="Lezer", scopes="customers:read")[1],
    )
    assert client.get(f"{API}/klanten", headers=bearer(key)).status_code == 200
    refused = client.post(f"{API}/klanten", json={"naam": "X"}, headers=bearer(key))
    assert refused.status_code == 403
    assert refused.get_json()["required_scope"] == "customers:write"


def test_the_list_runs_a_fixed_number_of_queries(client, api_key, count_queries):
    headers = bearer(api_key.key)

    def add(n: int) -> None:
        made = client.post(f"{API}/klanten", json={"naam": f"Klant {n}"}, headers=headers)
        client.post(
            f"{API}/klanten/{made.get_json()['id']}/locaties", json={"naam": "Erf"}, headers=headers
        )

    def run() -> int:
        with count_queries() as counter:
            assert client.get(f"{API}/klanten", headers=headers).status_code == 200
        return counter.count

    add(0)
    client.get(f"{API}/klanten", headers=headers)
    few = run()
    for n in range(1, 10):
        add(n)
    assert run() == few
