"""Checking a CSV's rows: drivers, plates, customers and their places matched against the
carrier's own, values read the CSV's way, and each row's task checked by the API's
`TaskCreate`."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from flask_babel import gettext as _
from pydantic import ValidationError

from portal.imports import ROW, ParsedFile, cell_text, name_key
from portal.labels import ACTIVITY_LABELS
from portal.tasks.csv_import.columns import FIELD_COLUMNS, KINDS, LOOKUP_FIELDS, RowResult
from portal.tasks.csv_import.matching import (
    PLACE_COLUMNS,
    Directory,
    match_customer,
    match_driver,
    match_place,
    match_vehicle,
)
from portal.tasks.schemas import TaskCreate
from portal.validators import refuse_control_characters

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
_COUNTRY_COLUMNS = ("land", "laad_land", "los_land")


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
    if name in _COUNTRY_COLUMNS:
        return text.upper()
    if name == "type":
        return _activity_type(text)
    return text


def _activity_type(text: str) -> str:
    """An activity type by its slug or its readable name ('Mest laden' is mest_laden)."""
    wanted = name_key(text)
    for slug, label in ACTIVITY_LABELS.items():
        if wanted in (slug, name_key(str(label)), name_key(slug.replace("_", " "))):
            return slug
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
        if loc in _COUNTRY_COLUMNS:
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
    if loc in _COUNTRY_COLUMNS and "country code" in message:
        return _("Geen landcode van twee letters, zoals NL")
    if "finite" in message:
        return _("Geen eindig getal")
    if "year must be between" in message:
        return _("Het jaar moet tussen 1900 en 2999 liggen")
    if "min_fotos" in message:
        return _("min_fotos is groter dan max_fotos")
    if "locatie_lat" in message:
        return _("locatie_lat en locatie_lng horen samen")
    pair = re.search(r"\b(laad|los)_lat and \1_lng go together", message)
    if pair:
        return _pair_message(pair.group(1))
    return message.removeprefix("Value error, ")


def _pair_message(end: str) -> str:
    return _("%(lat)s en %(lng)s horen samen", lat=f"{end}_lat", lng=f"{end}_lng")


def _number(value) -> str:
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def check_row(
    number: int, cells: list[str], columns: list[str | None], found: Directory, zone: ZoneInfo
) -> RowResult:
    """One row: its values read, its driver, vehicle, customer and places matched, its task
    checked by the API's TaskCreate; every problem at its cell."""
    result = RowResult(number=number, cells=cells)
    index_of = {column: i for i, column in enumerate(columns) if column is not None}
    result.extra_cells(columns)
    refuse_control_characters(result, columns)
    body: dict = {}
    vehicle_id = None
    customer = None
    place_cells: dict[str, tuple[int, str]] = {}
    for index, column in enumerate(columns):
        if column is None:
            continue
        text = cell_text(cells[index])
        if not text:
            continue
        try:
            if column == "chauffeur":
                result.chauffeur_id = match_driver(text, found).id
            elif column == "kenteken":
                vehicle_id = match_vehicle(text, found).id
            elif column == "klant":
                customer = match_customer(text, found)
            elif column in PLACE_COLUMNS:
                # Matched once the customer is known, whichever column comes first.
                place_cells[PLACE_COLUMNS[column]] = (index, text)
            else:
                body[column] = _value(column, text, zone)
        except ValueError as exc:
            result.add(index, str(exc))
    places = _match_places(result, place_cells, customer, columns, found)
    if customer is not None:
        body["klant_id"] = customer.id
    for end, place in places.items():
        body[f"{end}locatie_id"] = place.id
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
            result.klant = customer.naam if customer is not None else None
            result.route = _route(result.data, places)
    if not result.valid:
        result.data = None
    return result


def _match_places(
    result: RowResult,
    place_cells: dict[str, tuple[int, str]],
    customer,
    columns: list[str | None],
    found: Directory,
) -> dict:
    """The places a row names, by end of the route; errors at their cells. A place without
    a customer is an error; with a customer that did not match, that cell says why."""
    places = {}
    customer_failed = "klant" in columns and columns.index("klant") in result.errors
    for end, (index, text) in place_cells.items():
        if customer is None:
            if not customer_failed:
                result.add(index, _("Een plaats hoort bij een klant: vul ook de kolom klant in"))
            continue
        try:
            places[end] = match_place(text, end, customer, found)
        except ValueError as exc:
            result.add(index, str(exc))
    return places


def _route(data: dict, places: dict) -> tuple[str, str] | None:
    """Where the task loads and unloads, in a few words: the names or cities of each end."""
    ends = []
    for end in PLACE_COLUMNS.values():
        place = places.get(end)
        ends.append(
            data.get(f"{end}_naam")
            or (place.naam if place is not None else None)
            or data.get(f"{end}_stad")
            or data.get(f"{end}_adres")
            or ""
        )
    return (ends[0], ends[1]) if any(ends) else None


def _service_message(error: dict) -> str:
    """An error the service refused a row with, by its code, in the planner's language."""
    code, name = error.get("code"), error.get("field")
    if code == "unknown_customer":
        return _("Deze klant bestaat niet of is niet actief")
    if code == "unknown_place":
        return _("Deze plaats hoort niet bij de klant")
    if code == "wrong_place_kind" and name == "loslocatie_id":
        return _("Deze plaats is geen losplaats van de klant")
    if code == "wrong_place_kind":
        return _("Deze plaats is geen laadplaats van de klant")
    if code == "coordinates_pair":
        return _pair_message("los" if str(name).startswith("los") else "laad")
    if name == "chauffeur_id":
        return _("Deze chauffeur bestaat niet meer")
    if name == "vehicle_id":
        return _("Dit voertuig bestaat niet meer")
    return _("Ongeldige waarde")


def add_service_errors(
    good: list[RowResult], errors: list[dict], columns: list[str | None]
) -> bool:
    """Put the errors the service refused the import's rows with (rows numbered from 1, as
    the rows were given to it) at their rows and cells; whether any of them found its row
    (an error of the whole batch, such as a driver removed, names none)."""
    placed = False
    for error in errors:
        number = error.get("row", 1 if len(good) == 1 else None)
        if not isinstance(number, int) or not 1 <= number <= len(good):
            continue
        placed = True
        result = good[number - 1]
        name = error.get("field")
        wanted = [name, LOOKUP_FIELDS.get(name)]
        if name in ("laad_lat", "laad_lng", "los_lat", "los_lng"):
            wanted.append(f"{name.split('_')[0]}plaats")
        index = next((columns.index(w) for w in wanted if w and w in columns), ROW)
        message = _service_message(error)
        if message not in result.errors.get(index, []):
            result.add(index, message)
        result.data = None
    return placed


def _named_fields(message: str) -> list[str]:
    """The fields a model-level error names, to show it at their cells."""
    return [name for name in FIELD_COLUMNS if re.search(rf"\b{name}\b", message)]


def check(parsed: ParsedFile, *, found: Directory, zone: ZoneInfo) -> list[RowResult]:
    """Every row of the file, checked."""
    return [
        check_row(number, cells, parsed.columns, found, zone)
        for number, cells in zip(parsed.numbers, parsed.rows, strict=True)
    ]
