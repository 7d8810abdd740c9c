"""The expected duration (duur_min) through the JSON API: an additive, optional field."""

from __future__ import annotations

import pytest
from factories import bearer

TASK = {"type": "mest_laden", "naam": "Mest laden Enter", "gepland_op": "2031-03-14T07:30:00Z"}


def url(driver) -> str:
    return f"/api/v1/users/{driver.user_token}/taken"


def test_a_task_is_created_and_answered_with_its_expected_duration(client, driver, api_key):
    created = client.post(url(driver), json={**TASK, "duur_min": 90}, headers=bearer(api_key.key))

    assert created.status_code == 201, created.get_json()
    assert created.get_json()["duur_min"] == 90
    fetched = client.get(f"/api/v1/taken/{created.get_json()['id']}", headers=bearer(api_key.key))
    assert fetched.get_json()["duur_min"] == 90


def test_without_a_duration_the_field_is_null(client, driver, api_key):
    created = client.post(url(driver), json=TASK, headers=bearer(api_key.key))

    assert created.status_code == 201
    assert created.get_json()["duur_min"] is None


def test_a_patch_changes_and_clears_the_duration(client, driver, api_key):
    task = client.post(url(driver), json=TASK, headers=bearer(api_key.key)).get_json()
    address = f"/api/v1/taken/{task['id']}"

    changed = client.patch(address, json={"duur_min": 45}, headers=bearer(api_key.key))
    assert changed.status_code == 200, changed.get_json()
    assert changed.get_json()["duur_min"] == 45
    cleared = client.patch(address, json={"duur_min": None}, headers=bearer(api_key.key))
    assert cleared.get_json()["duur_min"] is None


@pytest.mark.parametrize("value", [0, -10, 1441, 12.5, "lang"])
def test_a_bad_duration_is_422_at_the_field(client, driver, api_key, value):
    response = client.post(url(driver), json={**TASK, "duur_min": value},
                           headers=bearer(api_key.key))  # fmt: skip

    assert response.status_code == 422
    body = response.get_json()
    assert response.mimetype == "application/problem+json"
    assert [e["field"] for e in body["errors"]] == ["duur_min"]


def test_the_openapi_document_describes_the_duration(client):
    document = client.get("/api/v1/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    created = schemas["CreateTaskBody"]["properties"]["duur_min"]
    assert {"type": "integer", "exclusiveMinimum": 0, "maximum": 1440} in created["anyOf"]
    assert "duur_min" in schemas["Task"]["properties"]
    assert "duur_min" not in schemas["CreateTaskBody"].get("required", [])


@pytest.mark.parametrize("field", ["naam", "type", "require_photos", "kooiaap"])
def test_a_field_a_task_always_has_sent_as_null_is_422_at_that_field(
    client, driver, api_key, field
):
    task = client.post(url(driver), json=TASK, headers=bearer(api_key.key)).get_json()
    address = f"/api/v1/taken/{task['id']}"
    response = client.patch(address, json={field: None}, headers=bearer(api_key.key))
    assert response.status_code == 422
    assert [e["field"] for e in response.get_json()["errors"]] == [field]
    assert client.get(address, headers=bearer(api_key.key)).get_json()[field] == task[field]
