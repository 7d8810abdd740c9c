"""JSON shapes of issued invoices and credit notes, a credit note asked for, and the billing
export an accounting package runs: amounts as decimal strings ("1234.50"), as the tariffs'."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from portal.schemas import InModel, Timestamp
from portal.types import iso

Amount = str
CATEGORY = Literal["S", "Z", "E", "AE", "O"]


class InvoiceQuery(BaseModel):
    """Query of GET /facturen: issued documents, newest first."""

    model_config = ConfigDict(extra="forbid")

    van: date | None = Field(default=None, description="issued on or after this day")
    tot: date | None = Field(default=None, description="issued on or before this day")
    klant_id: uuid.UUID | None = None
    soort: Literal["factuur", "creditnota"] | None = None
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0, le=1_000_000)

    @model_validator(mode="after")
    def _period(self):
        if self.van and self.tot and self.tot < self.van:
            raise ValueError("tot lies before van")
        return self


class PartyOut(BaseModel):
    """The seller or the buyer as the document names it."""

    model_config = ConfigDict(title="InvoiceParty")

    naam: str
    land: str
    btw_nummer: str | None = None
    kvk_nummer: str | None = None
    gln: str | None = None
    peppol_id: str | None = None
    adres: str | None = None
    postcode: str | None = None
    stad: str | None = None
    email: str | None = None


class InvoiceLineOut(BaseModel):
    model_config = ConfigDict(title="InvoiceLine")

    id: uuid.UUID
    volgnummer: int
    taak_id: uuid.UUID | None = Field(description="the task billed (it may since be deleted)")
    facturatieregel_id: uuid.UUID | None
    gecrediteerde_regel_id: uuid.UUID | None = Field(
        description="a credit note's line: the invoice line it credits"
    )
    naam: str
    omschrijving: str | None
    notitie: str | None
    datum: date
    hoeveelheid: Amount | None
    eenheid: str | None
    prijs: Amount | None
    bedrag: Amount
    btw_categorie: CATEGORY
    btw_procent: Amount | None
    btw_vrijstellingsreden: str | None


class VatRowOut(BaseModel):
    model_config = ConfigDict(title="InvoiceVatBreakdown")

    categorie: CATEGORY
    procent: Amount | None
    grondslag: Amount
    btw: Amount
    reden: str | None = None


class InvoiceSummaryOut(BaseModel):
    """An issued invoice or credit note, without its lines."""

    model_config = ConfigDict(title="InvoiceSummary")

    id: uuid.UUID
    soort: Literal["factuur", "creditnota"]
    nummer: str
    datum: date
    vervaldatum: date | None = Field(description="an invoice's due date; null: a credit note")
    klant_id: uuid.UUID
    export_id: uuid.UUID | None
    gecrediteerde_factuur_id: uuid.UUID | None
    valuta: str
    bedrag: Amount = Field(description="net, without VAT")
    btw_bedrag: Amount
    totaal: Amount
    aantal_regels: int
    sha256: str = Field(description="SHA-256 of the stored UBL document")
    uitgegeven_op: Timestamp


class InvoiceOut(InvoiceSummaryOut):
    """An issued document as it was issued, with its lines and VAT breakdown."""

    model_config = ConfigDict(title="Invoice")

    reden: str | None = Field(description="a credit note's reason")
    verkoper: PartyOut
    koper: PartyOut
    btw_uitsplitsing: list[VatRowOut]
    vies: dict | None = Field(
        description="reverse charge: the buyer's VAT number as VIES answered before issue "
        "(status geldig, ongeldig or niet_gecontroleerd, and gecontroleerd_op)"
    )
    peppol: bool = Field(description="whether the buyer has a Peppol address")
    creditnotas: list[uuid.UUID] = Field(description="an invoice's credit notes, oldest first")
    regels: list[InvoiceLineOut]


class CreditLineIn(InModel):
    regel_id: uuid.UUID = Field(description="a line of the invoice")
    bedrag: str = Field(
        max_length=20, description='the amount to credit, a decimal string ("125.50")'
    )


class CreditIn(InModel):
    """A credit note against an issued invoice."""

    model_config = ConfigDict(title="CreditNoteBody")

    reden: str = Field(min_length=1, max_length=500, description="printed on the credit note")
    regels: list[CreditLineIn] | None = Field(
        default=None,
        max_length=1000,
        description="what to credit per line; left out: everything still open on the invoice",
    )
    correcties: list[CreditLineIn] = Field(
        default_factory=list,
        max_length=1000,
        description="lines credited in full billed again at this amount, on a new invoice",
    )


class CreditOut(BaseModel):
    model_config = ConfigDict(title="CreditNoteResult")

    creditnota: InvoiceOut
    factuur: InvoiceOut | None = Field(description="the correction invoice, when asked for")


class ExportIn(InModel):
    """A billing export asked for by an accounting package: dry run first, then the same
    selection with the dry run's token."""

    model_config = ConfigDict(title="BillingExportBody")

    van: date
    tot: date
    chauffeur_id: uuid.UUID | None = None
    klant_id: uuid.UUID | None = None
    dry_run: bool = Field(
        default=False, description="true: say what would be exported, change nothing"
    )
    token: str | None = Field(
        default=None,
        max_length=200,
        description="the dry run's token: the export runs only if nothing changed since",
    )


