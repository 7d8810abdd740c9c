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

What the database confirmed is kept (`CONFIRMED`): the next poll with the same token, path
and ETag is answered without asking again, until PostgreSQL's change feed (or a commit of
this process) says the carrier's rows changed, the token expires, the carrier's day ends
(the list's ETag names the day) or a minute has passed, whichever comes first. Kept only
while the feed is live; a worker that has lost it asks the database every time. Between
another worker's commit and its notice reaching this one (a millisecond or so on one
machine) a poll may still get the 304 it would have got just before that commit.
"""

from __future__ import annotations

import re
import threading
import time as _time
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime, time, timedelta

from flask import Flask
from werkzeug.http import parse_etags

from portal import change_feed, counters, reads, request_ids
from portal.accounts.service import carrier_zone
from portal.api.core import bearer_token, etags_name
from portal.drivers.tokens import AccessClaims, decode_access_token, session_for, session_query
from portal.extensions import db
from portal.tenancy import activate

_DRIVER_LIST = re.compile(r"/api/v1/users/([A-Za-z0-9_-]{1,64})/taken")
_QUESTIONNAIRES = "/api/v1/activity_questionnaires"
# The routes' templates, as Flask's request metrics name them (portal/ops/metrics.py).
_ROUTES = {"list": "/api/v1/users/<user_token:user_token>/taken", "q": _QUESTIONNAIRES}
KEEP_AT_MOST = 60.0  # seconds a confirmed answer is kept, however quiet the feed


class Confirmed:
    """Unchanged answers the database confirmed, by (access token, path): the ETag, the
    carrier, and until when. Forgotten per carrier on the change feed's word; a read that
    was under way when its carrier changed does not store what it read (generations)."""

    def __init__(self, max_entries: int = 100_000) -> None:
        self.max_entries = max_entries
        self._entries: dict[tuple[str, str], tuple[str, uuid.UUID, float]] = {}
        self._by_carrier: dict[uuid.UUID, set[tuple[str, str]]] = {}
        self._generations: dict[uuid.UUID | None, int] = {}
        self._lock = threading.Lock()

    def etag(self, token: str, path: str) -> str | None:
        kept = self._entries.get((token, path))
        if kept is None or _time.time() >= kept[2]:
            return None
        return kept[0]

    def generation(self, carrier_id: uuid.UUID) -> tuple[int, int]:
        return self._generations.get(None, 0), self._generations.get(carrier_id, 0)

    def put(
        self,
        token: str,
        path: str,
        etag: str,
        carrier_id: uuid.UUID,
        until: float,
        generation: tuple[int, int],
    ) -> None:
        with self._lock:
            if self.generation(carrier_id) != generation:
                return  # the carrier changed while it was read
            if len(self._entries) >= self.max_entries:
                self._entries.clear()
                self._by_carrier.clear()
            self._entries[(token, path)] = (etag, carrier_id, until)
            self._by_carrier.setdefault(carrier_id, set()).add((token, path))

    def forget(self, carrier_id: uuid.UUID | None) -> None:
        """What was confirmed of carrier_id (None: of every carrier)."""
        with self._lock:
            self._generations[carrier_id] = self._generations.get(carrier_id, 0) + 1
            if carrier_id is None:
                self._entries.clear()
                self._by_carrier.clear()
                return
            for key in self._by_carrier.pop(carrier_id, ()):
                self._entries.pop(key, None)

    def clear(self) -> None:
        self.forget(None)

    def __len__(self) -> int:
        return len(self._entries)


CONFIRMED = Confirmed()
change_feed.subscribe(CONFIRMED.forget)


class UnchangedPolls:
    """WSGI middleware: 304 for an unchanged poll without asking Flask."""

    def __init__(self, app: Flask, wsgi_app: Callable) -> None:
        self.app = app
        self.wsgi_app = wsgi_app
        self._conninfo: str | None = None
        self._conninfo_known = False

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if (
            environ.get("HTTP_IF_NONE_MATCH")
            and environ.get("REQUEST_METHOD") in ("GET", "HEAD")
            and not environ.get("QUERY_STRING")
            and (self.app.config.get("UNCHANGED_POLLS_BEFORE_FLASK", True))
        ):
            started = _time.perf_counter()
            headers = self._kept(environ) or self._unchanged(environ)
            if headers is not None:
                route = _ROUTES["list" if _DRIVER_LIST.fullmatch(environ["PATH_INFO"]) else "q"]
                counters.served(
                    environ["REQUEST_METHOD"], route, 304, _time.perf_counter() - started
                )
                # The request id, as Flask would answer it (portal/ops/request_ids.py).
                given = environ.get("HTTP_X_REQUEST_ID", "")
                request_id = given if request_ids.SANE.match(given) else uuid.uuid4().hex
                start_response("304 NOT MODIFIED", [*headers, (request_ids.HEADER, request_id)])
                return []
        return self.wsgi_app(environ, start_response)

    def _headers(self, etag: str) -> list[tuple[str, str]]:
        return [
            ("ETag", f'"{etag}"'),
            ("Cache-Control", "private, no-cache"),
            ("Vary", "Accept-Encoding"),
            *self.app.extensions["security_headers"].items(),
        ]

    def _kept(self, environ: dict) -> list[tuple[str, str]] | None:
        """The 304 the database confirmed for this token and path, if still kept."""
        token = bearer_token(environ.get("HTTP_AUTHORIZATION", ""))
        if token is None:
            return None
        etag = CONFIRMED.etag(token, environ.get("PATH_INFO", ""))
        if etag is None or not etags_name(parse_etags(environ["HTTP_IF_NONE_MATCH"]), etag):
            return None
        return self._headers(etag)

    def _live_feed(self) -> bool:
        """Whether what the database confirms may be kept: only while this process hears
        of changes (PostgreSQL's change feed, started on first use)."""
        if not self._conninfo_known:
            self._conninfo, self._conninfo_known = _feed_conninfo(self.app), True
        return self._conninfo is not None and change_feed.feed_for(self._conninfo).live

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
            keep = self._live_feed()
            generation = CONFIRMED.generation(claims.carrier_id)
            try:
                listing = _listing(claims, driver_list is not None)
                (joined,) = reads.read(
                    claims.carrier_id,
                    reads.beside(listing.fingerprint, session_query(claims)),
                    lag_ok=True,
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
            if keep:
                until = min(claims.expires_at, _next_midnight(claims.carrier_id))
                until = min(until, _time.time() + KEEP_AT_MOST)
                CONFIRMED.put(token, path, etag, claims.carrier_id, until, generation)
            return self._headers(etag)


def _feed_conninfo(app: Flask) -> str | None:
    return change_feed.app_conninfo(app)


def _next_midnight(carrier_id: uuid.UUID) -> float:
    zone = carrier_zone(carrier_id)
    tomorrow = datetime.now(zone).date() + timedelta(days=1)
    return datetime.combine(tomorrow, time(), zone).timestamp()


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
