"""A place's opening hours (`openingstijden`, free text) read when the text has a clear form:
"ma-vr 07:00-17:00", "ma-vr 07:00-12:00 en 13:00-17:00; za 08:00-12:00", "ma, wo, vr
6:30-16:00", "dagelijks 06:00-22:00", "zo gesloten", "24/7". Anything else is unknown: the
text is kept, and a rule that needs it is not taken as met (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

DAYS = ("ma", "di", "wo", "do", "vr", "za", "zo")
_DAY = r"(?:ma|di|wo|do|vr|za|zo)"
_TIME = r"\d{1,2}[:.]\d{2}"
_RANGE = rf"{_TIME}\s*-\s*{_TIME}"
_DAYS = rf"(?:dagelijks|{_DAY}(?:\s*(?:-|t/m|,|&)\s*{_DAY})*)"
_PART = re.compile(
    rf"(?P<days>{_DAYS})\s*:?\s*(?P<hours>gesloten|{_RANGE}(?:\s*(?:,|en|&|/)\s*{_RANGE})*)",
    re.IGNORECASE,
)
_SEPARATORS = re.compile(r"[\s;,.|/]+")


@dataclass(frozen=True)
class Opening:
    """Open windows per weekday (0 = Monday) in minutes since local midnight; None when the
    text could not be read."""

    text: str
    windows: tuple[tuple[int, int, int], ...] | None

    @property
    def known(self) -> bool:
        return self.windows is not None

    def admits(self, local: datetime, *, closing: bool = False) -> bool | None:
        """Whether the place is open at the local moment (at `closing`, the window's end
        counts as open); None when unknown."""
        if self.windows is None:
            return None
        day, minute = local.weekday(), local.hour * 60 + local.minute
        for weekday, start, end in self.windows:
            if weekday != day:
                continue
            if (start <= minute < end) or (closing and start < minute <= end):
                return True
        return False


def _minutes(text: str) -> int:
    hours, minutes = re.split(r"[:.]", text)
    return int(hours) * 60 + int(minutes)


def _days(text: str) -> list[int]:
    text = text.lower()
    if text == "dagelijks":
        return list(range(7))
    out: list[int] = []
    for item in re.split(r"\s*(?:,|&)\s*", text):
        ends = re.split(r"\s*(?:-|t/m)\s*", item)
        first, last = DAYS.index(ends[0]), DAYS.index(ends[-1])
        if last < first:
            raise ValueError(item)
        out.extend(range(first, last + 1))
    return out


def _ranges(text: str) -> list[tuple[int, int]]:
    if text.lower() == "gesloten":
        return []
    out = []
    for start, end in re.findall(rf"({_TIME})\s*-\s*({_TIME})", text):
        a, b = _minutes(start), _minutes(end)
        if not (0 <= a < b <= 24 * 60):
            raise ValueError(text)
        out.append((a, b))
    return out


def parse(text: str | None) -> Opening | None:
    """The opening hours of a text; None for no text (nothing to keep), an unknown Opening
    for a text that is not in a clear form."""
    if text is None or not text.strip():
        return None
    clean = text.strip()
    if clean.lower() in ("24/7", "24 uur", "altijd open", "dag en nacht"):
        return Opening(clean, tuple((d, 0, 24 * 60) for d in range(7)))
    windows: list[tuple[int, int, int]] = []
    rest = clean
    try:
        for found in _PART.finditer(clean):
            for day in _days(found.group("days")):
                windows.extend((day, a, b) for a, b in _ranges(found.group("hours")))
            rest = rest.replace(found.group(0), " ", 1)
    except ValueError:
        return Opening(clean, None)
    if _SEPARATORS.sub("", rest) or not _PART.search(clean):
        return Opening(clean, None)
    return Opening(clean, tuple(sorted(set(windows))))
