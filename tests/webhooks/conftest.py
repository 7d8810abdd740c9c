"""Fixtures of the webhook tests: a receiver on 127.0.0.1."""

from __future__ import annotations

import pytest

from webhooks.support import Receiver, serve


@pytest.fixture
def receiver():
    found = Receiver()
    server = serve(found)
    yield found
    found.release.set()
    server.shutdown()
    server.server_close()
