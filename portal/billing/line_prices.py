"""A billing line's price under its tariff: the tariff that holds for the task, the task's
recorded time for a tariff per hour, the VAT category, and what keeps a line without a price.
With service.py the door to facturatieregels (service.py makes the lines and calls this).

A line without a price (bedrag empty, the reason's code in prijs_reden) is held: the billing
page shows why, and its customer gets no invoice until a planner prices it by hand (or, for
one held at 0.00, confirms it). The same path holds every reason: no tariff, no quantity,
another unit, no recorded time (no_duration), no kilometres, and 0.00 under a tariff that
has a price (zero_amount).

Lines are priced when the task is completed and again when the driver reports the work
(POST afronding). A planner prices a held line again after fixing what it lacked (a tariff,
the driver's hours on the task) with "Opnieuw prijzen" (service.price_by_hand without an
amount). Hours recorded or corrected later do not change a line by themselves: the line
shows the minutes it was priced by, and an exported line never changes.
"""

from __future__ import annotations

import uuid
from decimal import Decimal

from sqlalchemy import select

from portal.accounts.service import carrier_zone
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.billing import pricing, recorded_time, tariffs, ubl
from portal.billing.models import BillingLine
from portal.customers import service as customers
from portal.errors import Conflict, NotFound
from portal.extensions import db
from portal.tasks import completed_work
from portal.tasks.completed_work import Task


def _under_tariff(
    carrier_id: uuid.UUID, line: BillingLine, task: Task
) -> tuple[pricing.Tariff | None, pricing.Priced | pricing.Unpriced, recorded_time.Recorded | None]:
    """The tariff that holds on the task's day (its planned day, else the day it was
    completed, in the carrier's time zone; the task's customer's own, else the carrier's
    default), what the line costs under it, and for a tariff per hour the recorded time."""
    zone = carrier_zone(carrier_id)
    day = (task.gepland_op or task.afgerond_op).astimezone(zone).date()
    rule = tariffs.holding(
        carrier_id=carrier_id, activity_type=task.type, klant_id=task.klant_id, dag=day
    )
    recorded = None
    if rule is not None and rule.grondslag == "uur":
        recorded = recorded_time.of_task(carrier_id=carrier_id, task=task)
    priced = pricing.price(
        rule,
        pricing.Work(
            dag=day,
            hoeveelheid=pricing.decimal(line.hoeveelheid),
            eenheid=line.eenheid,
            minuten=recorded.minuten if recorded else None,
            kilometers=pricing.decimal(line.kilometers),
            wachttijd_minuten=line.wachttijd_minuten,
        ),
        klant_categorie=customer_category(carrier_id, task.klant_id),
    )
    return rule, priced, recorded


def customer_category(carrier_id: uuid.UUID, customer_id: uuid.UUID | None):
    """The customer's own VAT category and reason (reverse charge for a business elsewhere
    in the EU, not subject for one outside it), which overrides the tariff's; None when the
    customer has none. AE and O without a reason of their own get EN 16931's words."""
    if customer_id is None:
        return None
    customer = customers.get_customer(carrier_id=carrier_id, customer_id=customer_id)
    if not customer.btw_categorie:
        return None
    reason = customer.btw_vrijstellingsreden or ubl.DEFAULT_REASONS.get(customer.btw_categorie)
    return customer.btw_categorie, reason


def price_line(*, carrier_id: uuid.UUID, line: BillingLine, task: Task) -> None:
    """Price the line under the tariff that holds, or hold it with the reason's code. A line
    priced by hand keeps its amount: the planner's price stands."""
    line.klant_id = task.klant_id
    if line.handmatig:
        return
    rule, priced, recorded = _under_tariff(carrier_id, line, task)
    line.gemeten_minuten = recorded.minuten if recorded else None
    line.minuten_bron = recorded.bron if recorded else None
    if isinstance(priced, pricing.Unpriced):
        line.tarief_id = rule.id if rule is not None else None
        line.bedrag = line.btw_procent = line.btw_bedrag = None
        line.btw_categorie = line.btw_vrijstellingsreden = None
        line.uren = priced.held.uren if priced.held else None
        line.prijs_reden = priced.code
        return
    line.tarief_id = priced.tariff.id
    line.bedrag, line.btw_bedrag = priced.netto, priced.btw
    line.btw_procent = priced.btw_procent
    line.btw_categorie = priced.btw_categorie
    line.btw_vrijstellingsreden = priced.btw_vrijstellingsreden
    line.uren = priced.uren
    line.prijs_reden = None


