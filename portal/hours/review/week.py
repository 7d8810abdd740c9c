"""A planner's review of a driver's week before approving it: the payable figures, what is
off (a day over the rule set's maximum, six hours on end without a break, too little break,
driving on the tachograph card on a day without a work day in the app) and the corrections
with the driver's answers."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from portal.hooks import Provider
from portal.hours.payroll import payable
from portal.hours.totals import IsoWeek

driving_days = Provider(
    "hours.driving_days",
    """A driver's tachograph days in [start, end), asked with carrier_id, driver_id, start,
    end and now: each with its `datum` and its `verschillen` from the app's hours ((code,
    params) pairs). The tachograph (above hours) answers; unanswered, no days.""",
    default=(),
)


@dataclass(frozen=True)
class Warning:
    code: str
    datum: date
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Review:
    payable: payable.PayableWeek
    warnings: list[Warning]

    @property
    def can_approve(self) -> bool:
        return self.payable.onbeantwoord == 0


def week_review(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, week: IsoWeek, now: datetime | None = None
) -> Review:
    """The week's figures and warnings, days in order."""
    found = payable.payable_weeks(
        carrier_id=carrier_id, driver_ids={driver_id}, weeks=[week], now=now
    )[driver_id, week]
    warnings: list[Warning] = []
    if found.result is not None:
        max_uur = found.result.max_dag_min / 60
        for code, day in found.waarschuwingen:
            params = {"uur": f"{max_uur:g}"} if code == "dag_te_lang" else {}
            warnings.append(Warning(code, day, params))
    for view in driving_days(
        carrier_id=carrier_id,
        driver_id=driver_id,
        start=week.monday,
        end=week.monday + timedelta(days=7),
        now=now,
    ):
        for code, params in view.verschillen:
            if code == "rijden_zonder_werkdag":
                warnings.append(Warning(code, view.datum, dict(params)))
    warnings.sort(key=lambda w: w.datum)
    return Review(payable=found, warnings=warnings)
