"""The document says what the code does: the request headers each operation honours
(Idempotency-Key, If-Match, If-None-Match) with the answers they cause, every status a
handler gives (the API_STATUS_GUARD of every test), and the extension members of problems."""

from __future__ import annotations

import ast
import inspect
from collections import defaultdict
from pathlib import Path

import pytest
from factories import bearer, create_task

import portal
import portal.api  # registers every operation
from portal.api import core, openapi
from portal.api.core import OPERATIONS
from portal.errors import DomainError

DOCUMENT = "/api/v1/openapi.json"
PORTAL = Path(portal.__file__).parent


@pytest.fixture
def document(client) -> dict:
    return client.get(DOCUMENT).get_json()


def documented(document: dict) -> dict[str, dict]:
    """The document's operations by operationId."""
    return {
        op["operationId"]: op for methods in document["paths"].values() for op in methods.values()
    }


def header_names(op: dict) -> set[str]:
    return {p["name"] for p in op["parameters"] if p["in"] == "header"}


WRITE_CODE = core.write(lambda: None).__code__


def handler(app, op) -> object:
    return app.view_functions[f"api.{op.endpoint}"]


def test_every_write_declares_idempotency_key_with_its_409_and_422(app, document):
    ops = documented(document)
    writes = {op.endpoint for op in OPERATIONS if handler(app, op).__code__ is WRITE_CODE}
    assert len(writes) > 20  # every change the API makes
    for endpoint, op in ops.items():
        if endpoint in writes:
            assert "Idempotency-Key" in header_names(op), endpoint
            assert {"409", "422"} <= set(op["responses"]), endpoint
            assert "Idempotency-Key" in op["responses"]["422"]["description"]
            success = op["responses"][str(min(int(s) for s in op["responses"]))]
            assert "Idempotent-Replayed" in success.get("headers", {}), endpoint
        else:
            assert "Idempotency-Key" not in header_names(op), endpoint


def test_if_match_is_declared_exactly_where_a_handler_reads_it(app, document):
    ops = documented(document)
    reading = {
        op.endpoint
        for op in OPERATIONS
        if "if_match_versions(" in inspect.getsource(inspect.unwrap(handler(app, op)))
    }
    assert reading >= {"update_task", "change_status", "update_vehicle", "update_work_day"}
    declaring = {endpoint for endpoint, op in ops.items() if "If-Match" in header_names(op)}
    assert declaring == reading
    for endpoint in reading:
        assert "412" in ops[endpoint]["responses"], endpoint


def test_if_none_match_with_its_304_on_every_get_that_sends_an_etag(document):
    ops = documented(document)
    for endpoint, op in ops.items():
        sends_etag = "ETag" in op["responses"].get("200", {}).get("headers", {})
        is_get = any(methods.get("get") is op for methods in document["paths"].values())
        assert ("If-None-Match" in header_names(op)) == (is_get and sends_etag), endpoint
        assert ("304" in op["responses"]) == (is_get and sends_etag), endpoint
    assert "If-None-Match" in header_names(ops["driver_tasks"])


def test_header_parameters_are_optional_strings(document):
    for op in documented(document).values():
        for parameter in op["parameters"]:
            if parameter["in"] == "header":
                assert parameter["required"] is False
                assert parameter["schema"]["type"] == "string"
                assert parameter["description"]


# --- statuses --------------------------------------------------------------------------


def test_continuing_an_answer_session_is_documented_as_200(document):
    responses = documented(document)["save_answers"]["responses"]
    assert {"200", "201"} <= set(responses)


def test_an_undocumented_status_is_noted_by_the_guard(app, client, carrier, api_key, monkeypatch):
    task = create_task(app, carrier, None)
    statuses = defaultdict(frozenset, {"get_task": frozenset({404})})
    monkeypatch.setattr(openapi, "documented_statuses", lambda: statuses)
    response = client.get(f"/api/v1/taken/{task.id}", headers=bearer(api_key.key))
    assert response.status_code == 200
    noted, openapi.UNDOCUMENTED_STATUSES[:] = list(openapi.UNDOCUMENTED_STATUSES), []
    assert len(noted) == 1 and "200" in noted[0] and "get_task" in noted[0]


