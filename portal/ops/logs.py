"""Structured logs: with `LOG_FORMAT=json` (the production default in gunicorn.conf.py) every
line is one JSON object with the time, level, logger, message and the request id; plain text
otherwise, as a developer reads it. The request id is on every record either way."""

from __future__ import annotations

import logging

from flask import Flask

from portal import request_ids

FIELDS = "%(levelname)s %(name)s %(message)s %(request_id)s"


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on the record (`-` outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", None):
            record.request_id = request_ids.current() or "-"
        return True


def json_formatter() -> logging.Formatter:
    from pythonjsonlogger.json import JsonFormatter

    return JsonFormatter(
        FIELDS,
        rename_fields={"levelname": "level", "name": "logger"},
        timestamp="time",  # ISO 8601 in UTC
    )


def configure(fmt: str, level: str = "INFO") -> None:
    """The root logger's one handler (stderr), in JSON or text, with request ids."""
    handler = logging.StreamHandler()
    handler.addFilter(RequestIdFilter())
    if fmt == "json":
        handler.setFormatter(json_formatter())
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s")
        )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def init_app(app: Flask) -> None:
    """RIJPLAN_LOG_FORMAT (json or text) sets up the root logger; without it, logging stays
    as whoever runs the app configured it (pytest, flask run)."""
    fmt = app.config.get("LOG_FORMAT")
    if fmt:
        configure(fmt, app.config.get("LOG_LEVEL") or "INFO")
