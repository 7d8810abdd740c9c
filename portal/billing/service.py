"""Billing: the only door to facturatieregels and facturatie_exports.

A completed task gets one billing line (what was actually done). Lines are exported in
batches: an export stamps its lines with the batch id, so a line is billed once, and the
batch can be downloaded again later with the same lines.

This module makes and reports the lines; exports.py holds the periods and export batches,
spreadsheets.py the CSV and XLSX files. Their names are re-exported here, so callers keep
using `from portal.billing import service`.
"""

from __future__ import annotations

import logging
import math
import uuid
from datetime import datetime
from decimal import Decimal, InvalidOperation

from sqlalchemy import and_, exists, select

from portal.accounts.service import carrier_zone
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.billing import invoices, line_prices, pricing
from portal.billing.exports import (
    COLUMNS,
    FIRST_DAY,
    LAST_DAY,
    NO_CUSTOMER,
    BillingRow,
    ReopenedRow,
    Totals,
    check_period,
    export,
    export_rows,
    get_export,
    list_exports,
    longer_than_a_year,
    reopened_after_export,
    totals,
    unexported,
)
from portal.billing.models import BillingExport, BillingLine, Invoice, Tariff
from portal.billing.spreadsheets import XLSX_DATETIME, XLSX_WIDTHS, to_csv, to_xlsx
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.extensions import db
from portal.tasks import completed_work
from portal.tasks.completed_work import Task
from portal.types import utcnow

__all__ = [
    "COLUMNS",
    "EENHEID_MAX",
    "FIRST_DAY",
    "LAST_DAY",
    "NO_CUSTOMER",
    "XLSX_DATETIME",
    "XLSX_WIDTHS",
    "AlreadyBilled",
    "BillingRow",
    "ReopenedRow",
    "Totals",
    "check_period",
    "completed_without_line",
    "confirm_zero_amount",
    "export",
    "export_rows",
    "get_export",
    "has_line",
    "line_for_completion",
    "list_exports",
    "longer_than_a_year",
    "price_by_hand",
    "record_line",
    "reopened_after_export",
    "to_csv",
    "to_xlsx",
    "totals",
    "unexported",
]

logger = logging.getLogger(__name__)

EENHEID_MAX = 20


def _not_completed() -> ValidationFailed:
    return ValidationFailed(
        [{"field": "afgerond_op", "code": "not_completed", "message": "the task is not completed"}]
    )


# --- lines ------------------------------------------------------------------------------


def _check_amount(errors: list, field: str, value, upper: float) -> None:
    if value is None:
        return
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        errors.append({"field": field, "code": "not_a_number", "message": "not a number"})
    elif not 0 <= value <= upper:
        errors.append(
            {"field": field, "code": "out_of_range", "message": f"between 0 and {upper:g}"}
        )


class AlreadyBilled(Conflict):
    """The task's line is in an export: the invoice has gone out, the line stays as billed."""

    title = "Already billed"


def _line_of(carrier_id: uuid.UUID, task_id: uuid.UUID) -> tuple[BillingLine, datetime | None]:
    """The task's line and when its export was made (None: not exported); (None, None)."""
    found = db.session.execute(
        select(BillingLine, BillingExport.created_at)
        .outerjoin(
            BillingExport,
            and_(
                BillingExport.transporteur_id == BillingLine.transporteur_id,
                BillingExport.id == BillingLine.export_id,
            ),
        )
        .where(BillingLine.transporteur_id == carrier_id, BillingLine.taak_id == task_id)
    ).first()
    return (found[0], found[1]) if found else (None, None)


