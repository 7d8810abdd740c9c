"""Customer operations of the API, for integrations with a key (scopes customers:read and
customers:write): customers and their loading and unloading places."""

from __future__ import annotations

import uuid

from flask import current_app

from portal.api.core import (
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    write,
)
from portal.customers import service
from portal.customers.schemas import (
    CustomerIn,
    CustomerOut,
    CustomerQuery,
    CustomerUpdate,
    PlaceIn,
    PlaceOut,
    PlaceUpdate,
    serialize_customer,
    serialize_place,
)
from portal.errors import Forbidden

KLANT_ID = {"klant_id": {"description": "the customer's id", "uuid": True}}
LOCATIE_ID = {**KLANT_ID, "locatie_id": {"description": "the place's id", "uuid": True}}
FIELD_ERRORS = (
    "Refused fields are listed in `errors` as {field, code, message}: `btw_nummer` "
    "(code vat_dutch: NL + 9 digits + B + 2 digits; vat_format: a country code and 2 to 13 "
    "letters or digits), `debiteurnummer` (duplicate: another customer of the carrier has "
    "it), `factuur_email` (email)."
)


def _who():
    """Integrations only (their key's scope is checked before the handler runs)."""
    who = principal()
    if who.kind != "api_key":
        raise Forbidden("Customers are managed in the portal and by integrations (API keys).")
    return who


def _customer_response(customer, status: int = 200, headers: dict | None = None):
    places = service.places_by_customer(
        carrier_id=customer.transporteur_id, customer_ids={customer.id}
    )[customer.id]
    return json_response(serialize_customer(customer, places), status=status, headers=headers)


# --- customers ---------------------------------------------------------------------------


@operation(
    "/klanten",
    "GET",
    scope="customers:read",
    summary="The carrier's customers by name, with their places, filtered and paged",
    tag="customers",
    query=CustomerQuery,
    response=CustomerOut,
    many=True,
    errors=(401, 403, 422),
)
def list_customers():
    who = _who()
    query = parse_query(CustomerQuery)
    page = service.find_customers(
        carrier_id=who.carrier_id,
        filters=service.CustomerFilters(
            search=query.q, actief=query.actief, limit=query.limit, offset=query.offset
        ),
    )
    places = service.places_by_customer(
        carrier_id=who.carrier_id, customer_ids={c.id for c in page.customers}
    )
    return list_response([serialize_customer(c, places[c.id]) for c in page.customers], page.total)


@operation(
    "/klanten",
    "POST",
    scope="customers:write",
    summary="Add a customer",
    tag="customers",
    description="Only `naam` is required. " + FIELD_ERRORS,
    body=CustomerIn,
    response=CustomerOut,
    status=201,
    headers={"Location": "the customer's address"},
    errors=(401, 403, 409, 413, 415, 422),
)
@write
def create_customer():
    who = _who()
    body = parse_body(CustomerIn)
    customer = service.create_customer(
        carrier_id=who.carrier_id, data=body.model_dump(), actor=who.actor
    )
    return _customer_response(
        customer, status=201, headers={"Location": f"/api/v1/klanten/{customer.id}"}
    )


@operation(
    "/klanten/<uuid:klant_id>",
    "GET",
    scope="customers:read",
    summary="One customer with its places",
    tag="customers",
    response=CustomerOut,
    errors=(401, 403, 404),
    path_params=KLANT_ID,
)
def get_customer(klant_id: uuid.UUID):
    who = _who()
    return _customer_response(service.get_customer(carrier_id=who.carrier_id, customer_id=klant_id))


@operation(
    "/klanten/<uuid:klant_id>",
    "PATCH",
    scope="customers:write",
    summary="Change a customer's fields; `actief: false` deactivates it",
    tag="customers",
    description="Only the fields sent change; null clears an optional field. "
    "A deactivated customer keeps its places and history. " + FIELD_ERRORS,
    body=CustomerUpdate,
    response=CustomerOut,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=KLANT_ID,
)
@write
def update_customer(klant_id: uuid.UUID):
    who = _who()
    service.get_customer(carrier_id=who.carrier_id, customer_id=klant_id)  # 404 first
    data = parse_body(CustomerUpdate).model_dump(exclude_unset=True)
    actief = data.pop("actief", None)
    customer = service.update_customer(
        carrier_id=who.carrier_id, customer_id=klant_id, data=data, actor=who.actor
    )
    if actief is not None:
        customer = service.set_active(
            carrier_id=who.carrier_id, customer_id=klant_id, actief=actief, actor=who.actor
        )
    return _customer_response(customer)


