"""Helpers of the tachograph tests: files stored through the service as a planner would."""

from __future__ import annotations

import io
import uuid

import pytest
from factories import Ref, in_carrier


@pytest.fixture
def store_tacho(app):
    """store_tacho(carrier, data, filename, **links) -> (Ref of the file, nieuw)."""

    def store(carrier: Ref, data: bytes, filename: str = "download.ddd", **links):
        from portal.audit.service import Actor
        from portal.tacho import service

        actor = Actor("user", uuid.uuid4(), "Els Vos")
        return in_carrier(
            app,
            carrier.id,
            lambda: service.upload(
                carrier_id=carrier.id,
                stream=io.BytesIO(data),
                filename=filename,
                actor=actor,
                **links,
            ),
            lambda result: (
                Ref(result.file.id, carrier.id, naam=result.file.bestandsnaam),
                result.nieuw,
            ),
        )

    return store
