"""What a week's computation answers: per day and for the week the paid minutes by
category, the irregular-hours windows, the minutes earning the one-day night-trip
surcharge, the paid holiday not worked, the absence and its allowance, and warnings."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

# The figures a week adds up from its days.
OPTELBAAR = (
    "gewerkt_min",
    "normaal_min",
    "meeruren_min",
    "overuren_130_min",
    "zaterdag_150_min",
    "zondag_200_min",
    "feestdag_min",
    "nachttoeslag_min",
    "onbetaald_min",
    "afwezig_min",
    "verblijfkosten_eur",
)


@dataclass
class Irregular:
    venster: str
    procent: int
    min: int = 0
    boven_contract_min: int = 0


@dataclass
class BeyondContract:
    min: int = 0
    zaterdag_150_min: int = 0
    zondag_200_min: int = 0


@dataclass
class Hours:
    """The paid minutes of a day or a week by category: normaal, meeruren, overuren_130,
    zaterdag_150 and zondag_200 add up to gewerkt; feestdag (a paid holiday not worked) and
    nachttoeslag (minutes that also earn the night-trip surcharge) stand beside them."""

    gewerkt_min: int = 0
    normaal_min: int = 0
    meeruren_min: int = 0
    overuren_130_min: int = 0
    zaterdag_150_min: int = 0
    zondag_200_min: int = 0
    feestdag_min: int = 0
    nachttoeslag_min: int = 0
    onregelmatig: list[Irregular] = field(default_factory=list)
    boven_contract: BeyondContract = field(default_factory=BeyondContract)
    onbetaald_min: int = 0
    afwezig_min: int = 0
    verblijfkosten_eur: Decimal = Decimal("0.00")

    def _json(self) -> dict:
        data = {name: getattr(self, name) for name in OPTELBAAR}
        data["onregelmatig"] = [vars(o).copy() for o in self.onregelmatig]
        data["boven_contract"] = vars(self.boven_contract).copy()
        data["verblijfkosten_eur"] = str(self.verblijfkosten_eur)
        return data


@dataclass(kw_only=True)
class Day(Hours):
    """One local day of the week. `onregelmatig` lists the windows with minutes only."""

    datum: date
    feestdag: str | None = None
    waarschuwingen: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"datum": self.datum.isoformat(), "feestdag": self.feestdag} | self._json() | {
            "waarschuwingen": list(self.waarschuwingen)
        }  # fmt: skip


@dataclass
class Total(Hours):
    """The week. `onregelmatig` lists every irregular window of the rule set, in its order."""

    aanvulling_min: int = 0

    def to_json(self) -> dict:
        return self._json() | {"aanvulling_min": self.aanvulling_min}


@dataclass
class WeekResult:
    jaar: int
    week: int
    contract_min: int
    regelset_geldig_vanaf: date
    per_dag: list[Day]
    totaal: Total
    max_dag_min: int = 15 * 60  # the rule set's longest day before a warning
    overuren_grens: str = "week_40"  # where overtime started: week_40, contract or dag_8
    dubbele_bemanning: bool = False
    samenloop: str = "hoogste"
    nachttoeslag_procent: int = 0

    @property
    def label(self) -> str:
        return f"{self.jaar}-W{self.week:02d}"

    def to_json(self) -> dict:
        """The week as JSON values: minutes as integers, money as decimal strings."""
        return {
            "week": self.label,
            "regelset_geldig_vanaf": self.regelset_geldig_vanaf.isoformat(),
            "contract_min": self.contract_min,
            "overuren_grens": self.overuren_grens,
            "dubbele_bemanning": self.dubbele_bemanning,
            "samenloop": self.samenloop,
            "nachttoeslag_procent": self.nachttoeslag_procent,
            "per_dag": [dag.to_json() for dag in self.per_dag],
            "totaal": self.totaal.to_json(),
        }
