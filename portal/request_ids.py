"""A request id per request: the caller's `X-Request-ID` when it is a sane token (a proxy or
client tracing its own id), else a new one; answered in the response's `X-Request-ID` and
carried by every log line (logs.py) and audit entry of the request."""

from __future__ import annotations

import re
import uuid

from flask import Flask, g, has_request_context, request

HEADER = "X-Request-ID"
SANE = re.compile(r"^[A-Za-z0-9._:-]{8,64}$")


def current() -> str | None:
    """The id of the request being served; None outside a request (a CLI job, a worker)."""
    if not has_request_context():
        return None
    return g.get("request_id")


def init_app(app: Flask) -> None:
    @app.before_request
    def _assign():
        given = request.headers.get(HEADER, "")
        g.request_id = given if SANE.match(given) else uuid.uuid4().hex

    @app.after_request
    def _answer(response):
        if "request_id" in g:
            response.headers[HEADER] = g.request_id
        return response
