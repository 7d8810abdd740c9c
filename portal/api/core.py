"""The JSON API's plumbing: the blueprint, bearer authentication, problem+json errors,
request parsing with pydantic, JSON responses, and the operation registry from which the
OpenAPI document is built."""

from __future__ import annotations

import gzip
import hashlib
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, wraps
from typing import Any, TypeVar

import orjson
from flask import Blueprint, Response, current_app, g, request
from pydantic import BaseModel, TypeAdapter, ValidationError
from werkzeug.datastructures import ETags

from portal import reads
from portal.accounts.models import SCOPES
from portal.accounts.service import authenticate_api_key
from portal.accounts.tokens import (
    AccessClaims,
    DriverSession,
    decode_access_token,
    driver_for_claims,
    session_for,
    session_query,
)
from portal.audit.service import Actor
from portal.drivers.models import Driver
from portal.drivers.service import find_by_token as find_driver_by_token
from portal.drivers.service import get_driver, get_driver_by_token
from portal.errors import (
    Conflict,
    DomainError,
    Forbidden,
    NotFound,
    Unauthorized,
    ValidationFailed,
    problem,
    problem_from_domain,
)
from portal.extensions import csrf, db
from portal.idempotency import service as idempotency
from portal.tenancy import activate

M = TypeVar("M", bound=BaseModel)

bp = Blueprint("api", __name__, url_prefix="/api/v1")
csrf.exempt(bp)

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


class ProblemResponse(Exception):
    """Abort the request with a ready problem response."""

    def __init__(self, response: Response):
        super().__init__(response.status)
        self.response = response


@bp.errorhandler(DomainError)
def _domain_error(error: DomainError):
    db.session.rollback()
    return problem_from_domain(error)


@bp.errorhandler(ProblemResponse)
def _problem_response(error: ProblemResponse):
    db.session.rollback()
    return error.response


# --- parsing ---------------------------------------------------------------------------


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


def parse_body(model: type[M] | Any, doc: Any = None, *, tagged_union: bool = False) -> M:
    """The request body (or doc) validated by model; 422 listing every field's problem.
    For a tagged union the tag is left out of the error paths."""
    if doc is None:
        doc = json_body()
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
    try:
        return model.model_validate(args)
    except ValidationError as exc:
        raise ProblemResponse(validation_problem(exc, where="query")) from None


# --- responses -------------------------------------------------------------------------


def json_response(data: Any, status: int = 200, headers: dict | None = None) -> Response:
    response = Response(orjson.dumps(data), status=status, mimetype="application/json")
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def public_origin() -> str:
    """Where this site is reached, for absolute URLs in answers (a client joins a path to
    the API's base, /api/v1, not to the site): PUBLIC_BASE_URL, else the request's host."""
    return (current_app.config.get("PUBLIC_BASE_URL") or request.host_url).rstrip("/")


# What a compressing layer appends to the strong ETag of an answer it compresses:
# Flask-Compress "<tag>:<coding>" ("2:gzip", "2:br", "2:zstd", "2:deflate"), Apache's
# mod_deflate "<tag>-<coding>". A proxy may also weaken it instead (nginx: W/"2").
_CODING_SUFFIX = re.compile(r"(?::[A-Za-z0-9._+-]+|-(?:gzip|br|zstd|deflate))$")
_VERSION_TAG = re.compile(r"[0-9]{1,18}")


def etag_value(tag: str) -> str:
    """An entity-tag's opaque value (unquoted) without what a compressing layer appended."""
    return _CODING_SUFFIX.sub("", tag, count=1)


def etag_matches(etag: str) -> bool:
    """The request's If-None-Match names this ETag (the weak comparison RFC 9110 asks for),
    in any form the server or a compressing layer gave it ("<etag>:gzip", W/"<etag>")."""
    return etags_name(request.if_none_match, etag)


def etags_name(tags: ETags, etag: str) -> bool:
    """An If-None-Match header's tags name this ETag (etag_matches, for a parsed header)."""
    if tags.star_tag:
        return True
    return any(tag and etag_value(tag) == etag for tag in tags.as_set(include_weak=True))


class PreconditionFailed(DomainError):
    """An If-Match that names no version of the resource (a stale one is the service's)."""

    status = 412
    title = "Precondition failed"


