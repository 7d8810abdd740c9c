"""Requests the server sends to addresses others gave it (push services, webhook receivers):
which URLs it may post to, and an HTTP session that never follows a redirect.

The server posts to whatever URL a phone or an admin registered, so a URL must be https on a
public host: never the server's own network (loopback, private ranges, link-local metadata
services), never with credentials in it. Development may allow http and private hosts
(WEBPUSH_ALLOW_PRIVATE, WEBHOOKS_ALLOW_PRIVATE). A name is checked again when sending, since
it may point elsewhere by then; redirects are not followed, since one could point inward.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

import requests

# Names that never lead to a public host (RFC 6761, 6762, 8375 and common LAN names).
PRIVATE_SUFFIXES = (
    ".localhost",
    ".local",
    ".internal",
    ".invalid",
    ".test",
    ".example",
    ".home.arpa",
    ".lan",
)
# Why a URL is refused: a stable code, and its English wording.
ENGLISH = {
    "invalid_url": "not a valid URL",
    "not_https": "must be an https URL",
    "no_host": "has no host",
    "credentials": "must not carry a user name or password",
    "bad_port": "has an invalid port",
    "private_host": "must be on a public host",
}


def url_refusal(url: str, *, allow_private: bool = False) -> str | None:
    """The code of why the server must not post to url (ENGLISH's keys), or None."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "invalid_url"
    if parts.scheme != "https" and not (allow_private and parts.scheme == "http"):
        return "not_https"
    host = parts.hostname
    if not host:
        return "no_host"
    if parts.username or parts.password or "@" in parts.netloc:
        return "credentials"
    if port is not None and not 0 < port < 65536:
        return "bad_port"
    if allow_private:
        return None
    if host == "localhost" or host.endswith(PRIVATE_SUFFIXES):
        return "private_host"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None if "." in host else "private_host"
    return None if address.is_global else "private_host"


def endpoint_problem(url: str, *, allow_private: bool = False) -> str | None:
    """Why the server must not post to url, in English, or None when it may."""
    code = url_refusal(url, allow_private=allow_private)
    return ENGLISH[code] if code else None


def resolves_to_public(host: str, port: int) -> bool:
    """Whether every address host resolves to is public (checked again at send time: a
    name may point elsewhere since it was registered)."""
    infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    return bool(infos) and all(ipaddress.ip_address(info[4][0]).is_global for info in infos)


class NoRedirects(requests.Session):
    """A receiver answers; it does not send us elsewhere (a redirect could point into our
    own network)."""

    def request(self, *args, **kwargs):
        kwargs["allow_redirects"] = False
        return super().request(*args, **kwargs)
