"""The OpenAPI 3.1 document of /api/v1, and a schemathesis run of every operation against it.

The run goes in-process through the WSGI app, signed in with a real API key, and sends the
real driver's user_token most of the time. Each defect it found is pinned below by a strict
xfail case (KNOWN_DEFECTS); the run itself tolerates exactly those defects, so it stays a
guard against new ones. When a defect is fixed its xfail case passes and fails the suite
(strict): delete the case and the defect's entry in KNOWN_DEFECTS together.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
import schemathesis
from conftest import PASSWORD, bearer, create_task, publish_questionnaire
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

import portal.api  # noqa: F401  (registers every operation)
from portal.api.core import OPERATIONS

DOCUMENT = "/api/v1/openapi.json"
PREFIX = "/api/v1"
SEED_TASK_FIELDS = [
    "id",
    "vehicle_id",
    "transporteur_id",
    "type",
    "status",
    "naam",
    "omschrijving",
    "artikel",
    "hoeveelheid",
    "eenheid",
    "adres",
    "postcode",
    "stad",
    "land",
    "contactpersoon",
    "telefoon",
    "telefoon_mobiel",
    "gepland_op",
    "ontvangen_op",
    "gestart_op",
    "afgerond_op",
    "require_photos",
    "min_fotos",
    "max_fotos",
    "require_signature",
    "require_document_scan",
    "require_location",
    "photo_label",
    "opmerkingen",
    "vdm_nummer",
    "agr_verplicht",
    "required_desinfectie",
    "required_temperatuur",
    "kooiaap",
    "locatie_lat",
    "locatie_lng",
    "vragenpad",
    "created_at",
]
SEED_QUESTIONNAIRE_FIELDS = [
    "id",
    "transporteur_id",
    "activity_type",
    "questionnaire_id",
    "definition",
    "is_active",
    "created_at",
    "updated_at",
]
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
FUZZ_SETTINGS = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,  # the same cases on every run, so CI is reproducible
    database=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def openapi_path(rule: str) -> str:
    """A Flask rule as an OpenAPI path: <name> and <converter:name> become {name}."""
    return re.sub(r"<(?:[^<>:]+:)?([^<>:]+)>", r"{\1}", rule)


OPERATION_LABELS = sorted({f"{op.method.upper()} {openapi_path(op.path)}" for op in OPERATIONS})
# schemathesis leaves out the operation that serves the document it was loaded from.
FUZZED_LABELS = [label for label in OPERATION_LABELS if label != "GET /openapi.json"]


def api_headers(key: str) -> dict[str, str]:
    # identity: the app gzips JSON of 1 KiB and more for clients that accept it (as the
    # requests default Accept-Encoding does), and schemathesis' WSGI transport hands the
    # compressed bytes to the checks undecoded.
    return {**bearer(key), "Accept-Encoding": "identity"}


@pytest.fixture
def document(client) -> dict:
    response = client.get(DOCUMENT)
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    return response.get_json()


def load_schema(app):
    """The document as schemathesis loads it from the WSGI app; it refuses invalid documents."""
    schema = schemathesis.openapi.from_wsgi(DOCUMENT, app, config=schemathesis.Config())
    schema.validate()
    return schema


# --- 1. the document -------------------------------------------------------------------


def test_document_is_openapi_3_1_json(document):
    assert document["openapi"] == "3.1.0"
    assert document["info"]["title"] and document["info"]["version"]
    assert document["servers"] == [{"url": PREFIX}]


def test_every_api_route_is_documented_with_its_methods(app, document):
    routed = {
        (openapi_path(rule.rule.removeprefix(PREFIX)), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith(PREFIX + "/")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    documented = {(path, method) for path, item in document["paths"].items() for method in item}
    assert routed, "no routes under /api/v1"
    assert routed - documented == set(), "routed but not documented"
    assert documented - routed == set(), "documented but not routed"


def _ref(schema: dict) -> str:
    return schema["$ref"].removeprefix("#/components/schemas/")


def test_driver_tasks_answer_an_array_of_the_seed_task(document):
    operation = document["paths"]["/users/{user_token}/taken"]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["type"] == "array"
    assert _ref(schema["items"]) == "Task"
    assert [p["name"] for p in operation["parameters"] if p["in"] == "path"] == ["user_token"]
    task = document["components"]["schemas"]["Task"]
    missing = [name for name in SEED_TASK_FIELDS if name not in task["properties"]]
    assert missing == []
    assert "chauffeur_id" in task["properties"]
    vragenpad = task["properties"]["vragenpad"]
    assert {"$ref": "#/components/schemas/QuestionnaireDefinition"} in vragenpad["anyOf"]
    assert {"type": "null"} in vragenpad["anyOf"]
    assert task["properties"]["transporteur_id"]["format"] == "uuid"


def test_activity_questionnaires_answer_an_array_of_activity_questionnaire(document):
    operation = document["paths"]["/activity_questionnaires"]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["type"] == "array"
    assert _ref(schema["items"]) == "ActivityQuestionnaire"
    questionnaire = document["components"]["schemas"]["ActivityQuestionnaire"]
    assert [n for n in SEED_QUESTIONNAIRE_FIELDS if n not in questionnaire["properties"]] == []
    assert _ref(questionnaire["properties"]["definition"]) == "QuestionnaireDefinition"


def test_schemathesis_loads_and_validates_the_document(app):
    schema = load_schema(app)
    labels = sorted(result.ok().label for result in schema.get_all_operations())
    assert labels == FUZZED_LABELS


def test_schemathesis_refuses_an_invalid_document(document):
    broken = {**document, "paths": {"/x": {"get": {"responses": {"200": {}}}}}}
    with pytest.raises(Exception, match="description"):
        schemathesis.openapi.from_dict(broken, config=schemathesis.Config()).validate()


# --- 2. known defects of the app, each pinned by a strict xfail case --------------------


@dataclass(frozen=True)
class Defect:
    title: str
    backends: tuple[str, ...]
    explains_error: Callable[[BaseException], bool]


KNOWN_DEFECTS = {
    "nul-in-text": Defect(
        "PostgreSQL refuses U+0000 in text; a string with it reaches SQL and answers 500",
        ("postgresql",),
        lambda exc: "NUL (0x00)" in str(exc),
    ),
    "timestamp-overflow": Defect(
        "a date or timestamp at the edge of year 1 or 9999 overflows on conversion to UTC "
        "(OverflowError) and answers 500",
        ("sqlite", "postgresql"),
        lambda exc: isinstance(exc, OverflowError) and "date value out of range" in str(exc),
    ),
    "unbounded-offset": Defect(
        "GET /activity_questionnaires takes an offset beyond 64 bits and answers 500",
        ("sqlite", "postgresql"),
        lambda exc: (
            "too large to convert to SQLite INTEGER" in str(exc)
            or "bigint out of range" in str(exc)
        ),
    ),
}
UNDOCUMENTED_INVALID_JSON = (
    "an operation with a JSON body answers 400 invalid-json for a broken body, but its "
    "document lists no 400"
)


def known(backend: str, name: str) -> pytest.MarkDecorator | None:
    defect = KNOWN_DEFECTS[name]
    if backend in defect.backends:
        return pytest.mark.xfail(strict=True, reason=f"{name}: {defect.title}")
    return None


def documented_statuses(document: dict, method: str, path: str) -> set[int]:
    return {int(code) for code in document["paths"][path][method.lower()]["responses"]}


NUL_CASES = [
    ("POST", "/users/{user_token}/taken", None, {"type": "mest_laden", "naam": "Mest\x00laden"}),
    (
        "POST",
        "/auth/token",
        None,
        {"grant_type": "password", "username": "jan\x00@example.nl", "password": "x"},
    ),
    ("GET", "/activity_questionnaires", {"activity_type": "mest\x00laden"}, None),
    ("GET", "/users/jan%00/taken", None, None),
]
OVERFLOW_CASES = [
    ("GET", "/users/{user_token}/taken", {"tot": "9999-12-31"}, None),
    ("GET", "/users/{user_token}/taken", {"van": "0001-01-01"}, None),
    ("GET", "/users/{user_token}/taken", {"van": "0001-01-01T00:00:00+01:00"}, None),
    ("GET", "/users/{user_token}/taken", {"tot": "9999-12-31T23:59:59-01:00"}, None),
    (
        "POST",
        "/users/{user_token}/taken",
        None,
        {"type": "mest_laden", "naam": "Vroeg", "gepland_op": "0001-01-01T00:00:00+01:00"},
    ),
    (
        "POST",
        "/users/{user_token}/taken",
        None,
        {"type": "mest_laden", "naam": "Laat", "gepland_op": "9999-12-31T23:59:59-01:00"},
    ),
]
OFFSET_CASES = [
    ("GET", "/activity_questionnaires", {"offset": str(2**63)}, None),
    ("GET", "/activity_questionnaires", {"offset": "1" + "0" * 30}, None),
]


def _send(client, api_key, driver, document, method, path, query, body):
    template = "/users/{user_token}/taken"
    url = PREFIX + path.replace("{user_token}", driver.user_token)
    documented = documented_statuses(document, method, template if "/users/" in path else path)
    response = client.open(
        url, method=method, query_string=query, json=body, headers=api_headers(api_key.key)
    )
    return response, documented


@pytest.mark.parametrize(("method", "path", "query", "body"), NUL_CASES)
def test_nul_in_a_string_answers_a_documented_client_error(
    request, backend, client, driver, api_key, document, method, path, query, body
):
    if mark := known(backend, "nul-in-text"):
        request.applymarker(mark)
    response, documented = _send(client, api_key, driver, document, method, path, query, body)
    assert response.status_code < 500 and response.status_code in documented, response.data


@pytest.mark.parametrize(("method", "path", "query", "body"), OVERFLOW_CASES)
def test_dates_at_the_edge_of_the_calendar_answer_a_documented_client_error(
    request, backend, client, driver, api_key, document, method, path, query, body
):
    if mark := known(backend, "timestamp-overflow"):
        request.applymarker(mark)
    response, documented = _send(client, api_key, driver, document, method, path, query, body)
    assert response.status_code in documented - {500}, response.data


@pytest.mark.parametrize(("method", "path", "query", "body"), OFFSET_CASES)
def test_a_huge_offset_answers_a_documented_client_error(
    request, backend, client, driver, api_key, document, method, path, query, body
):
    if mark := known(backend, "unbounded-offset"):
        request.applymarker(mark)
    response, documented = _send(client, api_key, driver, document, method, path, query, body)
    assert response.status_code in documented - {500}, response.data


@pytest.mark.xfail(strict=True, reason=UNDOCUMENTED_INVALID_JSON)
@pytest.mark.parametrize("path", ["/auth/revoke", "/users/{user_token}/taken"])
def test_a_broken_json_body_answers_a_documented_400(client, driver, api_key, document, path):
    url = PREFIX + path.replace("{user_token}", driver.user_token)
    response = client.post(
        url, data=b"{not json", content_type="application/json", headers=api_headers(api_key.key)
    )
    assert response.status_code == 400
    assert response.get_json()["type"].endswith("/invalid-json")
    assert 400 in documented_statuses(document, "POST", path)


# --- 3. schemathesis over the whole document --------------------------------------------


@pytest.fixture
def world(app, carrier, driver, api_key) -> dict:
    """A carrier with a driver (with a password), an API key, a published questionnaire and a
    task that pins it, so lists answer real rows with a vragenpad."""
    publish_questionnaire(app, carrier)
    create_task(app, carrier, driver, hoeveelheid=28.5, eenheid="ton")
    return {"driver": driver, "key": api_key.key}


@contextmanager
def server_errors() -> Iterator[list[BaseException]]:
    """The exceptions the app logs as unhandled (it turns them into a 500 problem)."""
    errors: list[BaseException] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.exc_info and record.exc_info[1] is not None:
                errors.append(record.exc_info[1])

    handler = Collect(logging.ERROR)
    logger = logging.getLogger("portal.web")
    logger.addHandler(handler)
    try:
        yield errors
    finally:
        logger.removeHandler(handler)


def tolerated(backend: str, case, response, errors: list[BaseException]) -> list | None:
    """The checks to skip for a response one of KNOWN_DEFECTS explains; None if none does."""
    if response.status_code == 500 and errors:
        if all(
            any(backend in d.backends and d.explains_error(exc) for d in KNOWN_DEFECTS.values())
            for exc in errors
        ):
            return CHECKS
        return None
    documented = case.operation.definition.raw.get("responses", {})
    if response.status_code == 400 and "400" not in documented:
        body = response.json() if response.headers.get("content-type") else None
        if isinstance(body, dict) and str(body.get("type", "")).endswith("/invalid-json"):
            return [status_code_conformance]  # UNDOCUMENTED_INVALID_JSON
    return None


def explicit_cases(operation, world: dict) -> list:
    """Requests that must succeed, so every 2xx schema is checked against a real answer."""
    driver, headers = world["driver"], api_headers(world["key"])
    token = {"user_token": driver.user_token}
    bodies = {
        "POST /auth/token": [
            {"grant_type": "password", "username": driver.email, "password": PASSWORD}
        ],
        "POST /auth/revoke": [{"token": "unknown-refresh-token"}],
        "POST /users/{user_token}/taken": [
            {
                "type": "mest_laden",
                "naam": "Mest laden Enter",
                "gepland_op": "2026-11-21T08:30:00.000Z",
                "locatie_lat": 52.3,
                "locatie_lng": 6.6,
            },
            {"type": "voer_leveren", "naam": "Voer zonder vragenlijst"},
        ],
    }
    params = token if "{user_token}" in operation.path else None
    if operation.label in bodies:
        return [
            operation.Case(path_parameters=params, headers=headers, body=body)
            for body in bodies[operation.label]
        ]
    return [operation.Case(path_parameters=params, headers=headers)]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
@pytest.mark.parametrize("label", FUZZED_LABELS)
def test_operation_conforms_to_the_document(app, backend, world, label, mode):
    schema = load_schema(app)
    operation = schema.find_operation_by_label(label)
    assert operation is not None, label
    headers = api_headers(world["key"])
    statuses: Counter[int] = Counter()

    def check(case) -> None:
        with server_errors() as errors:
            response = case.call()
        statuses[response.status_code] += 1
        skipped = tolerated(backend, case, response, errors)
        if skipped is CHECKS:
            return
        case.validate_response(response, checks=CHECKS, excluded_checks=skipped or None)

    if mode is GenerationMode.POSITIVE:
        for case in explicit_cases(operation, world):
            response = case.call()
            assert 200 <= response.status_code < 300, (label, response.status_code, response.text)
            case.validate_response(response, checks=CHECKS)

    cases = operation.as_strategy(generation_mode=mode, headers=headers)
    if "{user_token}" in operation.path:
        real = world["driver"].user_token

        def mostly_real(pair):
            # Four in five cases go to the real driver, so they get past 404; the rest keep
            # the generated token.
            case, n = pair
            if n < 4:
                case.path_parameters = {**(case.path_parameters or {}), "user_token": real}
            return case

        cases = st.tuples(cases, st.sampled_from(range(5))).map(mostly_real)

    FUZZ_SETTINGS(given(cases)(check))()

    if mode is GenerationMode.POSITIVE and label != "POST /auth/token":
        # Random credentials never sign in; every other operation must get past 401 and 404.
        assert any(200 <= s < 300 for s in statuses), statuses
