"""API shapes of pay: a driver's payable hours of a week (payroll/payable.py), and a planner's
corrections of recorded hours with the driver's answer."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from portal.schemas import InModel


class ActiviteitStaat(BaseModel):
    """An activity's kind and times, before or after the correction."""

    soort: str
    begin: datetime
    einde: datetime | None


class Correctie(BaseModel):
    """A planner's correction of the driver's activity, with the reason and the answer."""

    model_config = ConfigDict(title="HoursCorrection")

    id: str = Field(description="the correction's id")
    activiteit_id: str = Field(description="the activity it changed")
    oud: ActiviteitStaat = Field(description="the activity as the driver recorded it")
    nieuw: ActiviteitStaat = Field(description="the activity as the planner corrected it")
    reden: str = Field(description="why the planner corrected it")
    door: str = Field(description="who corrected it")
    gemaakt_op: datetime
    reactie: Literal["akkoord", "opmerking"] | None = Field(
        description="the driver's answer; null while it waits for one (the week cannot be "
        "approved until every correction is answered)"
    )
    reactie_tekst: str | None = Field(description="the driver's comment")
    reactie_op: datetime | None


class CorrectieReactie(InModel):
    """The driver accepts a correction or comments on it."""

    reactie: Literal["akkoord", "opmerking"]
    tekst: str | None = Field(
        default=None,
        max_length=1000,
        description="the comment; required with `opmerking`, optional with `akkoord`",
    )


# --- payable hours (payroll/payable.py) ---------------------------------------------------------


class OnregelmatigUren(BaseModel):
    venster: str = Field(description="the irregular-hours window's name")
    procent: int = Field(description="its pay percentage, e.g. 130")
    min: int
    boven_contract_min: int = Field(description="of these, minutes beyond the contract hours")


class BovenContractUren(BaseModel):
    min: int = Field(description="paid minutes beyond the contract hours")
    zaterdag_150_min: int
    zondag_200_min: int


class BetaaldeUren(BaseModel):
    gewerkt_min: int = Field(
        description="paid minutes worked: normaal, meeruren, overuren_130, zaterdag_150 and "
        "zondag_200 add up to it"
    )
    normaal_min: int = Field(description="minutes within the contract hours at the hourly wage")
    meeruren_min: int = Field(
        description="minutes beyond the contract hours at the hourly wage (100%): weekday "
        "hours between the contract and where overtime starts (40 hours under the CAO up to "
        "2025), and overtime minutes that earn an irregular-hours surcharge instead"
    )
    overuren_130_min: int = Field(description="overtime minutes at the overtime rate")
    zaterdag_150_min: int
    zondag_200_min: int
    feestdag_min: int = Field(
        description="a paid public holiday on a weekday not worked: the service hours noted "
        "for it (CAO art. 64), not part of gewerkt_min"
    )
    nachttoeslag_min: int = Field(
        description="paid minutes of a one-day trip in the night window that also earn the "
        "night-trip surcharge (`nachttoeslag_procent` on top of their own rate)"
    )
    onregelmatig: list[OnregelmatigUren]
    boven_contract: BovenContractUren
    onbetaald_min: int = Field(description="recorded but unpaid minutes (breaks)")
    afwezig_min: int = Field(description="minutes away from the home base")
    verblijfkosten_eur: str = Field(
        description="daily allowances, a decimal string", examples=["12.34"]
    )


class BetaaldeDag(BetaaldeUren):
    datum: date
    feestdag: str | None = Field(description="the public holiday's name, if any")
    waarschuwingen: list[str] = Field(
        description="codes: dag_te_lang (over 15 paid hours), pauze_te_kort, "
        "langer_dan_6_uur_zonder_pauze"
    )


class BetaaldeWeekTotaal(BetaaldeUren):
    aanvulling_min: int = Field(
        description="minutes made up to the guaranteed contract hours: the contract less the "
        "paid minutes and the paid holiday minutes (never taken from another week)"
    )


class BetaaldeWeek(BaseModel):
    """A driver's ISO week as payable hours under the CAO Beroepsgoederenvervoer."""

    model_config = ConfigDict(title="PayableWeek")

    status: Literal["open", "goedgekeurd"]
    week: str = Field(examples=["2026-W48"])
    regelset_geldig_vanaf: date = Field(description="the first day of the rule set applied")
    contract_min: int = Field(description="the contract hours of the week, in minutes")
    overuren_grens: Literal["week_40", "contract", "dag_8"] = Field(
        description="where overtime started this week: weekday hours above 40 (`week_40`), "
        "above the contract hours up to 40 (`contract`, the CAO from 2026) or above 8 hours "
        "a day (`dag_8`, on-call workers)"
    )
    dubbele_bemanning: bool = Field(
        description="double manning: the overtime week runs to Saturday 07:00 and the "
        "Saturday rate starts then"
    )
    samenloop: Literal["hoogste", "onregelmatig"] = Field(
        description="where overtime meets an irregular-hours window: the higher rate, or "
        "the window's surcharge only"
    )
    nachttoeslag_procent: int = Field(
        description="the one-day night-trip surcharge in percent of the hourly wage (0: none)"
    )
    per_dag: list[BetaaldeDag]
    totaal: BetaaldeWeekTotaal
    correcties: list[Correctie] = Field(
        description="the planner's corrections of the week's activities, oldest first, each "
        "with its reason and the driver's answer"
    )
