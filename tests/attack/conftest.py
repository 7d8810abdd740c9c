"""Drills against a running instance: the app served over loopback by a threaded server,
on PostgreSQL as the app role (no superuser, no owner), as a deployment runs it. Each drill
is bounded in count and time and prints what it tried and what got through."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import pytest
from conftest import PG_AVAILABLE, backend_config
from werkzeug.serving import make_server

from attack.support import Live
from portal import create_app
from portal.extensions import db


@pytest.fixture
def live(request, tmp_path) -> Iterator[Live]:
    if not PG_AVAILABLE:
        pytest.skip("PostgreSQL does not answer")
    app = create_app(backend_config("postgresql", request, tmp_path))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request
    server = make_server("127.0.0.1", 0, app, threaded=True)  # listening when it returns
    thread = threading.Thread(target=server.serve_forever, name="drill-server", daemon=True)
    thread.start()
    try:
        yield Live(app, "127.0.0.1", server.server_port)
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
        with app.app_context():
            db.engine.dispose()
