"""Matching a CSV's names against the carrier's own: drivers by name or email, vehicles by
plate, customers by debtor number or name, and those customers' places by name. The carrier's
lists are read once per import (`directory`), in a fixed number of queries."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.customers import service as customers
from portal.drivers import service as drivers
from portal.fleet import service as fleet
from portal.imports import ParsedFile, cell_text, name_key

# The end of the route each place column names, and the kinds of place that fit it.
PLACE_COLUMNS = {"laadplaats": "laad", "losplaats": "los"}
_PLACE_KINDS = {"laad": ("laden", "beide"), "los": ("lossen", "beide")}
# Why a cell names no driver or customer: more than one active, only inactive ones, none.
_DRIVER_WORDS = {
    "many": _l("%(count)s chauffeurs heten “%(name)s”: gebruik het e-mailadres"),
    "inactive": _l("Chauffeur “%(name)s” is niet actief"),
    "unknown": _l("Geen chauffeur met naam of e-mailadres “%(name)s”"),
}
_CUSTOMER_WORDS = {
    "many": _l("%(count)s klanten heten “%(name)s”: gebruik het debiteurnummer"),
    "inactive": _l("Klant “%(name)s” is niet actief"),
    "unknown": _l("Geen klant met debiteurnummer of naam “%(name)s”"),
}


@dataclass
class Directory:
    """The carrier's drivers by name and email, vehicles by plate, customers by debtor number
    and name, and the places of the customers the file names, read once per import."""

    drivers_by_email: dict[str, list] = field(default_factory=dict)
    drivers_by_name: dict[str, list] = field(default_factory=dict)
    vehicles_by_plate: dict[str, object] = field(default_factory=dict)
    customers_by_number: dict[str, object] = field(default_factory=dict)
    customers_by_name: dict[str, list] = field(default_factory=dict)
    places: dict[uuid.UUID, list] = field(default_factory=dict)


def directory(*, carrier_id: uuid.UUID, parsed: ParsedFile | None = None) -> Directory:
    """The lookup tables of one import: at most four queries, whatever the number of rows.
    Given the file, customers are read only when it has a customer column, and places only
    when it has a place column, only those of the customers it names."""
    found = Directory()
    for driver in drivers.list_drivers(carrier_id=carrier_id, active_only=False):
        if driver.email:
            found.drivers_by_email.setdefault(driver.email.casefold(), []).append(driver)
        found.drivers_by_name.setdefault(name_key(driver.naam), []).append(driver)
    for vehicle in fleet.list_vehicles(carrier_id=carrier_id):
        if vehicle.kenteken:  # a trailer on its tractor's repeat plate is named by no cell
            found.vehicles_by_plate[fleet.normalise_kenteken(vehicle.kenteken)] = vehicle
    if parsed is not None and "klant" not in parsed.columns:
        return found
    for customer in customers.all_customers(carrier_id=carrier_id):
        if customer.debiteurnummer:
            found.customers_by_number[name_key(customer.debiteurnummer)] = customer
        found.customers_by_name.setdefault(name_key(customer.naam), []).append(customer)
    if parsed is not None and any(column in PLACE_COLUMNS for column in parsed.columns):
        found.places = customers.places_by_customer(
            carrier_id=carrier_id, customer_ids=_named_customers(parsed, found)
        )
    return found


def _named_customers(parsed: ParsedFile, found: Directory) -> set[uuid.UUID]:
    """The customers the file's rows name (those that match)."""
    index = parsed.columns.index("klant")
    named = set()
    for cells in parsed.rows:
        text = cell_text(cells[index]) if index < len(cells) else ""
        if not text:
            continue
        try:
            named.add(match_customer(text, found).id)
        except ValueError:
            continue
    return named


def match_driver(value: str, found: Directory):
    """The driver a cell names by email or name (case-insensitive); ValueError saying why
    not: unknown, ambiguous or inactive."""
    key = value.strip()
    if "@" in key:
        candidates = found.drivers_by_email.get(key.casefold(), [])
    else:
        candidates = found.drivers_by_name.get(name_key(key), [])
    return _one_active(candidates, key, _DRIVER_WORDS)


def _one_active(candidates: list, name: str, words: dict):
    """The one active candidate; else ValueError in the words for many of them, for only
    inactive ones, or for none."""
    active = [c for c in candidates if c.actief]
    if len(active) == 1:
        return active[0]
    problem = "many" if active else "inactive" if candidates else "unknown"
    raise ValueError(str(words[problem]) % {"count": len(active), "name": name})


def match_vehicle(value: str, found: Directory):
    """The vehicle a cell names by plate, however written; ValueError when unknown or
    inactive."""
    plate = fleet.normalise_kenteken(value)
    vehicle = found.vehicles_by_plate.get(plate)
    if vehicle is None:
        raise ValueError(_("Geen voertuig met kenteken %(plate)s", plate=plate or value))
    if not getattr(vehicle, "actief", True):
        raise ValueError(_("Voertuig %(plate)s is niet actief", plate=plate))
    return vehicle


def match_customer(value: str, found: Directory):
    """The customer a cell names by debtor number, else by name (case-insensitive);
    ValueError saying why not: unknown, ambiguous or inactive."""
    key = value.strip()
    by_number = found.customers_by_number.get(name_key(key))
    if by_number is not None:
        candidates = [by_number]
    else:
        candidates = found.customers_by_name.get(name_key(key), [])
    return _one_active(candidates, key, _CUSTOMER_WORDS)


def match_place(value: str, end: str, customer, found: Directory):
    """The customer's place a cell names (case-insensitive) for one end of the route, laad
    or los; ValueError saying why not: unknown, ambiguous or for the other end."""
    key = name_key(value)
    named = [p for p in found.places.get(customer.id, []) if name_key(p.naam) == key]
    fitting = [p for p in named if p.soort in _PLACE_KINDS[end]]
    text = value.strip()
    if len(fitting) == 1:
        return fitting[0]
    if len(fitting) > 1:
        raise ValueError(
            _(
                "%(customer)s heeft %(count)s plaatsen “%(name)s”",
                customer=customer.naam,
                count=len(fitting),
                name=text,
            )
        )
    if named and end == "laad":
        raise ValueError(_("“%(name)s” is een losplaats, geen laadplaats", name=text))
    if named:
        raise ValueError(_("“%(name)s” is een laadplaats, geen losplaats", name=text))
    raise ValueError(
        _("%(customer)s heeft geen plaats “%(name)s”", customer=customer.naam, name=text)
    )
