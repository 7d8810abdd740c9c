"""Reading requests: JSON bodies and query strings validated by pydantic, every problem a
422 naming its field."""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

import orjson
from flask import Response, request
from pydantic import BaseModel, TypeAdapter, ValidationError

from portal import plain_text
from portal.api.core.blueprint import ProblemResponse
from portal.errors import problem

M = TypeVar("M", bound=BaseModel)

JSON_BODY_LIMIT = 1024 * 1024
TYPE_TAGS = {"date", "datetime", "int", "float", "str", "bool", "uuid", "none", "list", "dict"}


def validation_problem(exc: ValidationError, where: str = "body", skip: int = 0) -> Response:
    """422 with one {field, message} per field; union member tags are left out of the path."""
    errors: dict[str, str] = {}
    for err in exc.errors(include_url=False, include_input=False):
        if err["type"].startswith("union_tag"):
            # The discriminator itself is missing or unknown: name it.
            field = err.get("ctx", {}).get("discriminator", "").strip("'") or where
            errors.setdefault(field, err["msg"])
            continue
        parts = [
            str(part)
            for part in err["loc"][skip:]
            if not (isinstance(part, str) and (part in TYPE_TAGS or "[" in part))
        ]
        errors.setdefault(".".join(parts) or where, err["msg"])
    items = [{"field": field, "message": message} for field, message in errors.items()]
    return problem(
        422,
        "Validation failed",
        f"The {where} has {len(items)} problem(s).",
        type_="validation-failed",
        errors=items,
    )


def json_body() -> Any:
    """The request's JSON document; a problem for a wrong type or broken JSON."""
    mimetype = request.mimetype or ""
    if mimetype != "application/json" and not mimetype.endswith("+json"):
        raise ProblemResponse(
            problem(
                415,
                "Unsupported media type",
                "Send the body as application/json.",
                type_="unsupported-media-type",
            )
        )
    raw = request.get_data(cache=True)
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ProblemResponse(
            problem(
                400, "Invalid JSON", f"The body is not valid JSON: {exc}.", type_="invalid-json"
            )
        ) from None
    if _holds_nul(doc):
        # PostgreSQL text cannot hold NUL; refuse it here rather than fail at the database.
        raise ProblemResponse(
            problem(
                400,
                "Invalid JSON",
                "NUL characters are not allowed in text.",
                type_="invalid-json",
            )
        )
    return doc


def _holds_nul(doc: Any) -> bool:
    """Whether any string (or key) of a parsed JSON document holds a NUL character."""
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


@cache
def adapter(tp: Any) -> TypeAdapter:
    return TypeAdapter(tp)


def _refuse_control_characters(doc: Any, where: str) -> None:
    """422 naming each field whose text holds a control character: no name or remark needs
    one, and every export of the stored text would have to drop it."""
    if found := plain_text.controls_in(doc):
        raise ProblemResponse(
            problem(
                422,
                "Validation failed",
                f"The {where} has {len(found)} problem(s).",
                type_="validation-failed",
                errors=[
                    {
                        "field": path or where,
                        "message": plain_text.refusal(code_point),
                        "code": "control_character",
                    }
                    for path, code_point in found
                ],
            )
        )


def parse_body(model: type[M] | Any, doc: Any = None, *, tagged_union: bool = False) -> M:
    """The request body (or doc) validated by model; 422 listing every field's problem.
    For a tagged union the tag is left out of the error paths."""
    if doc is None:
        doc = json_body()
    _refuse_control_characters(doc, "body")
    try:
        return adapter(model).validate_python(doc)
    except ValidationError as exc:
        raise ProblemResponse(validation_problem(exc, skip=1 if tagged_union else 0)) from None


def parse_query(model: type[M]) -> M:
    """The query string validated by model; 422 listing every parameter's problem."""
    args: dict[str, str] = {}
    for key in request.args:
        values = request.args.getlist(key)
        args[key] = values[-1]
    _refuse_control_characters(args, "query")
    try:
        return model.model_validate(args)
    except ValidationError as exc:
        raise ProblemResponse(validation_problem(exc, where="query")) from None
