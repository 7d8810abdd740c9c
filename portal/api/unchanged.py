"""The unchanged poll, answered before Flask.

A driver's phone asks for its list (and its questionnaires) all day with If-None-Match,
and nearly always nothing has changed. Flask's request machinery (request context, URL
matching, before/after hooks, response building) costs more than deciding that answer, so
this WSGI layer decides it first: for a plain `GET /api/v1/users/<user_token>/taken` or
`GET /api/v1/activity_questionnaires` (no query) with If-None-Match and a driver's access
token, it reads the token's check and the list's fingerprint in one round trip, as the
handlers do, and answers 304 when the ETag is the one the phone holds.

It decides nothing else. Whatever it does not recognise or cannot confirm (another path,
a query, an API key, a token that does not check out, another driver's user_token, a
changed list, an error) goes to Flask untouched, which answers it as always, so the rules
live in one place: the handlers'. The 304 carries the same headers as Flask's (a test
compares them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from flask import Flask
from werkzeug.http import parse_etags

from portal import reads
from portal.accounts.tokens import AccessClaims, decode_access_token, session_for, session_query
from portal.api.core import bearer_token, etags_name
from portal.extensions import db
from portal.tenancy import activate

_DRIVER_LIST = re.compile(r"/api/v1/users/([A-Za-z0-9_-]{1,64})/taken")
_QUESTIONNAIRES = "/api/v1/activity_questionnaires"


class UnchangedPolls:
    """WSGI middleware: 304 for an unchanged poll without asking Flask."""

    def __init__(self, app: Flask, wsgi_app: Callable) -> None:
        self.app = app
        self.wsgi_app = wsgi_app

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if (
            environ.get("HTTP_IF_NONE_MATCH")
            and environ.get("REQUEST_METHOD") in ("GET", "HEAD")
            and not environ.get("QUERY_STRING")
            and (self.app.config.get("UNCHANGED_POLLS_BEFORE_FLASK", True))
        ):
            headers = self._unchanged(environ)
            if headers is not None:
                start_response("304 NOT MODIFIED", headers)
                return []
        return self.wsgi_app(environ, start_response)

    def _unchanged(self, environ: dict) -> list[tuple[str, str]] | None:
        path = environ.get("PATH_INFO", "")
        driver_list = _DRIVER_LIST.fullmatch(path)
        if driver_list is None and path != _QUESTIONNAIRES:
            return None
        token = bearer_token(environ.get("HTTP_AUTHORIZATION", ""))
        if token is None or token.startswith("rpk_"):
            return None
        with self.app.app_context():
            claims = decode_access_token(token)
            if claims is None:
                return None
            activate(db.session, claims.carrier_id)  # the time zone, if not kept, is read
            try:
                listing = _listing(claims, driver_list is not None)
                (joined,) = reads.read(
                    claims.carrier_id, reads.beside(listing.fingerprint, session_query(claims))
                )
            except Exception:  # Flask answers it, and reports what went wrong
                return None
            width = len(listing.fingerprint.statement.selected_columns)
            fingerprint, check = reads.apart(joined, width)
            session = session_for(claims, check)
            if session is None:
                return None
            if driver_list is not None and driver_list.group(1) != session.user_token:
                return None
            etag, _ = listing.etag(fingerprint)
            if not etags_name(parse_etags(environ["HTTP_IF_NONE_MATCH"]), etag):
                return None
            return [
                ("ETag", f'"{etag}"'),
                ("Cache-Control", "private, no-cache"),
                ("Vary", "Accept-Encoding"),
                *self.app.extensions["security_headers"].items(),
            ]


def _listing(claims: AccessClaims, driver_list: bool):
    # The handlers' own selections, with the query's defaults (there is no query here).
    from portal.api.questionnaires import active_listing
    from portal.api.tasks import driver_listing
    from portal.questionnaires.schemas import ActivityQuestionnaireQuery
    from portal.tasks.schemas import DriverTaskQuery

    if driver_list:
        return driver_listing(
            carrier_id=claims.carrier_id, driver_id=claims.driver_id, query=DriverTaskQuery()
        )
    return active_listing(carrier_id=claims.carrier_id, query=ActivityQuestionnaireQuery())
