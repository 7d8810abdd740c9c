"""One operation in the OpenAPI document: its parameters (path, query, headers), its request
body, its success answer (schema, headers, links) and every error answer it may give, and
who may call it (`x-required-scope`, its security requirement)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter

from portal.api.core import Operation, scopes_granting
from portal.api.openapi_links import links_of
from portal.api.openapi_schema import REF, OpenApiSchema
from portal.schemas import not_null

# The schema of a type in a mode ("validation" for bodies, "serialization" for answers).
SchemaOf = Callable[[Any, str], dict]

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


def operation_doc(op: Operation, schema: SchemaOf) -> dict:
    """op's OpenAPI operation object; `schema` gives the schema (or $ref) of a body or an
    answer's type."""
    doc: dict[str, Any] = {
        "operationId": op.endpoint,
        "summary": op.summary,
        "tags": [op.tag],
        "parameters": [*path_parameters(op), *query_parameters(op), *header_parameters(op)],
        "responses": {},
    }
    if op.description:
        doc["description"] = op.description
    describe_scope(doc, op)
    if (body := request_body(op, schema)) is not None:
        doc["requestBody"] = body
    success = success_answer(op, schema)
    doc["responses"][str(op.status)] = success
    for status, description in op.also.items():
        doc["responses"][str(status)] = {**success, "description": description}
    if "If-None-Match" in op.conditional:
        doc["responses"]["304"] = {
            "description": "Not modified: If-None-Match names the current ETag",
            "headers": {"ETag": {"description": "the current ETag", "schema": STRING}},
        }
    doc["responses"].update(error_answers(op))
    doc["security"] = security(op)
    return doc


def describe_scope(doc: dict, op: Operation) -> None:
    """The scope an API key needs, in the description and as `x-required-scope`."""
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


def path_parameters(op: Operation) -> list[dict]:
    return [
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
        for name, spec in op.path_params.items()
    ]


def query_parameters(op: Operation) -> list[dict]:
    if op.query is None:
        return []
    query_schema = TypeAdapter(op.query).json_schema(
        ref_template=REF, mode="validation", schema_generator=OpenApiSchema
    )
    required = set(query_schema.get("required", []))
    parameters = []
    for name, prop in query_schema["properties"].items():
        not_null(prop)  # a query string cannot send null: leaving it out is the null
        parameters.append(
            {
                "name": name,
                "in": "query",
                "required": name in required,
                "description": prop.pop("description", ""),
                "schema": prop,
            }
        )
    return parameters


def request_body(op: Operation, schema: SchemaOf) -> dict | None:
    if op.body is not None:
        content = {"application/json": {"schema": schema(op.body, "validation")}}
        body: dict[str, Any] = {"required": op.body_required, "content": content}
        if op.form:
            # Declared as JSON only: openapi-python-client builds no importable module
            # for one schema under two media types. The server still takes the form.
            body["description"] = (
                "JSON; OAuth 2.0 clients may send the same fields as "
                "application/x-www-form-urlencoded instead."
            )
        return body
    if op.multipart is not None:
        return {"required": True, "content": {"multipart/form-data": {"schema": op.multipart}}}
    return None


def success_answer(op: Operation, schema: SchemaOf) -> dict:
    """The success answer: its content, headers and links."""
    success: dict[str, Any] = {"description": "OK"}
    headers = {
        name: {"description": text, "schema": {"type": "string"}}
        for name, text in op.headers.items()
    }
    if op.response is not None:
        ref = schema(op.response, "serialization")
        answer = {"type": "array", "items": ref} if op.many else ref
        success["content"] = {
            "application/json": {"schema": answer},
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
    return success


def error_statuses(op: Operation) -> tuple[set[int], dict[int, list[str]]]:
    """The error statuses op may answer, and notes added to their titles."""
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
    return errors, notes


def error_answers(op: Operation) -> dict[str, dict]:
    """Every error answer of op: a problem document, titled by its status."""
    errors, notes = error_statuses(op)
    answers: dict[str, dict] = {}
    for status in sorted(errors):
        title = (
            SCOPE_403
            if status == 403 and op.scope is not None
            else ERROR_TITLES.get(status, "Error")
        )
        answers[str(status)] = {
            "description": " ".join([title.rstrip(".") + ".", *notes.get(status, ())])
            if status in notes
            else title,
            "content": {
                "application/problem+json": {"schema": {"$ref": REF.format(model="Problem")}}
            },
        }
        if status in (429, 503):
            answers[str(status)]["headers"] = {"Retry-After": RETRY_AFTER}
    return answers


def security(op: Operation) -> list[dict]:
    if op.public:
        return []
    if op.scope is not None:
        # OpenAPI 3.1 lets a bearer requirement list the roles it needs: any one of the
        # scopes granting this one will do (a driver's token is limited by the driver).
        return [{"bearer": [scope]} for scope in scopes_granting(op.scope)]
    return [{"bearer": []}]
