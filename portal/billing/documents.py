"""Issued documents as values: the seller and buyer of an invoice as they were, its lines as
stored, its VAT breakdown, and the bytes' fingerprint. Pure: no database and no Flask, so the
migration that stores the documents of invoices issued before documents were kept
(c0d1c0de0300) builds them exactly as the app does."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, fields
from datetime import date
from decimal import Decimal

from portal.billing import ubl


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def party_json(party: ubl.Party) -> dict:
    """A party as stored with the document (JSON values)."""
    return {key: value for key, value in asdict(party).items() if value is not None}


def party_from_json(data: dict) -> ubl.Party:
    known = {f.name for f in fields(ubl.Party)}
    return ubl.Party(**{key: value for key, value in data.items() if key in known})


def seller(carrier) -> ubl.Party:
    """The carrier as seller: its invoicing details and its home base as the address."""
    return ubl.Party(
        naam=carrier.naam,
        btw_nummer=carrier.btw_nummer,
        kvk_nummer=carrier.kvk_nummer,
        adres=carrier.thuisbasis_straat,
        postcode=carrier.thuisbasis_postcode,
        stad=carrier.thuisbasis_plaats,
        land=carrier.thuisbasis_land or "NL",
        email=carrier.factuur_email,
    )


def buyer(customer) -> ubl.Party:
    """The customer as buyer: its invoice address and identifiers."""
    return ubl.Party(
        naam=customer.naam,
        btw_nummer=customer.btw_nummer,
        kvk_nummer=customer.kvk_nummer,
        gln=customer.gln,
        peppol_id=customer.peppol_id,
        adres=customer.factuur_adres,
        postcode=customer.factuur_postcode,
        stad=customer.factuur_plaats,
        land=customer.factuur_land or "NL",
        email=customer.factuur_email,
    )


def breakdown_json(lines) -> list[dict]:
    """The document's VAT breakdown as stored: per category and rate its base and VAT."""
    return [
        {
            "categorie": row.categorie,
            "procent": None if row.procent is None else str(row.procent),
            "grondslag": str(row.grondslag),
            "btw": str(row.btw),
            "reden": row.reden,
        }
        for row in ubl.vat_breakdown(lines)
    ]


@dataclass(frozen=True)
class Source:
    """Where a document line came from: a billing line and its task (plain ids)."""

    facturatieregel_id: object | None
    taak_id: object | None
    gecrediteerde_regel_id: object | None = None


def stored_line(line: ubl.Line, source: Source) -> dict:
    """A document line as the columns of factuur_regels hold it."""
    cat = ubl.category(line)
    return {
        "volgnummer": int(line.id),
        "facturatieregel_id": source.facturatieregel_id,
        "taak_id": source.taak_id,
        "gecrediteerde_regel_id": source.gecrediteerde_regel_id,
        "naam": line.naam[:200],
        "omschrijving": line.omschrijving,
        "notitie": line.notitie,
        "hoeveelheid": line.hoeveelheid,
        "eenheid": line.eenheid,
        "prijs": line.prijs,
        "bedrag": line.bedrag,
        "btw_categorie": cat,
        "btw_procent": None if cat == "O" else (line.btw_procent or Decimal(0)),
        "btw_vrijstellingsreden": line.btw_vrijstellingsreden,
        "datum": line.datum,
    }


def line_from_stored(row) -> ubl.Line:
    """A stored document line back as a ubl.Line (to credit it)."""
    return ubl.Line(
        id=str(row.volgnummer),
        naam=row.naam,
        omschrijving=row.omschrijving,
        notitie=row.notitie,
        hoeveelheid=row.hoeveelheid,
        eenheid=row.eenheid,
        prijs=row.prijs,
        bedrag=row.bedrag,
        btw_categorie=row.btw_categorie,
        btw_procent=row.btw_procent,
        btw_vrijstellingsreden=row.btw_vrijstellingsreden,
        datum=row.datum if isinstance(row.datum, date) else date.fromisoformat(str(row.datum)),
    )
