"""The billing domain's door to invoices and credit notes for the portal and the API: issuing,
reading back what was issued, crediting, and the VAT overview (invoices.py, credit_notes.py,
vat_report.py), plus one document as a page shows it."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from portal.billing import credit_notes, documents, exports, invoices, ubl
from portal.billing import vat_report as report
from portal.billing.models import Invoice
from portal.errors import Conflict, ValidationFailed

DocumentFilters = invoices.DocumentFilters
NotInvoiceable = invoices.NotInvoiceable
NotIssued = invoices.NotIssued
get_invoice = invoices.get_invoice
list_documents = invoices.list_documents
stored_document = invoices.stored_document
issue = invoices.issue
lines_of = invoices.lines_of
credits_of = invoices.credits_of
creditable = credit_notes.creditable
plan_credit = credit_notes.plan
credit = credit_notes.credit
CreditPlan = credit_notes.CreditPlan
vat_report = report.vat_report


@dataclass
class DocumentView:
    """A document as its page shows it: issued, from what was stored; a concept, as it would
    be issued now."""

    verkoper: ubl.Party | None
    koper: ubl.Party | None
    regels: list = field(default_factory=list)  # InvoiceLine, or ubl.Line for a concept
    uitsplitsing: list[dict] = field(default_factory=list)
    creditnotas: list[Invoice] = field(default_factory=list)
    gecrediteerd: Invoice | None = None  # a credit note: the invoice it corrects
    problems: tuple[str, ...] = ()
    peppol: tuple[str, ...] = ()
    te_crediteren: Decimal = Decimal(0)

    @property
    def totaal(self) -> Decimal:
        return sum((Decimal(row["grondslag"]) + Decimal(row["btw"]) for row in self.uitsplitsing),
                   Decimal(0))  # fmt: skip


def _amounts(row: dict) -> dict:
    """A stored breakdown row with its amounts as Decimals again."""
    return {
        **row,
        "procent": None if row.get("procent") is None else Decimal(row["procent"]),
        "grondslag": Decimal(row["grondslag"]),
        "btw": Decimal(row["btw"]),
    }


def document_view(*, carrier_id: uuid.UUID, invoice: Invoice) -> DocumentView:
    """What the document's page shows (a fixed number of queries)."""
    if not invoice.uitgegeven:
        data, _sources = invoices.draft(carrier_id=carrier_id, invoice=invoice)
        return DocumentView(
            verkoper=data.verkoper,
            koper=data.koper,
            regels=list(data.regels),
            uitsplitsing=[_amounts(row) for row in documents.breakdown_json(data.regels)],
            problems=invoices.problems(carrier_id=carrier_id, invoice_id=invoice.id),
            peppol=ubl.peppol_problems(data),
        )
    view = DocumentView(
        verkoper=documents.party_from_json(invoice.verkoper),
        koper=documents.party_from_json(invoice.koper),
        regels=invoices.lines_of(carrier_id=carrier_id, invoice_ids={invoice.id})[invoice.id],
        uitsplitsing=[_amounts(row) for row in invoice.btw_uitsplitsing or []],
        peppol=invoices.peppol_problems(carrier_id=carrier_id, invoice=invoice),
    )
    if invoice.soort == "factuur":
        view.creditnotas = invoices.credits_of(carrier_id=carrier_id, invoice_ids={invoice.id})[
            invoice.id
        ]
        view.te_crediteren = sum(
            (item.resterend for item in credit_notes.creditable(carrier_id=carrier_id,
                                                                 invoice=invoice)),
            Decimal(0),
        )  # fmt: skip
    elif invoice.gecrediteerde_factuur_id:
        view.gecrediteerd = invoices.get_invoice(
            carrier_id=carrier_id, invoice_id=invoice.gecrediteerde_factuur_id
        )
    return view


# --- the billing export, run by an accounting package (dry run, then the same) ------------


@dataclass(frozen=True)
class ExportPreview:
    regels: int
    bedrag: Decimal
    btw_bedrag: Decimal
    aangehouden: dict[str, int]
    facturen: list[str]
    geblokkeerd: list[str]
    zonder_klant: int
    token: str


def _fingerprint(carrier_id, selection: tuple, rows) -> str:
    """What an export of these rows would bill, as a token: the same rows at the same amounts
    give the same token; any change of a line, or a line more or less, another."""
    digest = hashlib.sha256(repr((str(carrier_id), selection)).encode())
    for row in sorted(rows, key=lambda r: str(r.taak_id)):
        values = (
            row.taak_id, row.klant_id, row.bedrag, row.btw_procent, row.btw_bedrag,
            row.btw_categorie, row.prijs_reden, row.hoeveelheid, row.eenheid, row.afgerond_op,
        )  # fmt: skip
        digest.update(repr(tuple(str(v) for v in values)).encode() + b"\0")
    return digest.hexdigest()[:40]


def preview_export(
    *,
    carrier_id: uuid.UUID,
    van: date,
    tot: date,
    driver_id: uuid.UUID | None = None,
    klant: uuid.UUID | None = None,
) -> ExportPreview:
    """What an export of the selection would bill and invoice, and its token. Nothing changes."""
    rows = exports.unexported(
        carrier_id=carrier_id, van=van, tot=tot, driver_id=driver_id, klant=klant
    )
    totals = exports.totals(rows)
    able = invoices.invoiceable(rows)
    return ExportPreview(
        regels=totals.regels,
        bedrag=totals.bedrag,
        btw_bedrag=totals.btw_bedrag,
        aangehouden=dict(getattr(totals, "redenen", {}) or {}),
        facturen=able.gefactureerd,
        geblokkeerd=able.geblokkeerd,
        zonder_klant=able.zonder_klant,
        token=_fingerprint(carrier_id, (van, tot, driver_id, klant), rows),
    )


def run_export(
    *,
    carrier_id: uuid.UUID,
    van: date,
    tot: date,
    driver_id: uuid.UUID | None = None,
    klant: uuid.UUID | None = None,
    token: str | None,
    actor_label: str,
):
    """Export the selection exactly as its dry run showed it: ValidationFailed without a
    token, Conflict (export_changed) when any line changed, came or went since; else the
    batch and its invoices."""
    if not token:
        raise ValidationFailed(
            [
                {
                    "field": "token",
                    "code": "required",
                    "message": "run dry_run first, quote its token",
                }
            ]
        )
    exports.lock_unexported(
        carrier_id=carrier_id, van=van, tot=tot, driver_id=driver_id, klant=klant
    )
    rows = exports.unexported(
        carrier_id=carrier_id, van=van, tot=tot, driver_id=driver_id, klant=klant
    )
    if not rows:
        raise ValidationFailed(
            [{"field": "periode", "code": "nothing_to_export", "message": "nothing to export"}]
        )
    if _fingerprint(carrier_id, (van, tot, driver_id, klant), rows) != token:
        raise Conflict(
            "The selection changed since the dry run: run it again and check what it shows.",
            code="export_changed",
        )
    batch = exports.export(
        carrier_id=carrier_id,
        van=van,
        tot=tot,
        driver_id=driver_id,
        klant=klant,
        actor_label=actor_label,
        only_tasks={row.taak_id for row in rows},
    )
    made, _missing = invoices.of_batch(carrier_id=carrier_id, export_id=batch.id)
    return batch, made
