"""A task's customer and route: who the work is for, where it loads and where it unloads.

Each end of the route is a copy of an address on the task (laad_* and los_*), taken from the
customer's place when one is chosen (laadlocatie_id, loslocatie_id): a place changed or
removed later leaves planned and billed work as it was. Fields the caller gives win over
the place's, so a planner may pick a place and still change its street for this one trip.
"""

from __future__ import annotations

import uuid

from sqlalchemy import exists, select, update

from portal.customers import service as customers
from portal.english_names import PLACE_KIND, english
from portal.errors import ValidationFailed
from portal.extensions import db
from portal.tasks.models import Task

ENDS = ("laad", "los")
PLACE_FIELDS = ("naam", "adres", "postcode", "stad", "land", "lat", "lng")
# The customer place's attribute each copied field comes from.
_SOURCE = {"lat": "locatie_lat", "lng": "locatie_lng"}
# Where the place may be used: a loading place must load, an unloading place unload.
_KINDS = {"laad": ("laden", "beide"), "los": ("lossen", "beide")}
MAIN_ADDRESS = ("adres", "postcode", "stad", "land")

ROUTE_FIELDS: tuple[str, ...] = (
    "klant_id",
    *(name for end in ENDS for name in (f"{end}locatie_id", *(f"{end}_{f}" for f in PLACE_FIELDS))),
)


def place_field(end: str, name: str) -> str:
    return f"{end}_{name}"


def resolve(
    *,
    carrier_id: uuid.UUID,
    data: dict,
    task: Task | None = None,
    errors: list[dict],
    cache: dict | None = None,
) -> dict:
    """The task data with its route filled in from the customer's places.

    A customer must be the carrier's and active (a task that keeps its customer may keep a
    deactivated one); a place must be that customer's and fit its end (a loading place
    loads). Choosing a place copies its address into the fields the caller left empty;
    clearing it (None) keeps the address given. Errors are added to `errors` at the field.
    cache: shared by the rows of one import, so each customer's places are read once.
    """
    cache = {} if cache is None else cache
    out = dict(data)
    customer_id = out.get("klant_id", task.klant_id if task else None)
    chosen = "klant_id" in out and customer_id is not None
    if chosen and not _customer_allowed(carrier_id, customer_id, task, cache):
        errors.append(
            {"field": "klant_id", "code": "unknown_customer", "message": "no such customer"}
        )
        return out
    for end in ENDS:
        key = f"{end}locatie_id"
        if key not in out and not ("klant_id" in out and task is not None):
            continue
        place_id = out.get(key, getattr(task, key) if task else None)
        if place_id is None:
            continue
        place = _place(carrier_id, customer_id, place_id, cache)
        error = _place_error(end, place)
        if error is not None:
            errors.append({"field": key, **error})
        elif key in out:
            _copy_place(out, end, place)
    errors.extend(_coordinate_errors(out))
    return out


def _customer_allowed(
    carrier_id: uuid.UUID, customer_id: uuid.UUID, task: Task | None, cache: dict
) -> bool:
    """Whether the carrier has the customer, active (a task keeping its customer may keep a
    deactivated one)."""
    keeps = task is not None and task.klant_id == customer_id
    if ("names", keeps) not in cache:
        cache["names", keeps] = customers.names(carrier_id=carrier_id, active_only=not keeps)
    return customer_id in cache["names", keeps]


def _place_error(end: str, place) -> dict | None:
    """Why the place cannot be this end of the route (code, message, params); None: it can."""
    if place is None:
        return {"code": "unknown_place", "message": "no such place of the task's customer"}
    if place.soort not in _KINDS[end]:
        return {
            "code": "wrong_place_kind",
            "message": f"this place is for {english(PLACE_KIND, place.soort)} only",
            "params": {"soort": place.soort},
        }
    return None


def _copy_place(out: dict, end: str, place) -> None:
    """The place's address into the end's fields the caller left empty."""
    for name in PLACE_FIELDS:
        field = place_field(end, name)
        if out.get(field) in (None, ""):
            out[field] = getattr(place, _SOURCE.get(name, name))


def _coordinate_errors(out: dict) -> list[dict]:
    """An end's latitude and longitude go together."""
    errors = []
    for end in ENDS:
        lat, lng = out.get(place_field(end, "lat")), out.get(place_field(end, "lng"))
        if (place_field(end, "lat") in out or place_field(end, "lng") in out) and (
            (lat is None) != (lng is None)
        ):
            errors.append(
                {
                    "field": place_field(end, "lat"),
                    "code": "coordinates_pair",
                    "message": f"{end}_lat and {end}_lng go together",
                }
            )
    return errors


def fill_main_address(data: dict) -> dict:
    """A new task without a main address gets its loading address (else its unloading
    one): the driver app navigates to the main address."""
    if any(data.get(name) for name in ("adres", "postcode", "stad", "locatie_lat")):
        return data
    for end in ENDS:
        if data.get(place_field(end, "adres")) or data.get(place_field(end, "stad")):
            filled = {name: data.get(place_field(end, name)) for name in MAIN_ADDRESS}
            if data.get(place_field(end, "lat")) is not None:
                filled["locatie_lat"] = data[place_field(end, "lat")]
                filled["locatie_lng"] = data[place_field(end, "lng")]
            return {**data, **filled}
    return data


def _place(carrier_id: uuid.UUID, customer_id: uuid.UUID | None, place_id: uuid.UUID, cache: dict):
    if customer_id is None:
        return None
    if ("places", customer_id) not in cache:
        found = customers.places_by_customer(carrier_id=carrier_id, customer_ids={customer_id})
        cache["places", customer_id] = {place.id: place for place in found[customer_id]}
    return cache["places", customer_id].get(place_id)


def check(*, carrier_id: uuid.UUID, data: dict, task: Task | None = None) -> dict:
    """resolve, raising ValidationFailed with every error."""
    errors: list[dict] = []
    out = resolve(carrier_id=carrier_id, data=data, task=task, errors=errors)
    if errors:
        raise ValidationFailed(errors)
    return out


def customer_in_use(carrier_id: uuid.UUID, customer_id: uuid.UUID) -> bool:
    """Whether a task (archived ones too) names the customer."""
    return bool(
        db.session.scalar(
            select(exists().where(Task.transporteur_id == carrier_id, Task.klant_id == customer_id))
        )
    )


def detach_place(carrier_id: uuid.UUID, place_id: uuid.UUID) -> None:
    """A customer's place is removed: tasks keep the address they copied from it."""
    for end in ENDS:
        column = getattr(Task, f"{end}locatie_id")
        db.session.execute(
            update(Task)
            .where(Task.transporteur_id == carrier_id, column == place_id)
            .values({column: None, Task.versie: Task.versie + 1})
            .execution_options(synchronize_session=False)
        )
