"""Sign-in of the driver app: POST /auth/token and POST /auth/revoke."""

from __future__ import annotations

from flask import request

from portal.accounts.credentials import TooManyAttempts
from portal.accounts.schemas import (
    ActivationCodeGrant,
    PasswordGrant,
    RevokeRequest,
    RevokeResponse,
    TokenRequest,
    TokenResponse,
)
from portal.api.core import json_body, json_response, operation, parse_body, problem_from_domain
from portal.drivers import tokens
from portal.unit_of_work import kept, portal_write


def _body() -> object:
    # OAuth clients send a form; the driver app may send JSON. Both are accepted.
    if request.mimetype == "application/x-www-form-urlencoded":
        return request.form.to_dict()
    return json_body()


@operation(
    "/auth/token",
    "POST",
    scope=None,
    summary="Sign a driver in: password, one-time activation code or refresh token",
    tag="auth",
    description="Answers a short-lived access token (JWT, for `Authorization: Bearer`) and a "
    "rotating refresh token. A refresh token used twice within a short grace window answers "
    "again (a lost answer on a bad network); used later, its whole sign-in is revoked. "
    "Failed passwords are limited (429): 5 in 15 minutes per account from one address, 20 "
    "per account from anywhere, 30 per address. Guesses from elsewhere do not lock a driver "
    "out of a phone that is paired (its refresh token goes on working), and an activation "
    "code from the office pairs a phone whatever the password's count.",
    body=TokenRequest,
    form=True,
    response=TokenResponse,
    headers={"Cache-Control": "no-store"},
    errors=(400, 415, 422, 429),
    public=True,
)
@portal_write
def token():
    grant = parse_body(TokenRequest, _body(), tagged_union=True)
    ip = request.remote_addr
    try:
        if isinstance(grant, PasswordGrant):
            pair = tokens.password_grant(username=grant.username, password=grant.password, ip=ip)
        elif isinstance(grant, ActivationCodeGrant):
            pair = tokens.activation_grant(code=grant.code, ip=ip)
        else:
            pair = tokens.refresh_grant(refresh_token=grant.refresh_token)
    except (tokens.InvalidGrant, TooManyAttempts) as error:
        # The failure count (and a revoked token family) must outlive the refusal.
        return kept(problem_from_domain(error))
    body = TokenResponse(
        access_token=pair.access_token,
        expires_in=pair.expires_in,
        refresh_token=pair.refresh_token,
        user_token=pair.user_token,
    )
    return json_response(body.model_dump(), headers={"Cache-Control": "no-store"})


@operation(
    "/auth/revoke",
    "POST",
    scope=None,
    summary="Revoke a refresh token (sign the phone out)",
    tag="auth",
    description="RFC 7009: answers 200 whether or not the token was known.",
    body=RevokeRequest,
    form=True,
    response=RevokeResponse,
    errors=(415, 422),
    public=True,
)
@portal_write
def revoke():
    body = parse_body(RevokeRequest, _body())
    tokens.revoke(token=body.token)
    return json_response(RevokeResponse(revoked=True).model_dump())