@operation(
    "/klanten/<uuid:klant_id>",
    "DELETE",
    scope="customers:write",
    summary="Delete a customer nothing refers to, with its places",
    tag="customers",
    description="A customer that work refers to answers 409 (`reden` in_use): deactivate it "
    "instead (PATCH `actief: false`).",
    status=204,
    errors=(401, 403, 404, 409),
    path_params=KLANT_ID,
)
@write
def delete_customer(klant_id: uuid.UUID):
    who = _who()
    service.delete_customer(carrier_id=who.carrier_id, customer_id=klant_id, actor=who.actor)
    return current_app.response_class(status=204)


# --- places ------------------------------------------------------------------------------


@operation(
    "/klanten/<uuid:klant_id>/locaties",
    "GET",
    scope="customers:read",
    summary="A customer's loading and unloading places, by name",
    tag="customers",
    response=PlaceOut,
    many=True,
    errors=(401, 403, 404),
    path_params=KLANT_ID,
)
def list_places(klant_id: uuid.UUID):
    who = _who()
    places = service.list_places(carrier_id=who.carrier_id, customer_id=klant_id)
    return list_response([serialize_place(p) for p in places], len(places))


@operation(
    "/klanten/<uuid:klant_id>/locaties",
    "POST",
    scope="customers:write",
    summary="Add a place to a customer",
    tag="customers",
    description="Only `naam` is required; `soort` is laden, lossen or beide (the default), "
    "`land` an ISO 3166 code (NL by default; a Dutch postcode is stored as 1234 AB). "
    "`locatie_lat` and `locatie_lng` go together (code coordinates_pair).",
    body=PlaceIn,
    response=PlaceOut,
    status=201,
    headers={"Location": "the place's address"},
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=KLANT_ID,
)
@write
def create_place(klant_id: uuid.UUID):
    who = _who()
    service.get_customer(carrier_id=who.carrier_id, customer_id=klant_id)  # 404 first
    body = parse_body(PlaceIn)
    place = service.add_place(
        carrier_id=who.carrier_id, customer_id=klant_id, data=body.model_dump(), actor=who.actor
    )
    return json_response(
        serialize_place(place),
        status=201,
        headers={"Location": f"/api/v1/klanten/{klant_id}/locaties/{place.id}"},
    )


@operation(
    "/klanten/<uuid:klant_id>/locaties/<uuid:locatie_id>",
    "PATCH",
    scope="customers:write",
    summary="Change a place's fields",
    tag="customers",
    description="Only the fields sent change; null clears an optional field. The coordinates "
    "stay both or neither (code coordinates_pair).",
    body=PlaceUpdate,
    response=PlaceOut,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=LOCATIE_ID,
)
@write
def update_place(klant_id: uuid.UUID, locatie_id: uuid.UUID):
    who = _who()
    service.get_place(carrier_id=who.carrier_id, customer_id=klant_id, place_id=locatie_id)
    data = parse_body(PlaceUpdate).model_dump(exclude_unset=True)
    place = service.update_place(
        carrier_id=who.carrier_id,
        customer_id=klant_id,
        place_id=locatie_id,
        data=data,
        actor=who.actor,
    )
    return json_response(serialize_place(place))


@operation(
    "/klanten/<uuid:klant_id>/locaties/<uuid:locatie_id>",
    "DELETE",
    scope="customers:write",
    summary="Remove a place of a customer",
    tag="customers",
    status=204,
    errors=(401, 403, 404, 409),
    path_params=LOCATIE_ID,
)
@write
def delete_place(klant_id: uuid.UUID, locatie_id: uuid.UUID):
    who = _who()
    service.remove_place(
        carrier_id=who.carrier_id, customer_id=klant_id, place_id=locatie_id, actor=who.actor
    )
    return current_app.response_class(status=204)
