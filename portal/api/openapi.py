"""The OpenAPI 3.1 document, built from the registered operations and their pydantic models."""

from __future__ import annotations

import re
from typing import Any

from flask import current_app
from pydantic import BaseModel, TypeAdapter

from portal.accounts.models import SCOPES
from portal.api.core import OPERATIONS, Operation, json_response, operation, scopes_granting
from portal.schemas import Problem

REF = "#/components/schemas/{model}"
ERROR_TITLES = {
    400: "Bad request (invalid JSON, invalid grant)",
    401: "No, an invalid or an expired bearer token",
    403: "The caller may not do this",
    404: "Not found, or another carrier's",
    409: "Conflict with the current state",
    412: "The If-Match ETag is stale",
    413: "The body is too large",
    415: "The body is not JSON",
    422: "Validation failed; `errors` lists each field",
    429: "Too many attempts",
}
# What each API-key scope allows, for the bearer scheme's description in the document.
SCOPE_TEXT = {
    "tasks:read": "read tasks (lists, one task, its details), their files and evidence",
    "tasks:write": "create, change, move, complete and delete tasks; upload files; report "
    "driver positions",
    "questionnaires:read": "read the active questionnaires and the drivers' answer sessions",
    "drivers:read": "read driver profiles and the carrier's drivers with their positions",
    "vehicles:read": "read vehicles and vehicle sessions",
    "vehicles:write": "change vehicles and end vehicle sessions",
    "messages:read": "read drivers' messages and the push settings",
    "messages:write": "send messages, mark them read and manage push subscriptions",
    "tacho:read": "read tachograph files and their download links",
    "tacho:write": "upload tachograph files",
    "hours:read": "read drivers' work days, activities and hours",
    "hours:write": "record and correct work days and activities",
}
SCOPE_403 = (
    "The caller may not do this. An API key without the scope this operation needs gets "
    "`type` …/insufficient-scope with the scope in `required_scope`."
)


class _Builder:
    def __init__(self):
        self.components: dict[str, Any] = {}

    def schema(self, tp: Any, mode: str) -> dict:
        schema = TypeAdapter(tp).json_schema(ref_template=REF, mode=mode)
        self.components.update(schema.pop("$defs", {}))
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            name = tp.model_config.get("title") or tp.__name__
            self.components[name] = schema
            return {"$ref": REF.format(model=name)}
        return schema

    def operation(self, op: Operation) -> dict:
        doc: dict[str, Any] = {
            "operationId": op.endpoint,
            "summary": op.summary,
            "tags": [op.tag],
            "parameters": [],
            "responses": {},
        }
        if op.description:
            doc["description"] = op.description
        if op.scope is not None:
            granting = scopes_granting(op.scope)
            note = f"API keys need the scope `{op.scope}`" + (
                f" (or {', '.join(f'`{s}`' for s in granting if s != op.scope)})."
                if len(granting) > 1
                else "."
            )
            doc["description"] = f"{op.description} {note}".strip()
            doc["x-required-scope"] = op.scope
        elif not op.public:
            doc["x-required-scope"] = None
            doc["x-unscoped"] = op.unscoped
        for name, spec in op.path_params.items():
            doc["parameters"].append(
                {
                    "name": name,
                    "in": "path",
                    "required": True,
                    "description": spec.get("description", ""),
                    "schema": {"type": "string", "format": "uuid"}
                    if spec.get("uuid")
                    else {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": spec.get("max_length", 64),
                        "pattern": "^[A-Za-z0-9_-]+$",
                    },
                }
            )
        if op.query is not None:
            query_schema = TypeAdapter(op.query).json_schema(ref_template=REF, mode="validation")
            required = set(query_schema.get("required", []))
            for name, prop in query_schema["properties"].items():
                doc["parameters"].append(
                    {
                        "name": name,
                        "in": "query",
                        "required": name in required,
                        "description": prop.pop("description", ""),
                        "schema": prop,
                    }
                )
        if op.body is not None:
            body_schema = self.schema(op.body, "validation")
            content = {"application/json": {"schema": body_schema}}
            if op.form:
                content["application/x-www-form-urlencoded"] = {"schema": body_schema}
            doc["requestBody"] = {"required": True, "content": content}
        elif op.multipart is not None:
            doc["requestBody"] = {
                "required": True,
                "content": {"multipart/form-data": {"schema": op.multipart}},
            }
        success: dict[str, Any] = {"description": "OK"}
        headers = {
            name: {"description": text, "schema": {"type": "string"}}
            for name, text in op.headers.items()
        }
        if op.response is not None:
            ref = self.schema(op.response, "serialization")
            schema = {"type": "array", "items": ref} if op.many else ref
            success["content"] = {"application/json": {"schema": schema}}
            if op.many:
                headers["X-Total-Count"] = {
                    "description": "rows in the whole selection",
                    "schema": {"type": "integer"},
                }
        elif op.response_schema is not None:
            success["content"] = {"application/json": {"schema": op.response_schema}}
        if headers:
            success["headers"] = headers
        doc["responses"][str(op.status)] = success
        for status, description in op.also.items():
            doc["responses"][str(status)] = {**success, "description": description}
        if op.endpoint == "driver_tasks":
            doc["responses"]["304"] = {"description": "Not modified since the ETag sent"}
        # Every operation may answer 400 (a NUL in the query, broken JSON) and 405; one with a
        # body also 413 (too large) and 415 (not JSON).
        errors = set(op.errors) | {400, 405} | ({401, 403} if not op.public else set())
        if op.body is not None or op.multipart is not None:
            errors |= {413, 415, 422}
        for status in sorted(errors):
            doc["responses"][str(status)] = {
                "description": SCOPE_403
                if status == 403 and op.scope is not None
                else ERROR_TITLES.get(status, "Error"),
                "content": {
                    "application/problem+json": {"schema": {"$ref": REF.format(model="Problem")}}
                },
            }
            if status == 429:
                doc["responses"]["429"]["headers"] = {
                    "Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}
                }
        if op.public:
            doc["security"] = []
        elif op.scope is not None:
            # OpenAPI 3.1 lets a bearer requirement list the roles it needs: any one of the
            # scopes granting this one will do (a driver's token is limited by the driver).
            doc["security"] = [{"bearer": [scope]} for scope in scopes_granting(op.scope)]
        else:
            doc["security"] = [{"bearer": []}]
        return doc

    def document(self) -> dict:
        self.components["Problem"] = TypeAdapter(Problem).json_schema(ref_template=REF)
        self.components.update(self.components["Problem"].pop("$defs", {}))
        paths: dict[str, dict] = {}
        for op in OPERATIONS:
            path = re.sub(r"<(?:[a-z_]+:)?([a-z_]+)>", r"{\1}", op.path)
            paths.setdefault(path, {})[op.method] = self.operation(op)
        return {
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
                "schemas": self.components,
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


def build_document() -> dict:
    """The whole OpenAPI 3.1 document of /api/v1."""
    return _Builder().document()


@operation(
    "/openapi.json",
    "GET",
    scope=None,
    summary="This API's OpenAPI 3.1 document",
    tag="meta",
    public=True,
)
def openapi_document():
    cache = current_app.extensions.setdefault("rijplan_openapi", build_document())
    return json_response(cache)