def if_match_versions(what: str) -> frozenset[int] | None:
    """The versions the request's If-Match names, any of which may be the current one; None
    without If-Match or with `*` (the handler found the resource, so it exists).

    Every ETag the server hands out is accepted back: the bare version ("2"), the form a
    compressing layer gives it ("2:gzip", "2:br", "2-gzip") and a list ("1", "2"). A weak
    tag (W/"2") counts too, though RFC 9110 compares If-Match strongly: our ETags are the
    row's version, which changes with every change of the resource, so the weak form can
    only come from a proxy that weakened our strong tag when it compressed the answer.
    A header naming no version at all (malformed, another resource's hash) is 412."""
    if "If-Match" not in request.headers:
        return None
    tags = request.if_match
    if tags.star_tag:
        return None
    versions = frozenset(
        int(value)
        for tag in tags.as_set(include_weak=True)
        if tag and _VERSION_TAG.fullmatch(value := etag_value(tag))
    )
    if not versions:
        raise PreconditionFailed(f"If-Match names no version of this {what}.")
    return versions


# List answers by ETag, per process. Compressed ones: the same answer to the next poll (a
# client that does not send If-None-Match, another device of the same driver) is not
# compressed again. Plain ones only of lists that every caller of a carrier shares
# (fast_list's `keep`): a driver's own plain list is 16 times its compressed size, and every
# HTTP client of note asks for gzip.
ANSWERS = reads.ByteCache(max_bytes=16 * 1024 * 1024)


class Listing:
    """What fast_list() needs of a list (tasks.service.TaskListing and the like): two
    statements, the ETag and total from the first's rows, the JSON body from the second's."""

    fingerprint: reads.Query
    rows: reads.Query

    def etag(self, fingerprint_rows: list[tuple]) -> tuple[str, int]: ...

    def body(self, rows: list[tuple]) -> bytes: ...


def fast_list(
    listing: Listing,
    *,
    check: Callable[[], object] | None = None,
    keep: bool = False,
    headers: dict | None = None,
) -> Response:
    """A list answered in as few round trips as it needs, with an ETag and X-Total-Count.

    If-None-Match or Accept-Encoding gzip: the fingerprint first (with the driver's token
    check, one round trip), which answers 304 or the compressed answer kept for this ETag;
    only otherwise the rows (a second). A plain request sends both statements at once.
    `check` runs once the caller's token is checked, before anything is answered (a
    driver's list: the path's user_token must be the driver's own). `keep`: the list is the
    same for every caller of the carrier (its questionnaires), so the plain answer is kept
    by ETag too."""
    wants_gzip = request.accept_encodings["gzip"] > 0
    rows: list[tuple] | None = None
    if wants_gzip or keep or "If-None-Match" in request.headers:
        (fingerprint,) = fast_read(listing.fingerprint)
    else:
        fingerprint, rows = fast_read(listing.fingerprint, listing.rows)
    if check is not None:
        check()
    etag, total = listing.etag(fingerprint)
    answer_headers = {"ETag": f'"{etag}"', "Cache-Control": "private, no-cache", **(headers or {})}
    if etag_matches(etag):
        return Response(status=304, headers=answer_headers)
    answer_headers["X-Total-Count"] = str(total)
    key = (g.principal.carrier_id, etag, "gzip" if wants_gzip else "identity")
    answer = ANSWERS.get(key) if wants_gzip or keep else None
    if answer is None:
        if rows is None:
            (rows,) = fast_read(listing.rows)
        answer = listing.body(rows)
        if wants_gzip:
            if len(answer) < current_app.config["COMPRESS_MIN_SIZE"]:
                return Response(answer, mimetype="application/json", headers=answer_headers)
            level = current_app.config["COMPRESS_LEVEL"]
            answer = gzip.compress(answer, compresslevel=level, mtime=0)
        if wants_gzip or keep:
            ANSWERS.put(key, answer)
    response = Response(answer, mimetype="application/json", headers=answer_headers)
    if wants_gzip:
        response.headers["Content-Encoding"] = "gzip"
        response.set_etag(f"{etag}:gzip")  # as Flask-Compress marks what it compresses
    return response


def list_response(items: list, total: int, headers: dict | None = None) -> Response:
    return json_response(items, headers={"X-Total-Count": str(total), **(headers or {})})


# --- authentication --------------------------------------------------------------------


