"""Where the server may post: one check of the URL at registration and at sending (odd IPv4
forms, Unicode digits, a trailing dot, IPv6 that carries IPv4, site-local IPv6), the name
resolved once and the connection made to the address that was checked, with TLS verified
against the name; a refused connection told as such, naming no address or port."""

from __future__ import annotations

import datetime
import html
import re
import socket
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from factories import create_user, csrf_from, login

from portal.outbound import url_refusal
from portal.webhooks import failures
from portal.webhooks.sender import HttpSender


@pytest.mark.parametrize(
    "url, code",
    [
        ("https://127.1/in", "bad_host"),
        ("https://0177.0.0.1/in", "bad_host"),
        ("https://0x7f.0.0.1/in", "bad_host"),
        ("https://0251.0376.0251.0376/latest", "bad_host"),
        ("https://2130706433/in", "bad_host"),
        ("https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/in", "bad_host"),
        ("https://hooks.vervoer.nl./in", "bad_host"),
        ("https://localhost./in", "bad_host"),
        ("https://[64:ff9b::7f00:1]/in", "private_host"),
        ("https://[2002:7f00:1::]/in", "private_host"),
        ("https://[::127.0.0.1]/in", "private_host"),
        ("https://[::ffff:0:127.0.0.1]/in", "private_host"),
        ("https://[fec0::1]/in", "private_host"),
        ("https://[64:ff9b::808:808]/in", None),  # NAT64 of a public address
        ("https://[2606:4700:4700::1111]/in", None),
        ("https://8.8.8.8/in", None),
        ("https://xn--bcher-kva.de/in", None),
        ("https://tms.vervoer.nl/in", None),
    ],
)
def test_one_check_of_the_url(url, code):
    assert url_refusal(url) == code
    answer = HttpSender(resolver=lambda host, port: ["203.0.113.9"]).send(url, b"{}", {})
    # Sending checks the same; a URL that passes is refused here only for what its name
    # resolved to (a documentation address, not public): no connection is made either way.
    assert failures.read(answer.fout) == ("url_refused", {"reason": code or "private_host"})


def test_the_portal_words_an_odd_address_at_the_field(app, client, carrier):
    login(client, create_user(app, carrier, "admin", email="els@example.nl"))
    token = csrf_from(client.get("/beheer/webhooks/nieuw").get_data(as_text=True))
    answer = client.post(
        "/beheer/webhooks/nieuw",
        data={"url": "https://0x7f.0.0.1/in", "gebeurtenissen": ["taak.afgerond"]}
        | {"csrf_token": token},
    )
    assert answer.status_code == 422
    page = html.unescape(re.sub(r"\s+", " ", answer.get_data(as_text=True)))
    assert "de server in het adres is geen gewone naam of adres" in page


@pytest.fixture
def tls_receiver(tmp_path):
    """An https receiver on 127.0.0.1 whose certificate names hooks.vervoer.nl; it records
    the Host header and the name the client asked for (SNI)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hooks.vervoer.nl")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("hooks.vervoer.nl")]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    seen: dict[str, list] = {"host": [], "sni": []}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            seen["host"].append(self.headers["Host"])
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    context.sni_callback = lambda sock, server_name, ctx: seen["sni"].append(server_name)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_port, str(cert_path), seen
    server.shutdown()
    server.server_close()


def test_connects_to_the_checked_address_with_tls_verified_against_the_name(tls_receiver):
    port, ca, seen = tls_receiver
    asked = []

    def resolver(host, port):
        asked.append(host)
        return ["127.0.0.1"]

    sender = HttpSender(timeout=3, allow_private=True, resolver=resolver)
    sender.session.verify = ca
    answer = sender.send(f"https://hooks.vervoer.nl:{port}/in", b"{}", {})
    assert answer.outcome == "sent"
    assert asked == ["hooks.vervoer.nl"]  # once
    assert seen["sni"] == ["hooks.vervoer.nl"] and seen["host"] == [f"hooks.vervoer.nl:{port}"]

    # the same address under a name the certificate does not carry: refused by TLS
    other = sender.send(f"https://andere.vervoer.nl:{port}/in", b"{}", {})
    assert failures.read(other.fout) == ("network_error", {"error": "SSLError"})
    assert len(seen["host"]) == 1


def test_a_refused_connection_names_no_address_or_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    sender = HttpSender(timeout=2, allow_private=True, resolver=lambda host, p: ["127.0.0.1"])
    answer = sender.send(f"http://hooks.vervoer.nl:{port}/in", b"{}", {})
    assert answer.outcome == "retry" and answer.fout == '{"code":"connection_refused"}'
    assert failures.english(answer.fout) == "the endpoint's server refused the connection"
