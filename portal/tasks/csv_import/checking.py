"""Checking a CSV's rows: drivers and plates matched against the carrier's own, values read
the CSV's way, and each row's task checked by the API's `TaskCreate`."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from flask_babel import gettext as _
from pydantic import ValidationError

from portal.drivers import service as drivers
from portal.fleet import service as fleet
from portal.labels import ACTIVITY_LABELS
from portal.tasks.csv_import.columns import FIELD_COLUMNS, KINDS, ROW, ParsedFile, RowResult
from portal.tasks.schemas import TaskCreate

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
