"""Customers and their places: the only door to the klanten and klant_locaties tables.

What the fields may hold is in `rules.py`; its errors at a field carry a stable `code`
beside the English `message`, so the portal words them in the planner's language and an API
client can rely on them.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.customers.models import Customer, CustomerPlace
from portal.customers.queries import (  # noqa: F401  (the reads: callers ask the service)
    CustomerFilters,
    CustomerPage,
    all_customers,
    find_customers,
    get_customer,
    get_place,
    list_places,
    names,
    names_by_id,
    places_by_customer,
)
from portal.customers.rules import (  # noqa: F401  (LIMITS, vat_problem: for callers)
    CUSTOMER_FIELDS,
    LIMITS,
    check_coordinates,
    clean_customer,
    clean_place,
    error,
    normalise_vat,
    vat_problem,
    written_postcode,
)
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.extensions import db
from portal.hooks import Hook
from portal.types import utcnow

# What other domains answer for (connected in portal/wiring.py): each usage check answers
# whether something of theirs names the customer, which keeps it from being deleted (it can
# be deactivated); before a place is removed, tasks that chose it keep the address they
# copied and let go of the place; after a customer's VAT treatment changed (its category,
# reason or VAT number), billing prices the customer's lines not yet exported again.
usage_checks = Hook(
    "customers.usage_checks",
    "check(carrier_id=, customer_id=) -> True when something refers to the customer.",
)
place_removal = Hook(
    "customers.place_removal",
    "listener(carrier_id=, place_id=), run before a customer's place is removed.",
)
vat_changed = Hook(
    "customers.vat_changed",
    "listener(carrier_id=, customer_id=), run after a customer's VAT treatment changed.",
)
VAT_FIELDS = ("btw_categorie", "btw_vrijstellingsreden", "btw_nummer")


DUPLICATE = error("debiteurnummer", "duplicate", "another customer has this debtor number")


def _number_taken(carrier_id: uuid.UUID, number: str, except_id: uuid.UUID | None) -> bool:
    stmt = select(Customer.id).where(
        Customer.transporteur_id == carrier_id, Customer.debiteurnummer == number
    )
    if except_id is not None:
        stmt = stmt.where(Customer.id != except_id)
    return db.session.scalar(stmt.limit(1)) is not None


def _flush_unique(apply: Callable[[], None]) -> None:
    """Apply and flush in a savepoint: a debtor number stored meanwhile by a concurrent
    request is the same error at the field as one found before."""
    try:
        with db.session.begin_nested():
            apply()
            db.session.flush()
    except IntegrityError:
        raise ValidationFailed([DUPLICATE]) from None


def _changes(obj, clean: dict) -> dict:
    return {k: [getattr(obj, k), v] for k, v in clean.items() if getattr(obj, k) != v}


# --- customers ---------------------------------------------------------------------------


def create_customer(*, carrier_id: uuid.UUID, data: dict, actor: Actor) -> Customer:
    """A new, active customer; naam is required, the rest optional."""
    errors: list[dict] = []
    clean = clean_customer({"naam": None, **data}, errors)
    number = clean.get("debiteurnummer")
    if number and _number_taken(carrier_id, number, None):
        errors.append(DUPLICATE)
    if errors:
        raise ValidationFailed(errors)
    customer = Customer(transporteur_id=carrier_id, id=uuid.uuid4(), actief=True, **clean)
    _flush_unique(lambda: db.session.add(customer))
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="customer",
        entity_id=customer.id,
        action="created",
        changes={k: [None, v] for k, v in clean.items() if v is not None},
    )
    return customer


def update_customer(
    *, carrier_id: uuid.UUID, customer_id: uuid.UUID, data: dict, actor: Actor
) -> Customer:
    """Change the given fields of a customer (naam stays required)."""
    customer = get_customer(carrier_id=carrier_id, customer_id=customer_id)
    errors: list[dict] = []
    current = {name: getattr(customer, name) for name in CUSTOMER_FIELDS}
    clean = clean_customer(data, errors, current)
    number = clean.get("debiteurnummer")
    if number and _number_taken(carrier_id, number, customer.id):
        errors.append(DUPLICATE)
    if errors:
        raise ValidationFailed(errors)
    changes = _changes(customer, clean)
    if changes:

        def apply() -> None:
            for name, (_old, new) in changes.items():
                setattr(customer, name, new)
            customer.updated_at = utcnow()

        _flush_unique(apply)
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="customer",
            entity_id=customer.id,
            action="updated",
            changes=changes,
        )
        if set(changes) & set(VAT_FIELDS):
            vat_changed(carrier_id=carrier_id, customer_id=customer.id)
    return customer


def set_active(
    *, carrier_id: uuid.UUID, customer_id: uuid.UUID, actief: bool, actor: Actor
) -> Customer:
    """Deactivate a customer (no new work for it; what it has stays) or make it active."""
    customer = get_customer(carrier_id=carrier_id, customer_id=customer_id)
    if customer.actief != actief:
        customer.actief = actief
        customer.updated_at = utcnow()
        db.session.flush()
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="customer",
            entity_id=customer.id,
            action="activated" if actief else "deactivated",
            changes={"actief": [not actief, actief]},
        )
    return customer


def in_use(*, carrier_id: uuid.UUID, customer_id: uuid.UUID) -> bool:
    """Whether anything refers to the customer (then it can be deactivated, not deleted)."""
    return any(usage_checks(carrier_id=carrier_id, customer_id=customer_id))


def delete_customer(*, carrier_id: uuid.UUID, customer_id: uuid.UUID, actor: Actor) -> None:
    """Delete a customer that nothing refers to, with its places; Conflict when in use."""
    customer = get_customer(carrier_id=carrier_id, customer_id=customer_id)
    if in_use(carrier_id=carrier_id, customer_id=customer_id):
        raise Conflict("The customer is in use: deactivate it instead.", reden="in_use")
    db.session.execute(
        delete(CustomerPlace).where(
            CustomerPlace.transporteur_id == carrier_id, CustomerPlace.klant_id == customer_id
        )
    )
    db.session.delete(customer)
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="customer",
        entity_id=customer_id,
        action="deleted",
        changes={"naam": [customer.naam, None]},
    )


def history(*, carrier_id: uuid.UUID, customer_id: uuid.UUID):
    """The customer's audit trail (its places' changes included), oldest first."""
    return audit.entries_for(carrier_id=carrier_id, entity="customer", entity_id=customer_id)


# --- places ------------------------------------------------------------------------------


def _record_place(carrier_id, actor, place: CustomerPlace, action: str, changes: dict) -> None:
    # On the customer's trail: its page tells the story of the customer with its places.
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="customer",
        entity_id=place.klant_id,
        action=action,
        changes={"locatie": [None, place.naam], **changes},
    )


def add_place(
    *, carrier_id: uuid.UUID, customer_id: uuid.UUID, data: dict, actor: Actor
) -> CustomerPlace:
    """A new place of the customer; naam is required, coordinates both or neither."""
    get_customer(carrier_id=carrier_id, customer_id=customer_id)
    errors: list[dict] = []
    clean = clean_place({"naam": None, "soort": "beide", "land": "NL", **data}, errors)
    check_coordinates(clean.get("locatie_lat"), clean.get("locatie_lng"), errors)
    if errors:
        raise ValidationFailed(errors)
    clean["postcode"] = written_postcode(clean.get("postcode"), clean["land"])
    place = CustomerPlace(
        transporteur_id=carrier_id, id=uuid.uuid4(), klant_id=customer_id, **clean
    )
    db.session.add(place)
    db.session.flush()
    _record_place(carrier_id, actor, place, "place_added", {})
    return place


def update_place(
    *,
    carrier_id: uuid.UUID,
    customer_id: uuid.UUID,
    place_id: uuid.UUID,
    data: dict,
    actor: Actor,
) -> CustomerPlace:
    """Change the given fields of a place (coordinates stay both or neither)."""
    place = get_place(carrier_id=carrier_id, customer_id=customer_id, place_id=place_id)
    errors: list[dict] = []
    clean = clean_place(data, errors)
    check_coordinates(
        clean.get("locatie_lat", place.locatie_lat),
        clean.get("locatie_lng", place.locatie_lng),
        errors,
    )
    if errors:
        raise ValidationFailed(errors)
    if "postcode" in clean or "land" in clean:
        clean["postcode"] = written_postcode(
            clean.get("postcode", place.postcode), clean.get("land", place.land)
        )
    changes = _changes(place, clean)
    if changes:
        for name, (_old, new) in changes.items():
            setattr(place, name, new)
        place.updated_at = utcnow()
        db.session.flush()
        _record_place(carrier_id, actor, place, "place_updated", changes)
    return place


def remove_place(
    *, carrier_id: uuid.UUID, customer_id: uuid.UUID, place_id: uuid.UUID, actor: Actor
) -> None:
    """Remove a place of the customer."""
    place = get_place(carrier_id=carrier_id, customer_id=customer_id, place_id=place_id)
    place_removal(carrier_id=carrier_id, place_id=place_id)
    db.session.delete(place)
    db.session.flush()
    _record_place(carrier_id, actor, place, "place_removed", {"locatie": [place.naam, None]})


# --- import ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportItem:
    """One customer of an import: an existing one (customer_id) that gets places, or a new
    one made of data, with its places."""

    customer_id: uuid.UUID | None
    data: dict
    places: tuple[dict, ...] = ()


def import_customers(
    *, carrier_id: uuid.UUID, items: list[ImportItem], actor: Actor
) -> tuple[int, int]:
    """Create the new customers and add the places, checked by the rules create_customer and
    add_place apply and recorded as they record them, but in one insert per table instead
    of queries per row; ValidationFailed at the first refusal, NotFound for another
    carrier's customer. Answers how many customers and places were added."""
    errors: list[dict] = []
    customers: list[tuple[Customer, dict]] = []
    places: list[CustomerPlace] = []
    wanted = {item.customer_id for item in items} - {None}
    own = select(Customer.id).where(Customer.transporteur_id == carrier_id)
    if wanted and set(db.session.scalars(own.where(Customer.id.in_(wanted)))) != wanted:
        raise NotFound("customer not found")
    for item in items:
        customer_id = item.customer_id
        if customer_id is None:
            clean = clean_customer({"naam": None, **item.data}, errors)
            customer_id = uuid.uuid4()
            customers.append((Customer(transporteur_id=carrier_id, id=customer_id, **clean), clean))
        for data in item.places:
            clean = clean_place({"naam": None, "soort": "beide", "land": "NL", **data}, errors)
            check_coordinates(clean.get("locatie_lat"), clean.get("locatie_lng"), errors)
            if not errors:
                clean["postcode"] = written_postcode(clean.get("postcode"), clean["land"])
                places.append(
                    CustomerPlace(transporteur_id=carrier_id, klant_id=customer_id, **clean)
                )
        if errors:
            raise ValidationFailed(errors)
    numbers = [customer.debiteurnummer for customer, _ in customers if customer.debiteurnummer]
    taken = any(
        db.session.scalar(own.where(Customer.debiteurnummer.in_(numbers[i : i + 500])).limit(1))
        for i in range(0, len(numbers), 500)
    )
    if taken or len(set(numbers)) < len(numbers):
        raise ValidationFailed([DUPLICATE])
    # The customers first: their places refer to them.
    _flush_unique(lambda: (db.session.add_all([c for c, _ in customers]), db.session.flush()))
    db.session.add_all(places)
    db.session.flush()
    # One moment for the customers and the next for their places: a customer's trail lists
    # it before its places, which entries of the same millisecond would not promise.
    now = utcnow()
    entries = [
        (c.id, "created", {k: [None, v] for k, v in d.items() if v}, now) for c, d in customers
    ]
    later = now + timedelta(milliseconds=1)
    entries += [(p.klant_id, "place_added", {"locatie": [None, p.naam]}, later) for p in places]
    for entity_id, action, changes, at in entries:
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="customer",
            entity_id=entity_id,
            action=action,
            changes=changes,
        ).at = at
    return len(customers), len(places)
