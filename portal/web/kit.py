"""The portal's request kit: who is asking, for which carrier, in which time zone, which page
of a list; and moments worded one way. Views use these instead of helpers of their own."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal, TypeVar
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from flask import g, request, url_for
from flask_babel import format_datetime
from flask_login import current_user

from portal.accounts.service import carrier_zone
from portal.audit.service import Actor

T = TypeVar("T")
MAX_PAGE = 100_000  # a page number beyond any list, so offsets stay small integers


def current_carrier_id() -> uuid.UUID:
    """The signed-in user's carrier: the scope of every query the request makes."""
    return current_user.transporteur_id


def current_actor() -> Actor:
    """The signed-in user as the audit trail names them: their name, else their email."""
    return Actor("user", current_user.id, current_user.naam or current_user.email)


def current_zone() -> ZoneInfo:
    """The carrier's time zone (read once per request)."""
    zone = g.get("carrier_zone")
    if zone is None:
        zone = g.carrier_zone = carrier_zone(current_carrier_id())
    return zone


def page_arg(name: str = "pagina") -> int:
    """The page asked for in the query string: 1 when absent or nonsense, at most MAX_PAGE."""
    page = request.args.get(name, default=1, type=int) or 1
    return min(max(page, 1), MAX_PAGE)


@dataclass(frozen=True)
class Pager:
    """One page of a list: which page, how many rows a page holds, how many rows in all."""

    page: int
    per_page: int
    total: int = 0

    @classmethod
    def asked(cls, per_page: int) -> Pager:
        """The page the request asks for; its total follows from the query (`counted`)."""
        return cls(page_arg(), per_page)

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def has_prev(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.pages

    @property
    def first(self) -> int:
        """The 1-based number of the page's first row."""
        return self.offset + 1

    @property
    def last(self) -> int:
        """The number of the page's last row."""
        return min(self.offset + self.per_page, self.total)

    def url(self, endpoint: str, **args) -> str:
        """This page's address: the list's, with the page number from the second page on."""
        return url_for(endpoint, **args, **({"pagina": self.page} if self.page > 1 else {}))

    def counted(self, total: int) -> Pager:
        return replace(self, total=total)

    def of(self, rows: list[T]) -> tuple[Pager, list[T]]:
        """A list held in memory: the pager over all of it (a page past the end shows the
        last), and the rows of its page."""
        pager = replace(self, total=len(rows))
        pager = replace(pager, page=min(pager.page, pager.pages))
        return pager, rows[pager.offset : pager.offset + pager.per_page]


WhenKind = Literal["day_time", "recent", "date_time"]
_WHEN_FORMATS = {"day_time": "EEE d MMM HH:mm", "date_time": "d MMM yyyy HH:mm"}


def format_when(moment: datetime | None, kind: WhenKind = "day_time", empty: str = "") -> str:
    """A moment in the user's time zone, one wording per kind:
    - day_time: "di 24 nov 08:30" (within the weeks a planner looks at);
    - date_time: "24 nov 2026 08:30";
    - recent: the time alone when it is today in the carrier's zone, else date_time.
    `empty` stands for no moment."""
    if moment is None:
        return empty
    if kind == "recent":
        zone = current_zone()
        if moment.astimezone(zone).date() == datetime.now(zone).date():
            return format_datetime(moment, "HH:mm")
        kind = "date_time"
    return format_datetime(moment, _WHEN_FORMATS[kind])


# --- what every domain's pages share -----------------------------------------------------

Wording = Mapping[str, "str | Callable[[dict], str]"]


def errors_at_fields(form, errors: list[dict], wording: Wording) -> list[str]:
    """A service's errors ({field, code, message, params}) at the form's fields, worded by
    their stable code: `wording[code]` is a text (filled in with the error's params) or a
    function of the whole error. An error without wording keeps its message. Errors of no
    field on the form come back in a list for the form's top."""
    general = []
    for item in errors:
        name, code = item.get("field"), item.get("code")
        text = _worded(item, wording.get(code) if code else None)
        if name in form and name != "csrf_token":
            form[name].errors = [*form[name].errors, text]
        else:
            general.append(text if code in wording else f"{name}: {text}" if name else text)
    return general


def _worded(item: dict, wording) -> str:
    if wording is None:
        return str(item.get("message", ""))
    if callable(wording):
        return str(wording(item))
    params = item.get("params")
    return str(wording) % params if params else str(wording)


def parse_uuid(value: str | None) -> uuid.UUID | None:
    """The UUID a form or query value names, or None (empty or not a UUID)."""
    try:
        return uuid.UUID(value) if value else None
    except (ValueError, AttributeError, TypeError):
        return None


def safe_back(target: str | None, *, within: str, fallback: str, exact: bool = False) -> str:
    """Where to return after a write: `target` when it is a path on this site starting with
    `within` (or, `exact`, being that path, with any query), with no scheme, no host (also
    none a browser reads in `//` or `///` at the start), no backslash or space (no open
    redirect); else `fallback`."""
    if not target or not target.startswith("/") or target.startswith("//"):
        return fallback
    if target.isprintable() and "\\" not in target and " " not in target:
        parts = urlsplit(target)
        on_path = parts.path == within if exact else parts.path.startswith(within)
        if not parts.scheme and not parts.netloc and on_path:
            return target
    return fallback
