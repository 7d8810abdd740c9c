"""Helpers of the message tests: a Web Push service on 127.0.0.1, a driver's device with
real keys, and shortcuts to the messages service."""

from __future__ import annotations

import base64
import os
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import orjson
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from factories import Ref, in_carrier
from py_vapid import Vapid02

from portal.audit.service import SYSTEM
from portal.extensions import db
from portal.messages import failures, outbox, service
from portal.messages.push import b64url


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """A push service that answers each POST with the next scripted status (201 when the
    script is empty) and keeps what it received."""

    port: int = 0
    script: list = field(default_factory=list)
    received: list[Received] = field(default_factory=list)

    def endpoint(self, name: str = "abc") -> str:
        return f"http://127.0.0.1:{self.port}/push/{name}"

    def next_answer(self) -> tuple[int, dict[str, str]]:
        if not self.script:
            return 201, {}
        answer = self.script.pop(0)
        return answer if isinstance(answer, tuple) else (answer, {})


def serve_push(service_: PushService) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            service_.received.append(
                Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            status, headers = service_.next_answer()
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    service_.port = server.server_port
    threading.Thread(target=server.serve_forever, name="push-service", daemon=True).start()
    return server


@dataclass
class Device:
    """A phone's browser: its push subscription keys, and decryption of what it receives."""

    private_key: ec.EllipticCurvePrivateKey
    auth_secret: bytes

    @classmethod
    def new(cls) -> Device:
        return cls(ec.generate_private_key(ec.SECP256R1()), os.urandom(16))

    @property
    def p256dh(self) -> str:
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    @property
    def auth(self) -> str:
        return b64url(self.auth_secret)

    def subscription(self, endpoint: str) -> dict:
        return {"endpoint": endpoint, "expirationTime": None, "keys": self.keys()}

    def keys(self) -> dict:
        return {"p256dh": self.p256dh, "auth": self.auth}

    def decrypt(self, body: bytes) -> dict:
        plain = http_ece.decrypt(
            body, private_key=self.private_key, auth_secret=self.auth_secret, version="aes128gcm"
        )
        return orjson.loads(plain)


def vapid_is_valid(authorization: str, public_key: str) -> bool:
    """Whether an Authorization header is a valid VAPID (RFC 8292) token of public_key."""
    scheme, _, params = authorization.partition(" ")
    parts = dict(p.split("=", 1) for p in params.split(","))
    return scheme == "vapid" and parts.get("k") == public_key and Vapid02.verify(authorization)


def jwt_claims(authorization: str) -> dict:
    token = authorization.split("t=", 1)[1].split(",", 1)[0]
    payload = token.split(".")[1]
    return orjson.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def subscribe(app, carrier: Ref, driver: Ref, endpoint: str, device: Device) -> None:
    in_carrier(
        app,
        carrier.id,
        lambda: service.subscribe(
            carrier_id=carrier.id,
            driver_id=driver.id,
            endpoint=endpoint,
            p256dh=device.p256dh,
            auth=device.auth,
        ),
    )


def send(app, carrier: Ref, drivers: list[Ref], titel="Omleiding", tekst="Via de N279.", now=None):
    """Queue a message to drivers; answers the ids of its rows, in the drivers' order."""
    rows = in_carrier(
        app,
        carrier.id,
        lambda: service.send_message(
            carrier_id=carrier.id,
            driver_ids=[d.id for d in drivers],
            titel=titel,
            tekst=tekst,
            actor=SYSTEM,
            now=now,
        ),
        lambda rows: {r.chauffeur_id: r.id for r in rows},
    )
    return [rows[d.id] for d in drivers]


def state(app, carrier: Ref, message_id) -> dict:
    """A message's columns as plain values."""

    def read():
        message = service.get_message(carrier_id=carrier.id, message_id=message_id)
        row = {col.key: getattr(message, col.key) for col in message.__table__.columns}
        # The failure as the API words it (stored as a code with parameters).
        fout = row["fout"]
        return {**row, "fout": failures.english(fout), "fout_code": failures.code_of(fout)}

    return in_carrier(app, carrier.id, read)


def attempts(app, carrier: Ref, message_id) -> list[tuple]:
    """(poging, resultaat, http_status, fout in English) of each attempt, in order."""
    return in_carrier(
        app,
        carrier.id,
        lambda: [
            (a.poging, a.resultaat, a.http_status, failures.english(a.fout))
            for a in outbox.attempts(carrier_id=carrier.id, message_id=message_id)
        ],
    )


def subscription_count(app, carrier: Ref) -> int:
    from sqlalchemy import func, select

    from portal.messages.models import PushSubscription

    return in_carrier(
        app,
        carrier.id,
        lambda: db.session.scalar(
            select(func.count())
            .select_from(PushSubscription)
            .where(PushSubscription.transporteur_id == carrier.id)
        ),
    )
