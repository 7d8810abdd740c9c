"""Payable hours under the CAO Beroepsgoederenvervoer over de weg, as a pure computation:
rule sets as data (rules.py), the Dutch holidays the CAO pays (holidays.py) and a driver's
ISO week turned into paid minutes by category and daily allowances (week.py).

No database and no Flask here: callers pass plain values (work days with activities, aware
datetimes, rule sets) and get plain values back (`Weekresultaat.to_json()`).
"""

from portal.hours.cao.holidays import CAO_FEESTDAGEN, FEESTDAGEN, feestdagen
from portal.hours.cao.rules import (
    CaoFout,
    Dagtarief,
    OngeldigeRegelset,
    Regelfout,
    Regelset,
    Uurtarief,
    Vastbedrag,
    Venster,
    Verblijfkosten,
    cao_preset,
    controleer_regelset,
    regelset_naar_json,
    regelset_uit_json,
    regelset_voor_week,
    valideer_reeks,
    valideer_regelset,
)
from portal.hours.cao.week import (
    AMSTERDAM,
    Activiteit,
    BovenContract,
    Dag,
    Onregelmatig,
    Totaal,
    Weekresultaat,
    Werkdag,
    bereken_week,
)

__all__ = [
    "AMSTERDAM",
    "CAO_FEESTDAGEN",
    "FEESTDAGEN",
    "Activiteit",
    "BovenContract",
    "CaoFout",
    "Dag",
    "Dagtarief",
    "OngeldigeRegelset",
    "Onregelmatig",
    "Regelfout",
    "Regelset",
    "Totaal",
    "Uurtarief",
    "Vastbedrag",
    "Venster",
    "Verblijfkosten",
    "Weekresultaat",
    "Werkdag",
    "bereken_week",
    "cao_preset",
    "controleer_regelset",
    "feestdagen",
    "regelset_naar_json",
    "regelset_uit_json",
    "regelset_voor_week",
    "valideer_reeks",
    "valideer_regelset",
]
