"""Helpers of the customer tests: customers and places made through the service."""

from __future__ import annotations

import pytest
from factories import Ref, in_carrier


@pytest.fixture
def make_customer(app):
    """make_customer(carrier, naam, places=[{...}], **fields) -> Ref (naam, carrier)."""

    def make(carrier: Ref, naam: str, places: tuple[dict, ...] = (), **fields) -> Ref:
        from portal.audit.service import SYSTEM
        from portal.customers import service

        def create():
            customer = service.create_customer(
                carrier_id=carrier.id, data={"naam": naam, **fields}, actor=SYSTEM
            )
            for place in places:
                service.add_place(
                    carrier_id=carrier.id, customer_id=customer.id, data=place, actor=SYSTEM
                )
            return customer

        return in_carrier(app, carrier.id, create, lambda c: Ref(c.id, carrier.id, naam=c.naam))

    return make


@pytest.fixture
def make_place(app):
    """make_place(customer, **fields) -> Ref of a new place of the customer."""

    def make(customer: Ref, **fields) -> Ref:
        from portal.audit.service import SYSTEM
        from portal.customers import service

        return in_carrier(
            app,
            customer.carrier_id,
            lambda: service.add_place(
                carrier_id=customer.carrier_id,
                customer_id=customer.id,
                data={"naam": "Erf", **fields},
                actor=SYSTEM,
            ),
            lambda p: Ref(p.id, customer.carrier_id, naam=p.naam),
        )

    return make
