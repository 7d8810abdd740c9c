"""API shapes of a planner's corrections of recorded hours and the driver's answer."""

from __future__ import annotations

from datetime import datetime
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
