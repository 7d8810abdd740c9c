"""JSON shapes of driving and rest times: a card day with its changes and data notes, the
remaining driving time, an infringement and the infringements' query. portal.tacho.schemas
offers them as well."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from portal.schemas import Timestamp, in_range
from portal.tacho.segments import (
    KLOK_ACHTER,
    cap_minutes,
    clock_notes,
    day_totals,
    midnight,
    periods,
)
from portal.types import iso

Activiteit = Literal["rijden", "werk", "beschikbaar", "rust", "onbekend"]
Bron = Literal["kaart", "app", "kaart+app"]
Day = Annotated[date, AfterValidator(in_range)]


class TachoWijziging(BaseModel):
    """One activity change of a tachograph day."""

    model_config = ConfigDict(title="TachoWijziging")

    tijd: Timestamp = Field(description="when the activity began (UTC, as the tachograph counts)")
    activiteit: Activiteit = Field(
        description="rijden (driving), werk (other work), beschikbaar (availability), rust "
        "(break or rest), onbekend (card out and nothing entered by hand)"
    )
    kaart_in: bool = Field(description="whether the card was in a tachograph")
    bemanning: bool = Field(description="multi-manning (crew) rather than single driver")
    handmatig: bool = Field(description="entered by hand on the tachograph (card out)")
    minuten: int = Field(
        ge=0,
        description="how long it lasted: until the next change as recorded, max(0, next "
        "minute - this minute); the last until midnight, or on the download day until the "
        "download",
    )


class TachoNotitie(BaseModel):
    """A data note on a tachograph day. `klok_achter`: the card went to a vehicle unit whose
    clock was behind, so the next change was recorded `minuten` earlier than the one before
    (`van` back to `naar`); each change still lasts until the next one, so nothing is
    counted twice or lost, and the day's minutes add up to 1440 plus `minuten`."""

    model_config = ConfigDict(title="TachoNotitie")

    code: Literal["klok_achter"] = Field(description="a stable code")
    minuten: int = Field(ge=1, description="how many minutes the clock was behind")
    van: Timestamp = Field(description="the change recorded before the step back")
    naar: Timestamp = Field(description="the change recorded after it, at an earlier minute")
    melding: str = Field(
        description="the note in English",
        examples=["clock of another vehicle unit behind by 8 minutes"],
    )


class TachoDag(BaseModel):
    """One UTC day of a tachograph download: minutes per activity and every change in the
    order the card recorded it, each lasting until the next. The minutes add up to 1440 (plus
    the minutes of a lagging clock, see notities), except on the download day, which ends at
    the download."""

    model_config = ConfigDict(title="TachoDag")

    datum: date
    kaartnummer: str | None = Field(description="the card the day belongs to")
    rijden_min: int = Field(ge=0)
    werk_min: int = Field(ge=0)
    beschikbaar_min: int = Field(ge=0)
    rust_min: int = Field(ge=0)
    onbekend_min: int = Field(ge=0)
    afstand_km: int | None = Field(description="distance driven that day, as recorded")
    wijzigingen: list[TachoWijziging] = Field(description="in the order the card recorded them")
    notities: list[TachoNotitie] = Field(
        description="data notes on the day (empty: none), such as a vehicle unit's clock behind"
    )


class Rijtijden(BaseModel):
    """A driver's remaining driving time now under EU 561/2006, from the last card download
    plus the hours recorded in the app since. A figure is null where unknown time (card out
    with nothing entered) makes it impossible to tell; all are null without any data."""

    model_config = ConfigDict(title="Rijtijden")

    resterend_tot_onderbreking_min: int | None = Field(
        description="driving left before a break of 45 minutes is required"
    )
    resterend_vandaag_min: int | None = Field(
        description="driving left in this daily driving period (9 h, or 10 h while an "
        "extension is left this week)"
    )
    resterend_week_min: int | None = Field(description="driving left this week (56 h)")
    resterend_twee_weken_min: int | None = Field(
        description="driving left in this and last week together (90 h)"
    )
    volgende_dagrust_uiterlijk: Timestamp | None = Field(
        description="the latest moment the next daily rest must begin"
    )
    volgende_weekrust_uiterlijk: Timestamp | None = Field(
        description="the latest moment the next weekly rest must begin"
    )
    bron: Bron | None = Field(
        description="where the figures come from: kaart (card downloads), app (hours "
        "recorded in the app) or kaart+app; null without any data"
    )
    kaart_tot: Timestamp | None = Field(description="the last card download counted")


