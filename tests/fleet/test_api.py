"""The vehicle operations of the API: lists, one vehicle, PATCH with If-Match, and scopes."""

from __future__ import annotations

import uuid

import pytest
from factories import bearer, create_api_key, create_driver, driver_token

API = "/api/v1"


@pytest.fixture
def fleet(app, carrier, other_carrier, make_vehicle):
    """Three vehicles of the carrier (one inactive) and one of another carrier."""
    from factories import in_carrier

    from portal.fleet import service

    trekker = make_vehicle(
        carrier, "vzh56e", soort="opleggertrekker", omschrijving="DAF XF Mestoplegger"
    )
    tank = make_vehicle(
        carrier,
        "bx 12 lp",
        soort="oplegger",
        omschrijving="Mesttank 30 m³",
        capaciteit=30,
        capaciteit_eenheid="m3",
    )
    old = make_vehicle(carrier, "12-BLK-3", soort="vrachtwagen", kooiaap=True)
    in_carrier(
        app,
        carrier.id,
        lambda: service.set_active(
            carrier_id=carrier.id, vehicle_id=old.id, actief=False, actor=service.SYSTEM
        ),
    )
    foreign = make_vehicle(other_carrier, "BX-12-LP", omschrijving="Van een ander")
    return {"trekker": trekker, "tank": tank, "old": old, "foreign": foreign}


def plates(response) -> list[str]:
    return [v["kenteken"] for v in response.get_json()]


def test_a_driver_and_a_key_list_their_carriers_vehicles_by_plate(client, driver, api_key, fleet):
    for token in (driver_token(client, driver), api_key.key):
        response = client.get(f"{API}/voertuigen", headers=bearer(token))
        assert response.status_code == 200
        assert plates(response) == ["12-BLK-3", "BX-12-LP", "VZH-56-E"]
        assert response.headers["X-Total-Count"] == "3"
    tank = next(v for v in response.get_json() if v["kenteken"] == "BX-12-LP")
    assert tank["soort"] == "oplegger" and tank["capaciteit"] == 30.0
    assert tank["capaciteit_eenheid"] == "m3" and tank["kooiaap"] is False
    assert tank["actieve_sessie"] is None and tank["versie"] == 1
    assert tank["omschrijving"] == "Mesttank 30 m³"
    assert tank["created_at"].endswith("Z")


def test_the_list_filters_and_pages(client, api_key, fleet):
    def get(**query):
        return client.get(f"{API}/voertuigen", query_string=query, headers=bearer(api_key.key))

    assert plates(get(actief="true")) == ["BX-12-LP", "VZH-56-E"]
    assert plates(get(actief="false")) == ["12-BLK-3"]
    assert plates(get(soort="opleggertrekker")) == ["VZH-56-E"]
    assert plates(get(q="bx12")) == ["BX-12-LP"]  # a plate is found without its dashes
    assert plates(get(q="X-1")) == ["BX-12-LP"]
    assert plates(get(q="mestopl")) == ["VZH-56-E"]  # and by its description
    assert plates(get(q="%")) == []  # no wildcard injection
    assert plates(get(kenteken="vzh-56e")) == ["VZH-56-E"]
    page = get(limit=1, offset=1)
    assert plates(page) == ["BX-12-LP"] and page.headers["X-Total-Count"] == "3"
    for bad in ({"limit": 0}, {"limit": 1001}, {"soort": "raket"}, {"onbekend": 1}):
        response = get(**bad)
        assert response.status_code == 422, bad
        assert response.mimetype == "application/problem+json"


def test_a_key_without_a_vehicle_scope_may_not_read_vehicles(app, client, carrier, fleet):
    key = create_key(app, carrier, "tasks:read tasks:write")
    response = client.get(f"{API}/voertuigen", headers=bearer(key))
    assert response.status_code == 403
    assert "vehicles:read" in response.get_json()["detail"]
    reader = create_key(app, carrier, "vehicles:read")
    assert client.get(f"{API}/voertuigen", headers=bearer(reader)).status_code == 200


def create_key(app, carrier, scopes: str) -> str:
    from factories import in_carrier

    from portal.accounts.service import create_api_key

    return in_carrier(
        app,
        carrier.id,
        lambda: create_api_key(carrier_id=carrier.id, naam="Beperkt", scopes=scopes),
        lambda pair: pair[1],
    )


def test_unknown_scopes_are_refused_when_a_key_is_made(app, carrier):
    from portal.errors import ValidationFailed

    with pytest.raises(ValidationFailed) as error:
        create_key(app, carrier, "vehicles:fly")
    assert error.value.errors[0]["field"] == "scopes"


