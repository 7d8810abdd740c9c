"""The OpenAPI 3.1 document, built from the registered operations and their pydantic models."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from flask import Response, current_app, request
from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from portal.accounts.models import SCOPES
from portal.api.core import (
    OPERATION_BY_ENDPOINT,
    OPERATIONS,
    Operation,
    bp,
    json_response,
    operation,
    scopes_granting,
)
from portal.api.scope_text import SCOPE_TEXT
from portal.schemas import Problem, not_null
from portal.webhooks.event_docs import openapi_webhooks

REF = "#/components/schemas/{model}"
RETRY_AFTER = {"description": "seconds to wait", "schema": {"type": "integer"}}
ERROR_TITLES = {
    400: "Bad request (invalid JSON, invalid grant)",
    401: "No, an invalid or an expired bearer token",
    403: "The caller may not do this",
    404: "Not found, or another carrier's",
    409: "Conflict with the current state",
    412: "The If-Match ETag is stale or names no version of this resource",
    413: "The body is too large",
    415: "The body is not JSON",
    422: "Validation failed; `errors` lists each field",
    429: "Too many attempts",
    503: "Unavailable for a moment (database or storage); nothing was saved: retry later",
}
SCOPE_403 = (
    "The caller may not do this. An API key without the scope this operation needs gets "
    "`type` …/insufficient-scope with the scope in `required_scope`."
)


STRING = {"type": "string"}
IDEMPOTENCY_409 = (
    "Or `Idempotency-Key`: a request with this key is still being processed; retry later."
)
IDEMPOTENCY_422 = (
    "Or `Idempotency-Key` (`field` Idempotency-Key): not 1 to 255 visible ASCII characters, "
    "or already used for a different request."
)
HEADER_PARAMETERS = {
    "Idempotency-Key": {
        "description": "Any unique string per intended change (a UUID will do), kept 7 days "
        "per caller: a retry with the same key and the same request answers the first response "
        "(with `Idempotent-Replayed: true`) instead of acting twice. Use a new key for every "
        "new change: the same key with another request answers 422.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"},
    },
    "If-Match": {
        "description": "The ETag of the version the change is based on, exactly as an answer "
        'sent it ("2", or "2:gzip" from a compressed answer; a weak W/"2" is accepted too); '
        "several ETags, any of which may be current, or `*`. A stale one answers 412 and "
        "changes nothing; without it the change is unconditional.",
        "schema": STRING,
    },
    "If-None-Match": {
        "description": "The ETag of the answer already held, as it was sent (with or without "
        '":gzip"); when it is still current the answer is 304 without a body.',
        "schema": STRING,
    },
}


def header_parameters(op: Operation) -> list[dict]:
    """The request headers op honours, as OpenAPI header parameters (all optional)."""
    names = (["Idempotency-Key"] if op.idempotent else []) + list(op.conditional)
    return [
        {"name": name, "in": "header", "required": False, **HEADER_PARAMETERS[name]}
        for name in names
    ]


# OpenAPI links: what a client can do next with an answer, as the target operation and the
# values it takes from that answer. They make the life of a resource walkable (create, read,
# change, move, complete, delete), for readers of the document and for stateful testing.
ID = "$response.body#/id"
ETAG = "$response.header.ETag"
_TASK = {"task_id": ID}
_TASK_IF_MATCH = {"task_id": ID, "header.If-Match": ETAG}
TASK_NEXT = {
    "get_task": _TASK,
    "task_details": _TASK,
    "update_task": _TASK_IF_MATCH,
    "change_status": _TASK_IF_MATCH,
    "complete_for_billing": _TASK,
    "delete_task": _TASK,
}
# A list's first task leads on the same way (its other tasks' ids sit at /1/id, /2/id...).
_FIRST_TASK = {"task_id": "$response.body#/0/id"}
FIRST_TASK_NEXT = {
    "get_task": _FIRST_TASK,
    "task_details": _FIRST_TASK,
    "update_task": _FIRST_TASK,
    "change_status": _FIRST_TASK,
    "complete_for_billing": _FIRST_TASK,
}
_SESSION = {"session_id": ID}
_WORK_DAY = {"werkdag_id": ID}
_NOTIFICATION = {"notification_id": ID}
_TACHO_FILE = {"tacho_file_id": ID}
_DRIVER = {"user_token": "$response.body#/user_token"}
_CARRIER = {"transporteur_id": "$response.body#/transporteur_id"}
LINKS: dict[str, dict[str, dict[str, str]]] = {
    "user_profile": {
        "driver_tasks": _DRIVER,
        "create_driver_task": _DRIVER,
        "driver_work_days": _DRIVER,
        "start_work_day": _DRIVER,
        "driver_notifications": _DRIVER,
        "create_notification": _DRIVER,
        "driver_times": _DRIVER,
        "carrier_tasks": _CARRIER,
        "carrier_drivers": _CARRIER,
    },
    "driver_tasks": FIRST_TASK_NEXT,
    "list_tasks": FIRST_TASK_NEXT,
    "carrier_tasks": FIRST_TASK_NEXT,
    "create_driver_task": TASK_NEXT,
    "get_task": TASK_NEXT,
    "update_task": TASK_NEXT,
    "change_status": TASK_NEXT,
    "upload_file": {"get_file": {"file_id": ID}},
    "get_vehicle": {"update_vehicle": {"vehicle_id": ID, "header.If-Match": ETAG}},
    "update_vehicle": {"get_vehicle": {"vehicle_id": ID}},
    "start_session": {
        "get_session": _SESSION,
        "validate_session": _SESSION,
        "end_session": _SESSION,
    },
    "validate_session": {"get_session": _SESSION, "end_session": _SESSION},
    "start_work_day": {
        "update_work_day": {**_WORK_DAY, "header.If-Match": ETAG},
        "add_activity": _WORK_DAY,
    },
    "update_work_day": {"add_activity": _WORK_DAY},
    "add_activity": {"update_activity": {"activiteit_id": ID, "header.If-Match": ETAG}},
    "create_notification": {
        "get_notification": _NOTIFICATION,
        "mark_notification_read": _NOTIFICATION,
    },
    "save_answers": {"get_answer_session": {"answer_session_id": ID}},
    "upload_tacho_file": {"get_tacho_file": _TACHO_FILE, "tacho_file_activities": _TACHO_FILE},
}


def links_of(op: Operation) -> dict[str, dict]:
    """The OpenAPI links of op's success answer, named after the operations they lead to."""
    known = {o.endpoint for o in OPERATIONS}
    links = {}
    for target, parameters in LINKS.get(op.endpoint, {}).items():
        if target not in known:
            raise ValueError(f"link from {op.endpoint} to an unknown operation {target!r}")
        if "header.If-Match" in parameters and "ETag" not in op.headers:
            raise ValueError(f"{op.endpoint} answers no ETag for its link to {target}")
        links[target] = {"operationId": target, "parameters": parameters}
    return links


