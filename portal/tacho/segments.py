"""The one shape in which driving and rest times are checked: a driver's time as segments.

Card downloads, vehicle-unit downloads and the hours a driver records in the app all become
a sorted row of `Segment`s (UTC, half open, not overlapping); the EU 561/2006 checker
(portal.tacho.rules) never sees where they came from beyond `bron`. A day of a card is kept
as its changes (`Change`: a minute of the UTC day and what began then); `day_segments` turns
one day into segments, ending the last one at midnight or, on the download day, at the
moment of the download. Pure: no Flask, no database.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

RIJDEN, WERK, BESCHIKBAAR, RUST, ONBEKEND = "rijden", "werk", "beschikbaar", "rust", "onbekend"
ACTIVITEITEN = (RIJDEN, WERK, BESCHIKBAAR, RUST, ONBEKEND)

# Where a segment comes from: the card (inserted), an entry made by hand on the card, a
# vehicle unit, the hours recorded in the app.
KAART, KAART_HANDMATIG, VOERTUIG, APP = "kaart", "kaart_handmatig", "voertuig", "app"

DAY_MIN = 24 * 60


@dataclass(frozen=True, slots=True)
class Segment:
    begin: datetime  # UTC, aware
    eind: datetime  # UTC, aware, after begin
    activiteit: str  # one of ACTIVITEITEN
    bron: str  # KAART, KAART_HANDMATIG, VOERTUIG or APP
    bemanning: bool = False  # multi-manning (the card's crew flag)

    @property
    def minuten(self) -> int:
        return int((self.eind - self.begin).total_seconds() // 60)


@dataclass(frozen=True, slots=True)
class Change:
    """One activity change of a day: from `minuut` (0..1439, UTC) the driver did `activiteit`.
    `kaart_in` False with `handmatig` False is time with the card out and nothing entered:
    `activiteit` is then ONBEKEND."""

    minuut: int
    activiteit: str
    kaart_in: bool = True
    bemanning: bool = False
    handmatig: bool = False
    slot: int = 0  # 0 driver, 1 co-driver


def midnight(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=UTC)


def day_segments(
    day: date, changes: Sequence[Change], *, until: datetime | None = None, bron: str = KAART
) -> list[Segment]:
    """The segments of one card day: each change lasts until the next; the last until
    midnight, or until `until` when that falls inside the day (the download day). A day
    whose changes start after 00:00 is unknown until its first change. Changes at or after
    `until` are dropped; equal activities that follow each other are merged."""
    start = midnight(day)
    end = start + timedelta(days=1)
    if until is not None and until < end:
        end = max(start, until)
    out: list[Segment] = []
    ordered = sorted(changes, key=lambda c: c.minuut)
    if not ordered or ordered[0].minuut > 0:
        first = ordered[0].minuut if ordered else DAY_MIN
        ordered = [Change(0, ONBEKEND, kaart_in=False), *ordered] if first else ordered
    for i, change in enumerate(ordered):
        begin = start + timedelta(minutes=change.minuut)
        if begin >= end:
            break
        nxt = ordered[i + 1].minuut if i + 1 < len(ordered) else DAY_MIN
        stop = min(end, start + timedelta(minutes=nxt))
        if stop <= begin:
            continue
        source = KAART_HANDMATIG if change.handmatig else bron
        activiteit = change.activiteit if (change.kaart_in or change.handmatig) else ONBEKEND
        _append(out, Segment(begin, stop, activiteit, source, change.bemanning))
    return out


def _append(out: list[Segment], segment: Segment) -> None:
    last = out[-1] if out else None
    if (
        last is not None
        and last.eind == segment.begin
        and last.activiteit == segment.activiteit
        and last.bron == segment.bron
        and last.bemanning == segment.bemanning
    ):
        out[-1] = Segment(last.begin, segment.eind, last.activiteit, last.bron, last.bemanning)
    else:
        out.append(segment)


def merge(segments: Iterable[Segment]) -> list[Segment]:
    """Sorted, adjoining equal segments joined."""
    out: list[Segment] = []
    for segment in sorted(segments, key=lambda s: s.begin):
        _append(out, segment)
    return out


def fill_unknown(
    segments: Sequence[Segment], van: datetime, tot: datetime, bron: str
) -> list[Segment]:
    """The segments within [van, tot), with every gap between them ONBEKEND (of `bron`)."""
    out: list[Segment] = []
    cursor = van
    for s in sorted(segments, key=lambda s: s.begin):
        if s.eind <= van or s.begin >= tot:
            continue
        begin, eind = max(s.begin, van), min(s.eind, tot)
        if begin > cursor:
            _append(out, Segment(cursor, begin, ONBEKEND, bron))
        if eind > begin:
            _append(out, Segment(max(begin, cursor), eind, s.activiteit, s.bron, s.bemanning))
        cursor = max(cursor, eind)
    if cursor < tot:
        _append(out, Segment(cursor, tot, ONBEKEND, bron))
    return out


def totals(segments: Iterable[Segment]) -> dict[str, int]:
    """Minutes per activity."""
    out = dict.fromkeys(ACTIVITEITEN, 0)
    for s in segments:
        out[s.activiteit] += s.minuten
    return out