@dataclass
class Principal:
    """Who calls: a driver (access token) or an integration (API key).

    A driver's token is checked against the driver's row (active, not signed out since)
    before the handler runs, except for an operation marked `fast_read`: its handler reads
    through fast_read(), which sends that check with its own statements, in one round trip.
    Until then `checked` is False and the label unknown; principal() checks at once."""

    carrier_id: uuid.UUID
    kind: str  # "driver" or "api_key"
    id: uuid.UUID
    label: str
    scopes: frozenset[str] = field(default_factory=frozenset)
    user_token: str | None = None  # a driver's
    claims: AccessClaims | None = None  # a driver's token
    checked: bool = True

    @property
    def actor(self) -> Actor:
        return Actor(self.kind, self.id, self.label)

    @property
    def caller(self) -> str:
        return f"{self.kind}:{self.id}"

    def confirm(self, session: DriverSession | None) -> None:
        """The driver's row as read: the token still speaks for it, or 401."""
        if session is None:
            raise Unauthorized(INVALID_TOKEN)
        self.label, self.user_token, self.checked = session.naam, session.user_token, True


INVALID_TOKEN = "The access token is invalid or expired; refresh it or sign in."


@dataclass(frozen=True)
class DriverRef:
    """The driver a driver's own request acts for, as its token's check read it."""

    transporteur_id: uuid.UUID
    id: uuid.UUID
    user_token: str
    naam: str


def bearer_token(header: str) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    scheme, _, token = header.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def authenticate(*, defer_check: bool = False) -> Principal:
    """The caller of this request from its bearer token; 401 problem otherwise."""
    token = bearer_token(request.headers.get("Authorization", ""))
    if token is None:
        raise Unauthorized("Send 'Authorization: Bearer <access token or API key>'.")
    if token.startswith("rpk_"):
        api_key = authenticate_api_key(token)
        if api_key is None:
            raise Unauthorized("The API key is unknown or revoked.")
        activate(db.session, api_key.transporteur_id)
        return Principal(
            api_key.transporteur_id,
            "api_key",
            api_key.id,
            f"API key {api_key.naam}",
            scopes=granted_scopes(api_key.scopes.split()),
        )
    claims = decode_access_token(token)
    if claims is None:
        raise Unauthorized(INVALID_TOKEN)
    activate(db.session, claims.carrier_id)
    who = Principal(claims.carrier_id, "driver", claims.driver_id, "", claims=claims, checked=False)
    if not defer_check:
        who.confirm(driver_for_claims(claims))
    return who


def granted_scopes(scopes) -> frozenset[str]:
    """What a key's scopes allow: each one named, and a domain's `:write` includes its `:read`
    (who may change a task may read it)."""
    granted = set(scopes)
    granted |= {s.removesuffix(":write") + ":read" for s in scopes if s.endswith(":write")}
    return frozenset(granted)


def scopes_granting(scope: str) -> tuple[str, ...]:
    """The scopes of which any one lets a key call an operation that needs scope."""
    return tuple(s for s in SCOPES if scope in granted_scopes([s]))


def scope_problem(scope: str | None, who: Principal) -> Response:
    """403 for an API key without the scope this operation needs, naming it (RFC 6750's
    insufficient_scope in WWW-Authenticate, `required_scope` in the body)."""
    has = " ".join(sorted(who.scopes)) or "none"
    if scope is None:
        detail = "This operation declares no scope, so API keys may not call it."
        challenge = 'Bearer realm="rijplan", error="insufficient_scope"'
    else:
        detail = f"This operation needs the scope {scope!r}; the API key allows: {has}."
        challenge = f'Bearer realm="rijplan", error="insufficient_scope", scope="{scope}"'
    return problem(
        403,
        "Insufficient scope",
        detail,
        type_="insufficient-scope",
        required_scope=scope,
        headers={"WWW-Authenticate": challenge},
    )


@bp.before_request
def _before():
    if not request.mimetype.startswith("multipart/"):
        request.max_content_length = min(
            JSON_BODY_LIMIT, current_app.config.get("MAX_CONTENT_LENGTH") or JSON_BODY_LIMIT
        )
    op = OPERATION_BY_ENDPOINT.get(request.endpoint or "")
    if op is not None and op.public:
        return None
    try:
        g.principal = authenticate(defer_check=op is not None and op.fast_read)
    except DomainError as error:
        db.session.rollback()
        return problem_from_domain(error)
    # An API key acts with its scopes only, checked here for every operation from its
    # registration; a driver's token is limited by what the driver may do, in the handler.
    who = g.principal
    refused = who.kind == "api_key" and (
        op is None or (op.scope is not None and op.scope not in who.scopes)
    )
    if refused:
        db.session.rollback()
        return scope_problem(op.scope if op else None, who)
    return None


