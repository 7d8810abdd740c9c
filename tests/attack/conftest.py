"""Drills against a running instance: the app served over loopback by a threaded server,
on PostgreSQL as the app role (no superuser, no owner), as a deployment runs it. Each drill
is bounded in count and time and prints what it tried and what got through."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from conftest import PG_AVAILABLE, backend_config
from factories import served

from attack.support import Live
from portal import create_app
from portal.extensions import db


@pytest.fixture
def live(request, tmp_path) -> Iterator[Live]:
    if not PG_AVAILABLE:
        pytest.skip("PostgreSQL does not answer")
    app = create_app(backend_config("postgresql", request, tmp_path))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request
    try:
        with served(app, "drill-server") as port:
            yield Live(app, "127.0.0.1", port)
    finally:
        with app.app_context():
            db.engine.dispose()
