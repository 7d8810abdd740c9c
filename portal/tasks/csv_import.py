"""Reading a CSV of tasks: decoding, columns, values, matching drivers and plates, checking.

Pure functions over the file's text, plus one lookup of the carrier's drivers and vehicles
(`directory`). Each row's values go through the API's own `TaskCreate`, so a row the import
accepts is exactly a task the API would accept; only the CSV's way of writing values (ja/nee,
decimal commas, local times, names instead of ids) is translated here first.
"""

from __future__ import annotations

import csv
import io
import re
import types
import typing
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from pydantic import ValidationError

from portal.drivers import service as drivers
from portal.fleet import service as fleet
from portal.labels import ACTIVITY_LABELS
from portal.tasks.schemas import TaskCreate

MAX_BYTES = 5 * 1024 * 1024
MAX_ROWS = 5000
REQUIRED_COLUMNS = ("naam", "type")
ROW = -1  # the key of errors that belong to the row, not to one cell

# Columns that name a task field the API takes, derived from TaskCreate so they cannot
# drift. vehicle_id is left out: a CSV names the vehicle by its licence plate.
FIELD_COLUMNS = tuple(name for name in TaskCreate.model_fields if name != "vehicle_id")
# Columns that name something the import looks up, and other names people use for them.
LOOKUP_COLUMNS = ("chauffeur", "kenteken")
ALIASES = {"voertuig": "kenteken"}
# Columns the import reads past without a warning: the error report's own column.
SILENT_COLUMNS = ("fouten",)
COLUMN_ORDER = (
    "naam",
    "type",
    "gepland_op",
    "chauffeur",
    "kenteken",
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

TRUE = {"ja", "j", "1", "true", "waar", "yes", "y"}
FALSE = {"nee", "n", "0", "false", "onwaar", "no"}
LOCAL_FORMATS = (
    "%Y-%m-%d %H:%M",
    "%Y-%m-%d %H:%M:%S",
    "%d-%m-%Y %H:%M",
    "%d-%m-%Y %H:%M:%S",
    "%d/%m/%Y %H:%M",
    "%d/%m/%Y %H:%M:%S",
)
_NUMBER = re.compile(r"^[+-]?\d+(?:[.,]\d+)?$")
# A cell the error report quoted against formula injection: the quote is ours, not data.
_QUOTED_FORMULA = re.compile(r"^'[=+\-@\t\r]")

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
}


class FileRefused(Exception):
    """The whole file cannot be read as tasks; the message says why, for the planner."""

    def __init__(self, message: str, status: int = 422):
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass
class ParsedFile:
    """The file's header and rows as text; `columns` holds the field each column fills."""

    header: list[str]
    columns: list[str | None]
    rows: list[list[str]]
    numbers: list[int]  # each row's record number in the file (the header is 1)
    delimiter: str
    encoding: str

    @property
    def unknown(self) -> list[str]:
        return [
            name
            for name, column in zip(self.header, self.columns, strict=True)
            if column is None and name.strip() and normalise_header(name) not in SILENT_COLUMNS
        ]

    def to_dict(self) -> dict:
        return {
            "header": self.header,
            "columns": self.columns,
            "rows": self.rows,
            "numbers": self.numbers,
            "delimiter": self.delimiter,
            "encoding": self.encoding,
        }

    @classmethod
    def from_dict(cls, data: dict) -> ParsedFile:
        return cls(
            header=list(data["header"]),
            columns=list(data["columns"]),
            rows=[list(row) for row in data["rows"]],
            numbers=list(data["numbers"]),
            delimiter=data["delimiter"],
            encoding=data["encoding"],
        )


@dataclass
class RowResult:
    """One row checked: its cells, errors by column index (ROW for the row), and the task
    data when it has no errors."""

    number: int
    cells: list[str]
    errors: dict[int, list[str]] = field(default_factory=dict)
    data: dict | None = None
    chauffeur_id: uuid.UUID | None = None

    @property
    def valid(self) -> bool:
        return not self.errors

    def add(self, index: int, message: str) -> None:
        self.errors.setdefault(index, []).append(message)

    def messages(self, header: list[str]) -> list[str]:
        """Every error as 'column: message', row errors first."""
        out = list(self.errors.get(ROW, []))
        for index in sorted(i for i in self.errors if i != ROW):
            name = header[index] if index < len(header) else f"#{index + 1}"
            out.extend(f"{name}: {m}" for m in self.errors[index])
        return out


# --- reading the file ------------------------------------------------------------------