class Overtreding(BaseModel):
    """A finding of the EU 561/2006 check: an infringement, a check that unknown time made
    impossible (soort onvolledig: neither passed nor failed), or a finding over time out of
    the regulation's scope (soort vrijgesteld: never an infringement; docs/eu561-scope.md)."""

    model_config = ConfigDict(title="Overtreding")

    chauffeur: str = Field(description="the driver's user_token")
    chauffeur_naam: str
    soort: Literal["overtreding", "onvolledig", "vrijgesteld"]
    regel: Literal[
        "dagelijkse_rijtijd",
        "verlengde_rijtijd",
        "wekelijkse_rijtijd",
        "twee_weken_rijtijd",
        "onderbreking",
        "dagelijkse_rust",
        "verkorte_rust",
        "wekelijkse_rust",
    ]
    artikel: str = Field(examples=["561/2006 art. 7"])
    ernst: Literal["licht", "ernstig", "zeer_ernstig", "zeer_ernstig_max"] | None = Field(
        description="severity as in Directive 2006/22 Annex III (minor, serious, very "
        "serious, most serious); null for onvolledig and vrijgesteld"
    )
    begin: Timestamp
    eind: Timestamp
    overschrijding_min: int | None = Field(description="by how many minutes")
    gemeten_min: int | None = Field(description="the measured value in minutes")
    grens_min: int | None = Field(description="the limit in minutes")
    bron: Literal["kaart", "app"]
    vrijstelling: str | None = Field(
        default=None,
        examples=["3(b)"],
        description="soort vrijgesteld: the article of Reg. 561/2006 that puts the time out "
        "of scope (3(b): a vehicle of at most 40 km/h; 13(1)(..): a national exemption)",
    )


class OvertredingQuery(BaseModel):
    """Days van through tot in the carrier's time zone (at most a year); default: the last
    28 days."""

    model_config = ConfigDict(extra="forbid")

    van: Day | None = Field(default=None, description="first day (default: 27 days ago)")
    tot: Day | None = Field(default=None, description="last day, included (default: today)")
    chauffeur: str | None = Field(
        default=None, max_length=64, description="a driver's user_token: only theirs"
    )


def note_message(code: str, params: dict) -> str:
    """A day's data note in English, for the API (the portal words it in wording.note)."""
    if code == KLOK_ACHTER:
        n = params["minuten"]
        return f"clock of another vehicle unit behind by {n} minute{'' if n == 1 else 's'}"
    return code


def serialize_day(kaartnummer: str | None, day, until: datetime | None) -> dict:
    """A card day (parsed) as TachoDag: its changes in recorded order up to `until` on the
    download day, each with its duration, the durations added up per activity, and its notes."""
    cap = cap_minutes(day.datum, until)
    minutes = day_totals(day.datum, day.wijzigingen, until=until)
    start = midnight(day.datum)

    def at(minute: int) -> str:
        return iso(start + timedelta(minutes=minute))

    return {
        "datum": day.datum.isoformat(),
        "kaartnummer": kaartnummer,
        "rijden_min": minutes["rijden"],
        "werk_min": minutes["werk"],
        "beschikbaar_min": minutes["beschikbaar"],
        "rust_min": minutes["rust"],
        "onbekend_min": minutes["onbekend"],
        "afstand_km": getattr(day, "afstand_km", None),
        "wijzigingen": [
            {
                "tijd": at(p.change.minuut),
                "activiteit": p.activiteit,
                "kaart_in": p.change.kaart_in,
                "bemanning": p.change.bemanning,
                "handmatig": p.change.handmatig,
                "minuten": p.minuten,
            }
            for p in periods(day.wijzigingen, cap=cap)
            if until is None or start + timedelta(minutes=p.change.minuut) < until
        ],
        "notities": [
            {
                "code": code,
                "minuten": params["minuten"],
                "van": at(params["van"]),
                "naar": at(params["naar"]),
                "melding": note_message(code, params),
            }
            for code, params in clock_notes(day.wijzigingen, cap=cap)
        ],
    }


def serialize_budget(found) -> dict:
    """A driver's remaining time (driving.DriverBudget) as Rijtijden."""
    budget = found.budget
    return {
        "resterend_tot_onderbreking_min": budget.resterend_tot_onderbreking_min if budget else None,
        "resterend_vandaag_min": budget.resterend_vandaag_min if budget else None,
        "resterend_week_min": budget.resterend_week_min if budget else None,
        "resterend_twee_weken_min": budget.resterend_twee_weken_min if budget else None,
        "volgende_dagrust_uiterlijk": iso(budget.volgende_dagrust_uiterlijk) if budget else None,
        "volgende_weekrust_uiterlijk": iso(budget.volgende_weekrust_uiterlijk) if budget else None,
        "bron": found.bron,
        "kaart_tot": iso(found.card_until),
    }


def serialize_finding(item) -> dict:
    """A driver's finding (driving.DriverFinding) as Overtreding."""
    f = item.finding
    return {
        "chauffeur": item.driver.user_token,
        "chauffeur_naam": item.driver.naam,
        "soort": f.soort,
        "regel": f.regel,
        "artikel": f.artikel,
        "ernst": f.ernst,
        "begin": iso(f.begin),
        "eind": iso(f.eind),
        "overschrijding_min": f.overschrijding_min,
        "gemeten_min": f.gemeten_min,
        "grens_min": f.grens_min,
        "bron": f.bron,
        "vrijstelling": f.vrijstelling,
    }
