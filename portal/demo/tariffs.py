"""Demo tariffs: the carrier's default price per activity, and one customer's own, so the
billing page shows priced lines."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from portal.audit.service import Actor
from portal.billing import tariffs
from portal.customers import service as customers

FROM = date(2026, 1, 1)
DEFAULTS = [
    {
        "activity_type": "mest_laden",
        "grondslag": "eenheid",
        "eenheid": "ton",
        "prijs": "4.35",
        "minimum": "95",
        "wachttijd_vrij_minuten": 30,
        "wachttijd_per_uur": "55",
    },
    {
        "activity_type": "voer_leveren",
        "grondslag": "eenheid",
        "eenheid": "ton",
        "prijs": "7.80",
        "minimum": "85",
    },
    {
        "activity_type": "vee_transport",
        "grondslag": "vracht",
        "prijs": "245",
        "weekend_toeslag_procent": "25",
    },
    {
        "activity_type": "koel_transport",
        "grondslag": "uur",
        "prijs": "92.50",
        # The driver's recorded time, per quarter hour rounded up, at least an hour.
        "afronding_minuten": 15,
        "minimum_minuten": 60,
        "wachttijd_vrij_minuten": 15,
        "wachttijd_per_uur": "60",
    },
]


def _amounts(spec: dict) -> dict:
    money = ("prijs", "minimum", "wachttijd_per_uur", "weekend_toeslag_procent")
    return {k: Decimal(v) if k in money else v for k, v in spec.items()}


def seed_tariffs(carrier_id, planner) -> None:
    """The default tariffs, and the first customer's own for manure, as the planner set them."""
    actor = Actor("user", planner.id, planner.naam)
    for spec in DEFAULTS:
        tariffs.create_tariff(
            carrier_id=carrier_id,
            data=tariffs.TariffIn(geldig_vanaf=FROM, **_amounts(spec)),
            actor=actor,
        )
    first = next(iter(customers.names(carrier_id=carrier_id)), None)
    if first is not None:
        tariffs.create_tariff(
            carrier_id=carrier_id,
            data=tariffs.TariffIn(
                klant_id=first,
                geldig_vanaf=FROM,
                **_amounts({**DEFAULTS[0], "prijs": "3.95"}),
            ),
            actor=actor,
        )
