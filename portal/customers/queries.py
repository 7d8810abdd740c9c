"""Reading customers and their places: one customer or place (NotFound when absent or
another carrier's), a page of the list, the places of many customers at once, names for
choosing one. The writes are in `service.py`, which answers for these reads too."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import func, or_, select

from portal.customers.models import Customer, CustomerPlace
from portal.errors import NotFound
from portal.extensions import db


@dataclass(frozen=True)
class CustomerFilters:
    """A selection of customers, by name."""

    search: str | None = None  # in naam, debiteurnummer, and the places' stad
    actief: bool | None = None  # None: active and inactive
    limit: int = 50
    offset: int = 0


@dataclass(frozen=True)
class CustomerPage:
    customers: list[Customer]
    total: int


def get_customer(*, carrier_id: uuid.UUID, customer_id: uuid.UUID) -> Customer:
    """The carrier's customer; NotFound when absent or another carrier's."""
    customer = db.session.scalar(
        select(Customer).where(Customer.transporteur_id == carrier_id, Customer.id == customer_id)
    )
    if customer is None:
        raise NotFound("customer not found")
    return customer


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def find_customers(*, carrier_id: uuid.UUID, filters: CustomerFilters) -> CustomerPage:
    """A page of the carrier's customers by name, and the size of the selection. The search
    finds a part of the name or debtor number, or of the city of one of the places."""
    where = [Customer.transporteur_id == carrier_id]
    if filters.actief is not None:
        where.append(Customer.actief.is_(filters.actief))
    search = (filters.search or "").strip().lower()
    if search:
        pattern = f"%{_escape_like(search)}%"
        in_city = (
            select(CustomerPlace.klant_id)
            .where(
                CustomerPlace.transporteur_id == carrier_id,
                func.lower(CustomerPlace.stad).like(pattern, escape="\\"),
            )
            .scalar_subquery()
        )
        where.append(
            or_(
                func.lower(Customer.naam).like(pattern, escape="\\"),
                func.lower(Customer.debiteurnummer).like(pattern, escape="\\"),
                Customer.id.in_(in_city),
            )
        )
    total = db.session.scalar(select(func.count()).select_from(Customer).where(*where)) or 0
    stmt = (
        select(Customer)
        .where(*where)
        .order_by(func.lower(Customer.naam), Customer.id)
        .limit(filters.limit)
        .offset(filters.offset)
    )
    return CustomerPage(customers=list(db.session.scalars(stmt)), total=total)


def places_by_customer(
    *, carrier_id: uuid.UUID, customer_ids: set[uuid.UUID]
) -> dict[uuid.UUID, list[CustomerPlace]]:
    """The places of a page of customers by name, in one query."""
    if not customer_ids:
        return {}
    stmt = (
        select(CustomerPlace)
        .where(
            CustomerPlace.transporteur_id == carrier_id,
            CustomerPlace.klant_id.in_(customer_ids),
        )
        .order_by(func.lower(CustomerPlace.naam), CustomerPlace.id)
    )
    found: dict[uuid.UUID, list[CustomerPlace]] = {i: [] for i in customer_ids}
    for place in db.session.scalars(stmt):
        found[place.klant_id].append(place)
    return found


def list_places(*, carrier_id: uuid.UUID, customer_id: uuid.UUID) -> list[CustomerPlace]:
    """A customer's places by name; NotFound for another carrier's customer."""
    get_customer(carrier_id=carrier_id, customer_id=customer_id)
    return places_by_customer(carrier_id=carrier_id, customer_ids={customer_id})[customer_id]


def get_place(
    *, carrier_id: uuid.UUID, customer_id: uuid.UUID, place_id: uuid.UUID
) -> CustomerPlace:
    """One place of the customer; NotFound when absent, another customer's or carrier's."""
    place = db.session.scalar(
        select(CustomerPlace).where(
            CustomerPlace.transporteur_id == carrier_id,
            CustomerPlace.klant_id == customer_id,
            CustomerPlace.id == place_id,
        )
    )
    if place is None:
        raise NotFound("place not found")
    return place


def names(*, carrier_id: uuid.UUID, active_only: bool = False) -> dict[uuid.UUID, str]:
    """The carrier's customers by id, their names sorted (one query): for choosing one."""
    stmt = select(Customer.id, Customer.naam).where(Customer.transporteur_id == carrier_id)
    if active_only:
        stmt = stmt.where(Customer.actief.is_(True))
    return dict(db.session.execute(stmt.order_by(func.lower(Customer.naam), Customer.id)).all())


def names_by_id(
    *, carrier_id: uuid.UUID, customer_ids: set[uuid.UUID | None]
) -> dict[uuid.UUID, str]:
    """The names of the customers rows refer to (inactive ones too), in one query or none."""
    ids = {i for i in customer_ids if i is not None}
    if not ids:
        return {}
    stmt = select(Customer.id, Customer.naam).where(
        Customer.transporteur_id == carrier_id, Customer.id.in_(ids)
    )
    return dict(db.session.execute(stmt).all())


def all_customers(*, carrier_id: uuid.UUID) -> list[Customer]:
    """Every customer of the carrier, active or not, in one query: to match an import."""
    stmt = select(Customer).where(Customer.transporteur_id == carrier_id).order_by(Customer.id)
    return list(db.session.scalars(stmt))
