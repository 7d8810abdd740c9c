"""Every active driver's remaining driving time now (EU 561/2006), least left today first."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flask import render_template

from portal.accounts.permissions import role_required
from portal.drivers import service as drivers
from portal.tacho import driving
from portal.tacho.pages.kit import driving_bp
from portal.types import utcnow
from portal.web.kit import current_carrier_id


@dataclass(frozen=True)
class BudgetRow:
    driver: drivers.Driver
    budget: object  # rules.Budget | None
    bron: str | None
    card_until: datetime | None


BUDGET_FIELDS = (
    "resterend_tot_onderbreking_min",
    "resterend_vandaag_min",
    "resterend_week_min",
    "resterend_twee_weken_min",
    "volgende_dagrust_uiterlijk",
    "volgende_weekrust_uiterlijk",
    "verlengingen_over",
    "verkorte_rusten_over",
)


def has_unknown(budget) -> bool:
    """Whether unknown time leaves any of a budget's figures open."""
    return any(getattr(budget, name, None) is None for name in BUDGET_FIELDS)


def _sort_key(row: BudgetRow):
    name = (row.driver.naam.lower(), str(row.driver.id))
    if row.budget is None:
        return (2, 0, name)
    today = row.budget.resterend_vandaag_min
    if today is None:
        return (1, 0, name)
    return (0, today, name)


@driving_bp.get("/rijtijden")
@role_required("planner")
def index():
    """Every active driver's remaining driving time now, least left today first."""
    carrier_id = current_carrier_id()
    people = drivers.list_drivers(carrier_id=carrier_id, active_only=True)
    found = driving.budgets(carrier_id=carrier_id, driver_ids=[d.id for d in people])
    rows = sorted(
        (
            BudgetRow(d, found[d.id].budget, found[d.id].bron, found[d.id].card_until)
            for d in people
        ),
        key=_sort_key,
    )
    any_unknown = any(has_unknown(row.budget) for row in rows if row.budget is not None)
    return render_template(
        "tacho/driving/index.html", rows=rows, now=utcnow(), any_unknown=any_unknown
    )
