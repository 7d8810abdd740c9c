"""JSON shapes of hours: Werkdag, Activiteit, ActiviteitCompact, WerkdagMetActiviteiten and
UrenPerChauffeur (the seed names them; their fields are ours, Dutch like the seed's)."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from portal.hours import totals
from portal.hours.models import SOORTEN, Activity, WorkDay
from portal.hours.totals import IsoWeek
from portal.schemas import InModel, Timestamp, in_range, not_null
from portal.types import iso

Soort = Literal["rijden", "laden", "lossen", "wachten", "pauze", "overig_werk", "beschikbaarheid"]
SOORT_HELP = (
    "rijden, laden, lossen, wachten, pauze, overig_werk or beschikbaarheid; werktijd (working "
    "time) counts rijden, laden, lossen, wachten and overig_werk"
)
Opmerking = Annotated[str, Field(max_length=2000)]


# --- out ---------------------------------------------------------------------------------


class ActiviteitCompact(BaseModel):
    """An activity within its work day."""

    model_config = ConfigDict(title="ActiviteitCompact")

    id: uuid.UUID
    soort: Soort = Field(description=SOORT_HELP)
    begin: Timestamp
    einde: Timestamp | None = Field(description="null while the activity runs")
    lopend: bool = Field(description="the activity runs (no einde yet)")
    duur_minuten: int = Field(description="its length in minutes; a running one up to now")
    taak_id: uuid.UUID | None = Field(description="the driver's task it was for")
    opmerking: str | None
    versie: int = Field(description="its version: the ETag for If-Match")


class Activiteit(ActiviteitCompact):
    """An activity with its work day and driver."""

    model_config = ConfigDict(title="Activiteit")

    werkdag_id: uuid.UUID
    chauffeur_id: uuid.UUID
    transporteur_id: uuid.UUID
    created_at: Timestamp
    updated_at: Timestamp


class Werkdag(BaseModel):
    """A driver's work day; it may cross midnight."""

    model_config = ConfigDict(title="Werkdag")

    id: uuid.UUID
    transporteur_id: uuid.UUID
    chauffeur_id: uuid.UUID
    gestart_op: Timestamp
    beeindigd_op: Timestamp | None = Field(description="null while the day runs")
    lopend: bool = Field(description="the day runs (not ended yet)")
    opmerking: str | None
    datum: date = Field(description="the day it began, in the carrier's time zone")
    week: str = Field(description="the ISO week it began in, e.g. 2026-W47", examples=["2026-W47"])
    vergrendeld: bool = Field(
        description="a week it touches is approved: changes answer 409 until it is reopened"
    )
    versie: int = Field(description="its version: the ETag for If-Match")
    created_at: Timestamp
    updated_at: Timestamp


class WerkdagMetActiviteiten(Werkdag):
    """A work day with its activities, in order."""

    model_config = ConfigDict(title="WerkdagMetActiviteiten")

    activiteiten: list[ActiviteitCompact]


class MinutenPerSoort(BaseModel):
    model_config = ConfigDict(title="MinutenPerSoort")

    rijden: int
    laden: int
    lossen: int
    wachten: int
    pauze: int
    overig_werk: int
    beschikbaarheid: int


class UrenPerSoort(BaseModel):
    model_config = ConfigDict(title="UrenPerSoort")

    rijden: float
    laden: float
    lossen: float
    wachten: float
    pauze: float
    overig_werk: float
    beschikbaarheid: float


class Totalen(BaseModel):
    """Time per activity kind in minutes and in hours (two decimals), and the sums."""

    model_config = ConfigDict(title="Totalen")

    minuten: MinutenPerSoort
    uren: UrenPerSoort
    werktijd_minuten: int = Field(description="rijden + laden + lossen + wachten + overig_werk")
    werktijd_uren: float
    totaal_minuten: int = Field(description="every kind, pauze and beschikbaarheid included")
    totaal_uren: float


class DagTotalen(Totalen):
    model_config = ConfigDict(title="DagTotalen")

    datum: date = Field(description="a day in the carrier's time zone")
    week: str


class WeekTotalen(Totalen):
    model_config = ConfigDict(title="WeekTotalen")

    week: str = Field(examples=["2026-W47"])
    jaar: int = Field(description="the ISO year")
    weeknummer: int
    goedgekeurd: bool
    goedgekeurd_op: Timestamp | None


