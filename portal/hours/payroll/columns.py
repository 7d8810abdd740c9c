"""The payroll export's columns: the payroll categories in file order, named and coded the
way the carrier's payroll package imports them (the carrier's settings, kept by
portal/accounts/payroll_columns.py, over the default names), and each column's value in a
week's figures."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal

from flask import has_request_context
from flask_babel import gettext

from portal.accounts import payroll_columns as settings
from portal.accounts.service import carrier_zone
from portal.hours.pay_models import PayrollExport
from portal.hours.payroll import rulesets
from portal.labels import window_name

WINDOW = "onregelmatig:"  # a window's key: "onregelmatig:avond"


def N_(text: str) -> str:
    """A default header name, marked for the catalog: translated when a batch is made."""
    return text


# Default header names, in the language of the planner who makes the export (a batch keeps
# the names it was made with); names the carrier gave a column are kept as typed.
IDENTITY = {
    "personeelsnummer": N_("Personeelsnummer"),
    "naam": N_("Naam"),
    "jaar": N_("Jaar"),
    "week": N_("Week"),
}
HOURS = {
    "normaal": N_("Uren normaal"),
    "meeruren": N_("Meeruren 100%"),
    "overuren_130": N_("Overuren 130%"),
    "zaterdag_150": N_("Zaterdag 150%"),
    "zondag_200": N_("Zon- en feestdagen 200%"),
}
TOTAL_KEYS = {
    "normaal": "normaal_min",
    "meeruren": "meeruren_min",
    "overuren_130": "overuren_130_min",
    "zaterdag_150": "zaterdag_150_min",
    "zondag_200": "zondag_200_min",
    "nachttoeslag": "nachttoeslag_min",
    "feestdag": "feestdag_min",
    "aanvulling": "aanvulling_min",
}
# Of the Saturday and Sunday minutes, those beyond the contract hours: payroll pays them at
# the full rate, those within the contract at the surcharge only (cao/week.py).
BEYOND = {
    "zaterdag_boven_contract": (N_("Zaterdag 150% boven contract"), "zaterdag_150_min"),
    "zondag_boven_contract": (N_("Zon- en feestdagen 200% boven contract"), "zondag_200_min"),
}
MONEY = {"verblijfkosten": N_("Verblijfkosten")}
# After the windows (then money): night-trip hours, paid holidays not worked, the make-up.
TOP_UP = {
    "nachttoeslag": N_("Nachttoeslag eendaagse ritten"),
    "feestdag": N_("Doorbetaalde feestdagen"),
    "aanvulling": N_("Aanvulling tot contracturen"),
}
WINDOW_NAME = N_("Onregelmatig %(venster)s %(procent)s%%")
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Column:
    key: str
    soort: str  # "tekst", "getal", "uren" or "geld"
    standaard: str  # the default name
    naam: str
    code: str
    mee: bool
    bron: str = ""  # the default name in Dutch, as the catalog knows it

    def header(self, kop: str) -> str:
        """The header text: the name, or with kop "code" the code (the name when none)."""
        return (self.code or self.naam) if kop == "code" else self.naam


def current_windows(*, carrier_id: uuid.UUID) -> list[tuple[str, int]]:
    """The irregular-hours windows above 100% of the rule set valid today, as (name, %)."""
    sets = rulesets.rule_sets(carrier_id=carrier_id)
    today = datetime.now(carrier_zone(carrier_id)).date()
    valid = [s for s in sets if s.geldig_vanaf <= today] or sets[:1]
    current = max(valid, key=lambda s: s.geldig_vanaf)
    return [(v.naam, v.procent) for v in current.vensters if v.procent > 100]


def _windows(carrier_id: uuid.UUID, figures: Iterable[dict]) -> list[tuple[str, int]]:
    """The current rule set's windows, then those only earlier weeks name, first seen first."""
    found = dict(current_windows(carrier_id=carrier_id))
    for cijfers in figures:
        for entry in cijfers["totaal"].get("onregelmatig", []):
            found.setdefault(entry["venster"], entry["procent"])
    return list(found.items())


def column_settings(
    *, carrier_id: uuid.UUID, figures: Iterable[dict] = ()
) -> tuple[str, list[Column]]:
    """The header choice and every column in file order, the carrier's settings over the
    defaults; the windows are the current rule set's and those the figures name."""
    stored = settings.payroll_columns(carrier_id=carrier_id)
    defaults = [
        (k, "getal" if k in ("jaar", "week") else "tekst", n, {}) for k, n in IDENTITY.items()
    ]
    defaults += [(k, "uren", n, {}) for k, n in HOURS.items()]
    defaults += [(k, "uren", n, {}) for k, (n, _sub) in BEYOND.items()]
    defaults += [
        (WINDOW + naam, "uren", WINDOW_NAME, {"venster": naam, "procent": procent})
        for naam, procent in _windows(carrier_id, figures)
    ]
    defaults += [(k, "uren", n, {}) for k, n in TOP_UP.items()]
    defaults += [(k, "geld", n, {}) for k, n in MONEY.items()]
    own = stored["kolommen"]
    columns = []
    for key, soort, source, params in defaults:
        bron = source % params if params else source
        # In the language of the request; Dutch outside one (the demo, a command).
        standaard = bron
        if has_request_context():
            shown = params | ({"venster": window_name(params["venster"])} if params else {})
            standaard = gettext(source, **shown)
        mine = {"naam": standaard, "code": "", "mee": True} | own.get(key, {})
        if mine["naam"] in (bron, standaard):
            mine["naam"] = standaard  # the default name, in the language of the page
        columns.append(Column(key, soort, standaard, bron=bron, **mine))
    return stored["kop"], columns


def default_names_as_source(*, columns: list[Column], kolommen: dict) -> dict:
    """The settings to save with a default name kept as its Dutch source, so it follows the
    language of whoever exports next rather than staying in the language it was saved in."""
    known = {c.key: c for c in columns}
    out = {}
    for key, column in kolommen.items():
        found = known.get(key)
        if found is not None and found.bron and column.get("naam") == found.standaard:
            column = column | {"naam": found.bron}
        out[key] = column
    return out


def columns_of_batch(batch: PayrollExport) -> tuple[str, list[Column]]:
    data = batch.kolommen or {}
    return data.get("kop", "naam"), [Column(**c) for c in data.get("kolommen", [])]


def hours(minutes: int) -> Decimal:
    """Minutes as decimal hours, two decimals: 2310 -> 38.50."""
    return (Decimal(minutes) / 60).quantize(CENT, rounding=ROUND_HALF_UP)


def value(column: Column, cijfers: dict):
    """A column's value in a week's figures: text, an int, or a Decimal."""
    if column.key in ("personeelsnummer", "naam"):
        return cijfers["chauffeur"][column.key] or ""
    if column.key in ("jaar", "week"):
        return int(cijfers[column.key])
    totaal = cijfers["totaal"]
    if column.key.startswith(WINDOW):
        name = column.key[len(WINDOW) :]
        return hours(sum(o["min"] for o in totaal["onregelmatig"] if o["venster"] == name))
    if column.key in BEYOND:
        return hours(totaal.get("boven_contract", {}).get(BEYOND[column.key][1], 0))
    if column.key == "verblijfkosten":
        return Decimal(totaal["verblijfkosten_eur"]).quantize(CENT, rounding=ROUND_HALF_UP)
    return hours(totaal.get(TOTAL_KEYS[column.key], 0))
