"""A rule set as JSON, the way a carrier's rule sets are stored (cao_regelsets.regels).

A set saved before a field existed loads with the field's default (rules.PayRules): the
overtime rule of the CAO in force ("cao"), no double manning and the CAO's one-day
night-trip surcharge; `samenloop` is always stored, so a saved set keeps its own.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from datetime import date
from decimal import Decimal

from portal.hours.cao.rules import (
    Allowances,
    DayRate,
    FixedAmount,
    HourRate,
    PayRules,
    Window,
)

_DATACLASSES = {
    "vensters": Window,
    "uurtarieven": HourRate,
    "vaste_bedragen": FixedAmount,
    "verblijfkosten": Allowances,
    **dict.fromkeys(("eendaags", "eerste_dag", "tussendag", "laatste_dag"), DayRate),
}
_DECIMALS = ("contracturen", "bedrag_per_uur", "bedrag")
_DATES = ("geldig_vanaf", "extra_feestdagen")


def pay_rules_to_json(value):
    """A rule set (or a part of one) as JSON values: money and hours as decimal strings,
    dates as ISO dates."""
    if is_dataclass(value):
        return {f.name: pay_rules_to_json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple | list):
        return [pay_rules_to_json(item) for item in value]
    if isinstance(value, Decimal | date):
        return str(value)
    return value


def pay_rules_from_json(data: dict, cls: type = PayRules):
    """A rule set from pay_rules_to_json's output; ValueError when the shape is wrong.
    Check it with validate_pay_rules: this reads, it does not judge."""
    if not isinstance(data, dict):
        raise ValueError(f"{cls.__name__}: an object expected")
    known = {f.name for f in fields(cls)}
    if set(data) - known:
        raise ValueError(f"{cls.__name__}: unknown fields {sorted(set(data) - known)}")
    kwargs = {}
    for name, value in data.items():
        if name in _DATACLASSES and isinstance(value, list):
            value = tuple(pay_rules_from_json(item, _DATACLASSES[name]) for item in value)
        elif name in _DATACLASSES:
            value = pay_rules_from_json(value, _DATACLASSES[name])
        elif name in _DECIMALS:
            try:
                value = Decimal(str(value))
            except ArithmeticError:
                raise ValueError(f"{cls.__name__}.{name}: not a number") from None
        elif name in _DATES and isinstance(value, list):
            value = tuple(date.fromisoformat(item) for item in value)
        elif name in _DATES:
            value = date.fromisoformat(value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[name] = value
    try:
        return cls(**kwargs)
    except TypeError as error:  # a required field left out
        raise ValueError(f"{cls.__name__}: {error}") from None
