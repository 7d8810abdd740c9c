"""Payable hours under the CAO Beroepsgoederenvervoer over de weg, as a pure computation:
rule sets as data (rules.py, checked in checks.py, stored as JSON by store.py), the Dutch
holidays the CAO pays (holidays.py) and a driver's ISO week turned into paid minutes by
category (week.py with pay.py), daily allowances (trips.py) and break warnings (breaks.py).
docs/cao.md cites the CAO's articles each rule follows.

No database and no Flask here: callers pass plain values (work days with activities, aware
datetimes, rule sets) and get plain values back (`Weekresultaat.to_json()`).
"""

from portal.hours.cao.checks import (
    OngeldigeRegelset,
    Regelfout,
    controleer_regelset,
    valideer_reeks,
    valideer_regelset,
)
from portal.hours.cao.holidays import CAO_FEESTDAGEN, FEESTDAGEN, feestdagen
from portal.hours.cao.rules import (
    OVERUREN_GRENZEN,
    SAMENLOOP,
    CaoFout,
    Dagtarief,
    Regelset,
    Uurtarief,
    Vastbedrag,
    Venster,
    Verblijfkosten,
    cao_preset,
    regelset_voor_week,
)
from portal.hours.cao.store import regelset_naar_json, regelset_uit_json
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
    "OVERUREN_GRENZEN",
    "SAMENLOOP",
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
