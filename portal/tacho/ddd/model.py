"""What a tachograph download says, as typed values: a driver card's or a vehicle unit's.

Times are UTC (tachographs work in UTC), aware datetimes; days are dates of the UTC day.
Activities are `portal.tacho.segments.Change`s, so the rules checker never sees the file
format. Pure: no Flask, no database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import ClassVar

from portal.tacho.ddd.detect import NotTachograph
from portal.tacho.segments import (
    KAART,
    ONBEKEND,
    Change,
    Segment,
    day_segments,
    fill_unknown,
    last_change_at,
    midnight,
)

NIET_GEVERIFIEERD = "niet_geverifieerd"


class DamagedFile(NotTachograph):
    """A download that does not hold together (or is no driver card / vehicle unit download).

    `reason` is a short code (`empty`, `unknown`, `card_structure`, `vu_structure`,
    `activity_buffer`, `other_card`), `where` names the place it broke ("EF 0504
    Driver_Activity_Data, byte 812", "VU block 76 02 at byte 9134"; empty when the file as a
    whole is refused), and the message is one plain English sentence. It is a
    `detect.NotTachograph`, so callers that catch that keep working."""

    def __init__(self, reason: str, detail: str, *, where: str = "", card_type: str | None = None):
        super().__init__(reason, detail, card_type=card_type)
        self.where = where


@dataclass(frozen=True, slots=True)
class CardDay:
    """One daily record of a card: its changes in the order recorded (a lagging vehicle unit
    clock can make a minute smaller than the one before), presence counter, distance."""

    datum: date
    aanwezigheid: int  # the daily presence counter (0 for days seen through a vehicle unit)
    afstand_km: int
    wijzigingen: list[Change] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class VehicleUse:
    """A vehicle the card was used in (CardVehicleRecord)."""

    eerste_gebruik: datetime | None
    laatste_gebruik: datetime | None
    km_begin: int
    km_eind: int
    kenteken: str | None
    land: str | None  # ISO 3166 alpha-2 of the registering state
    vin: str | None = None  # second generation only


@dataclass(frozen=True, slots=True)
class Place:
    """Where a daily work period began or ended (PlaceRecord)."""

    tijd: datetime
    soort: str  # "begin" or "einde"
    handmatig: bool  # entered by hand
    land: str | None
    regio: int | None
    km: int
    lat: float | None = None  # second generation: the GNSS position, degrees
    lon: float | None = None


@dataclass(frozen=True, slots=True)
class GnssPlace:
    """A position recorded after each three hours of accumulated driving (second generation)."""

    tijd: datetime
    lat: float | None
    lon: float | None
    km: int


@dataclass(frozen=True, slots=True)
class CurrentUse:
    """The vehicle the card was last inserted in (EF_Current_Usage: CardCurrentUse)."""

    sessie_begin: datetime | None
    kenteken: str | None
    land: str | None


@dataclass(frozen=True, slots=True)
class CardDownload:
    """A driver card download read in full."""

    soort: ClassVar[str] = "bestuurderskaart"

    generatie: str  # "1", "2" or "2.2"
    kaartnummer: str | None
    achternaam: str | None
    voornamen: str | None
    houder: str | None  # first names and surname
    land: str | None  # the issuing state, ISO 3166 alpha-2
    afgifte_instantie: str | None
    afgiftedatum: date | None
    vervaldatum: date | None
    geboortedatum: date | None
    gedownload_op: datetime | None  # the best known moment of the download
    dagen: list[CardDay] = field(default_factory=list)  # oldest first
    voertuigen: list[VehicleUse] = field(default_factory=list)  # oldest first
    plaatsen: list[Place] = field(default_factory=list)  # oldest first
    gnss: list[GnssPlace] = field(default_factory=list)  # oldest first
    huidig_gebruik: CurrentUse | None = None
    handtekening: str = NIET_GEVERIFIEERD
    waarschuwingen: list[str] = field(default_factory=list)

    @property
    def periode_van(self) -> datetime | None:
        return midnight(self.dagen[0].datum) if self.dagen else None

    @property
    def periode_tot(self) -> datetime | None:
        return midnight(self.dagen[-1].datum) + timedelta(days=1) if self.dagen else None

    def einde(self) -> datetime | None:
        """Where the card's data ends: the download moment on the newest day; without a known
        download moment, one minute after the newest day's last change ("open_tail")."""
        if not self.dagen:
            return None
        newest = self.dagen[-1]
        end_of_day = midnight(newest.datum) + timedelta(days=1)
        if self.gedownload_op is not None:
            return min(self.gedownload_op, end_of_day)
        last = last_change_at(newest.datum, newest.wijzigingen)
        return min(last + timedelta(minutes=1), end_of_day)

    def segments(self) -> list[Segment]:
        """All days as segments, oldest first: days without a record between the first and
        the last are ONBEKEND, and the newest day ends at `einde()` (never at midnight when
        the download was made that day)."""
        if not self.dagen:
            return []
        until = self.einde()
        segments: list[Segment] = []
        for day in self.dagen:
            cap = until if day is self.dagen[-1] else None
            segments.extend(day_segments(day.datum, day.wijzigingen, until=cap, bron=KAART))
        return fill_unknown(segments, midnight(self.dagen[0].datum), until, KAART)


