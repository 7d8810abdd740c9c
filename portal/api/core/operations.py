"""The operation registry: `@operation` adds a route to the blueprint and describes it,
from the same models, for the OpenAPI document."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from portal.accounts.models import SCOPES
from portal.api.core.blueprint import bp


@dataclass
class Operation:
    path: str
    method: str
    endpoint: str
    summary: str
    tag: str
    description: str = ""
    body: type[BaseModel] | None = None
    body_example: dict | None = None
    query: type[BaseModel] | None = None
    response: type[BaseModel] | None = None
    many: bool = False
    status: int = 200
    errors: tuple[int, ...] = ()
    public: bool = False
    form: bool = False  # the body may also come as application/x-www-form-urlencoded
    headers: dict[str, str] = field(default_factory=dict)  # headers of the success response
    response_schema: dict | None = None  # a plain JSON schema when there is no model
    # A success body that is no JSON (a PDF): {media type: OpenAPI media object}.
    response_content: dict[str, dict] | None = None
    path_params: dict[str, dict] = field(default_factory=dict)
    multipart: dict | None = None  # JSON schema of a multipart/form-data body (file uploads)
    # Other success statuses answering the same body: {status: description}.
    also: dict[int, str] = field(default_factory=dict)
    # The scope an API key needs (None: public, or not for API keys at all, see `unscoped`).
    scope: str | None = None
    unscoped: str = ""  # why an operation that is not public needs no scope
    # Conditional request headers the handler honours: "If-Match" (412 when stale) and
    # "If-None-Match" (304); a GET answering an ETag honours If-None-Match by itself.
    conditional: tuple[str, ...] = ()
    body_required: bool = True  # False: the body may be left out (an empty request)
    idempotent: bool = False  # wrapped by @write: honours Idempotency-Key (set from the mark)
    # The handler reads with fast_read(), which checks a driver's token in its own round trip.
    fast_read: bool = False
    # Fields of the answer that show a secret once (a signing secret, a key): @write keeps
    # the answer for replays with these fields null, so a retry never shows them again.
    reveals: tuple[str, ...] = ()


# Names of answer fields that hold a secret. An idempotent operation answering one must name
# it in `reveals` (checked when the operation is registered), or a replay would show it again
# and the idempotency record would keep it in plain text.
SECRET_FIELDS = frozenset(
    {
        "geheim",
        "secret",
        "wachtwoord",
        "password",
        "sleutel",
        "api_key",
        "access_token",
        "refresh_token",
        "activatiecode",
        "activation_code",
    }
)


OPERATIONS: list[Operation] = []
OPERATION_BY_ENDPOINT: dict[str, Operation] = {}


def operation(rule: str, method: str, *, scope: str | None, unscoped: str = "", **spec: Any):
    """Register a route and describe it for the OpenAPI document, from the same models.

    `scope` is what an API key needs to call it (a `:write` scope also grants the `:read` one);
    it is checked for every request before the handler runs. None only for a public
    operation, or with `unscoped` saying why (e.g. only the driver app calls it)."""
    if scope is not None and scope not in SCOPES:
        raise ValueError(f"{method} {rule}: unknown scope {scope!r}; add it to SCOPES")
    if scope is None and not (spec.get("public") or unscoped):
        raise TypeError(f"{method} {rule}: scope=None needs public=True or unscoped='<why>'")

    def decorate(fn):
        idempotent = getattr(fn, "idempotent_write", False)
        model = spec.get("response")
        shown = SECRET_FIELDS & set(model.model_fields) if model is not None else set()
        if idempotent and shown - set(spec.get("reveals", ())):
            raise TypeError(
                f"{method} {rule}: its answer shows {sorted(shown)}; name them in reveals=..."
            )
        bp.add_url_rule(rule, fn.__name__, fn, methods=[method])
        op = Operation(
            path=rule,
            method=method.lower(),
            endpoint=fn.__name__,
            scope=scope,
            unscoped=unscoped,
            idempotent=idempotent,
            **spec,
        )
        if op.method == "get" and "ETag" in op.headers and "If-None-Match" not in op.conditional:
            op.conditional = (*op.conditional, "If-None-Match")  # see _not_modified
        OPERATIONS.append(op)
        OPERATION_BY_ENDPOINT[f"{bp.name}.{fn.__name__}"] = op
        return fn

    return decorate