@bp.after_request
def _not_modified(response: Response) -> Response:
    """A GET whose ETag the request's If-None-Match names answers 304, whether or not the
    answer would be compressed (Flask-Compress does it for compressed answers only)."""
    etag, _ = response.get_etag()
    if (
        request.method in ("GET", "HEAD")
        and response.status_code == 200
        and etag
        and "If-None-Match" in request.headers
        and etag_matches(etag)
    ):
        kept = {h: response.headers[h] for h in ("Cache-Control", "Vary") if h in response.headers}
        not_modified = Response(status=304, headers=kept)
        # The ETag as the client holds it ("2:gzip" when the 200 would have been compressed).
        wanted = request.if_none_match
        held = [t for t in wanted.as_set(include_weak=True) if t and etag_value(t) == etag]
        if held:
            not_modified.set_etag(held[0], weak=wanted.is_weak(held[0]))
        else:
            not_modified.headers["ETag"] = response.headers["ETag"]
        return not_modified
    return response


def principal() -> Principal:
    who = g.principal
    if not who.checked:
        who.confirm(driver_for_claims(who.claims))
    return who


def fast_read(first: reads.Query, *queries: reads.Query) -> list[list[tuple]]:
    """reads.read() as the caller's carrier; a driver's token is checked in the same round
    trip, in the same statement as `first`, which returns one row (an aggregate, such as a
    list's fingerprint). The handler of a `fast_read` operation reads this way first."""
    who = g.principal
    if who.checked:
        return reads.read(who.carrier_id, first, *queries)
    check = session_query(who.claims)
    joined, *results = reads.read(who.carrier_id, reads.beside(first, check), *queries)
    first_rows, check_rows = reads.apart(joined, len(first.statement.selected_columns))
    who.confirm(session_for(who.claims, check_rows))
    return [first_rows, *results]


@bp.after_request
def _fast_read_checked(response: Response) -> Response:
    """A `fast_read` handler that answered without checking the driver's token is a bug."""
    who = g.get("principal")
    if who is not None and not who.checked and response.status_code < 400:
        raise RuntimeError(f"{request.endpoint} answered without checking the driver's token")
    return response


def driver_access(user_token: str, *, whole: bool = False) -> Driver | DriverRef:
    """The driver of user_token, when the caller may act for them: a driver for itself only,
    an API key for every driver of its carrier. A driver acting for itself gets the DriverRef
    its token's check read, unless the handler needs the whole row."""
    who = principal()
    if who.kind == "driver":
        if who.user_token == user_token:
            if whole:
                return get_driver(carrier_id=who.carrier_id, driver_id=who.id)
            return DriverRef(who.carrier_id, who.id, who.user_token, who.label)
        # Same carrier but someone else: existence within the carrier is no secret.
        driver = get_driver_by_token(carrier_id=who.carrier_id, user_token=user_token)
        raise Forbidden(
            "A driver may only act on its own user_token.", user_token=driver.user_token
        )
    return get_driver_by_token(carrier_id=who.carrier_id, user_token=user_token)


def integration_of(transporteur_id: uuid.UUID, *, drivers_read: str) -> Principal:
    """The caller of a carrier-wide route (`/transporteurs/{transporteur_id}/...`): its own
    carrier only (another is 404, no existence oracle), and for integrations (a driver is
    told where it reads its own)."""
    who = principal()
    if transporteur_id != who.carrier_id:
        raise NotFound("carrier not found")
    if who.kind != "api_key":
        raise Forbidden(f"This list is for integrations; a driver reads {drivers_read}.")
    return who


def chauffeur_filter(user_token: str | None, what: str) -> uuid.UUID | None:
    """The driver a list is narrowed to: a driver always itself (naming a colleague is 403),
    an API key the driver of `?chauffeur=<user_token>` (unknown: 422) or every driver."""
    who = principal()
    own = who.id if who.kind == "driver" else None
    if user_token is None:
        return own
    driver = find_driver_by_token(carrier_id=who.carrier_id, user_token=user_token)
    if driver is None:
        raise ValidationFailed([{"field": "chauffeur", "message": "no such driver"}])
    if own is not None and driver.id != own:
        raise Forbidden(f"A driver may only read its own {what}.")
    return driver.id