class UrenPerChauffeur(BaseModel):
    """One driver's hours over van through tot."""

    model_config = ConfigDict(title="UrenPerChauffeur")

    chauffeur_id: uuid.UUID
    user_token: str
    naam: str
    actief: bool
    van: date
    tot: date
    tijdzone: str = Field(description="the carrier's time zone: days are its calendar days")
    lopend: bool = Field(description="a running activity counts in, up to now")
    totaal: Totalen
    per_dag: list[DagTotalen] = Field(description="the days with time, in order")
    per_week: list[WeekTotalen] = Field(
        description="every ISO week the period touches, counting its days inside the period"
    )


# --- in ----------------------------------------------------------------------------------


class WerkdagStart(InModel):
    """Start a work day: now, or at gestart_op. With beeindigd_op it records a whole day."""

    model_config = ConfigDict(title="WerkdagStart")

    gestart_op: Timestamp | None = Field(default=None, description="default: now")
    beeindigd_op: Timestamp | None = None
    opmerking: Opmerking | None = None


class WerkdagUpdate(InModel):
    """End a work day or correct it; only the fields sent change. `beeindigd_op` null makes
    the day run again. Ending a day ends its running activity at the same moment."""

    model_config = ConfigDict(title="WerkdagUpdate")

    gestart_op: Timestamp | None = Field(default=None, json_schema_extra=not_null)
    beeindigd_op: Timestamp | None = None
    opmerking: Opmerking | None = None

    @model_validator(mode="after")
    def _start_not_null(self):
        if "gestart_op" in self.model_fields_set and self.gestart_op is None:
            raise ValueError("gestart_op cannot be null")
        return self


class ActiviteitIn(InModel):
    """Record an activity in the work day: from begin (default now) to einde (leave it out
    while the activity runs)."""

    model_config = ConfigDict(title="ActiviteitIn")

    soort: Soort = Field(description=SOORT_HELP)
    begin: Timestamp | None = Field(default=None, description="default: now")
    einde: Timestamp | None = None
    taak_id: uuid.UUID | None = Field(default=None, description="one of the driver's tasks")
    opmerking: Opmerking | None = None


class ActiviteitUpdate(InModel):
    """Correct an activity or end it (send einde); only the fields sent change."""

    model_config = ConfigDict(title="ActiviteitUpdate")

    soort: Soort | None = Field(default=None, description=SOORT_HELP, json_schema_extra=not_null)
    begin: Timestamp | None = Field(default=None, json_schema_extra=not_null)
    einde: Timestamp | None = None
    taak_id: uuid.UUID | None = None
    opmerking: Opmerking | None = None

    @model_validator(mode="after")
    def _not_null(self):
        nulled = [
            name
            for name in ("soort", "begin")
            if name in self.model_fields_set and getattr(self, name) is None
        ]
        if nulled:
            raise ValueError(f"{', '.join(nulled)} cannot be null")
        return self


Bound = Annotated[date | datetime, AfterValidator(in_range)]


class WerkdagQuery(BaseModel):
    """Work days overlapping van..tot; without them, every day, newest first."""

    model_config = ConfigDict(extra="forbid")

    van: Bound | None = Field(
        default=None, description="from (a date in the carrier's time zone, or a time)"
    )
    tot: Bound | None = Field(
        default=None, description="until (a date: up to and including that day, or a time)"
    )
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


Day = Annotated[date, AfterValidator(in_range)]


class UrenQuery(BaseModel):
    """Days van through tot in the carrier's time zone (at most a year); default: the
    current ISO week."""

    model_config = ConfigDict(extra="forbid")

    van: Day | None = Field(default=None, description="first day (default: this week's Monday)")
    tot: Day | None = Field(default=None, description="last day, included (default: Sunday)")
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)


# --- serializing ---------------------------------------------------------------------------


def duration_minutes(activity: Activity, day_began, now: datetime) -> int:
    end = totals.counted_end(activity.begin, activity.einde, day_began, now)
    return totals.minutes((end - activity.begin).total_seconds())