def reprice_customer(carrier_id: uuid.UUID, customer_id: uuid.UUID) -> None:
    """Price a customer's lines not exported yet again, under its VAT as it is now (a
    customer that became a reverse-charge one bills its open work that way)."""
    lines = db.session.scalars(
        select(BillingLine).where(
            BillingLine.transporteur_id == carrier_id,
            BillingLine.klant_id == customer_id,
            BillingLine.export_id.is_(None),
            BillingLine.handmatig.is_(False),
        )
    ).all()
    tasks = completed_work.by_id(carrier_id=carrier_id, task_ids={line.taak_id for line in lines})
    for line in lines:
        price_line(carrier_id=carrier_id, line=line, task=tasks[line.taak_id])
    db.session.flush()


def hand_category(
    *, carrier_id: uuid.UUID, line: BillingLine, task: Task, rate: Decimal
) -> tuple[str, str | None]:
    """The VAT category of a price set by hand: S above 0 %; at 0 % the customer's own
    category, else the category of the tariff that holds when that is one at 0 % (zero
    rated, exempt, reverse charge, not subject), else Z, the one category at 0 % that needs
    no exemption reason."""
    if rate > 0:
        return "S", None
    own = customer_category(carrier_id, task.klant_id)
    if own is not None and own[0] != "S":
        return own[0], own[1] if own[0] in pricing.NEEDS_TEXT else None
    rule, _priced, _recorded = _under_tariff(carrier_id, line, task)
    if rule is not None and rule.btw_categorie != "S":
        return rule.btw_categorie, rule.btw_vrijstellingsreden
    return "Z", None


def line_to_price(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> BillingLine:
    """The task's line, locked for a planner's price; NotFound when it has none, Conflict
    once it is exported (the invoice has gone out)."""
    line = db.session.scalar(
        select(BillingLine)
        .where(BillingLine.transporteur_id == carrier_id, BillingLine.taak_id == task_id)
        .with_for_update()
    )
    if line is None:
        raise NotFound("billing line not found")
    if line.export_id is not None:
        raise Conflict("The line is exported: the invoice has gone out.", reden="exported")
    return line


def task_of(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> Task:
    """The task of a line (archived ones too: their work is billed)."""
    return completed_work.by_id(carrier_id=carrier_id, task_ids={task_id}).get(task_id)


def confirm_zero_amount(*, carrier_id: uuid.UUID, task_id: uuid.UUID, actor: Actor) -> BillingLine:
    """A planner confirms a line held at 0.00 (zero_amount: its tariff has a price, the work
    made nothing of it): priced by hand at 0.00 under the tariff's VAT, audited like any hand
    price. Conflict when the line is exported or not held at 0.00 (any more)."""
    line = line_to_price(carrier_id=carrier_id, task_id=task_id)
    task = task_of(carrier_id=carrier_id, task_id=task_id)
    priced = None if line.handmatig else _under_tariff(carrier_id, line, task)[1]
    if not isinstance(priced, pricing.Unpriced) or priced.code != "zero_amount":
        raise Conflict("The line is not held at 0.00 (any more).", reden="not_zero_amount")
    held = priced.held
    line.handmatig = True
    line.tarief_id = None
    line.bedrag = line.btw_bedrag = Decimal("0.00")
    line.btw_procent = held.btw_procent.quantize(pricing.CENT)
    line.btw_categorie = held.btw_categorie
    line.btw_vrijstellingsreden = held.btw_vrijstellingsreden
    line.uren = held.uren
    line.prijs_reden = None
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="task",
        entity_id=task_id,
        action="priced_by_hand",
        changes={
            "bedrag": [None, "0.00"],
            "btw_procent": [None, str(line.btw_procent)],
            "handmatig": [False, True],
            "prijs_reden": ["zero_amount", None],
        },
    )
    return line