def require_scope(scope: str) -> None:
    who = principal()
    if who.kind != "api_key":
        raise Forbidden("This operation is for integrations (API keys).")
    if scope not in who.scopes:
        raise Forbidden(f"The API key lacks the scope {scope!r}.")


# --- writes: one commit, Idempotency-Key ----------------------------------------------

IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
REPLAYED_HEADERS = ("Location", "ETag", "Content-Type")


def _text_pair(item: tuple) -> tuple[str, str]:
    name, value = item
    return (name or "", value if isinstance(value, str) else "")


def write(fn):
    """A write handler: it changes through services, this commits once. With an
    Idempotency-Key a retry answers the first response instead of acting twice."""

    @wraps(fn)
    def wrapper(*args, **kwargs):
        key = request.headers.get("Idempotency-Key")
        if key is None:
            response = fn(*args, **kwargs)
            _finish(response)
            return response
        if not IDEMPOTENCY_KEY.match(key):
            raise ValidationFailed(
                [{"field": "Idempotency-Key", "message": "1 to 255 visible ASCII characters"}]
            )
        who = principal()
        digest = hashlib.sha256()
        for part in (request.method, request.path, request.query_string.decode(errors="replace")):
            digest.update(part.encode() + b"\0")
        if request.mimetype == "multipart/form-data":
            # The form and each file's bytes identify a multipart request. A part may come
            # without a name (None), which sorts with the empty name.
            for name, value in sorted(request.form.items(multi=True), key=_text_pair):
                digest.update(f"{name}={value}".encode() + b"\0")
            for name, upload in sorted(request.files.items(multi=True), key=_text_pair):
                digest.update(f"{name}".encode() + b"\0" + _stream_digest(upload.stream))
        else:
            digest.update(request.get_data(cache=True))
        outcome = idempotency.claim(
            carrier_id=who.carrier_id, caller=who.caller, key=key, request_hash=digest.hexdigest()
        )
        if isinstance(outcome, idempotency.Replay):
            db.session.rollback()
            response = Response(outcome.body, status=outcome.status, headers=outcome.headers)
            response.headers["Idempotent-Replayed"] = "true"
            return response
        claim = idempotency.Claim.of(outcome)
        db.session.commit()  # the claim is visible now: a concurrent retry gets 409
        try:
            response = fn(*args, **kwargs)
        except Exception:
            db.session.rollback()
            idempotency.release(claim=claim)
            db.session.commit()
            raise
        if response.status_code >= 400:
            if not g.get("keep_changes"):
                db.session.rollback()
            idempotency.release(claim=claim)
            db.session.commit()
            return response
        kept = idempotency.complete(
            claim=claim,
            status=response.status_code,
            body=response.get_data(as_text=True),
            headers={h: response.headers[h] for h in REPLAYED_HEADERS if h in response.headers},
        )
        if not kept:  # too slow: a retry holds the key now and does the write
            db.session.rollback()
            raise Conflict(idempotency.STILL_RUNNING)
        db.session.commit()
        return response

    wrapper.idempotent_write = True  # operation() reads it: the document names the header
    return wrapper


def _stream_digest(stream) -> bytes:
    """The SHA-256 of an uploaded file's bytes; the stream is rewound for the handler."""
    digest = hashlib.sha256()
    for block in iter(lambda: stream.read(1 << 16), b""):
        digest.update(block)
    stream.seek(0)
    return digest.digest()


def _finish(response: Response) -> None:
    if response.status_code < 400 or g.get("keep_changes"):
        db.session.commit()
    else:
        db.session.rollback()


def refused_but_kept(error: DomainError) -> Response:
    """Answer error, yet commit what the request changed before it (e.g. evidence sent along
    with a completion that is refused: the driver should not have to send it again)."""
    g.keep_changes = True
    return problem_from_domain(error)


# --- operation registry for the OpenAPI document ---------------------------------------


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
        bp.add_url_rule(rule, fn.__name__, fn, methods=[method])
        op = Operation(
            path=rule,
            method=method.lower(),
            endpoint=fn.__name__,
            scope=scope,
            unscoped=unscoped,
            idempotent=getattr(fn, "idempotent_write", False),
            **spec,
        )
        if op.method == "get" and "ETag" in op.headers and "If-None-Match" not in op.conditional:
            op.conditional = (*op.conditional, "If-None-Match")  # see _not_modified
        OPERATIONS.append(op)
        OPERATION_BY_ENDPOINT[f"{bp.name}.{fn.__name__}"] = op
        return fn

    return decorate
