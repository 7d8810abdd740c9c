"""The one shape in which driving and rest times are checked: a driver's time as segments.

Card downloads, vehicle-unit downloads and the hours a driver records in the app all become
a sorted row of `Segment`s (UTC, half open, not overlapping); the EU 561/2006 checker
(portal.tacho.rules) never sees where they came from beyond `bron`. A day of a card is kept
as its changes (`Change`: a minute of the UTC day and what began then), in the order the card
recorded them. `periods` says how long each lasted: until the next recorded change, never less
than nothing; where the next change's minute is earlier, a vehicle unit's clock lagged behind
the previous one's and the day carries a note (`clock_notes`). `day_totals` adds up those
durations, so each activity counts once; `day_segments` lays them out one after the other on
the UTC timeline the checker reads, ending the day at midnight or, on the download day, at the
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


@dataclass(frozen=True, slots=True)
class Period:
    """One change as the card recorded it and how long it lasted: until the next recorded
    change, max(0, its minute - this minute); the last until midnight (where the next day's
    record codes the state at 00:00) or the cap. `achter` > 0: the next change's minute is
    that much earlier, the clock of the vehicle unit the card went to lagged behind."""

    change: Change
    minuten: int
    achter: int = 0

    @property
    def activiteit(self) -> str:
        """What the time counts as: card out with nothing entered is ONBEKEND."""
        return activity_of(self.change)


# The code of a day's data note: the clock of another vehicle unit behind by N minutes.
KLOK_ACHTER = "klok_achter"


def activity_of(change: Change) -> str:
    """What a change's time counts as: its activity, or ONBEKEND with the card out and nothing
    entered by hand."""
    return change.activiteit if (change.kaart_in or change.handmatig) else ONBEKEND


def _recorded(changes: Sequence[Change]) -> list[Change]:
    """The changes as recorded; a day that does not open at 00:00 opens unknown (the
    regulation has every day record code the state at 00:00)."""
    ordered = list(changes)
    if not ordered or ordered[0].minuut > 0:
        ordered.insert(
            0, Change(0, ONBEKEND, kaart_in=False, slot=ordered[0].slot if ordered else 0)
        )
    return ordered


def periods(changes: Sequence[Change], *, cap: int = DAY_MIN) -> list[Period]:
    """Each change of one day in recorded order with its duration (Period). `cap`, in minutes
    after 00:00, ends the day early (the download day ends at the download): no time counts
    after it."""
    ordered = _recorded(changes)
    out = []
    for i, change in enumerate(ordered):
        nxt = ordered[i + 1].minuut if i + 1 < len(ordered) else DAY_MIN
        out.append(
            Period(
                change,
                max(0, min(nxt, cap) - change.minuut),
                max(0, change.minuut - nxt),
            )
        )
    return out


def cap_minutes(day: date, until: datetime | None) -> int:
    """The minutes of `day` before `until` (the whole day when until is None or later)."""
    if until is None:
        return DAY_MIN
    seconds = (until - midnight(day)).total_seconds()
    return max(0, min(DAY_MIN, int(seconds // 60)))


def day_totals(
    day: date, changes: Sequence[Change], *, until: datetime | None = None
) -> dict[str, int]:
    """Minutes per activity of one card day: the durations of its changes added up, each
    counted once (a lagging clock makes the day longer than 24 hours, never eats time)."""
    out = dict.fromkeys(ACTIVITEITEN, 0)
    for period in periods(changes, cap=cap_minutes(day, until)):
        out[period.activiteit] += period.minuten
    return out


def clock_notes(changes: Sequence[Change], *, cap: int = DAY_MIN) -> list[tuple[str, dict]]:
    """The day's data notes as (code, params): where the next recorded change's minute is
    earlier than the one before, the clock of the vehicle unit the card went to was behind by
    that many minutes (`minuten`), from minute `van` back to minute `naar`."""
    return [
        (
            KLOK_ACHTER,
            {"minuten": p.achter, "van": p.change.minuut, "naar": p.change.minuut - p.achter},
        )
        for p in periods(changes, cap=cap)
        if p.achter and p.change.minuut < cap
    ]


def layout(changes: Sequence[Change]) -> list[tuple[int, int, Period]]:
    """Where each period of a day lies on the UTC timeline, as (start minute, minutes,
    period), in recorded order. Changes follow one another: after a lagging clock's step back,
    later changes lie that many minutes later than their own minute, so none overlaps the time
    before it; the next stretch with the card out and nothing entered takes the difference
    back (the card may go back to a unit with the right time). Starts may pass midnight."""
    out = []
    shift = 0
    for period in periods(changes):
        begin = period.change.minuut + shift
        length = period.minuten
        if shift and period.activiteit == ONBEKEND:
            taken = min(shift, length)
            length -= taken
            shift -= taken
        out.append((begin, length, period))
        shift += period.achter
    return out


def last_change_at(day: date, changes: Sequence[Change]) -> datetime:
    """When the day's last recorded change began on the UTC timeline (see layout)."""
    begin, _length, _period = layout(changes)[-1]
    return midnight(day) + timedelta(minutes=begin)


def day_segments(
    day: date, changes: Sequence[Change], *, until: datetime | None = None, bron: str = KAART
) -> list[Segment]:
    """The segments of one card day in recorded order, laid out by `layout`: each change for
    its duration; the day ends at midnight, or at `until` when that falls inside the day (the
    download day); what lies past that end is dropped. Equal activities that follow each
    other are merged."""
    start = midnight(day)
    end = start + timedelta(days=1)
    if until is not None and until < end:
        end = max(start, until)
    out: list[Segment] = []
    for begin_min, length, period in layout(changes):
        begin = start + timedelta(minutes=begin_min)
        if begin >= end:
            break
        stop = min(end, begin + timedelta(minutes=length))
        if stop <= begin:
            continue
        change = period.change
        source = KAART_HANDMATIG if change.handmatig else bron
        _append(out, Segment(begin, stop, period.activiteit, source, change.bemanning))
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
