"""When an outbox tries again: the waits between attempts (`Backoff`, lengthened by a
receiver's Retry-After: `retry_after_seconds`) and what one attempt's outcome makes of the
entry (`decide`: sent, queued for a retry, or failed)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta


def retry_after_seconds(value: str | None) -> int | None:
    """A Retry-After header as seconds; its HTTP-date form is rare from receivers and
    ignored."""
    if value is None:
        return None
    try:
        return max(0, int(str(value).strip()))
    except ValueError:
        return None


@dataclass(frozen=True)
class Backoff:
    """After attempt n fails in a way worth retrying, wait steps[n - 1]; the attempt after
    the last step is the last. A receiver's Retry-After may lengthen a wait, up to
    max_retry_after."""

    steps: tuple[timedelta, ...]
    max_retry_after: timedelta = timedelta(hours=1)

    @property
    def max_attempts(self) -> int:
        return len(self.steps) + 1

    def wait(self, attempt: int, retry_after: float | None = None) -> timedelta:
        """How long to wait after the failed attempt number `attempt`."""
        wait = self.steps[attempt - 1]
        if retry_after:
            wait = max(wait, min(timedelta(seconds=retry_after), self.max_retry_after))
        return wait


@dataclass(frozen=True)
class Decision:
    """Where an entry goes after an attempt: its status, the stored failure (`fout`) and
    when it is due again (None: not again)."""

    status: str
    reason: str | None
    next_at: datetime | None


def decide(
    backoff: Backoff,
    *,
    attempt: int,
    outcome: str,
    reason: str | None,
    now: datetime,
    given_up: Callable[..., str],
    retry_after: float | None = None,
) -> Decision:
    """Sent when the outcome is "sent"; queued for a retry after the backoff when it is
    "retry" and attempts are left; failed, given up (given_up(attempts=, last=)), after the
    last; failed at once on any other outcome."""
    if outcome == "sent":
        return Decision("sent", None, None)
    if outcome == "retry" and attempt < backoff.max_attempts:
        return Decision("queued", reason, now + backoff.wait(attempt, retry_after))
    if outcome == "retry":
        return Decision("failed", given_up(attempts=attempt, last=reason), None)
    return Decision("failed", reason, None)