@dataclass(frozen=True, slots=True)
class VuDay:
    """One day of a vehicle unit: odometer at midnight and the changes of each slot."""

    datum: date
    km_middernacht: int | None
    wijzigingen: dict[int, list[Change]] = field(default_factory=dict)  # slot -> changes


@dataclass(frozen=True, slots=True)
class CardSession:
    """A card in a slot of the vehicle unit, from insertion to withdrawal."""

    kaartnummer: str
    slot: int  # 0 driver, 1 co-driver
    ingestoken: datetime
    uitgenomen: datetime | None  # None: still inserted at the download
    houder: str | None = None
    km_in: int | None = None
    km_uit: int | None = None


@dataclass(frozen=True, slots=True)
class VuDownload:
    """A vehicle unit download read in full (overview and daily activities)."""

    soort: ClassVar[str] = "voertuigeenheid"

    generatie: str
    vin: str | None
    kenteken: str | None
    land: str | None
    periode_van: datetime | None
    periode_tot: datetime | None
    gedownload_op: datetime | None
    dagen: list[VuDay] = field(default_factory=list)  # oldest first
    kaarten: list[CardSession] = field(default_factory=list)  # by insertion time
    handtekening: str = NIET_GEVERIFIEERD
    waarschuwingen: list[str] = field(default_factory=list)

    def card_days(self) -> dict[str, list[CardDay]]:
        """Per card number, per day (oldest first): the changes of the card's slot while the
        card was inserted; the rest of the day ONBEKEND with kaart_in False."""
        days = {d.datum: d for d in self.dagen}
        if not days:
            return {}
        first_day, last_day = min(days), max(days)
        windows: dict[str, dict[date, list[tuple[int, int, int, int]]]] = {}
        for session in self.kaarten:
            end = session.uitgenomen or self.gedownload_op or self.periode_tot
            if end is None:
                continue
            day = max(session.ingestoken.date(), first_day)
            # Bounded by the unit's last day, so a damaged time cannot loop long.
            for _ in range(max(0, (last_day - day).days + 1)):
                start = midnight(day)
                if start >= end or day > last_day:
                    break
                if day in days:
                    a = max(0, _minutes(session.ingestoken - start))
                    b = min(1440, _minutes(end - start))
                    if b > a:
                        km = _session_km(session, day, days)
                        windows.setdefault(session.kaartnummer, {}).setdefault(day, []).append(
                            (a, b, session.slot, km)
                        )
                day += timedelta(days=1)
        out: dict[str, list[CardDay]] = {}
        for number, per_day in windows.items():
            out[number] = [_card_day(days[day], spans) for day, spans in sorted(per_day.items())]
        return out


def _minutes(delta: timedelta) -> int:
    return int(delta.total_seconds() // 60)


def _session_km(session: CardSession, day: date, days: dict[date, VuDay]) -> int:
    """Kilometres driven with the card in on that day, from the odometer readings."""
    start = midnight(day)
    begin = session.km_in if session.ingestoken >= start else days[day].km_middernacht
    next_day = days.get(day + timedelta(days=1))
    if session.uitgenomen is not None and session.uitgenomen < start + timedelta(days=1):
        end = session.km_uit
    else:
        end = next_day.km_middernacht if next_day else None
    if begin is None or end is None or end < begin:
        return 0
    return end - begin


def _card_day(day: VuDay, spans: list[tuple[int, int, int, int]]) -> CardDay:
    changes: list[Change] = []
    cursor = 0
    for a, b, slot, _km in sorted(spans):
        if a > cursor:
            changes.append(Change(cursor, ONBEKEND, kaart_in=False, slot=slot))
        a = max(a, cursor)
        if b <= a:
            continue
        slot_changes = day.wijzigingen.get(slot, [])
        # The activity already going on when the card went in counts from that minute.
        current = None
        for change in slot_changes:
            if change.minuut <= a:
                current = change
        if current is None:
            changes.append(Change(a, ONBEKEND, kaart_in=False, slot=slot))
        else:
            changes.append(_inserted(current, a))
        changes.extend(_inserted(c, c.minuut) for c in slot_changes if a < c.minuut < b)
        if b < 1440:
            changes.append(Change(b, ONBEKEND, kaart_in=False, slot=slot))
        cursor = b
    return CardDay(
        datum=day.datum,
        aanwezigheid=0,
        afstand_km=sum(km for *_rest, km in spans),
        wijzigingen=_dedupe(changes),
    )


def _inserted(change: Change, minute: int) -> Change:
    return Change(
        minute,
        change.activiteit,
        kaart_in=True,
        bemanning=change.bemanning,
        handmatig=False,
        slot=change.slot,
    )


def _dedupe(changes: list[Change]) -> list[Change]:
    """One change per minute (the later one wins), in minute order."""
    by_minute: dict[int, Change] = {}
    for change in changes:
        by_minute[change.minuut] = change
    return [by_minute[m] for m in sorted(by_minute)]


__all__ = [
    "NIET_GEVERIFIEERD",
    "CardDay",
    "CardDownload",
    "CardSession",
    "CurrentUse",
    "DamagedFile",
    "GnssPlace",
    "Place",
    "VehicleUse",
    "VuDay",
    "VuDownload",
]
