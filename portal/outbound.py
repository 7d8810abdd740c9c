"""Requests the server sends to addresses others gave it (push services, webhook receivers):
which URLs it may post to, and an HTTP session that connects only to the addresses it checked
and never follows a redirect.

The server posts to whatever URL a phone or an admin registered, so a URL must be https on a
public host: never the server's own network (loopback, private ranges, link-local metadata
services), never with credentials in it. Development may allow http and private hosts
(WEBPUSH_ALLOW_PRIVATE, WEBHOOKS_ALLOW_PRIVATE).

One check (`url_refusal`) holds at registration and at sending. A host is a plain ASCII name
or an address in its one canonical form: `127.1`, `0x7f.0.0.1`, `0177.0.0.1`, Unicode digits
and a trailing dot are refused, since resolvers and libraries read them as addresses the
check never saw. An address is public when `ipaddress` says so, also for the IPv4 address an
IPv6 one carries (NAT64, 6to4, IPv4-compatible and -translated); site-local fec0::/10 and
Teredo never are.

At sending, the name is resolved once (`Resolver`), every address it gives is checked, and the
connection goes to a checked address (`PinnedSession`), with TLS verified against the name
(SNI and certificate), so a name that answers a public address to the check and 127.0.0.1
to the connection (DNS rebinding) reaches nothing. Redirects are not followed, since one
could point inward; proxies from the environment are not used, since they would resolve the
name again.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
from collections.abc import Callable
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter

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
    "bad_host": "has a host that is no plain name or address (an IP address in its usual "
    "form, an international name as xn--…, and no dot at the end)",
    "private_host": "must be on a public host",
}
# A DNS name as the check reads it: ASCII labels of letters, digits, hyphens (and the
# underscore some hosts carry), at most 63 characters each, no empty label.
LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")
# The last label of a name that URL parsers and resolvers take for an IPv4 address.
NUMERIC = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")

# IPv6 ranges that carry an IPv4 address in their last 32 bits: the address is as public as
# the IPv4 one it leads to (RFC 6052 NAT64, RFC 4291 IPv4-compatible, RFC 2765 translated).
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
IPV4_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")
# Never public, whatever Python's table says: site-local (deprecated, still routed inside
# some networks), local-use NAT64 (RFC 8215) and Teredo (its client address is obscured).
NEVER_PUBLIC = (
    ipaddress.IPv6Network("fec0::/10"),
    ipaddress.IPv6Network("64:ff9b:1::/48"),
    ipaddress.IPv6Network("2001::/32"),
)

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
# host, port -> the addresses the name stands for, in the order to try them
Resolver = Callable[[str, int], list[str]]


def system_resolver(host: str, port: int) -> list[str]:
    """The addresses host resolves to (the system's resolver), each once, in its order."""
    found: list[str] = []
    for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP):
        address = str(info[4][0])
        if address not in found:
            found.append(address)
    return found


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address leads to (mapped, 6to4, NAT64, compatible,
    translated), or None."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if any(address in network for network in (NAT64, IPV4_COMPATIBLE, IPV4_TRANSLATED)):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def is_public(address: Address) -> bool:
    """Whether the server may connect to address: globally reachable, no multicast, and for
    an IPv6 address that leads to an IPv4 one, that IPv4 address too."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.scope_id or any(address in network for network in NEVER_PUBLIC):
            return False
        inner = embedded_ipv4(address)
        if inner is not None:
            return is_public(inner)
    return address.is_global and not address.is_multicast


def _host_refusal(host: str) -> tuple[str | None, Address | None]:
    """(why host is refused or None, the address it is if it is one)."""
    if not host.isascii():
        return "bad_host", None
    if ":" in host:  # urlsplit took it from brackets: an IPv6 address and nothing else
        try:
            return None, ipaddress.IPv6Address(host)
        except ValueError:
            return "bad_host", None
    labels = host.split(".")
    if not all(LABEL.match(label) for label in labels) or len(host) > 253:
        return "bad_host", None
    if NUMERIC.match(labels[-1]):
        try:  # only the dotted quad of four decimals, none with a leading zero
            return None, ipaddress.IPv4Address(host)
        except ValueError:
            return "bad_host", None
    return None, None


def url_refusal(url: str, *, allow_private: bool = False) -> str | None:
    """The code of why the server must not post to url (ENGLISH's keys), or None. The same
    check at registration and at sending; sending also checks what the name resolves to."""
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
    refusal, address = _host_refusal(host)
    if refusal:
        return refusal
    if allow_private:
        return None
    if address is not None:
        return None if is_public(address) else "private_host"
    if host == "localhost" or host.endswith(PRIVATE_SUFFIXES) or "." not in host:
        return "private_host"
    return None


def endpoint_problem(url: str, *, allow_private: bool = False) -> str | None:
    """Why the server must not post to url, in English, or None when it may."""
    code = url_refusal(url, allow_private=allow_private)
    return ENGLISH[code] if code else None


class AddressRefused(requests.exceptions.InvalidURL):
    """The URL, or an address its name resolves to, is not one the server may post to."""

    def __init__(self, code: str):
        super().__init__(ENGLISH[code])
        self.code = code


class NameNotResolved(requests.exceptions.ConnectionError):
    """The name resolved to no address (yet): worth trying again later."""


def checked_addresses(
    url: str, *, resolver: Resolver = system_resolver, allow_private: bool = False
) -> list[str]:
    """The addresses the server may connect to for url: its name resolved once, every
    address checked. Raises AddressRefused or NameNotResolved."""
    code = url_refusal(url, allow_private=allow_private)
    if code:
        raise AddressRefused(code)
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        found = [ipaddress.ip_address(a.split("%")[0]) for a in resolver(parts.hostname, port)]
    except (OSError, UnicodeError, ValueError) as exc:
        raise NameNotResolved(type(exc).__name__) from None
    if not found:
        raise NameNotResolved("no address")
    if not allow_private and not all(is_public(address) for address in found):
        raise AddressRefused("private_host")
    return [str(address) for address in found]


def connection_refused(error: BaseException) -> bool:
    """Whether the receiver's host refused the connection (nothing listens there)."""
    seen: set[int] = set()
    stack: list[object] = [error]
    while stack:
        item = stack.pop()
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, ConnectionRefusedError):
            return True
        stack.extend([item.__cause__, item.__context__, getattr(item, "reason", None)])
        stack.extend(arg for arg in item.args if isinstance(arg, BaseException))
    return False


