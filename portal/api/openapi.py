"""The OpenAPI 3.1 document, built from the registered operations and their pydantic models:
each operation's object is `openapi_operations`', the schemas `openapi_schema`'s, the links
between operations `openapi_links`'. Served at /openapi.json; under the tests, a guard notes
every answer whose status the document does not declare."""

from __future__ import annotations

import re
from functools import cache

from flask import Response, current_app, request

from portal.accounts.models import SCOPES
from portal.api.core import OPERATION_BY_ENDPOINT, OPERATIONS, bp, json_response, operation
from portal.api.openapi_operations import operation_doc
from portal.api.openapi_schema import Schemas
from portal.api.scope_text import SCOPE_TEXT
from portal.schemas import Problem
from portal.webhooks.event_docs import openapi_webhooks


def build_document() -> dict:
    """The whole OpenAPI 3.1 document of /api/v1."""
    schemas = Schemas()
    schemas.schema(Problem, "serialization")  # every error answer refers to it
    paths: dict[str, dict] = {}
    for op in OPERATIONS:
        path = re.sub(r"<(?:[a-z_]+:)?([a-z_]+)>", r"{\1}", op.path)
        paths.setdefault(path, {})[op.method] = operation_doc(op, schemas.schema)
    document = {
        "openapi": "3.1.0",
        "info": {
            "title": "Rijplan API",
            "version": "1.0.0",
            "description": "Tasks, questionnaires and sign-in for the Rijplan driver app and "
            "carriers' own systems. Timestamps are UTC with milliseconds and Z; lists take "
            "limit and offset and send X-Total-Count; errors are application/problem+json.",
        },
        "servers": [{"url": "/api/v1"}],
        "paths": paths,
        "components": {
            "schemas": schemas.components,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A driver's access token (POST /auth/token) or an "
                    "integration's API key (rpk_...). A driver acts for itself; an API key "
                    "acts for its carrier with its scopes only: each operation names the "
                    "scope it needs in `x-required-scope` and its security requirement, "
                    "and a `:write` scope includes the `:read` one. Scopes:\n"
                    + "\n".join(f"- `{scope}`: {SCOPE_TEXT[scope]}" for scope in SCOPES),
                    "x-scopes": {scope: SCOPE_TEXT[scope] for scope in SCOPES},
                }
            },
        },
    }
    document["webhooks"] = openapi_webhooks(schemas.schema)
    schemas.generate(document)
    return document


@operation(
    "/openapi.json",
    "GET",
    scope=None,
    summary="This API's OpenAPI 3.1 document",
    tag="meta",
    public=True,
)
def openapi_document():
    cache = current_app.extensions.get("rijplan_openapi")
    if cache is None:  # built once per process: the operations do not change while it runs
        cache = current_app.extensions["rijplan_openapi"] = build_document()
    return json_response(cache)


# --- the status guard of the tests -------------------------------------------------------


def _status_guard(response: Response) -> Response:
    """Under API_STATUS_GUARD (the tests set it), note every answer whose status the document
    does not declare for its operation; a fixture fails the test that caused it."""
    if current_app.config.get("API_STATUS_GUARD"):
        op = OPERATION_BY_ENDPOINT.get(request.endpoint or "")
        if op is not None and response.status_code not in documented_statuses()[op.endpoint]:
            UNDOCUMENTED_STATUSES.append(
                f"{request.method} {request.path} answered {response.status_code}, which the "
                f"document does not declare for {op.endpoint}"
            )
    return response


UNDOCUMENTED_STATUSES: list[str] = []


@cache
def documented_statuses() -> dict[str, frozenset[int]]:
    """The statuses the OpenAPI document declares for each operation, by its endpoint."""
    return {
        operation["operationId"]: frozenset(int(status) for status in operation["responses"])
        for methods in build_document()["paths"].values()
        for operation in methods.values()
    }


# Flask runs a blueprint's after_request functions last registered first: first in the list,
# the guard runs after every other one (after _not_modified has made a 200 a 304).
bp.after_request_funcs.setdefault(None, []).insert(0, _status_guard)
