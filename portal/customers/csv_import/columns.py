"""The columns a file of customers may have, what each holds, and what a row checked
becomes; the file itself is the import kit's (portal/imports/)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal import imports
from portal.customers import rules

MAX_BYTES = 5 * 1024 * 1024  # as the tasks import
MAX_ROWS = 5000
MAX_COLUMNS = 100
MAX_UNPACKED = 32 * 1024 * 1024  # what an XLSX may unpack to: more is no list of customers

CUSTOMER_COLUMNS = rules.CUSTOMER_FIELDS
# The place's columns and the field of the place each fills.
PLACE_COLUMNS = {
    "locatie_naam": "naam",
    **{name: name for name in rules.PLACE_FIELDS if name not in ("naam", "opmerkingen")},
    "locatie_opmerkingen": "opmerkingen",
}
COLUMN_ORDER = (*CUSTOMER_COLUMNS, *PLACE_COLUMNS)
# Other names people give these columns (after normalise_header).
ALIASES = {
    "klant": "naam",
    "klantnaam": "naam",
    "btw": "btw_nummer",
    "btw_nr": "btw_nummer",
    "email": "factuur_email",
    "e_mail": "factuur_email",
    "locatie": "locatie_naam",
    "plaats": "stad",
    "lat": "locatie_lat",
    "lng": "locatie_lng",
}
COLUMN_HELP = {
    "naam": _l("Naam van de klant, zoals op de factuur"),
    "debiteurnummer": _l(
        "Nummer in je boekhouding; rijen met hetzelfde nummer zijn één klant. Een klant die dit "
        "nummer al heeft, krijgt alleen de nieuwe locaties erbij"
    ),
    "btw_nummer": _l("Bijvoorbeeld NL123456789B01, of een btw-nummer uit een ander EU-land"),
    "factuur_email": _l("E-mailadres voor facturen"),
    "factuur_adres": _l("Factuuradres: straat en huisnummer"),
    "factuur_postcode": _l("Postcode van het factuuradres"),
    "factuur_plaats": _l("Plaats van het factuuradres"),
    "factuur_land": _l("Land van het factuuradres: landcode uit ISO 3166, zoals NL; leeg: NL"),
    "kvk_nummer": _l("KvK-nummer van 8 cijfers"),
    "gln": _l("GLN van 13 cijfers, als de klant het gebruikt"),
    "peppol_id": _l("Peppol-ID als schema:nummer, zoals 0106:12345678, als de klant het opgeeft"),
    "btw_categorie": _l(
        "Leeg: het tarief bepaalt de btw. AE: btw verlegd (EU), O: niet onderworpen (buiten de "
        "EU), Z: nultarief, E: vrijgesteld"
    ),
    "btw_vrijstellingsreden": _l("Reden of bewijs bij O, Z of E; staat op de factuur"),
    "opmerkingen": _l("Opmerkingen over de klant, voor planners en de administratie"),
    "locatie_naam": _l("Naam van de laad- of losplaats, zoals Erf Enter; leeg: geen locatie"),
    "soort": _l("laden, lossen of beide; leeg: beide"),
    "adres": _l("Straat en huisnummer"),
    "postcode": _l("Postcode, zoals 7468 AB"),
    "stad": _l("Plaats, zoals Enter"),
    "land": _l("Landcode van twee letters, zoals NL; leeg: NL"),
    "locatie_lat": _l("Breedtegraad, zoals 52,2936 (samen met locatie_lng)"),
    "locatie_lng": _l("Lengtegraad, zoals 6,5714 (samen met locatie_lat)"),
    "openingstijden": _l("Bijvoorbeeld ma-vr 6:00-17:00"),
    "contactpersoon": _l("Contactpersoon op de locatie"),
    "telefoon": _l("Telefoonnummer van de locatie"),
    "locatie_opmerkingen": _l("Aanwijzingen voor de chauffeur"),
}


@dataclass
class RowResult(imports.RowResult):
    """One row checked (errors by column index, ROW for the row, each message once per
    cell), and what the import does with it (`kind`) when it has no errors."""

    kind: str | None = None  # new, new_place, same, place or exists
    customer: str = ""  # the customer's name, as the preview shows it
    place: str | None = None  # the place's name, when the row has one
    first: int | None = None  # the row that makes the new customer this row belongs to
    customer_id: uuid.UUID | None = None  # the existing customer the row matches
    customer_data: dict | None = None
    place_data: dict | None = None
    customer_bad: bool = False

    def add(self, index: int, message: str) -> None:
        if message not in self.errors.get(index, []):
            super().add(index, message)


def _missing(names: list[str]) -> str:
    return _(
        "De kolom naam ontbreekt. De eerste regel moet de kolomnamen geven, met ten minste naam."
    )


COLUMNS = imports.Columns(
    known=COLUMN_ORDER,
    aliases=ALIASES,
    required=("naam",),
    missing=_missing,
    max_bytes=MAX_BYTES,
    max_rows=MAX_ROWS,
    max_columns=MAX_COLUMNS,
)
