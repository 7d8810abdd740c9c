"""Payable hours under the CAO Beroepsgoederenvervoer over de weg, as a pure computation:
rule sets as data (rules.py, checked in checks.py, stored as JSON by store.py), the Dutch
holidays the CAO pays (holidays.py) and a driver's ISO week turned into paid minutes by
category (week.py with pay.py), daily allowances (trips.py) and break warnings (breaks.py).
docs/cao.md cites the CAO's articles each rule follows.

No database and no Flask here: callers pass plain values (work days with activities, aware
datetimes, rule sets) and get plain values back (`WeekResult.to_json()`).
"""

from portal.holidays import CAO_FEESTDAGEN, FEESTDAGEN, feestdagen
from portal.hours.cao.checks import (
    InvalidPayRules,
    RuleError,
    check_pay_rules,
    validate_pay_rules,
    validate_series,
)
from portal.hours.cao.rules import (
    OVERUREN_GRENZEN,
    SAMENLOOP,
    Allowances,
    CaoError,
    DayRate,
    FixedAmount,
    HourRate,
    PayRules,
    Window,
    cao_preset,
    pay_rules_for_week,
)
from portal.hours.cao.store import pay_rules_from_json, pay_rules_to_json
from portal.hours.cao.week import (
    AMSTERDAM,
    Activity,
    BeyondContract,
    Day,
    Irregular,
    Total,
    WeekResult,
    WorkDay,
    compute_week,
)

__all__ = [
    "AMSTERDAM",
    "CAO_FEESTDAGEN",
    "FEESTDAGEN",
    "OVERUREN_GRENZEN",
    "SAMENLOOP",
    "Activity",
    "Allowances",
    "BeyondContract",
    "CaoError",
    "Day",
    "DayRate",
    "FixedAmount",
    "HourRate",
    "InvalidPayRules",
    "Irregular",
    "PayRules",
    "RuleError",
    "Total",
    "WeekResult",
    "Window",
    "WorkDay",
    "cao_preset",
    "check_pay_rules",
    "compute_week",
    "feestdagen",
    "pay_rules_for_week",
    "pay_rules_from_json",
    "pay_rules_to_json",
    "validate_pay_rules",
    "validate_series",
]