def serialize_activity_compact(activity: Activity, day_began, now: datetime) -> dict:
    return {
        "id": str(activity.id),
        "soort": activity.soort,
        "begin": iso(activity.begin),
        "einde": iso(activity.einde),
        "lopend": activity.einde is None,
        "duur_minuten": duration_minutes(activity, day_began, now),
        "taak_id": str(activity.taak_id) if activity.taak_id else None,
        "opmerking": activity.opmerking,
        "versie": activity.versie,
    }


def serialize_activity(activity: Activity, day_began, now: datetime) -> dict:
    return {
        **serialize_activity_compact(activity, day_began, now),
        "werkdag_id": str(activity.werkdag_id),
        "chauffeur_id": str(activity.chauffeur_id),
        "transporteur_id": str(activity.transporteur_id),
        "created_at": iso(activity.created_at),
        "updated_at": iso(activity.updated_at),
    }


def serialize_work_day(
    day: WorkDay, *, zone, locked: bool, activities: list[Activity] | None = None, now=None
) -> dict:
    local = day.gestart_op.astimezone(zone).date()
    data = {
        "id": str(day.id),
        "transporteur_id": str(day.transporteur_id),
        "chauffeur_id": str(day.chauffeur_id),
        "gestart_op": iso(day.gestart_op),
        "beeindigd_op": iso(day.beeindigd_op),
        "lopend": day.beeindigd_op is None,
        "opmerking": day.opmerking,
        "datum": local.isoformat(),
        "week": IsoWeek.of(local).label,
        "vergrendeld": locked,
        "versie": day.versie,
        "created_at": iso(day.created_at),
        "updated_at": iso(day.updated_at),
    }
    if activities is not None:
        data["activiteiten"] = [
            serialize_activity_compact(a, day.gestart_op, now) for a in activities
        ]
    return data


def _per_soort(values: dict[str, float]) -> dict:
    return {soort: values[soort] for soort in SOORTEN}


def serialize_totals(t: totals.Totals) -> dict:
    return {
        "minuten": _per_soort(t.minuten),
        "uren": _per_soort({s: totals.hours(m) for s, m in t.minuten.items()}),
        "werktijd_minuten": t.werktijd,
        "werktijd_uren": totals.hours(t.werktijd),
        "totaal_minuten": t.totaal,
        "totaal_uren": totals.hours(t.totaal),
    }


def serialize_driver_hours(row, *, start: date, end: date, zone) -> dict:
    """A weeks.HoursRow as UrenPerChauffeur."""
    hours = row.hours
    return {
        "chauffeur_id": str(row.driver.id),
        "user_token": row.driver.user_token,
        "naam": row.driver.naam,
        "actief": row.driver.actief,
        "van": start.isoformat(),
        "tot": end.isoformat(),
        "tijdzone": zone.key,
        "lopend": hours.lopend,
        "totaal": serialize_totals(hours.totaal),
        "per_dag": [
            {"datum": day.isoformat(), "week": IsoWeek.of(day).label, **serialize_totals(t)}
            for day, t in hours.per_dag.items()
        ],
        "per_week": [
            {
                "week": week.label,
                "jaar": week.jaar,
                "weeknummer": week.week,
                "goedgekeurd": week in row.approvals,
                "goedgekeurd_op": iso(row.approvals[week].goedgekeurd_op)
                if week in row.approvals
                else None,
                **serialize_totals(t),
            }
            for week, t in hours.per_week.items()
        ],
    }


class WeekApprovalOut(BaseModel):
    """A driver's week a planner approved (the werkweek.goedgekeurd event's data)."""

    model_config = ConfigDict(title="WeekApproval")

    id: uuid.UUID
    chauffeur_id: uuid.UUID
    week: str = Field(examples=["2026-W47"])
    jaar: int
    weeknummer: int
    goedgekeurd_op: Timestamp
    goedgekeurd_door: uuid.UUID | None = Field(description="the planner's user id")


def serialize_week_approval(approval, week: IsoWeek) -> dict:
    return {
        "id": str(approval.id),
        "chauffeur_id": str(approval.chauffeur_id),
        "week": week.label,
        "jaar": week.jaar,
        "weeknummer": week.week,
        "goedgekeurd_op": iso(approval.goedgekeurd_op),
        "goedgekeurd_door": str(approval.goedgekeurd_door) if approval.goedgekeurd_door else None,
    }
