"""The columns a file of customers may have, what each holds, and the file and its rows as
the import carries them from reading to checking to writing."""

from __future__ import annotations

import re
import uuid
from dataclasses import asdict, dataclass, field

from flask_babel import lazy_gettext as _l

from portal.customers import rules

MAX_BYTES = 5 * 1024 * 1024  # as the tasks import
MAX_ROWS = 5000
MAX_COLUMNS = 100
MAX_UNPACKED = 32 * 1024 * 1024  # what an XLSX may unpack to: more is no list of customers
ROW = -1  # the key of errors that belong to the row, not to one cell

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
SILENT_COLUMNS = ("fouten",)  # the error report's own column
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


class FileRefused(Exception):
    """The whole file cannot be read as customers; the message says why, for the planner."""

    def __init__(self, message: str, status: int = 422):
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass
class ParsedFile:
    """The file's header and rows as text; `columns` holds the column each one fills."""

    header: list[str]
    columns: list[str | None]
    rows: list[list[str]]
    numbers: list[int]  # each row's number in the file (the header is 1)
    kind: str  # csv or xlsx
    delimiter: str = ";"

    @property
    def unknown(self) -> list[str]:
        return [
            name
            for name, column in zip(self.header, self.columns, strict=True)
            if column is None and name.strip() and normalise_header(name) not in SILENT_COLUMNS
        ]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ParsedFile:
        return cls(**data)


@dataclass
class RowResult:
    """One row checked: its cells, errors by column index (ROW for the row), and what the
    import does with it (`kind`) when it has no errors."""

    number: int
    cells: list[str]
    errors: dict[int, list[str]] = field(default_factory=dict)
    kind: str | None = None  # new, new_place, same, place or exists
    customer: str = ""  # the customer's name, as the preview shows it
    place: str | None = None  # the place's name, when the row has one
    first: int | None = None  # the row that makes the new customer this row belongs to
    customer_id: uuid.UUID | None = None  # the existing customer the row matches
    customer_data: dict | None = None
    place_data: dict | None = None
    customer_bad: bool = False

    @property
    def valid(self) -> bool:
        return not self.errors

    def add(self, index: int, message: str) -> None:
        if message not in self.errors.get(index, []):
            self.errors.setdefault(index, []).append(message)

    def error_columns(self, header: list[str]) -> list[str]:
        """The names of the columns with an error, in the file's order."""
        return [header[i] for i in sorted(self.errors) if 0 <= i < len(header)]

    def messages(self, header: list[str]) -> list[str]:
        """Every error as 'column: message', row errors first."""
        out = list(self.errors.get(ROW, []))
        for index in sorted(i for i in self.errors if i != ROW):
            name = header[index] if index < len(header) else f"#{index + 1}"
            out.extend(f"{name}: {m}" for m in self.errors[index])
        return out


def normalise_header(name: str) -> str:
    """A header as the import compares it: 'Btw-nummer' and 'btw nummer' are btw_nummer."""
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def name_key(name: str) -> str:
    return " ".join(name.split()).casefold()