class ExportOut(BaseModel):
    """What an export holds: the dry run's view of it with its token, or the batch made."""

    model_config = ConfigDict(title="BillingExport")

    dry_run: bool
    id: uuid.UUID | None = Field(description="the batch made; null on a dry run")
    regels: int
    bedrag: Amount = Field(description="net, of the lines with a price")
    btw_bedrag: Amount
    aangehouden: dict[str, int] = Field(
        description="lines without a price (they go on no invoice), per reason"
    )
    klanten: list[str] = Field(description="the customers that get an invoice")
    geblokkeerd: list[str] = Field(description="customers without one: a line has no price")
    zonder_klant: int = Field(description="lines of tasks without a customer: on no invoice")
    token: str | None = Field(description="a dry run's token, to quote in the real run")
    facturen: list[InvoiceSummaryOut] = Field(description="the invoices the export issued")
    concepten: int = Field(description="invoices waiting as concepts: details are missing")


def _text(value) -> str | None:
    return None if value is None else format(Decimal(value), "f")


def serialize_summary(invoice) -> dict:
    return {
        "id": str(invoice.id),
        "soort": invoice.soort,
        "nummer": invoice.nummer,
        "datum": invoice.datum.isoformat(),
        "vervaldatum": invoice.vervaldatum.isoformat() if invoice.soort == "factuur" else None,
        "klant_id": str(invoice.klant_id),
        "export_id": str(invoice.export_id) if invoice.export_id else None,
        "gecrediteerde_factuur_id": str(invoice.gecrediteerde_factuur_id)
        if invoice.gecrediteerde_factuur_id
        else None,
        "valuta": invoice.valuta,
        "bedrag": _text(invoice.bedrag),
        "btw_bedrag": _text(invoice.btw_bedrag),
        "totaal": _text(Decimal(invoice.bedrag) + Decimal(invoice.btw_bedrag)),
        "aantal_regels": invoice.regels,
        "sha256": invoice.document_sha256,
        "uitgegeven_op": iso(invoice.uitgegeven_op),
    }


def serialize_invoice(invoice, lines, credit_ids, peppol: bool) -> dict:
    return {
        **serialize_summary(invoice),
        "reden": invoice.reden,
        "verkoper": invoice.verkoper,
        "koper": invoice.koper,
        "btw_uitsplitsing": invoice.btw_uitsplitsing or [],
        "vies": invoice.vies,
        "peppol": peppol,
        "creditnotas": [str(i) for i in credit_ids],
        "regels": [
            {
                "id": str(line.id),
                "volgnummer": line.volgnummer,
                "taak_id": str(line.taak_id) if line.taak_id else None,
                "facturatieregel_id": str(line.facturatieregel_id)
                if line.facturatieregel_id
                else None,
                "gecrediteerde_regel_id": str(line.gecrediteerde_regel_id)
                if line.gecrediteerde_regel_id
                else None,
                "naam": line.naam,
                "omschrijving": line.omschrijving,
                "notitie": line.notitie,
                "datum": line.datum.isoformat(),
                "hoeveelheid": _text(line.hoeveelheid),
                "eenheid": line.eenheid,
                "prijs": _text(line.prijs),
                "bedrag": _text(line.bedrag),
                "btw_categorie": line.btw_categorie,
                "btw_procent": _text(line.btw_procent),
                "btw_vrijstellingsreden": line.btw_vrijstellingsreden,
            }
            for line in lines
        ],
    }
