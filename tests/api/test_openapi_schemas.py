"""The schemas of /api/v1/openapi.json as client generators read them: one component per
model with a unique title, $refs instead of copies, JSON Schema's own bound keywords, request
fields that may be left out without `default: null`, and one media type per request body."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from factories import PASSWORD, bearer, create_task

DOCUMENT = "/api/v1/openapi.json"
REF = "#/components/schemas/"
# pydantic's names for constraints; JSON Schema says minimum, maxLength, multipleOf, ...
PYDANTIC_KEYWORDS = {
    "ge",
    "le",
    "gt",
    "lt",
    "min_length",
    "max_length",
    "multiple_of",
    "min_items",
    "max_items",
    "allow_inf_nan",
    "max_digits",
    "decimal_places",
    "strict",
    "union_mode",
}


@pytest.fixture
def document(client) -> dict:
    response = client.get(DOCUMENT)
    assert response.status_code == 200
    return response.get_json()


def schemas_in(node: Any, path: str = "") -> Iterator[tuple[str, dict]]:
    """Every JSON object of node with its path; a `properties` map's keys are field names,
    not keywords, so its members are walked but not reported as objects of their own."""
    if isinstance(node, dict):
        if not path.endswith("/properties"):
            yield path, node
        for key, value in node.items():
            yield from schemas_in(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from schemas_in(value, f"{path}/{index}")


def refs_in(node: Any) -> set[str]:
    return {
        obj["$ref"].removeprefix(REF)
        for _, obj in schemas_in(node)
        if isinstance(obj.get("$ref"), str)
    }


def request_components(document: dict) -> set[str]:
    """The components a request body uses, directly or through other components."""
    components = document["components"]["schemas"]
    found: set[str] = set()
    todo = [
        name
        for item in document["paths"].values()
        for op in item.values()
        for name in refs_in(op.get("requestBody", {}))
    ]
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(refs_in(components[name]))
    return found


# --- one component per model ------------------------------------------------------------


def test_every_component_is_titled_with_its_own_name(document):
    components = document["components"]["schemas"]
    titles = Counter(schema.get("title") for schema in components.values())
    assert [t for t, n in titles.items() if t is not None and n > 1] == []
    assert {
        name: schema["title"]
        for name, schema in components.items()
        if "title" in schema and schema["title"] != name
    } == {}


def test_no_two_components_have_the_same_shape(document):
    shapes: dict[str, list[str]] = {}
    for name, schema in document["components"]["schemas"].items():
        shape = json.dumps({k: v for k, v in schema.items() if k != "title"}, sort_keys=True)
        shapes.setdefault(shape, []).append(name)
    assert [names for names in shapes.values() if len(names) > 1] == []


def test_components_are_referred_to_and_never_copied_inline(document):
    components = document["components"]["schemas"]

    def shape(schema: dict) -> str:
        return json.dumps({k: v for k, v in schema.items() if k != "title"}, sort_keys=True)

    known = {shape(schema): name for name, schema in components.items()}
    roots = {f"/components/{name}" for name in components}
    copies = [
        (path, known[shape(obj)])
        for path, obj in schemas_in({"paths": document["paths"], "components": components})
        if path not in roots and obj and shape(obj) in known
    ]
    assert copies == []
    dangling = refs_in(document) - set(components)
    assert dangling == set()


def test_task_details_and_completion_refer_to_the_one_task_schema(document):
    components = document["components"]["schemas"]
    assert "TaskOut" not in components and "ActivityQuestionnaireOut" not in components
    assert "Task" in refs_in(components["AfrondingResult"])
    assert {"Task", "ActivityQuestionnaire"} <= refs_in(components["TaskWithQuestionnaires"])
    details = document["paths"]["/taken/{task_id}/details"]["get"]["responses"]["200"]
    assert details["content"]["application/json"]["schema"] == {
        "$ref": REF + "TaskWithQuestionnaires"
    }


# --- bounds ------------------------------------------------------------------------------


def test_bounds_use_json_schema_keywords_not_pydantics(document):
    leaked = [
        f"{path}/{key}"
        for path, obj in schemas_in(document)
        for key in obj
        if key in PYDANTIC_KEYWORDS and not path.endswith("/properties")
    ]
    assert leaked == []


def test_status_change_declares_the_latitude_bounds(document):
    components = document["components"]["schemas"]
    lat = components["StatusChange"]["properties"]["locatie_lat"]
    assert {"type": "number", "minimum": -90, "maximum": 90} in lat["anyOf"]
    assert {"type": "null"} in lat["anyOf"]
    capacity = components["UpdateVehicleBody"]["properties"]["capaciteit"]
    assert {"type": "number", "exclusiveMinimum": 0, "maximum": 1_000_000} in capacity["anyOf"]


@pytest.mark.parametrize("value", [91, -90.5])
def test_a_latitude_out_of_bounds_is_still_refused(client, app, carrier, driver, api_key, value):
    task = create_task(app, carrier, driver)
    response = client.patch(
        f"/api/v1/taken/{task.id}/status",
        json={"status": "ontvangen", "locatie_lat": value, "locatie_lng": 6.9},
        headers=bearer(api_key.key),
    )
    assert response.status_code == 422
    assert [e["field"] for e in response.get_json()["errors"]] == ["locatie_lat"]


# --- optional request fields -------------------------------------------------------------


def test_request_fields_that_may_be_left_out_have_no_null_default_and_are_optional(document):
    components = document["components"]["schemas"]
    names = request_components(document)
    assert {"CreateTaskBody", "StatusChange", "UpdateTaskBody", "PasswordGrant"} <= names
    null_defaults, required_defaults = [], []
    for name in sorted(names):
        schema = components[name]
        for field, prop in schema.get("properties", {}).items():
            if "default" in prop and prop["default"] is None:
                null_defaults.append(f"{name}.{field}")
            if "default" in prop and field in schema.get("required", []):
                required_defaults.append(f"{name}.{field}")
    assert null_defaults == []
    assert required_defaults == []
    status_change = components["StatusChange"]
    assert status_change["required"] == ["status"]


def test_fields_a_change_may_not_null_are_optional_but_not_nullable(document):
    components = document["components"]["schemas"]
    update = components["UpdateTaskBody"]
    assert "required" not in update
    assert update["properties"]["naam"]["type"] == "string"
    assert "anyOf" not in update["properties"]["naam"]
    assert update["properties"]["kooiaap"]["type"] == "boolean"
    assert {"type": "null"} in update["properties"]["adres"]["anyOf"]  # clearing it is fine
    assert "anyOf" not in components["WerkdagUpdate"]["properties"]["gestart_op"]
    assert {"type": "null"} in components["WerkdagUpdate"]["properties"]["beeindigd_op"]["anyOf"]
    activity = components["ActiviteitUpdate"]["properties"]
    assert "anyOf" not in activity["soort"] and "anyOf" not in activity["begin"]


def test_null_for_a_field_a_task_always_has_is_refused(client, app, carrier, driver, api_key):
    task = create_task(app, carrier, driver)
    for body in ({"naam": None}, {"kooiaap": None}):
        response = client.patch(f"/api/v1/taken/{task.id}", json=body, headers=bearer(api_key.key))
        assert response.status_code == 422, body
    cleared = client.patch(
        f"/api/v1/taken/{task.id}", json={"adres": None}, headers=bearer(api_key.key)
    )
    assert cleared.status_code == 200


# --- one media type per request body -------------------------------------------------------


@pytest.mark.parametrize("path", ["/auth/token", "/auth/revoke"])
def test_sign_in_bodies_are_declared_as_json_and_name_the_form(document, path):
    body = document["paths"][path]["post"]["requestBody"]
    assert list(body["content"]) == ["application/json"]
    assert "application/x-www-form-urlencoded" in body["description"]


def test_the_form_the_description_promises_is_accepted(client, driver):
    signed_in = client.post(
        "/api/v1/auth/token",
        data={"grant_type": "password", "username": driver.email, "password": PASSWORD},
        content_type="application/x-www-form-urlencoded",
    )
    assert signed_in.status_code == 200, signed_in.get_data(as_text=True)
    revoked = client.post(
        "/api/v1/auth/revoke",
        data={"token": signed_in.get_json()["refresh_token"]},
        content_type="application/x-www-form-urlencoded",
    )
    assert revoked.status_code == 200
    assert revoked.get_json() == {"revoked": True}