def test_the_carrier_list_is_for_the_keys_own_carrier(client, carrier, other_carrier, api_key,
                                                      driver, fleet):  # fmt: skip
    own = client.get(f"{API}/transporteurs/{carrier.id}/voertuigen", headers=bearer(api_key.key))
    assert own.status_code == 200 and own.headers["X-Total-Count"] == "3"
    foreign = client.get(
        f"{API}/transporteurs/{other_carrier.id}/voertuigen", headers=bearer(api_key.key)
    )
    assert foreign.status_code == 404
    as_driver = client.get(
        f"{API}/transporteurs/{carrier.id}/voertuigen",
        headers=bearer(driver_token(client, driver)),
    )
    assert as_driver.status_code == 403


def test_one_vehicle_with_its_etag_and_another_carriers_is_404(client, api_key, fleet):
    response = client.get(f"{API}/voertuigen/{fleet['tank'].id}", headers=bearer(api_key.key))
    assert response.status_code == 200
    assert response.headers["ETag"] == '"1"'
    assert response.get_json()["kenteken"] == "BX-12-LP"
    foreign = client.get(f"{API}/voertuigen/{fleet['foreign'].id}", headers=bearer(api_key.key))
    assert foreign.status_code == 404
    unknown = client.get(f"{API}/voertuigen/{uuid.uuid4()}", headers=bearer(api_key.key))
    assert unknown.status_code == 404


def patch(client, key, vehicle, body, **headers):
    return client.patch(
        f"{API}/voertuigen/{vehicle.id}", json=body, headers={**bearer(key), **headers}
    )


def test_a_key_patches_a_vehicle_and_its_plate_is_painted(client, api_key, fleet, vehicle_row):
    response = patch(
        client,
        api_key.key,
        fleet["tank"],
        {
            "kenteken": "bx12lr",
            "kooiaap": True,
            "opmerkingen": "APK in maart",
            "omschrijving": None,
        },
        **{"If-Match": '"1"'},
    )
    assert response.status_code == 200, response.get_json()
    data = response.get_json()
    assert data["kenteken"] == "BX-12-LR" and data["kooiaap"] is True
    assert data["opmerkingen"] == "APK in maart" and data["omschrijving"] is None
    assert data["versie"] == 2 and response.headers["ETag"] == '"2"'
    assert data["updated_at"].endswith("Z")
    row = vehicle_row(fleet["tank"])
    assert row["kenteken"] == "BX-12-LR" and row["capaciteit"] == 30.0


def test_a_stale_if_match_is_412_and_changes_nothing(client, api_key, fleet, vehicle_row):
    assert patch(client, api_key.key, fleet["tank"], {"kooiaap": True}).status_code == 200
    stale = patch(client, api_key.key, fleet["tank"], {"kooiaap": False}, **{"If-Match": '"1"'})
    assert stale.status_code == 412
    assert stale.mimetype == "application/problem+json"
    garbled = patch(client, api_key.key, fleet["tank"], {"kooiaap": False}, **{"If-Match": "x"})
    assert garbled.status_code == 412
    assert vehicle_row(fleet["tank"])["kooiaap"] is True


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kenteken": "DE-HH-1234"}, "kenteken"),
        ({"kenteken": "vzh-56-e"}, "kenteken"),  # another vehicle of the carrier has it
        ({"kenteken": None}, "kenteken"),  # only an agricultural trailer goes without
        ({"soort": None}, "soort"),
        ({"kooiaap": None}, "kooiaap"),
        ({"actief": None}, "actief"),
        ({"soort": "raket"}, "soort"),
        ({"capaciteit": 12}, "capaciteit_eenheid"),
        ({"capaciteit": 0, "capaciteit_eenheid": "ton"}, "capaciteit"),
        ({"capaciteit_eenheid": "kuub"}, "capaciteit_eenheid"),
        ({"omschrijving": "x" * 201}, "omschrijving"),
        ({"versie": 7}, "versie"),
    ],
)
def test_bad_fields_are_422_at_the_field(client, api_key, fleet, vehicle_row, body, field):
    body = dict(body)
    if field == "capaciteit_eenheid" and "capaciteit" in body:
        body["capaciteit_eenheid"] = None  # the tank has m3: clear it, keep the capacity
    before = vehicle_row(fleet["tank"])
    response = patch(client, api_key.key, fleet["tank"], body)
    assert response.status_code == 422, response.get_json()
    assert field in [e["field"] for e in response.get_json()["errors"]]
    assert vehicle_row(fleet["tank"]) == before


def test_the_same_plate_may_exist_at_another_carrier(client, api_key, fleet):
    # The other carrier has BX-12-LP too; the carrier's own check only looks at its own rows.
    response = patch(client, api_key.key, fleet["trekker"], {"omschrijving": "DAF"})
    assert response.status_code == 200


