"""Credit notes: the only way an issued invoice is corrected. A credit note (UBL CreditNote,
Peppol BIS 3.0) refers to the invoice it corrects and credits some of its lines, in whole or
in part; where the work should be billed at another amount, a new invoice with the corrected
lines is issued in the same transaction.

Credit notes are numbered in their own gap-free series per carrier and year (C2026-00001),
taken in the transaction that stores the document. The credits against one invoice never add
up to more than it: per line at most what is left of its amount, checked under the carrier's
numbering lock, so two credit notes at the same moment cannot both take the last euro.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta
from decimal import Decimal

from portal.accounts.service import get_carrier
from portal.billing import credit_plans, documents, invoices, pricing, ubl
from portal.billing.models import Invoice
from portal.customers import service as customers
from portal.extensions import db

logger = logging.getLogger(__name__)

# Checking a credit (credit_plans.py); callers find its names here.
CreditPlan = credit_plans.CreditPlan
Creditable = credit_plans.Creditable
MAX_REASON = credit_plans.MAX_REASON
creditable = credit_plans.creditable
plan = credit_plans.plan


def credit(
    *,
    carrier_id: uuid.UUID,
    invoice_id: uuid.UUID,
    reden: str,
    bedragen: dict[uuid.UUID, object] | None,
    correcties: dict[uuid.UUID, object] | None = None,
    actor_label: str,
) -> tuple[Invoice, Invoice | None]:
    """Issue the credit note `plan` describes, and the correction invoice when lines are
    billed again: both documents, or neither. Checked again under the carrier's numbering
    lock, so credits never add up to more than the invoice. NotInvoiceable when the
    correction invoice cannot be made."""
    invoices.lock_series(carrier_id)
    invoice = invoices.get_invoice(carrier_id=carrier_id, invoice_id=invoice_id, lock=True)
    checked = plan(
        carrier_id=carrier_id,
        invoice=invoice,
        reden=reden,
        bedragen=bedragen,
        correcties=correcties,
    )
    reden, chosen, corrected = checked.reden, checked.regels, checked.correcties
    customer = customers.get_customer(carrier_id=carrier_id, customer_id=invoice.klant_id)
    note = _credit_note(carrier_id, invoice, customer, reden, chosen, actor_label)
    correction = None
    if corrected:
        correction = _correction_invoice(carrier_id, invoice, customer, corrected, actor_label)
    logger.info(
        "credit note %s for invoice %s%s",
        note.nummer,
        invoice.nummer,
        f", corrected by {correction.nummer}" if correction else "",
    )
    return note, correction


def _note_lines(
    invoice: Invoice, chosen: list[tuple[Creditable, Decimal]]
) -> tuple[list[ubl.Line], list[documents.Source]]:
    """The credit note's lines (a line credited in part names no quantity or price) and
    where each came from."""
    note_lines, sources = [], []
    for index, (item, amount) in enumerate(chosen, start=1):
        line = item.regel
        whole = amount == pricing.cents(line.bedrag)
        note_lines.append(
            ubl.Line(
                id=str(index),
                naam=line.naam,
                omschrijving=line.omschrijving,
                notitie=f"Regel {line.volgnummer} van factuur {invoice.nummer}"
                + ("" if whole else " (gedeeltelijk)"),
                hoeveelheid=line.hoeveelheid if whole else None,
                eenheid=line.eenheid,
                prijs=line.prijs if whole else None,
                bedrag=amount,
                btw_categorie=line.btw_categorie,
                btw_procent=line.btw_procent,
                btw_vrijstellingsreden=line.btw_vrijstellingsreden,
                datum=line.datum,
            )
        )
        sources.append(documents.Source(line.facturatieregel_id, line.taak_id, line.id))
    return note_lines, sources


def _credit_note(carrier_id, invoice, customer, reden, chosen, actor_label) -> Invoice:
    """The credit note of the chosen lines, numbered and stored with its document."""
    day = invoices.today(carrier_id)
    note_lines, sources = _note_lines(invoice, chosen)
    days = [line.datum for line in note_lines]
    note = Invoice(
        transporteur_id=carrier_id,
        id=uuid.uuid4(),
        soort="creditnota",
        klant_id=invoice.klant_id,
        niet_belast=invoice.niet_belast,
        gecrediteerde_factuur_id=invoice.id,
        reden=reden,
        datum=day,
        vervaldatum=day,
        regels=len(note_lines),
        bedrag=Decimal(0),
        btw_bedrag=Decimal(0),
        valuta=invoice.valuta,
    )
    db.session.add(note)
    db.session.flush()
    invoices.store(
        carrier_id=carrier_id,
        invoice=note,
        data=ubl.Invoice(
            nummer="",
            datum=day,
            soort="creditnota",
            gecrediteerd=ubl.Reference(nummer=invoice.nummer, datum=invoice.datum),
            verkoper=documents.party_from_json(invoice.verkoper),
            koper=documents.party_from_json(invoice.koper),
            regels=note_lines,
            koper_referentie=customer.debiteurnummer or invoice.nummer,
            periode_van=min(days),
            periode_tot=max(days),
            betaalvoorwaarden=f"Creditering van factuur {invoice.nummer}: {reden}"[:500],
            valuta=invoice.valuta,
        ),
        sources=sources,
        actor_label=actor_label,
        vies=invoice.vies,
    )
    return note


def _correction_invoice(carrier_id, invoice, customer, corrected, actor_label) -> Invoice:
    """A new invoice billing credited lines again at their corrected amounts."""
    carrier = get_carrier(carrier_id=carrier_id)
    day = invoices.today(carrier_id)
    lines, sources = [], []
    for index, (item, amount) in enumerate(corrected, start=1):
        line = item.regel
        lines.append(
            ubl.Line(
                id=str(index),
                naam=line.naam,
                omschrijving=line.omschrijving,
                notitie=f"Correctie van regel {line.volgnummer} van factuur {invoice.nummer}",
                hoeveelheid=line.hoeveelheid,
                eenheid=line.eenheid,
                bedrag=amount,
                btw_categorie=line.btw_categorie,
                btw_procent=line.btw_procent,
                btw_vrijstellingsreden=line.btw_vrijstellingsreden,
                datum=line.datum,
            )
        )
        sources.append(documents.Source(line.facturatieregel_id, line.taak_id))
    days = [line.datum for line in lines]
    new = Invoice(
        transporteur_id=carrier_id,
        id=uuid.uuid4(),
        soort="factuur",
        klant_id=invoice.klant_id,
        niet_belast=invoice.niet_belast,
        datum=day,
        vervaldatum=day + timedelta(days=carrier.betaaltermijn_dagen),
        regels=len(lines),
        bedrag=Decimal(0),
        btw_bedrag=Decimal(0),
        valuta=invoice.valuta,
    )
    db.session.add(new)
    db.session.flush()
    data = ubl.Invoice(
        nummer="",
        datum=day,
        vervaldatum=new.vervaldatum,
        verkoper=documents.seller(carrier),
        koper=documents.buyer(customer),
        regels=lines,
        koper_referentie=customer.debiteurnummer or "",
        periode_van=min(days),
        periode_tot=max(days),
        iban=carrier.iban,
        valuta=invoice.valuta,
    )
    return invoices.store(
        carrier_id=carrier_id,
        invoice=new,
        data=data,
        sources=sources,
        actor_label=actor_label,
        vies=invoices.vies_of(customer, data),
    )
