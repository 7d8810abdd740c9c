"""Webhook drills: what an integration, or whoever holds its key, tries against webhooks.

- The secret replayed: a registration and a new secret, each asked again with its
  Idempotency-Key (also after the endpoint is deleted), on a live instance on PostgreSQL as
  the app role; no answer shows a secret twice, and no idempotency record keeps one.
- URL forms: addresses that name the server's own network in forms a check can miss (short,
  octal and hex IPv4, Unicode digits, a trailing dot, IPv6 that carries IPv4, site-local
  IPv6), registered through the API and posted to by the sender: each refused, nothing sent.
- DNS rebinding: a name that answers a public address when asked first and 127.0.0.1 after
  (a test resolver in place of the system's: no real DNS); the network reaches only loopback.
  The sender asks once, connects to the address it checked (which refuses), and nothing
  reaches the listener on 127.0.0.1; the attempt says the connection was refused, naming no
  address or port.

Each prints what it tried, what was refused, and what leaked (0)."""

from __future__ import annotations

import ipaddress
import socket
import threading
import uuid

import pytest
from factories import bearer, create_api_key, create_carrier, in_carrier
from sqlalchemy import select

from attack.support import Live
from portal.extensions import db
from portal.idempotency.models import IdempotencyRecord
from portal.webhooks import failures
from portal.webhooks.sender import HttpSender

API = "/api/v1/webhooks"
PUBLIC = "93.184.216.34"  # what the rebinding name answers first (never reached here)

# Each names 127.0.0.1, 169.254.169.254 (cloud metadata) or another inward address.
URL_FORMS = {
    "short IPv4 127.1": "https://127.1/in",
    "octal IPv4 0177.0.0.1": "https://0177.0.0.1/in",
    "hex IPv4 0x7f.0.0.1": "https://0x7f.0.0.1/in",
    "octal metadata 0251.0376.0251.0376": "https://0251.0376.0251.0376/latest",
    "one number 2130706433": "https://2130706433/in",
    "mixed 127.0.0.0x1": "https://127.0.0.0x1/in",
    "fullwidth digits (127.0.0.1)": "https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/in",
    "Arabic-Indic digits (127.0.0.1)": "https://\u0661\u0662\u0667.\u0660.\u0660.\u0661/in",
    "trailing dot localhost.": "https://localhost./in",
    "trailing dot on a private name": "https://metadata.internal./in",
    "trailing dot on a public name": "https://hooks.vervoer.nl./in",
    "NAT64 64:ff9b::7f00:1": "https://[64:ff9b::7f00:1]/in",
    "NAT64 of metadata": "https://[64:ff9b::a9fe:a9fe]/latest",
    "local-use NAT64 64:ff9b:1::": "https://[64:ff9b:1::7f00:1]/in",
    "6to4 2002:7f00:1::": "https://[2002:7f00:1::]/in",
    "6to4 of 10.0.0.1": "https://[2002:a00:1::1]/in",
    "IPv4-compatible ::127.0.0.1": "https://[::127.0.0.1]/in",
    "IPv4-translated ::ffff:0:127.0.0.1": "https://[::ffff:0:127.0.0.1]/in",
    "IPv4-mapped ::ffff:127.0.0.1": "https://[::ffff:127.0.0.1]/in",
    "site-local fec0::1": "https://[fec0::1]/in",
    "Teredo 2001:0::": "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/in",
    "link-local with a zone": "https://[fe80::1%25eth0]/in",
    "loopback ::1": "https://[::1]/in",
}


# --- the secret replayed ----------------------------------------------------------------------


def test_a_replayed_request_never_shows_the_secret_again(live: Live):
    carrier = create_carrier(live.app, "Drill Webhooks")
    key = bearer(create_api_key(live.app, carrier).key)
    body = {"url": "https://tms.vervoer.nl/in", "gebeurtenissen": ["taak.afgerond"]}
    shown: list[str] = []
    tried = refused = leaked = 0

    def replay(method: str, path: str, idem: str, sent=None) -> None:
        nonlocal tried, refused, leaked
        answer = live.call(method, path, sent, {**key, "Idempotency-Key": idem})
        tried += 1
        assert answer.status < 300 and answer.headers.get("Idempotent-Replayed") == "true"
        text = answer.body.decode()
        if any(secret in text for secret in shown) or "whsec_" in text:
            leaked += 1
        elif answer.json()["geheim"] is None and answer.json()["geheim_vernieuwen"]:
            refused += 1

    made = live.call("POST", API, body, {**key, "Idempotency-Key": "drill-register"})
    assert made.status == 201
    endpoint = made.json()
    shown.append(endpoint["geheim"])
    for _ in range(5):
        replay("POST", API, "drill-register", body)
    renew = endpoint["geheim_vernieuwen"]
    rotated = live.call("POST", renew, None, {**key, "Idempotency-Key": "drill-rotate"})
    shown.append(rotated.json()["geheim"])
    for _ in range(5):
        replay("POST", renew, "drill-rotate")
    assert live.call("DELETE", f"{API}/{endpoint['id']}", None, key).status == 204
    for _ in range(5):
        replay("POST", API, "drill-register", body)
        replay("POST", renew, "drill-rotate")

    stored = in_carrier(
        live.app,
        carrier.id,
        lambda: list(db.session.scalars(select(IdempotencyRecord.response_body))),
    )
    in_records = sum(
        1 for answer in stored if "whsec_" in answer or any(s in answer for s in shown)
    )
    print(
        f"\nwebhook secret replayed: {tried} tried (registration and new secret, before and "
        f"after deleting), {refused} refused (answered without the secret), leaked {leaked}; "
        f"idempotency records holding a secret: {in_records} of {len(stored)}"
    )
    assert leaked == 0 and refused == tried and in_records == 0


