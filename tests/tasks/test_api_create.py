"""POST /api/v1/users/{user_token}/taken: a carrier's system creates a task for a driver."""

from __future__ import annotations

import pytest
from factories import (
    bearer,
    create_api_key,
    create_carrier,
    create_driver,
    create_vehicle,
    driver_token,
    publish_questionnaire,
    questionnaire_doc,
)

from portal.tasks.schemas import TaskOut

TASK = {
    "type": "mest_laden",
    "naam": "Mest laden Enter",
    "artikel": "Varkensdrijfmest",
    "hoeveelheid": 30,
    "eenheid": "ton",
    "adres": "Veldweg 88",
    "postcode": "7468 RR",
    "stad": "Enter",
    "land": "NL",
    "gepland_op": "2026-11-23T07:30:00.000Z",
    "vdm_nummer": "VDM2611230001",
    "agr_verplicht": True,
    "require_photos": True,
    "min_fotos": 1,
    "max_fotos": 3,
}


def url(driver) -> str:
    return f"/api/v1/users/{driver.user_token}/taken"


def test_an_api_key_creates_a_task_that_pins_the_active_questionnaire(
    app, client, carrier, driver, api_key
):
    publish_questionnaire(app, carrier)
    response = client.post(url(driver), json=TASK, headers=bearer(api_key.key))

    assert response.status_code == 201
    task = response.get_json()
    TaskOut.model_validate(task)
    assert task["status"] == "gepland"
    assert task["chauffeur_id"] == str(driver.id)
    assert task["transporteur_id"] == str(carrier.id)
    assert task["gepland_op"] == "2026-11-23T07:30:00.000Z"
    assert task["vdm_nummer"] == "VDM2611230001"
    assert task["vragenpad"]["questionnaire_id"] == "mest-laden"
    assert response.headers["Location"] == f"/api/v1/taken/{task['id']}"

    # The driver sees it, with the same questionnaire.
    listed = client.get(url(driver), headers=bearer(driver_token(client, driver))).get_json()
    assert [t["id"] for t in listed] == [task["id"]]
    assert listed[0]["vragenpad"] == task["vragenpad"]


def test_a_task_keeps_its_revision_when_a_new_one_is_published(
    app, client, carrier, driver, api_key
):
    publish_questionnaire(app, carrier)
    created = client.post(url(driver), json=TASK, headers=bearer(api_key.key)).get_json()
    newer = questionnaire_doc()
    newer["title"] = "Mest laden (nieuw)"
    publish_questionnaire(app, carrier, newer)
    later = client.post(url(driver), json=TASK, headers=bearer(api_key.key)).get_json()

    listed = client.get(url(driver), headers=bearer(api_key.key)).get_json()
    titles = {t["id"]: t["vragenpad"]["title"] for t in listed}
    assert titles[created["id"]] == "Mest laden"
    assert titles[later["id"]] == "Mest laden (nieuw)"


def test_without_an_active_questionnaire_vragenpad_is_null(client, driver, api_key):
    response = client.post(
        url(driver), json={"type": "voer_leveren", "naam": "Voer"}, headers=bearer(api_key.key)
    )
    assert response.status_code == 201
    assert response.get_json()["vragenpad"] is None
    assert response.get_json()["require_photos"] is False


def test_a_vehicle_of_the_carrier_is_linked(app, client, carrier, driver, api_key):
    vehicle = create_vehicle(app, carrier)
    response = client.post(
        url(driver), json={**TASK, "vehicle_id": str(vehicle.id)}, headers=bearer(api_key.key)
    )
    assert response.get_json()["vehicle_id"] == str(vehicle.id)


def test_a_vehicle_of_another_carrier_is_refused_at_the_field(app, client, driver, api_key):
    foreign = create_vehicle(app, create_carrier(app, "Ander"))
    response = client.post(
        url(driver), json={**TASK, "vehicle_id": str(foreign.id)}, headers=bearer(api_key.key)
    )
    assert response.status_code == 422
    assert response.get_json()["errors"] == [{"field": "vehicle_id", "message": "no such vehicle"}]


def test_a_driver_of_another_carrier_is_404(app, client, api_key):
    stranger = create_driver(app, create_carrier(app, "Ander"))
    response = client.post(url(stranger), json=TASK, headers=bearer(api_key.key))
    assert response.status_code == 404


def test_another_carriers_key_cannot_create_for_this_driver(app, client, driver):
    foreign_key = create_api_key(app, create_carrier(app, "Ander"))
    response = client.post(url(driver), json=TASK, headers=bearer(foreign_key.key))
    assert response.status_code == 404


def test_a_driver_token_may_not_create_tasks(client, driver):
    response = client.post(url(driver), json=TASK, headers=bearer(driver_token(client, driver)))
    assert response.status_code == 403
    assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize(
    "change, field",
    [
        ({"naam": ""}, "naam"),
        ({"naam": None}, "naam"),
        ({"type": "Mest Laden!"}, "type"),
        ({"land": "Nederland"}, "land"),
        ({"hoeveelheid": -1}, "hoeveelheid"),
        ({"hoeveelheid": "veel"}, "hoeveelheid"),
        ({"gepland_op": "2026-11-23T07:30:00"}, "gepland_op"),
        ({"gepland_op": "morgen"}, "gepland_op"),
        ({"vehicle_id": "not-a-uuid"}, "vehicle_id"),
        ({"locatie_lat": 95, "locatie_lng": 5}, "locatie_lat"),
        ({"statuss": "gepland"}, "statuss"),
        ({"status": "afgerond"}, "status"),
        ({"naam": "x" * 201}, "naam"),
    ],
)
def test_invalid_fields_are_422_naming_each_field(client, driver, api_key, change, field):
    response = client.post(url(driver), json={**TASK, **change}, headers=bearer(api_key.key))
    assert response.status_code == 422
    body = response.get_json()
    assert response.mimetype == "application/problem+json"
    assert field in [e["field"] for e in body["errors"]]


def test_min_fotos_above_max_fotos_is_refused(client, driver, api_key):
    response = client.post(
        url(driver), json={**TASK, "min_fotos": 4, "max_fotos": 2}, headers=bearer(api_key.key)
    )
    assert response.status_code == 422
    assert "min_fotos" in response.get_json()["errors"][0]["message"]


def test_nothing_is_stored_when_the_body_is_refused(client, driver, api_key):
    client.post(url(driver), json={**TASK, "land": "XXX"}, headers=bearer(api_key.key))
    assert client.get(url(driver), headers=bearer(api_key.key)).get_json() == []


def test_broken_json_is_400(client, driver, api_key):
    response = client.post(
        url(driver), data=b'{"naam": ', content_type="application/json", headers=bearer(api_key.key)
    )
    assert response.status_code == 400
    assert response.get_json()["title"] == "Invalid JSON"


def test_a_body_that_is_not_an_object_is_422(client, driver, api_key):
    response = client.post(url(driver), json=[1, 2], headers=bearer(api_key.key))
    assert response.status_code == 422


def test_a_form_body_is_415(client, driver, api_key):
    response = client.post(url(driver), data={"naam": "x"}, headers=bearer(api_key.key))
    assert response.status_code == 415


def test_an_oversized_body_is_413(client, driver, api_key):
    body = b'{"naam": "' + b"x" * (2 * 1024 * 1024) + b'"}'
    response = client.post(
        url(driver), data=body, content_type="application/json", headers=bearer(api_key.key)
    )
    assert response.status_code == 413
    assert response.mimetype == "application/problem+json"
