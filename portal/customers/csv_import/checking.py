"""Checking a file's rows: each customer and place by the rules the portal's forms and the
API use, rows grouped into customers, and each customer matched against the carrier's own."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field

from flask_babel import gettext as _

from portal.customers import rules, service
from portal.customers.csv_import.columns import CUSTOMER_COLUMNS, PLACE_COLUMNS, RowResult
from portal.customers.words import MESSAGES, SOORT_LABELS
from portal.imports import ROW, ParsedFile, cell_text, name_key
from portal.validators import refuse_control_characters

# What makes a row a place; soort and land alone do not (a template filled down).
_PLACE_VALUES = tuple(name for name in PLACE_COLUMNS if name not in ("soort", "land"))
_SOORT_WORDS = {"laden en lossen": "beide", "laden/lossen": "beide", "load": "laden",
                "unload": "lossen", "both": "beide"}  # fmt: skip
_NUMBER = re.compile(r"^[+-]?\d+(?:[.,]\d+)?$")


def _message(item: dict) -> str:
    """A rule's error in the planner's language, worded as the portal's forms word it."""
    code, name = item.get("code"), item.get("field")
    if code == "too_long":
        return _("Te lang: hoogstens %(max)s tekens", max=rules.LIMITS.get(name, ""))
    if code == "required":
        return _("Verplicht")
    if code == "choice":
        return _("Kies laden, lossen of beide")
    text = MESSAGES.get(code)
    return str(text) if text else str(item.get("message"))


def _soort(text: str) -> str:
    """A place's kind by its slug or its label ('Laden en lossen' is beide)."""
    wanted = name_key(text)
    for slug, label in SOORT_LABELS.items():
        if wanted in (slug, name_key(str(label))):
            return slug
    return _SOORT_WORDS.get(wanted, text)


def _read_row(result: RowResult, columns: list[str | None]) -> None:
    """The row's customer and place checked by the rules; errors at their cells."""
    index_of = {column: i for i, column in enumerate(columns) if column is not None}
    result.extra_cells(columns)
    refuse_control_characters(result, columns)
    values = {
        column: cell_text(result.cells[i]) or None
        for i, column in enumerate(columns)
        if column is not None
    }

    def put(errors: list[dict], to_column: dict) -> None:
        for item in errors:
            column = to_column.get(item["field"], item["field"])
            if column in index_of:
                result.add(index_of[column], _message(item))
            else:
                result.add(ROW, f"{column}: {_message(item)}")

    errors: list[dict] = []
    customer = rules.clean_customer({n: values.get(n) for n in CUSTOMER_COLUMNS}, errors)
    if customer.get("debiteurnummer"):
        # The number says which customer; its name may stand on another row, or in Rijplan.
        errors = [e for e in errors if (e["field"], e["code"]) != ("naam", "required")]
    put(errors, {})
    result.customer_bad = bool(errors)
    result.customer_data = customer
    if not any(values.get(name) for name in _PLACE_VALUES):
        return
    data = {field_: values.get(column) for column, field_ in PLACE_COLUMNS.items()}
    data["soort"] = _soort(data["soort"]) if data["soort"] else "beide"
    errors, numbers_ok = [], True
    for name in ("locatie_lat", "locatie_lng"):
        if data[name] is not None:
            if _NUMBER.match(data[name]):
                data[name] = float(data[name].replace(",", "."))
            else:
                result.add(index_of[name], _("Geen getal"))
                data[name], numbers_ok = None, False
    place = rules.clean_place(data, errors)
    if numbers_ok:
        rules.check_coordinates(place.get("locatie_lat"), place.get("locatie_lng"), errors)
    if place.get("naam") is None:
        errors = [e for e in errors if e["field"] != "naam"]
        where = index_of.get("locatie_naam", ROW)
        message = _("Vul de naam van de locatie in.")
        result.add(where, message if where != ROW else f"locatie_naam: {message}")
    put(errors, {field_: column for column, field_ in PLACE_COLUMNS.items()})
    result.place = place.get("naam") or values.get("locatie_naam")
    result.place_data = place


@dataclass
class _Group:
    """The rows of one customer in the file, and what it is in the carrier's customers."""

    rows: list[RowResult] = field(default_factory=list)
    data: dict = field(default_factory=dict)  # the first value given of each field
    given_at: dict = field(default_factory=dict)  # field -> the row that gave it
    places: dict = field(default_factory=dict)  # place name key -> its row
    existing: object | None = None
    places_known: set = field(default_factory=set)  # the existing customer's place names


def _group_key(result: RowResult, numbered: dict, index_of: dict) -> tuple | None:
    """Which customer of the file the row is: by number, else by a name that goes with
    one number elsewhere in the file, else by name."""
    data = result.customer_data or {}
    if data.get("debiteurnummer"):
        return ("nr", data["debiteurnummer"])
    if not data.get("naam"):
        return None
    numbers = numbered.get(name_key(data["naam"]), set())
    if len(numbers) > 1:
        result.add(
            index_of["naam"],
            _("Deze naam staat in het bestand bij meer debiteurnummers: vul het nummer in."),
        )
        return None
    return ("nr", next(iter(numbers))) if numbers else ("naam", name_key(data["naam"]))


