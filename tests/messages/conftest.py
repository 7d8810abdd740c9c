"""Fixtures of the message tests: a push service on 127.0.0.1, VAPID keys, the channel."""

from __future__ import annotations

import pytest

from messages.support import Device, PushService, serve_push
from portal.messages.push import WebPushChannel, generate_vapid_keys


@pytest.fixture(scope="session")
def vapid() -> tuple[str, str]:
    """(private key, public key)."""
    return generate_vapid_keys()


@pytest.fixture
def push_service():
    service = PushService()
    server = serve_push(service)
    yield service
    server.shutdown()
    server.server_close()


@pytest.fixture
def device() -> Device:
    return Device.new()


@pytest.fixture
def channel(vapid) -> WebPushChannel:
    # The test's push service is on 127.0.0.1 over http: allowed here only.
    return WebPushChannel(
        private_key=vapid[0], subject="mailto:planning@example.nl", timeout=5, allow_private=True
    )
