"""Posting one event to one endpoint over HTTP, with limits: the answer is read for at most
MAX_ANSWER bytes and the whole exchange may take at most `timeout` seconds, so a receiver
that answers with 10 MB or never stops answering costs the worker little. Never follows a
redirect; resolves the receiver's name once and connects only to an address it checked, never
a private one unless development allows it (portal/outbound.py). A refused connection is told
as such, without the address or port that refused it. Touches no database: the worker records
what this answers."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal, Protocol

import requests

from portal.outbound import (
    AddressRefused,
    NameNotResolved,
    PinnedSession,
    Resolver,
    connection_refused,
)
from portal.outbox.retry import retry_after_seconds
from portal.webhooks.failures import failure
from portal.webhooks.models import ANSWER_KEPT

MAX_ANSWER = 64 * 1024
RETRY_STATUSES = {408, 425, 429, 500, 502, 503, 504}
Outcome = Literal["sent", "retry", "failed"]


@dataclass(frozen=True)
class Answer:
    """One attempt: sent (2xx), retry (may pass later) or failed (will not)."""

    outcome: Outcome
    http_status: int | None = None
    duration_ms: int = 0
    start: str | None = None  # the first bytes of the answer, as text
    fout: str | None = None
    retry_after: int | None = None


class Sender(Protocol):
    def send(self, url: str, body: bytes, headers: dict[str, str]) -> Answer: ...


class HttpSender:
    def __init__(
        self,
        *,
        timeout: float = 10.0,
        connect_timeout: float = 5.0,
        allow_private: bool = False,
        max_answer: int = MAX_ANSWER,
        resolver: Resolver | None = None,
    ):
        self.timeout = timeout
        self.connect_timeout = min(connect_timeout, timeout)
        self.allow_private = allow_private
        self.max_answer = max_answer
        self.session = PinnedSession(resolver=resolver, allow_private=allow_private)

    def send(self, url: str, body: bytes, headers: dict[str, str]) -> Answer:
        began = time.monotonic()

        def elapsed() -> int:
            return int((time.monotonic() - began) * 1000)

        try:
            response = self.session.post(
                url,
                data=body,
                headers=headers,
                timeout=(self.connect_timeout, self.timeout),
                stream=True,
            )
        except AddressRefused as refused:
            return Answer("failed", fout=failure("url_refused", reason=refused.code))
        except NameNotResolved as unresolved:
            return Answer("retry", fout=failure("network_error", error=str(unresolved)))
        except requests.Timeout:
            return Answer("retry", duration_ms=elapsed(), fout=self._timeout())
        except requests.RequestException as exc:
            if connection_refused(exc):
                return Answer("retry", duration_ms=elapsed(), fout=failure("connection_refused"))
            return Answer(
                "retry",
                duration_ms=elapsed(),
                fout=failure("network_error", error=type(exc).__name__),
            )
        try:
            start, cut_short = self._read(response, began)
        finally:
            response.close()
        status = response.status_code
        text = start.decode("utf-8", "replace") if start else None
        if cut_short and not 200 <= status < 300:
            return Answer("retry", status, elapsed(), text, self._timeout())
        if 200 <= status < 300:
            return Answer("sent", status, elapsed(), text)
        if 300 <= status < 400:
            return Answer("failed", status, elapsed(), text, failure("redirect", http=status))
        if status in RETRY_STATUSES or status >= 500:
            return Answer(
                "retry",
                status,
                elapsed(),
                text,
                failure("unavailable", http=status),
                retry_after_seconds(response.headers.get("Retry-After")),
            )
        return Answer("failed", status, elapsed(), text, failure("refused", http=status))

    def _read(self, response: requests.Response, began: float) -> tuple[bytes, bool]:
        """The first ANSWER_KEPT bytes; reads on (and discards) up to max_answer or until
        the time is up. Answers (bytes, whether the time ran out)."""
        kept = b""
        read = 0
        try:
            for chunk in response.iter_content(chunk_size=8192):
                if len(kept) < ANSWER_KEPT:
                    kept += chunk[: ANSWER_KEPT - len(kept)]
                read += len(chunk)
                if read >= self.max_answer:
                    break
                if time.monotonic() - began > self.timeout:
                    return kept, True
        except requests.RequestException:
            return kept, True
        return kept, False

    def _timeout(self) -> str:
        return failure("timeout", seconds=f"{self.timeout:g}")