# --- URL forms --------------------------------------------------------------------------------


def literal_resolver(host: str, port: int) -> list[str]:
    """No DNS: an address answers itself; a name answers the address it looks like, as a
    lenient resolver does (so a form the check let through would reach inward)."""
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        return ["127.0.0.1"]


def test_every_inward_url_form_is_refused_at_registration_and_when_sending(live: Live):
    carrier = create_carrier(live.app, "Drill URL forms")
    key = bearer(create_api_key(live.app, carrier).key)
    sender = HttpSender(timeout=1, resolver=literal_resolver)
    outcomes: dict[str, str] = {}
    leaked = 0
    for name, url in URL_FORMS.items():
        answer = live.call("POST", API, {"url": url, "gebeurtenissen": ["taak.afgerond"]}, key)
        code = None
        if answer.status == 422:
            code = answer.json()["errors"][0]["code"]
        sent = sender.send(url, b"{}", {})
        refused_sending = failures.read(sent.fout) if sent.outcome == "failed" else None
        if code is None or refused_sending is None or refused_sending[0] != "url_refused":
            leaked += 1
        outcomes[name] = f"registration {answer.status} {code}; sending {sent.outcome} {sent.fout}"
    print(
        f"\nwebhook URL forms: {len(URL_FORMS)} tried at registration and at sending, "
        f"{len(URL_FORMS) - leaked} refused at both, leaked {leaked}"
    )
    for name, result in outcomes.items():
        print(f"  {name}: {result}")
    assert leaked == 0


# --- DNS rebinding ----------------------------------------------------------------------------


class Listener:
    """A TCP listener on 127.0.0.1 that counts the connections it accepts (what an inward
    service would see)."""

    def __init__(self) -> None:
        self.accepted = 0
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.accepted += 1
            connection.close()

    def close(self) -> None:
        self.socket.close()


@pytest.fixture
def rebinding(monkeypatch):
    """The system's resolver replaced: the drill's name answers PUBLIC the first time it is
    asked and 127.0.0.1 every time after; numbers answer themselves; other names do not
    resolve. And a network that reaches loopback only: a connection elsewhere is refused
    (and recorded)."""
    import urllib3.util.connection

    real_getaddrinfo = socket.getaddrinfo
    real_connect = urllib3.util.connection.create_connection
    state = {"asked": 0, "dialled": []}
    name = f"hooks-{uuid.uuid4().hex[:6]}.rebind-drill.nl"

    def getaddrinfo(host, port, *args, **kwargs):
        if host == name:
            state["asked"] += 1
            address = PUBLIC if state["asked"] == 1 else "127.0.0.1"
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]
        try:
            ipaddress.ip_address(str(host).split("%")[0])
        except ValueError:
            raise socket.gaierror(socket.EAI_NONAME, "no real DNS in this drill") from None
        return real_getaddrinfo(host, port, *args, **kwargs)

    def create_connection(address, *args, **kwargs):
        host = address[0]
        state["dialled"].append(host)
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:  # a name: what the library resolves itself
            loopback = getaddrinfo(host, address[1])[0][4][0] == "127.0.0.1"
        if not loopback:
            raise ConnectionRefusedError(111, "Connection refused")
        return real_connect(address, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(urllib3.util.connection, "create_connection", create_connection)
    state["name"] = name
    return state


def test_a_name_that_rebinds_to_loopback_reaches_nothing(rebinding):
    listener = Listener()
    try:
        answers = []
        rounds = 5
        for _ in range(rounds):
            rebinding["asked"] = 0  # each send meets a fresh rebinding: public first
            url = f"https://{rebinding['name']}:{listener.port}/in"
            answers.append((HttpSender(timeout=2).send(url, b"{}", {}), rebinding["asked"]))
        # and one that answers 127.0.0.1 from the start is refused before any connection
        rebinding["asked"] = 1
        at_once = HttpSender(timeout=2).send(
            f"https://{rebinding['name']}:{listener.port}/in", b"{}", {}
        )
    finally:
        listener.close()
    asked_once = sum(1 for _, asked in answers if asked == 1)
    told_refused = sum(1 for answer, _ in answers if answer.fout == '{"code":"connection_refused"}')
    refused = told_refused + (at_once.outcome == "failed")
    print(
        f"\nDNS rebinding: {rounds + 1} tried (sends to a name that rebinds to 127.0.0.1), "
        f"{refused} refused, leaked {listener.accepted} (connections to 127.0.0.1); the name "
        f"asked once per send in {asked_once} of {rounds}; dialled "
        f"{sorted(set(rebinding['dialled']))}"
    )
    print(f"  each attempt told: {failures.english(answers[0][0].fout)!r}")
    assert listener.accepted == 0
    assert asked_once == rounds and set(rebinding["dialled"]) == {PUBLIC}
    assert told_refused == rounds
    assert failures.read(at_once.fout) == ("url_refused", {"reason": "private_host"})
    assert str(listener.port) not in answers[0][0].fout and PUBLIC not in answers[0][0].fout