def test_the_guard_knows_every_operation(document):
    assert set(openapi.documented_statuses()) == set(documented(document))
    for statuses in openapi.documented_statuses().values():
        assert 500 not in statuses  # a 500 is a bug, never a documented answer


# --- problems --------------------------------------------------------------------------

# Extension members only the portal's own pages get (the questionnaire builder, admin).
PORTAL_ONLY = {"gewijzigd_door", "updated_at", "versie", "user_id"}


def _domain_errors() -> dict[str, type]:
    found: dict[str, type] = {}
    stack = [DomainError]
    while stack:
        cls = stack.pop()
        found[cls.__name__] = cls
        stack.extend(cls.__subclasses__())
    return found


def extension_members() -> dict[str, str]:
    """Every extension member the code puts in a problem: keywords passed to problem() and
    to a domain error that keeps them in `extra`, with where one is passed."""
    import portal.web  # noqa: F401  (every domain error class is imported)

    errors = _domain_errors()
    members: dict[str, str] = {}
    for path in PORTAL.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name == "problem":
                named = {"type_", "headers"}
            elif name in errors:
                signature = inspect.signature(errors[name].__init__)
                if not any(
                    p.kind is p.VAR_KEYWORD and p.name == "extra"
                    for p in signature.parameters.values()
                ):
                    continue
                named = set(signature.parameters)
            else:
                continue
            for keyword in node.keywords:
                if keyword.arg and keyword.arg not in named:
                    members.setdefault(keyword.arg, f"{path.relative_to(PORTAL)}:{node.lineno}")
    members["reden"] = "fleet/sessions.py (QrRefused keeps it in extra)"
    members["errors"] = "api/core.py (every 422)"
    return members


def test_every_extension_member_is_declared_on_the_problem_schema(document):
    problem = document["components"]["schemas"]["Problem"]["properties"]
    members = extension_members()
    assert {"allowed", "current", "sessie_id", "reden", "required_scope", "etag"} <= set(members)
    missing = {
        member: where
        for member, where in members.items()
        if member not in problem and member not in PORTAL_ONLY
    }
    assert missing == {}
    for member in members.keys() - PORTAL_ONLY:
        assert problem[member].get("description"), member
        assert "null" not in str(problem[member].get("type")), member
    assert "required" not in problem or set(problem["required"]) <= {"title", "status"}


def test_an_illegal_status_move_names_the_current_status_and_the_allowed_ones(
    app, client, carrier, driver, api_key
):
    task = create_task(app, carrier, driver, status="geannuleerd")
    moved = client.patch(
        f"/api/v1/taken/{task.id}/status", json={"status": "gestart"}, headers=bearer(api_key.key)
    )
    assert moved.status_code == 409
    assert moved.get_json()["current"] == "geannuleerd"
    assert moved.get_json()["allowed"] == []
    planned = create_task(app, carrier, driver)
    moved = client.patch(
        f"/api/v1/taken/{planned.id}/status",
        json={"status": "afgerond"},
        headers=bearer(api_key.key),
    )
    assert moved.status_code == 409
    assert moved.get_json() | {"detail": None} == {
        "type": "https://rijplan.nl/problems/illegal-move",
        "title": "Illegal status move",
        "status": 409,
        "detail": None,
        "current": "gepland",
        "to": "afgerond",
        "allowed": ["ontvangen", "gestart", "geannuleerd"],
    }


def test_a_vehicle_session_may_start_without_a_body(document):
    body = document["paths"]["/vehicle_sessions"]["post"]["requestBody"]
    assert body["required"] is False
    for op in documented(document).values():
        if op["operationId"] != "start_session" and "requestBody" in op:
            assert op["requestBody"]["required"] is True, op["operationId"]