def decode(raw: bytes) -> tuple[str, str]:
    """The text of the file and its encoding: UTF-8 (with or without BOM), else Windows-1252."""
    try:
        return raw.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        # A BOM before text that is not UTF-8 after all is no part of the first column name.
        return raw.removeprefix(b"\xef\xbb\xbf").decode("cp1252"), "windows-1252"
    except UnicodeDecodeError:
        raise FileRefused(
            _("Het bestand is geen tekst in UTF-8 of Windows-1252. Sla het op als CSV.")
        ) from None


def sniff_delimiter(text: str) -> str:
    """';' or ',' (or a tab): whichever the header line holds most, outside quotes."""
    first = text.split("\n", 1)[0]
    outside = re.sub(r'"[^"]*"', "", first)
    counts = {sep: outside.count(sep) for sep in (";", ",", "\t")}
    best = max(counts, key=lambda sep: counts[sep])
    return best if counts[best] else ";"


def normalise_header(name: str) -> str:
    """A header as the import compares it: 'Gepland op' and 'gepland-op' are gepland_op."""
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def read_csv(raw: bytes) -> ParsedFile:
    """The file's header and rows; FileRefused when it cannot be imported at all."""
    if len(raw) > MAX_BYTES:
        raise FileRefused(
            _("Het bestand is groter dan %(mb)s MB.", mb=MAX_BYTES // (1024 * 1024)), 413
        )
    if not raw.strip():
        raise FileRefused(_("Het bestand is leeg."))
    text, encoding = decode(raw)
    if "\x00" in text:
        raise FileRefused(_("Het bestand is geen CSV-tekst (het bevat NUL-tekens)."))
    delimiter = sniff_delimiter(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader, None)
        if header is None:
            raise FileRefused(_("Het bestand is leeg."))
        rows, numbers = [], []
        for number, row in enumerate(reader, start=2):
            if not any(cell.strip() for cell in row):
                continue
            if len(rows) >= MAX_ROWS:
                raise FileRefused(
                    _("Het bestand heeft meer dan %(max)s rijen; splits het op.", max=MAX_ROWS),
                    413,
                )
            rows.append(row)
            numbers.append(number)
    except csv.Error as exc:
        raise FileRefused(
            _("Het bestand is niet te lezen als CSV (%(reason)s).", reason=str(exc))
        ) from None
    columns = _columns(header)
    # Cells past the header with nothing in them (a trailing separator) are no column.
    width = len(header)
    return ParsedFile(
        header=[name.strip() for name in header],
        columns=columns,
        rows=[row + [""] * (width - len(row)) if len(row) < width else row for row in rows],
        numbers=numbers,
        delimiter=delimiter,
        encoding=encoding,
    )


def _columns(header: list[str]) -> list[str | None]:
    columns: list[str | None] = []
    seen: dict[str, str] = {}
    for name in header:
        key = normalise_header(name)
        key = ALIASES.get(key, key)
        if key in FIELD_COLUMNS or key in LOOKUP_COLUMNS:
            if key in seen:
                raise FileRefused(
                    _(
                        "De kolommen %(first)s en %(second)s zeggen hetzelfde; houd er één.",
                        first=seen[key],
                        second=name.strip(),
                    )
                )
            seen[key] = name.strip()
            columns.append(key)
        else:
            columns.append(None)
    missing = [name for name in REQUIRED_COLUMNS if name not in seen]
    if missing:
        raise FileRefused(
            _(
                "De kolom %(names)s ontbreekt. De eerste regel moet de kolomnamen geven, "
                "met ten minste naam en type.",
                names=", ".join(missing),
            )
        )
    return columns


# --- the carrier's drivers and vehicles ----------------------------------------------------


@dataclass
class Directory:
    """The carrier's drivers by name and email and vehicles by plate, read once per import."""

    drivers_by_email: dict[str, list] = field(default_factory=dict)
    drivers_by_name: dict[str, list] = field(default_factory=dict)
    vehicles_by_plate: dict[str, object] = field(default_factory=dict)


def _name_key(name: str) -> str:
    return " ".join(name.split()).casefold()


def directory(*, carrier_id: uuid.UUID) -> Directory:
    """The lookup tables of one import: two queries, whatever the number of rows."""
    found = Directory()
    for driver in drivers.list_drivers(carrier_id=carrier_id, active_only=False):
        if driver.email:
            found.drivers_by_email.setdefault(driver.email.casefold(), []).append(driver)
        found.drivers_by_name.setdefault(_name_key(driver.naam), []).append(driver)
    for vehicle in fleet.list_vehicles(carrier_id=carrier_id):
        found.vehicles_by_plate[fleet.normalise_kenteken(vehicle.kenteken)] = vehicle
    return found


def match_driver(value: str, found: Directory):
    """The driver a cell names by email or name (case-insensitive); ValueError saying why
    not: unknown, ambiguous or inactive."""
    key = value.strip()
    if "@" in key:
        candidates = found.drivers_by_email.get(key.casefold(), [])
    else:
        candidates = found.drivers_by_name.get(_name_key(key), [])
    active = [d for d in candidates if d.actief]
    if len(active) == 1:
        return active[0]
    if len(active) > 1:
        raise ValueError(
            _(
                "%(count)s chauffeurs heten “%(name)s”: gebruik het e-mailadres",
                count=len(active),
                name=key,
            )
        )
    if candidates:
        raise ValueError(_("Chauffeur “%(name)s” is niet actief", name=key))
    raise ValueError(_("Geen chauffeur met naam of e-mailadres “%(name)s”", name=key))


def match_vehicle(value: str, found: Directory):
    plate = fleet.normalise_kenteken(value)
    vehicle = found.vehicles_by_plate.get(plate)
    if vehicle is None:
        raise ValueError(_("Geen voertuig met kenteken %(plate)s", plate=plate or value))
    if not getattr(vehicle, "actief", True):
        raise ValueError(_("Voertuig %(plate)s is niet actief", plate=plate))
    return vehicle


# --- values ----------------------------------------------------------------------------


def parse_moment(value: str, zone: ZoneInfo) -> datetime:
    """A cell's date and time as an aware moment; a time without zone is the carrier's."""
    text = value.strip()
    moment = None
    for fmt in LOCAL_FORMATS:
        try:
            moment = datetime.strptime(text, fmt)
            break
        except ValueError:
            continue
    if moment is None:
        if not re.search(r"\d[T ]\d{1,2}:\d{2}", text):
            raise ValueError(
                _("Geen datum en tijd; schrijf bijvoorbeeld 2026-11-23 07:30 of 23-11-2026 07:30")
            )
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(
                _("Geen datum en tijd; schrijf bijvoorbeeld 2026-11-23 07:30 of 23-11-2026 07:30")
            ) from None
    if moment.tzinfo is not None:
        return moment
    local = moment.replace(tzinfo=zone)
    # A time the clock skips (the spring change to summer time) does not exist there.
    if local.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != moment:
        raise ValueError(
            _("Deze tijd bestaat niet in tijdzone %(zone)s (zomertijd)", zone=zone.key)
        )
    return local


def _value(name: str, text: str, zone: ZoneInfo):
    """A cell's text as the value TaskCreate takes; ValueError for what only the CSV reads."""
    kind = KINDS[name]
    if kind == "bool":
        lowered = text.lower()
        if lowered in TRUE:
            return True
        if lowered in FALSE:
            return False
        raise ValueError(_("Verwacht ja of nee"))
    if kind in ("int", "float") and _NUMBER.match(text):
        return text.replace(",", ".")
    if kind == "datetime":
        return parse_moment(text, zone)
    if name == "land":
        return text.upper()
    if name == "type":
        return _activity_type(text)
    return text


def _activity_type(text: str) -> str:
    """An activity type by its slug or its readable name ('Mest laden' is mest_laden)."""
    wanted = _name_key(text)
    for slug, label in ACTIVITY_LABELS.items():
        if wanted in (slug, _name_key(str(label)), _name_key(slug.replace("_", " "))):
            return slug
    return text


def _cell_text(cell: str) -> str:
    text = cell.strip()
    if _QUOTED_FORMULA.match(text):
        text = text[1:]
    return text


def _pydantic_message(error: dict) -> str:
    """A pydantic error in the planner's language."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    loc = error["loc"][0] if error["loc"] else None
    if kind == "missing":
        return _("Verplicht")
    if kind == "string_too_short":
        return _("Mag niet leeg zijn")
    if kind == "string_too_long":
        return _("Te lang: hoogstens %(max)s tekens", max=ctx.get("max_length"))
    if kind == "string_pattern_mismatch":
        if loc == "land":
            return _("Geen landcode van twee letters, zoals NL")
        if loc == "type":
            return _("Alleen kleine letters, cijfers, _ en -, zoals mest_laden")
        return _("Ongeldige waarde")
    if kind in ("greater_than_equal", "greater_than"):
        return _("Moet minstens %(min)s zijn", min=_number(ctx.get("ge", ctx.get("gt"))))
    if kind in ("less_than_equal", "less_than"):
        return _("Mag hoogstens %(max)s zijn", max=_number(ctx.get("le", ctx.get("lt"))))
    if kind in ("float_parsing", "float_type", "finite_number"):
        return _("Geen getal")
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return _("Geen geheel getal")
    if kind in ("bool_parsing", "bool_type"):
        return _("Verwacht ja of nee")
    message = str(error.get("msg", ""))
    if "finite" in message:
        return _("Geen eindig getal")
    if "year must be between" in message:
        return _("Het jaar moet tussen 1900 en 2999 liggen")
    if "min_fotos" in message:
        return _("min_fotos is groter dan max_fotos")
    if "locatie_lat" in message:
        return _("locatie_lat en locatie_lng horen samen")
    return message.removeprefix("Value error, ")


def _number(value) -> str:
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def check_row(
    number: int, cells: list[str], columns: list[str | None], found: Directory, zone: ZoneInfo
) -> RowResult:
    """One row: its values read, its driver and vehicle matched, its task checked by the
    API's TaskCreate; every problem at its cell."""
    result = RowResult(number=number, cells=cells)
    index_of = {column: i for i, column in enumerate(columns) if column is not None}
    if len(cells) > len(columns) and any(c.strip() for c in cells[len(columns) :]):
        result.add(ROW, _("Meer cellen dan kolommen in de kopregel"))
    body: dict = {}
    vehicle_id = None
    for index, column in enumerate(columns):
        if column is None:
            continue
        text = _cell_text(cells[index])
        if not text:
            continue
        try:
            if column == "chauffeur":
                result.chauffeur_id = match_driver(text, found).id
            elif column == "kenteken":
                vehicle_id = match_vehicle(text, found).id
            else:
                body[column] = _value(column, text, zone)
        except ValueError as exc:
            result.add(index, str(exc))
    try:
        task = TaskCreate.model_validate(body)
    except ValidationError as exc:
        for error in exc.errors(include_url=False, include_input=False):
            message = _pydantic_message(error)
            targets = [error["loc"][0]] if error["loc"] else _named_fields(str(error["msg"]))
            indexes = [index_of[t] for t in targets if t in index_of]
            for index in indexes or [ROW]:
                if message not in result.errors.get(index, []):
                    result.add(index, message)
    else:
        if result.valid:
            result.data = {**task.model_dump(), "vehicle_id": vehicle_id}
    if not result.valid:
        result.data = None
    return result


def _named_fields(message: str) -> list[str]:
    """The fields a model-level error names, to show it at their cells."""
    return [name for name in FIELD_COLUMNS if re.search(rf"\b{name}\b", message)]


def check(parsed: ParsedFile, *, found: Directory, zone: ZoneInfo) -> list[RowResult]:
    """Every row of the file, checked."""
    return [
        check_row(number, cells, parsed.columns, found, zone)
        for number, cells in zip(parsed.numbers, parsed.rows, strict=True)
    ]


# --- writing CSV -----------------------------------------------------------------------


def safe_cell(value: str) -> str:
    """A cell a spreadsheet shows as text, never runs as a formula."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def error_report(parsed: ParsedFile, results: list[RowResult]) -> str:
    """The rows with errors, as the planner sent them, plus a `fouten` column: fix and upload
    again (the import skips that column)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=parsed.delimiter, lineterminator="\r\n")
    # An earlier report's own fouten column is left out: this one writes it afresh.
    keep = [
        i
        for i, name in enumerate(parsed.header)
        if parsed.columns[i] is not None or normalise_header(name) not in SILENT_COLUMNS
    ]
    header = [parsed.header[i] for i in keep]
    writer.writerow([safe_cell(h) for h in header] + ["fouten"])
    for result in results:
        if result.valid:
            continue
        cells = [result.cells[i] if i < len(result.cells) else "" for i in keep]
        writer.writerow(
            [safe_cell(c) for c in cells] + [safe_cell("; ".join(result.messages(parsed.header)))]
        )
    return "\ufeff" + out.getvalue()


