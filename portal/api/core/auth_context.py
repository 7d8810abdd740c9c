"""Who is asking: a driver's access token or an integration's API key, its scopes, and
what it may act on."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from flask import Response, g, request

from portal import reads
from portal.accounts.models import SCOPES
from portal.accounts.service import authenticate_api_key
from portal.audit.service import Actor
from portal.drivers.models import Driver
from portal.drivers.service import find_by_token as find_driver_by_token
from portal.drivers.service import get_driver, get_driver_by_token
from portal.drivers.tokens import (
    AccessClaims,
    DriverSession,
    decode_access_token,
    driver_for_claims,
    session_for,
    session_query,
)
from portal.errors import Forbidden, NotFound, Unauthorized, ValidationFailed, problem
from portal.extensions import db
from portal.tenancy import activate


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


def principal() -> Principal:
    who = g.principal
    if not who.checked:
        who.confirm(driver_for_claims(who.claims))
    return who


def fast_read(first: reads.Query, *queries: reads.Query) -> list[list[tuple]]:
    """reads.read() as the caller's carrier; a driver's token is checked in the same round
    trip, in the same statement as `first`, which returns one row (an aggregate, such as a
    list's fingerprint). The handler of a `fast_read` operation reads this way first.

    Only for lists that tolerate a little lag: a streaming replica may answer (replica.py),
    once it has replayed the carrier's latest change."""
    who = g.principal
    if who.checked:
        return reads.read(who.carrier_id, first, *queries, lag_ok=True)
    check = session_query(who.claims)
    joined, *results = reads.read(who.carrier_id, reads.beside(first, check), *queries, lag_ok=True)
    first_rows, check_rows = reads.apart(joined, len(first.statement.selected_columns))
    who.confirm(session_for(who.claims, check_rows))
    return [first_rows, *results]


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