def _merge(group: _Group, result: RowResult, index_of: dict) -> None:
    """Take the row's customer values into its group; a different value is an error."""
    for name, value in (result.customer_data or {}).items():
        if value is None:
            continue
        if name not in group.data:
            group.data[name], group.given_at[name] = value, result.number
            continue
        known = group.data[name]
        if (name_key(known) if name == "naam" else known) != (
            name_key(value) if name == "naam" else value
        ):
            result.add(
                index_of[name],
                _(
                    "Anders dan op rij %(row)s van dezelfde klant (%(value)s)",
                    row=group.given_at[name],
                    value=known,
                ),
            )
            result.customer_bad = True
    if result.place:
        key = name_key(result.place)
        if key in group.places:
            where = index_of.get("locatie_naam", ROW)
            result.add(
                where,
                _("Deze locatie staat al op rij %(row)s bij dezelfde klant", row=group.places[key]),
            )
        else:
            group.places[key] = result.number


def check(parsed: ParsedFile, *, carrier_id: uuid.UUID) -> list[RowResult]:
    """Every row of the file checked, and what the import does with each valid one."""
    index_of = {column: i for i, column in enumerate(parsed.columns) if column is not None}
    results = [
        RowResult(number=number, cells=cells)
        for number, cells in zip(parsed.numbers, parsed.rows, strict=True)
    ]
    numbered: dict[str, set[str]] = {}
    for result in results:
        _read_row(result, parsed.columns)
        data = result.customer_data or {}
        if data.get("debiteurnummer") and data.get("naam"):
            numbered.setdefault(name_key(data["naam"]), set()).add(data["debiteurnummer"])
    groups: dict[tuple, _Group] = {}
    for result in results:
        key = _group_key(result, numbered, index_of)
        if key is not None:
            group = groups.setdefault(key, _Group())
            group.rows.append(result)
            _merge(group, result, index_of)
    _match(groups, carrier_id, index_of)
    for group in groups.values():
        _decide(group, index_of)
    return results


def _match(groups: dict[tuple, _Group], carrier_id: uuid.UUID, index_of: dict) -> None:
    """The carrier's customer each group is, if any: by number, else by name when exactly
    one customer has it. Two queries, whatever the number of rows."""
    by_number, by_name = {}, {}
    for customer in service.all_customers(carrier_id=carrier_id):
        if customer.debiteurnummer:
            by_number[customer.debiteurnummer] = customer
        by_name.setdefault(name_key(customer.naam), []).append(customer)
    for (kind, value), group in groups.items():
        if kind == "nr":
            group.existing = by_number.get(value)
            continue
        same = by_name.get(value, [])
        if len(same) == 1:
            group.existing = same[0]
        elif same:
            for result in group.rows:
                result.add(
                    index_of["naam"],
                    _(
                        "%(count)s klanten heten zo: vul het debiteurnummer in.",
                        count=len(same),
                    ),
                )
                result.customer_bad = True
    matched = {g.existing.id for g in groups.values() if g.existing is not None}
    places = service.places_by_customer(carrier_id=carrier_id, customer_ids=matched)
    for group in groups.values():
        if group.existing is not None:
            group.places_known = {name_key(p.naam) for p in places[group.existing.id]}


def _decide(group: _Group, index_of: dict) -> None:
    """What the import does with each row of one customer. A customer with an error in
    its details imports none of its rows; a place with an error only skips its own row."""
    existing = group.existing
    if existing is None and not group.data.get("naam"):
        for result in group.rows:
            result.add(index_of["naam"], _("Vul de naam van de klant in."))
            result.customer_bad = True
    bad = [r.number for r in group.rows if r.customer_bad]
    first = None
    for result in group.rows:
        if bad and result.valid:
            result.add(
                ROW,
                _(
                    "De gegevens van deze klant hebben fouten op rij %(rows)s",
                    rows=", ".join(str(n) for n in bad),
                ),
            )
        if not result.valid:
            continue
        result.customer = existing.naam if existing is not None else group.data["naam"]
        if existing is not None:
            result.customer_id = existing.id
            known = result.place is None or name_key(result.place) in group.places_known
            result.kind = "exists" if known else "place"
        elif first is None:
            result.kind, first = "new", result.number
            result.customer_data = dict(group.data)
        else:
            result.kind, result.first = ("new_place" if result.place else "same"), first


def plan(results: list[RowResult]) -> list[service.ImportItem]:
    """The new customers and places of the valid rows, as the service imports them."""
    items: dict = {}
    for result in results:
        if result.kind not in ("new", "new_place", "place"):
            continue
        key = result.customer_id or result.first or result.number
        if key not in items:
            data = result.customer_data if result.kind == "new" else {}
            items[key] = (result.customer_id, data or {}, [])
        if result.place_data is not None:
            items[key][2].append(result.place_data)
    return [service.ImportItem(cid, data, tuple(places)) for cid, data, places in items.values()]