EXAMPLE_ROWS = (
    {
        "naam": "Mest laden Enter",
        "type": "mest_laden",
        "gepland_op": "2026-11-23 07:30",
        "chauffeur": "Jan de Vries",
        "kenteken": "BX-12-AB",
        "adres": "Dorpsstraat 12",
        "postcode": "7468 AB",
        "stad": "Enter",
        "land": "NL",
        "hoeveelheid": "32,5",
        "eenheid": "ton",
        "vdm_nummer": "2611230412",
        "duur_min": "90",
        "agr_verplicht": "ja",
        "require_photos": "ja",
        "min_fotos": "2",
    },
    {
        "naam": "Varkens naar Deurne",
        "type": "vee_transport",
        "gepland_op": "24-11-2026 05:45",
        "chauffeur": "sanne@voorbeeld.nl",
        "kenteken": "VT123X",
        "adres": "Kanaaldijk 3",
        "stad": "Deurne",
        "land": "NL",
        "required_desinfectie": "ja",
        "require_signature": "ja",
        "opmerkingen": "Bel bij aankomst",
    },
)


def example_csv() -> str:
    """An example file with every column, separated by ';' as Dutch spreadsheets write it."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow(COLUMN_ORDER)
    for row in EXAMPLE_ROWS:
        writer.writerow([row.get(name, "") for name in COLUMN_ORDER])
    return "\ufeff" + out.getvalue()
