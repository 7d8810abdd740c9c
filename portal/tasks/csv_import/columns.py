"""The columns a CSV of tasks may have, what each holds, and what a row checked becomes;
the file itself is the import kit's (portal/imports/)."""

from __future__ import annotations

import types
import typing
import uuid
from dataclasses import dataclass
from datetime import datetime

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal import imports
from portal.tasks.schemas import TaskCreate

MAX_BYTES = 5 * 1024 * 1024
MAX_ROWS = 5000
REQUIRED_COLUMNS = ("naam", "type")

# Ids a CSV does not hold: it names the vehicle by its licence plate, the customer by its
# debtor number or name, and the customer's places by their names (LOOKUP_COLUMNS).
ID_FIELDS = ("vehicle_id", "klant_id", "laadlocatie_id", "loslocatie_id")
# Columns that name a task field the API takes, derived from TaskCreate so they cannot drift.
FIELD_COLUMNS = tuple(name for name in TaskCreate.model_fields if name not in ID_FIELDS)
# Columns that name something the import looks up, and other names people use for them.
LOOKUP_COLUMNS = ("chauffeur", "kenteken", "klant", "laadplaats", "losplaats")
ALIASES = {
    "voertuig": "kenteken",
    "klantnummer": "klant",
    "debiteurnummer": "klant",
    "laadlocatie": "laadplaats",
    "loslocatie": "losplaats",
}
# The task field a lookup column fills, to show the service's errors at that cell.
LOOKUP_FIELDS = {
    "chauffeur_id": "chauffeur",
    "vehicle_id": "kenteken",
    "klant_id": "klant",
    "laadlocatie_id": "laadplaats",
    "loslocatie_id": "losplaats",
}
COLUMN_ORDER = (
    "naam",
    "type",
    "gepland_op",
    "chauffeur",
    "kenteken",
    "klant",
    "laadplaats",
    "losplaats",
    *(name for name in FIELD_COLUMNS if name not in ("naam", "type", "gepland_op")),
)


def _kind(annotation) -> str:
    """The CSV reading a TaskCreate field needs: bool, int, float, datetime or text."""
    if annotation is bool:
        return "bool"
    if annotation is int:
        return "int"
    if annotation is float:
        return "float"
    if annotation is datetime:
        return "datetime"
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType, typing.Annotated):
        for arg in typing.get_args(annotation):
            kind = _kind(arg)
            if kind != "text":
                return kind
    return "text"


KINDS = {name: _kind(TaskCreate.model_fields[name].annotation) for name in FIELD_COLUMNS}

COLUMN_HELP = {
    "naam": _l("Naam van de taak"),
    "type": _l("Soort werk, zoals mest_laden of voer_leveren; de naam (Mest laden) mag ook"),
    "gepland_op": _l(
        "Datum en tijd, zoals 2026-11-23 07:30 of 23-11-2026 07:30, in de tijdzone van het "
        "bedrijf; ISO 8601 met tijdzone mag ook"
    ),
    "chauffeur": _l("Naam of e-mailadres van de chauffeur; leeg: nog niet toegewezen"),
    "kenteken": _l(
        "Kenteken van het voertuig (streepjes en spaties tellen niet); ook als kolom voertuig"
    ),
    "duur_min": _l(
        "Verwachte duur in minuten (1 tot 1440); leeg: de gebruikelijke duur van de soort"
    ),
    "vdm_nummer": _l("VDM-nummer: 10 cijfers, de laaddatum als jjmmdd en een volgnummer"),
    "hoeveelheid": _l("Getal, met punt of komma"),
    "land": _l("Landcode van twee letters, zoals NL"),
    "min_fotos": _l("Geheel getal, 0 tot 100"),
    "max_fotos": _l("Geheel getal, 0 tot 100"),
    "required_temperatuur": _l("Vereiste temperatuur in °C"),
    "locatie_lat": _l("Breedtegraad, zoals 52,2215 (samen met locatie_lng)"),
    "locatie_lng": _l("Lengtegraad, zoals 6,8937 (samen met locatie_lat)"),
    "klant": _l(
        "Debiteurnummer of naam van de klant (hoofdletters tellen niet); ook als kolom "
        "klantnummer of debiteurnummer; leeg: geen klant"
    ),
    "laadplaats": _l(
        "Naam van een laadplaats van die klant; het adres komt van die plaats. Ook als kolom "
        "laadlocatie"
    ),
    "losplaats": _l(
        "Naam van een losplaats van die klant; het adres komt van die plaats. Ook als kolom "
        "loslocatie"
    ),
    "laad_naam": _l("Naam van het laadadres; leeg: de naam van de laadplaats"),
    "laad_adres": _l("Straat en huisnummer waar geladen wordt; leeg: dat van de laadplaats"),
    "laad_postcode": _l("Postcode van het laadadres"),
    "laad_stad": _l("Plaats van het laadadres"),
    "laad_land": _l("Landcode van het laadadres, zoals NL"),
    "laad_lat": _l("Breedtegraad van het laadadres (samen met laad_lng)"),
    "laad_lng": _l("Lengtegraad van het laadadres (samen met laad_lat)"),
    "los_naam": _l("Naam van het losadres; leeg: de naam van de losplaats"),
    "los_adres": _l("Straat en huisnummer waar gelost wordt; leeg: dat van de losplaats"),
    "los_postcode": _l("Postcode van het losadres"),
    "los_stad": _l("Plaats van het losadres"),
    "los_land": _l("Landcode van het losadres, zoals NL"),
    "los_lat": _l("Breedtegraad van het losadres (samen met los_lng)"),
    "los_lng": _l("Lengtegraad van het losadres (samen met los_lat)"),
}


@dataclass
class RowResult(imports.RowResult):
    """One row checked (errors by column index, ROW for the row), and the task data when it
    has no errors."""

    data: dict | None = None
    chauffeur_id: uuid.UUID | None = None
    klant: str | None = None  # the customer's name, for the preview
    route: tuple[str, str] | None = None  # where it loads and unloads, for the preview


def _missing(names: list[str]) -> str:
    return _(
        "De kolom %(names)s ontbreekt. De eerste regel moet de kolomnamen geven, "
        "met ten minste naam en type.",
        names=", ".join(names),
    )


COLUMNS = imports.Columns(
    known=(*FIELD_COLUMNS, *LOOKUP_COLUMNS),
    aliases=ALIASES,
    required=REQUIRED_COLUMNS,
    missing=_missing,
    max_bytes=MAX_BYTES,
    max_rows=MAX_ROWS,
)