def _connect_failed(error: requests.ConnectionError) -> bool:
    """A connection that never came about (nothing was sent): another address may do."""
    return not isinstance(error, requests.Timeout) and connection_refused(error)


class PinnedAdapter(HTTPAdapter):
    """Resolves the name once, checks every address, and connects to a checked one (the next
    on a refused connection), while TLS is verified against the name (SNI and certificate)
    and the Host header names it."""

    def __init__(self, *, resolver: Resolver, allow_private: bool):
        super().__init__()
        self.resolver = resolver
        self.allow_private = allow_private
        self._target = threading.local()

    def send(self, request, *args, **kwargs):
        addresses = checked_addresses(
            request.url, resolver=self.resolver, allow_private=self.allow_private
        )
        parts = urlsplit(request.url)
        request.headers["Host"] = parts.netloc
        failed: requests.ConnectionError | None = None
        for address in addresses:
            self._target.value = (address, parts.hostname)
            try:
                return super().send(request, *args, **kwargs)
            except requests.ConnectionError as error:
                if not _connect_failed(error):
                    raise
                failed = error
            finally:
                self._target.value = None
        raise failed  # type: ignore[misc]  # at least one address was tried

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None):
        address, name = self._target.value
        host_params, pool_kwargs = self.build_connection_pool_key_attributes(request, verify, cert)
        host_params = {**host_params, "host": address}
        if host_params["scheme"] == "https":
            # The certificate is checked against the name the URL gave, not the address.
            pool_kwargs = {**pool_kwargs, "server_hostname": name}
        return self.poolmanager.connection_from_host(**host_params, pool_kwargs=pool_kwargs)


class PinnedSession(requests.Session):
    """The session for every outbound post: checked addresses only (PinnedAdapter), no
    redirects (one could point into our own network), no proxy from the environment."""

    def __init__(self, *, resolver: Resolver | None = None, allow_private: bool = False):
        super().__init__()
        self.allow_private = allow_private
        self.trust_env = False
        adapter = PinnedAdapter(resolver=resolver or system_resolver, allow_private=allow_private)
        self.mount("https://", adapter)
        self.mount("http://", adapter)

    def request(self, method, url, *args, **kwargs):
        # Checked before requests reads the URL: it would map Unicode digits to ASCII ones.
        code = url_refusal(str(url), allow_private=self.allow_private)
        if code:
            raise AddressRefused(code)
        kwargs["allow_redirects"] = False
        return super().request(method, url, *args, **kwargs)