class _Builder:
    def __init__(self):
        self.components: dict[str, Any] = {}
        # The schemas the operations ask for, generated together by document() so that a
        # model is one component wherever it appears: (type, mode, placeholder to fill).
        self.wanted: list[tuple[Any, str, dict]] = []

    def schema(self, tp: Any, mode: str) -> dict:
        """tp's schema in mode ("validation" for bodies, "serialization" for answers): a
        $ref for a model. A placeholder until document() generates every schema at once."""
        placeholder: dict[str, Any] = {}
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            name = tp.model_config.get("title") or tp.__name__
            placeholder["$ref"] = REF.format(model=name)
        self.wanted.append((tp, mode, placeholder))
        return placeholder

    def generate_schemas(self, document: dict) -> None:
        """Fill the placeholders and the components from one pydantic run, then name each
        component by its model's title and give it that title, so a model has one component,
        one name and one title (generators refuse two models of the same title)."""
        inputs = [(i, mode, TypeAdapter(tp)) for i, (tp, mode, _) in enumerate(self.wanted)]
        schemas, defs = TypeAdapter.json_schemas(
            inputs, ref_template=REF, schema_generator=OpenApiSchema
        )
        for i, (_, mode, placeholder) in enumerate(self.wanted):
            placeholder.clear()
            placeholder.update(schemas[(i, mode)])
        self.components.update(defs.get("$defs", {}))
        names: dict[str, str] = {}
        for name, schema in self.components.items():
            # pydantic names a model whose request and answer shapes differ X-Input/X-Output.
            base, side = re.fullmatch(r"(.+?)(?:-(Input|Output))?", name).groups()
            names[name] = (schema.get("title") or base) + ("Input" if side == "Input" else "")
        taken = [new for new in names.values() if list(names.values()).count(new) > 1]
        if taken:
            raise RuntimeError(f"schemas with the same title: {sorted(set(taken))}")
        refs = {REF.format(model=old): REF.format(model=new) for old, new in names.items()}
        self.components = {
            names[name]: {**_renamed(schema, refs), "title": names[name]}
            for name, schema in sorted(self.components.items(), key=lambda item: names[item[0]])
        }
        document["paths"] = _renamed(document["paths"], refs)
        document["webhooks"] = _renamed(document.get("webhooks", {}), refs)
        document["components"]["schemas"] = self.components

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
            query_schema = TypeAdapter(op.query).json_schema(
                ref_template=REF, mode="validation", schema_generator=OpenApiSchema
            )
            required = set(query_schema.get("required", []))
            for name, prop in query_schema["properties"].items():
                not_null(prop)  # a query string cannot send null: leaving it out is the null
                doc["parameters"].append(
                    {
                        "name": name,
                        "in": "query",
                        "required": name in required,
                        "description": prop.pop("description", ""),
                        "schema": prop,
                    }
                )
        doc["parameters"].extend(header_parameters(op))
        if op.body is not None:
            body_schema = self.schema(op.body, "validation")
            content = {"application/json": {"schema": body_schema}}
            doc["requestBody"] = {"required": op.body_required, "content": content}
            if op.form:
                # Declared as JSON only: openapi-python-client builds no importable module
                # for one schema under two media types. The server still takes the form.
                doc["requestBody"]["description"] = (
                    "JSON; OAuth 2.0 clients may send the same fields as "
                    "application/x-www-form-urlencoded instead."
                )
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
            success["content"] = {
                "application/json": {"schema": schema},
                **(op.response_content or {}),
            }
            if op.many:
                headers["X-Total-Count"] = {
                    "description": "rows in the whole selection",
                    "schema": {"type": "integer"},
                }
        elif op.response_schema is not None:
            success["content"] = {"application/json": {"schema": op.response_schema}}
        elif op.response_content is not None:
            success["content"] = op.response_content
        if op.idempotent:
            headers["Idempotent-Replayed"] = {
                "description": "`true` when this answers a retry with the first response",
                "schema": {"type": "string", "enum": ["true"]},
            }
        if headers:
            success["headers"] = headers
        if links := links_of(op):
            success["links"] = links
        doc["responses"][str(op.status)] = success
        for status, description in op.also.items():
            doc["responses"][str(status)] = {**success, "description": description}
        if "If-None-Match" in op.conditional:
            doc["responses"]["304"] = {
                "description": "Not modified: If-None-Match names the current ETag",
                "headers": {"ETag": {"description": "the current ETag", "schema": STRING}},
            }
        # Every operation may answer 400 (a NUL in the query, broken JSON) and 405; one with a
        # body also 413 (too large) and 415 (not JSON).
        errors = set(op.errors) | {400, 405, 503} | ({401, 403} if not op.public else set())
        if op.body is not None or op.multipart is not None:
            errors |= {413, 415, 422}
        notes: dict[int, list[str]] = {}
        if op.idempotent:
            errors |= {409, 422}
            notes.setdefault(409, []).append(IDEMPOTENCY_409)
            notes.setdefault(422, []).append(IDEMPOTENCY_422)
        if "If-Match" in op.conditional:
            errors.add(412)
        for status in sorted(errors):
            title = (
                SCOPE_403
                if status == 403 and op.scope is not None
                else ERROR_TITLES.get(status, "Error")
            )
            doc["responses"][str(status)] = {
                "description": " ".join([title.rstrip(".") + ".", *notes.get(status, ())])
                if status in notes
                else title,
                "content": {
                    "application/problem+json": {"schema": {"$ref": REF.format(model="Problem")}}
                },
            }
            if status in (429, 503):
                doc["responses"][str(status)]["headers"] = {"Retry-After": RETRY_AFTER}
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
        self.schema(Problem, "serialization")  # every error answer refers to it
        paths: dict[str, dict] = {}
        for op in OPERATIONS:
            path = re.sub(r"<(?:[a-z_]+:)?([a-z_]+)>", r"{\1}", op.path)
            paths.setdefault(path, {})[op.method] = self.operation(op)
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
        document["webhooks"] = openapi_webhooks(self.schema)
        self.generate_schemas(document)
        return document


class OpenApiSchema(GenerateJsonSchema):
    """pydantic's JSON schema as generated clients read it: no `default: null`."""

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        # A null default says no more than leaving the field out of `required` does, and
        # openapi-typescript reads any default as "always present" (a required field).
        if self.get_default_value(schema) is None:
            return self.generate_inner(schema["schema"])
        return super().default_schema(schema)


def _renamed(node: Any, refs: dict[str, str]) -> Any:
    """node with every component reference (a $ref, a discriminator's mapping) renamed."""
    if isinstance(node, dict):
        return {key: _renamed(value, refs) for key, value in node.items()}
    if isinstance(node, list):
        return [_renamed(value, refs) for value in node]
    if isinstance(node, str):
        return refs.get(node, node)
    return node


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