def line_of_task(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> BillingLine | None:
    """The task's billing line, if it has one."""
    return _line_of(carrier_id, task_id)[0]


def _already_billed(carrier_id: uuid.UUID, line: BillingLine, exported_at: datetime):
    day = exported_at.astimezone(carrier_zone(carrier_id)).date().isoformat()
    return AlreadyBilled(f"already billed in export {day}", export_id=str(line.export_id))


def line_for_completion(*, carrier_id: uuid.UUID, task: Task) -> BillingLine:
    """The line a completion makes: the planned quantity and unit until the actual work is
    reported (record_line). Called for every completion (lifecycle.move_task), so the board,
    the driver's status move and the API all bill alike.

    Completing a reopened task brings its line back (while reopened, `unexported` leaves it
    out): with the new completion's time and driver, the reported values kept, and the
    planned ones taken afresh when nothing was reported (the plan may have changed). A line
    already exported stays as billed: a reopened task is never billed twice. The caller
    holds the task's row lock, so concurrent completions cannot both insert.
    """
    if task.transporteur_id != carrier_id:
        raise NotFound("task not found")
    if task.afgerond_op is None:
        raise _not_completed()
    line, _exported_at = _line_of(carrier_id, task.id)
    if line is not None and line.export_id is not None:
        logger.info("task %s completed again; its line %s stays billed", task.id, line.id)
        return line
    if line is None:
        line = BillingLine(transporteur_id=carrier_id, taak_id=task.id)
        db.session.add(line)
    if line.gemeld_op is None:
        line.hoeveelheid, line.eenheid = task.hoeveelheid, task.eenheid
    line.chauffeur_id = task.chauffeur_id
    line.afgerond_op = task.afgerond_op
    line_prices.price_line(carrier_id=carrier_id, line=line, task=task)
    db.session.flush()
    logger.info("billing line %s for completed task %s", line.id, task.id)
    return line


def completed_without_line(*, carrier_id: uuid.UUID, since: datetime | None) -> list[Task]:
    """Completed tasks without a billing line (completed on the board or by the driver before
    every completion made one), oldest first; since: completed at or after it."""
    billed = select(BillingLine.taak_id).where(BillingLine.transporteur_id == carrier_id)
    return completed_work.completed(carrier_id=carrier_id, since=since, excluding=billed)


def record_line(
    *,
    carrier_id: uuid.UUID,
    task: Task,
    hoeveelheid: float | None = None,
    eenheid: str | None = None,
    kilometers: float | None = None,
    wachttijd_minuten: int | None = None,
    opmerkingen: str | None = None,
) -> BillingLine:
    """The actual work of a completed task (POST afronding): its line, updated or made.

    Quantity and unit default to the task's planned ones. Sending the completion again
    replaces every value (the latest report is the truth); once the line is in an export
    it is refused with AlreadyBilled (409), since the invoice has gone out.
    """
    if task.transporteur_id != carrier_id:
        raise NotFound("task not found")
    if task.afgerond_op is None:
        raise _not_completed()
    errors: list[dict] = []
    _check_amount(errors, "hoeveelheid", hoeveelheid, 1e9)
    _check_amount(errors, "kilometers", kilometers, 100_000)
    _check_amount(errors, "wachttijd_minuten", wachttijd_minuten, 10_000)
    if wachttijd_minuten is not None and not isinstance(wachttijd_minuten, int):
        errors.append(
            {"field": "wachttijd_minuten", "code": "whole_minutes", "message": "whole minutes"}
        )
    eenheid = (eenheid.strip() or None) if eenheid is not None else task.eenheid
    if eenheid is not None and len(eenheid) > EENHEID_MAX:
        errors.append(
            {
                "field": "eenheid",
                "code": "too_long",
                "message": f"at most {EENHEID_MAX} characters",
                "params": {"max": EENHEID_MAX},
            }
        )
    if errors:
        raise ValidationFailed(errors)

    line, exported_at = _line_of(carrier_id, task.id)
    if line is not None and line.export_id is not None:
        raise _already_billed(carrier_id, line, exported_at)
    new = line is None
    if new:
        line = BillingLine(transporteur_id=carrier_id, taak_id=task.id)
        db.session.add(line)
    line.chauffeur_id = task.chauffeur_id
    line.afgerond_op = task.afgerond_op
    line.hoeveelheid = float(hoeveelheid) if hoeveelheid is not None else task.hoeveelheid
    line.eenheid = eenheid
    line.kilometers = float(kilometers) if kilometers is not None else None
    line.wachttijd_minuten = wachttijd_minuten
    line.opmerkingen = opmerkingen
    line.gemeld_op = utcnow()
    line_prices.price_line(carrier_id=carrier_id, line=line, task=task)
    db.session.flush()
    logger.info("billing line %s for task %s (%s)", line.id, task.id, "new" if new else "updated")
    return line


MAX_AMOUNT = Decimal("1000000000")


# --- hand prices -------------------------------------------------------------------------


def _amount(value, field: str, upper: Decimal, errors: list[dict]) -> Decimal | None:
    try:
        amount = value if isinstance(value, Decimal) else Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        errors.append({"field": field, "code": "not_a_number", "message": "not a number"})
        return None
    if not amount.is_finite() or not Decimal(0) <= amount <= upper:
        errors.append({"field": field, "code": "out_of_range", "message": f"between 0 and {upper}"})
        return None
    return amount


def price_by_hand(
    *,
    carrier_id: uuid.UUID,
    task_id: uuid.UUID,
    bedrag: Decimal | str | None,
    btw_procent: Decimal | str,
    actor: Actor,
    reden: str | None = None,
) -> BillingLine:
    """Set a line's net amount and VAT rate by hand (a line no tariff prices, or one whose
    price the planner corrects); bedrag None gives the line back to its tariff. At 0 % the
    line takes the category hand_category finds, with `reden` as its exemption reason or
    (zero rate) evidence, else the customer's or tariff's; one needed and missing is refused
    at btw_vrijstellingsreden. Refused once the line is exported: the invoice has gone out.
    Audited on the task's trail."""
    line = line_prices.line_to_price(carrier_id=carrier_id, task_id=task_id)
    before = [_text(line.bedrag), _text(line.btw_procent), line.handmatig]
    if bedrag is None:
        line.handmatig = False
        task = line_prices.task_of(carrier_id=carrier_id, task_id=task_id)
        line_prices.price_line(carrier_id=carrier_id, line=line, task=task)
        action = "price_by_tariff"
    else:
        _set_hand_price(carrier_id, line, task_id, bedrag, btw_procent, reden)
        action = "priced_by_hand"
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="task",
        entity_id=task_id,
        action=action,
        changes={
            "bedrag": [before[0], _text(line.bedrag)],
            "btw_procent": [before[1], _text(line.btw_procent)],
            "handmatig": [before[2], line.handmatig],
        },
    )
    return line


