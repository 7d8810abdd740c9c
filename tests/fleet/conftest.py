"""Helpers of the fleet tests: vehicles with their fields, their sticker payloads, sessions."""

from __future__ import annotations

import uuid

import pytest
from factories import Ref, bearer, in_carrier

API = "/api/v1"


@pytest.fixture
def make_vehicle(app):
    """make_vehicle(carrier, kenteken, **fields) -> Ref of a vehicle made through the service."""

    def make(carrier: Ref, kenteken: str, **fields) -> Ref:
        from portal.fleet import service

        return in_carrier(
            app,
            carrier.id,
            lambda: service.create_vehicle(carrier_id=carrier.id, kenteken=kenteken, **fields),
            lambda v: Ref(v.id, carrier.id, naam=v.kenteken),
        )

    return make


@pytest.fixture
def payload_of(app):
    """payload_of(vehicle) -> the text of the vehicle's current QR sticker."""

    def read(vehicle: Ref) -> str:
        from portal.fleet import service

        return in_carrier(
            app,
            vehicle.carrier_id,
            lambda: service.sticker_payload(
                service.get_vehicle(carrier_id=vehicle.carrier_id, vehicle_id=vehicle.id)
            ),
        )

    return read


@pytest.fixture
def vehicle_row(app):
    """vehicle_row(vehicle) -> a dict of the vehicle's stored fields, with its capabilities
    (`kenmerken`) and whether it has the kooiaap one (`kooiaap`)."""

    def read(vehicle: Ref) -> dict:
        from portal.fleet import service

        def load():
            v = service.get_vehicle(carrier_id=vehicle.carrier_id, vehicle_id=vehicle.id)
            row = {c.name: getattr(v, c.name) for c in v.__table__.columns}
            caps = service.capabilities_of(carrier_id=vehicle.carrier_id, vehicle_ids={v.id})
            row["kenmerken"] = caps[v.id]
            row["kooiaap"] = "kooiaap" in caps[v.id]
            return row

        return in_carrier(app, vehicle.carrier_id, load)

    return read


@pytest.fixture
def session_row(app):
    """session_row(carrier, session_id) -> a dict of the session's stored fields."""

    def read(carrier: Ref, session_id) -> dict:
        from portal.fleet import sessions

        return in_carrier(
            app,
            carrier.id,
            lambda: sessions.get_session(carrier_id=carrier.id, session_id=uuid.UUID(session_id)),
            lambda s: {c.name: getattr(s, c.name) for c in s.__table__.columns},
        )

    return read


class SessionCalls:
    """The vehicle-session calls of the driver app, as one client makes them."""

    def __init__(self, client):
        self.client = client

    def start(self, token: str, vehicle_id=None, **headers):
        body = {"vehicle_id": str(vehicle_id)} if vehicle_id else {}
        return self.client.post(
            f"{API}/vehicle_sessions", json=body, headers={**bearer(token), **headers}
        )

    def validate(self, token: str, session_id, qr: str, **headers):
        return self.client.post(
            f"{API}/vehicle_sessions/{session_id}/validate",
            json={"qr": qr},
            headers={**bearer(token), **headers},
        )

    def end(self, token: str, session_id):
        return self.client.post(f"{API}/vehicle_sessions/{session_id}/end", headers=bearer(token))

    def active(self, token: str, payload: str, vehicle_id=None) -> str:
        """Start and validate a session; its id."""
        started = self.start(token, vehicle_id)
        assert started.status_code == 201, started.get_json()
        session_id = started.get_json()["id"]
        done = self.validate(token, session_id, payload)
        assert done.status_code == 200, done.get_json()
        return session_id


@pytest.fixture
def calls(client) -> SessionCalls:
    return SessionCalls(client)
