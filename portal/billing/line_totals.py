"""The totals of some billing rows (exports.BillingRow): what the billing page, the export's
confirmation and a batch show above their lines."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from portal.billing import pricing


@dataclass(frozen=True)
class Totals:
    regels: int
    hoeveelheid: dict[str, float]  # per eenheid; "" when a line names none
    kilometers: float
    wachttijd_minuten: int
    bedrag: Decimal = Decimal(0)  # net, of the priced lines
    btw_bedrag: Decimal = Decimal(0)  # per VAT rate on its lines' sum, as the invoice has it
    ongeprijsd: int = 0  # lines without a price
    # The lines without a price per reason (prijs_reden; not_priced when none), by count.
    redenen: dict[str, int] = dataclasses.field(default_factory=dict)


def totals(rows: Iterable) -> Totals:
    """Count, quantity per unit, kilometres and waiting minutes of some BillingRows, their
    net amount and VAT, and the rows without a price per reason."""
    count = 0
    per_unit: dict[str, list[float]] = {}
    km: list[float] = []
    minutes = 0
    net = Decimal(0)
    priced: list[tuple[Decimal, Decimal]] = []
    unpriced = 0
    reasons: dict[str, int] = {}
    for row in rows:
        count += 1
        if row.bedrag is None:
            unpriced += 1
            reason = row.prijs_reden or "not_priced"
            reasons[reason] = reasons.get(reason, 0) + 1
        else:
            net += row.bedrag
            priced.append((row.bedrag, row.btw_procent or Decimal(0)))
        if row.hoeveelheid is not None:
            per_unit.setdefault(row.eenheid or "", []).append(row.hoeveelheid)
        if row.kilometers is not None:
            km.append(row.kilometers)
        minutes += row.wachttijd_minuten or 0
    return Totals(
        regels=count,
        hoeveelheid={unit: math.fsum(values) for unit, values in sorted(per_unit.items())},
        kilometers=math.fsum(km),
        wachttijd_minuten=minutes,
        bedrag=net,
        btw_bedrag=pricing.vat_per_rate(priced),
        ongeprijsd=unpriced,
        redenen=dict(sorted(reasons.items(), key=lambda item: (-item[1], item[0]))),
    )