def test_patching_needs_the_write_scope_and_a_key(app, client, carrier, driver, fleet,
                                                  vehicle_row):  # fmt: skip
    before = vehicle_row(fleet["tank"])
    reader = create_key(app, carrier, "vehicles:read tasks:write")
    refused = patch(client, reader, fleet["tank"], {"kooiaap": True})
    assert refused.status_code == 403 and "vehicles:write" in refused.get_json()["detail"]
    as_driver = patch(client, driver_token(client, driver), fleet["tank"], {"kooiaap": True})
    assert as_driver.status_code == 403
    assert vehicle_row(fleet["tank"]) == before


def test_another_carriers_vehicle_is_404_and_stays_as_it_was(client, api_key, fleet, vehicle_row):
    before = vehicle_row(fleet["foreign"])
    response = patch(client, api_key.key, fleet["foreign"], {"omschrijving": "Van mij"})
    assert response.status_code == 404
    assert vehicle_row(fleet["foreign"]) == before


def test_deactivating_through_the_api_ends_the_active_session(
    app, client, carrier, driver, api_key, fleet, payload_of, calls, session_row
):
    token = driver_token(client, driver)
    session_id = calls.active(token, payload_of(fleet["trekker"]))
    listed = client.get(f"{API}/voertuigen", query_string={"q": "VZH"}, headers=bearer(token))
    assert listed.get_json()[0]["actieve_sessie"]["id"] == session_id
    assert listed.get_json()[0]["actieve_sessie"]["chauffeur_id"] == str(driver.id)
    response = patch(client, api_key.key, fleet["trekker"], {"actief": False})
    assert response.status_code == 200 and response.get_json()["actief"] is False
    assert response.get_json()["actieve_sessie"] is None
    row = session_row(carrier, session_id)
    assert row["status"] == "ended" and row["einde_reden"] == "voertuig_gedeactiveerd"
    assert row["beeindigd_door"] == "API key TMS"


def test_the_vehicle_list_runs_a_fixed_number_of_queries(
    app, client, carrier, api_key, make_vehicle, payload_of, calls, count_queries
):
    def run() -> int:
        client.get(f"{API}/voertuigen", headers=bearer(api_key.key))  # warm
        with count_queries() as counter:
            response = client.get(f"{API}/voertuigen", headers=bearer(api_key.key))
        assert response.status_code == 200
        return counter.count

    for n in range(2):
        vehicle = make_vehicle(carrier, f"BX-{n:02d}-LP")
        driver = create_driver(app, carrier, f"Chauffeur {n}")
        calls.active(driver_token(client, driver), payload_of(vehicle))
    few = run()
    for n in range(2, 12):
        vehicle = make_vehicle(carrier, f"BX-{n:02d}-LP")
        driver = create_driver(app, carrier, f"Chauffeur {n}")
        calls.active(driver_token(client, driver), payload_of(vehicle))
    assert run() == few


def test_a_new_key_gets_the_vehicle_scopes(app, carrier):
    key = create_api_key(app, carrier)
    from factories import in_carrier

    from portal.accounts.models import ApiKey
    from portal.extensions import db

    scopes = in_carrier(
        app, carrier.id, lambda: db.session.get(ApiKey, (carrier.id, key.id)).scopes
    )
    assert {"vehicles:read", "vehicles:write"} <= set(scopes.split())


def test_a_write_that_loses_a_race_is_412_not_a_500(app, backend, carrier, fleet, vehicle_row):
    """Another connection saves the vehicle after this request read it: the version column
    refuses this request's UPDATE and the service answers PreconditionFailed, not a 500.
    (PostgreSQL: SQLite lets no second writer in while a transaction reads.)"""
    if backend != "postgresql":
        pytest.skip("needs two concurrent connections")
    import psycopg

    from portal.audit.service import SYSTEM
    from portal.extensions import db
    from portal.fleet import service
    from portal.tenancy import carrier_scope

    tank = fleet["tank"]
    admin = app.config["DATABASE_ADMIN_URL"].replace("postgresql+psycopg://", "postgresql://")
    with app.app_context(), carrier_scope(db.session, carrier.id):
        held = service.get_vehicle(carrier_id=carrier.id, vehicle_id=tank.id)
        assert held.versie == 1
        with psycopg.connect(admin) as other:
            other.execute(
                "UPDATE voertuigen SET opmerkingen = 'APK', versie = versie + 1 WHERE id = %s",
                (tank.id,),
            )
        with pytest.raises(service.PreconditionFailed):
            service.update_vehicle(
                carrier_id=carrier.id, vehicle_id=tank.id, data={"opmerkingen": "x"}, actor=SYSTEM
            )
        db.session.rollback()
    row = vehicle_row(tank)
    assert row["opmerkingen"] == "APK" and row["versie"] == 2