def _set_hand_price(carrier_id, line, task_id, bedrag, btw_procent, reden) -> None:
    """The planner's net amount and rate on the line, under the VAT category hand_category
    finds (ValidationFailed for an amount or rate out of range, or a reason needed and
    missing)."""
    errors: list[dict] = []
    net = _amount(bedrag, "bedrag", MAX_AMOUNT, errors)
    rate = _amount(btw_procent, "btw_procent", Decimal(100), errors)
    if errors:
        raise ValidationFailed(errors)
    task = line_prices.task_of(carrier_id=carrier_id, task_id=task_id)
    categorie, reason = line_prices.hand_category(
        carrier_id=carrier_id, line=line, task=task, rate=rate
    )
    if categorie != "S":
        reason = (reden or "").strip()[:300] or reason
    if categorie in pricing.NEEDS_TEXT and not reason:
        raise ValidationFailed(
            [
                {
                    "field": "btw_vrijstellingsreden",
                    "code": "required",
                    "message": f"name the reason or evidence of category {categorie}",
                    "params": {"categorie": categorie},
                }
            ]
        )
    line.handmatig = True
    line.tarief_id = None
    line.bedrag = pricing.cents(net)
    line.btw_procent = rate.quantize(pricing.CENT)
    line.btw_bedrag = pricing.cents(line.bedrag * rate / pricing.HUNDRED)
    line.btw_categorie, line.btw_vrijstellingsreden = categorie, reason
    line.prijs_reden = None


# A line held at 0.00 confirmed by a planner (line_prices.py).
confirm_zero_amount = line_prices.confirm_zero_amount
# A customer's open lines priced again after its VAT changed (a hook customers call).
reprice_customer = line_prices.reprice_customer


def _text(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def has_line(*, carrier_id: uuid.UUID, task_id: uuid.UUID) -> bool:
    """Whether the task has a billing line (then deleting it archives it instead)."""
    return bool(
        db.session.scalar(
            select(BillingLine.id).where(
                BillingLine.transporteur_id == carrier_id, BillingLine.taak_id == task_id
            )
        )
    )


def customer_in_use(carrier_id: uuid.UUID, customer_id: uuid.UUID) -> bool:
    """Whether a billing line, an invoice or a tariff names the customer."""
    return any(
        db.session.scalar(
            select(
                exists().where(model.transporteur_id == carrier_id, model.klant_id == customer_id)
            )
        )
        for model in (BillingLine, Invoice, Tariff)
    )


# Invoices (invoices.py), for the portal.
invoiceable = invoices.invoiceable
invoice_counts = invoices.of_batches
invoices_of_batch = invoices.of_batch
invoice_document = invoices.stored_document
invoice_problems = invoices.problems
invoice_peppol_problems = invoices.peppol_problems
issue_invoice = invoices.issue
NotInvoiceable = invoices.NotInvoiceable
NotIssued = invoices.NotIssued
get_invoice = invoices.get_invoice
