"""Helpers of the webhook tests: a receiver on 127.0.0.1 that answers as scripted (fail,
hang, answer 10 MB, redirect, accept), the worker run with a chosen clock, and reads of the
outbox."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson
from factories import in_carrier
from sqlalchemy import select

from portal.extensions import db
from portal.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from portal.webhooks.sender import HttpSender
from portal.webhooks.worker import deliver_due


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def event(self) -> dict:
        return orjson.loads(self.body)


@dataclass
class Receiver:
    """Answers each POST with the next scripted answer (200 when the script is empty):
    a status, ("hang",) to keep the connection open without answering, ("big", n) for a
    200 with n bytes, or ("redirect", location)."""

    port: int = 0
    script: list = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def url(self, path: str = "/hooks") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    @property
    def events(self) -> list[dict]:
        return [r.event for r in self.received]


def serve(receiver: Receiver) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            receiver.received.append(
                Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            answer = receiver.script.pop(0) if receiver.script else 200
            if answer == ("hang",):
                receiver.release.wait(30)  # until the test ends; the sender gives up first
                return
            if isinstance(answer, tuple) and answer[0] == "big":
                self.send_response(200)
                self.send_header("Content-Length", str(answer[1]))
                self.end_headers()
                chunk = b"x" * 65536
                try:
                    for _ in range(answer[1] // len(chunk)):
                        self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                return
            if isinstance(answer, tuple) and answer[0] == "redirect":
                self.send_response(302)
                self.send_header("Location", answer[1])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status, headers = answer if isinstance(answer, tuple) else (answer, {})
            text = b'{"ok": true}' if status < 300 else b"receiver says no"
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver.port = server.server_port
    threading.Thread(target=server.serve_forever, name="webhook-receiver", daemon=True).start()
    return server


def sender(timeout: float = 2.0) -> HttpSender:
    # The test's receiver is on 127.0.0.1 over http: allowed here only.
    return HttpSender(timeout=timeout, connect_timeout=timeout, allow_private=True)


def run_pass(app, send=None, now=None, limit=100) -> dict:
    with app.app_context():
        return dict(deliver_due(sender=send or sender(), now=now, limit=limit))


def register(app, carrier, url: str, types: list[str] | None = None) -> tuple:
    """An endpoint through the service: (endpoint id, secret)."""
    from portal import events
    from portal.audit.service import SYSTEM
    from portal.webhooks import service

    data = service.EndpointIn(url=url, gebeurtenissen=types or list(events.EVENT_TYPES))
    return in_carrier(
        app,
        carrier.id,
        lambda: service.create_endpoint(
            carrier_id=carrier.id, data=data, actor=SYSTEM, allow_private=True
        ),
        lambda pair: (pair[0].id, pair[1]),
    )


def deliveries(app, carrier) -> list[dict]:
    def read():
        return db.session.scalars(
            select(WebhookDelivery)
            .where(WebhookDelivery.transporteur_id == carrier.id)
            .order_by(WebhookDelivery.volgnummer)
        ).all()

    return in_carrier(
        app,
        carrier.id,
        read,
        lambda rows: [
            {
                "id": d.id,
                "type": d.type,
                "status": d.status,
                "pogingen": d.pogingen,
                "volgende_poging_op": d.volgende_poging_op,
                "fout": d.fout,
                "gebeurtenis_id": d.gebeurtenis_id,
            }
            for d in rows
        ],
    )


def attempts(app, carrier, delivery_id) -> list[dict]:
    def read():
        return db.session.scalars(
            select(WebhookAttempt)
            .where(
                WebhookAttempt.transporteur_id == carrier.id,
                WebhookAttempt.levering_id == delivery_id,
            )
            .order_by(WebhookAttempt.at, WebhookAttempt.poging)
        ).all()

    return in_carrier(
        app,
        carrier.id,
        read,
        lambda rows: [
            {
                "poging": a.poging,
                "resultaat": a.resultaat,
                "http_status": a.http_status,
                "duur_ms": a.duur_ms,
                "antwoord": a.antwoord,
                "fout": a.fout,
            }
            for a in rows
        ],
    )


def endpoint_state(app, carrier, endpoint_id) -> dict:
    def read():
        return db.session.scalar(
            select(WebhookEndpoint).where(
                WebhookEndpoint.transporteur_id == carrier.id, WebhookEndpoint.id == endpoint_id
            )
        )

    return in_carrier(
        app,
        carrier.id,
        read,
        lambda e: {
            "actief": e.actief,
            "pauze_reden": e.pauze_reden,
            "fouten_sinds": e.fouten_sinds,
        },
    )
