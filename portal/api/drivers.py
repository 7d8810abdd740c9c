"""Driver operations of the API: the profile, positions, and the carrier's drivers."""

from __future__ import annotations

import uuid

from portal.accounts.service import get_carrier
from portal.api.core import (
    driver_access,
    integration_of,
    json_body,
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    require_scope,
    write,
)
from portal.drivers import licences, locations, service
from portal.drivers.schemas import (
    DriverOut,
    DriverQuery,
    LocationBatch,
    LocationIn,
    LocationPoint,
    LocationResult,
    UserProfile,
    last_location,
    serialize_driver,
)

USER_TOKEN = {"user_token": {"description": "the driver's public id", "max_length": 64}}
CARRIER_ID = {"transporteur_id": {"description": "the caller's own carrier", "uuid": True}}


@operation(
    "/users/<user_token:user_token>",
    "GET",
    scope="drivers:read",
    summary="A driver's profile",
    tag="drivers",
    description="A driver reads its own profile; an integration any driver of its carrier.",
    response=UserProfile,
    errors=(401, 403, 404),
    path_params=USER_TOKEN,
)
def user_profile(user_token: str):
    driver = driver_access(user_token, whole=True)
    carrier = get_carrier(carrier_id=driver.transporteur_id)
    held = licences.recorded_licences(carrier_id=driver.transporteur_id, driver_ids={driver.id})
    return json_response(
        {
            **serialize_driver(driver, held[driver.id]),
            "transporteur_naam": carrier.naam,
            "tijdzone": carrier.tijdzone,
        },
        headers={"Cache-Control": "private, no-cache"},
    )


@operation(
    "/users/<user_token:user_token>/locatie",
    "PUT",
    scope="tasks:write",
    summary="Report the driver's position: one point, or a batch caught up after being offline",
    tag="drivers",
    description="The body is one point (`{lat, lng, recorded_at, accuracy?, speed?, heading?}`) "
    f'or a batch `{{"punten": [point, ...]}}` of at most {locations.MAX_POINTS}. '
    "A point more than 2 minutes in the future, or with coordinates out of range, refuses the "
    "request (422; in a batch the field names the point: `punten.3.lat`). A point already "
    "known (same driver and recorded_at) is ignored, not an error. The last known position "
    "only moves forward in time: a late point is stored in the track but does not replace a "
    "newer position. Only the driver itself, or an integration with the scope tasks:write, "
    "may report. Honours Idempotency-Key.",
    body=LocationIn,
    response=LocationResult,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=USER_TOKEN,
)
@write
def put_location(user_token: str):
    driver = driver_access(user_token)  # another carrier's user_token is 404 before the body
    who = principal()
    if who.kind == "api_key":
        require_scope("tasks:write")
    doc = json_body()
    batch = isinstance(doc, dict) and "punten" in doc
    if batch:
        points = [p.point() for p in parse_body(LocationBatch, doc).punten]
    else:
        points = [parse_body(LocationPoint, doc).point()]
    recorded = locations.record_locations(
        carrier_id=who.carrier_id, driver_id=driver.id, points=points, batch=batch
    )
    return json_response(
        {
            "ontvangen": recorded.received,
            "opgeslagen": recorded.stored,
            "dubbel": recorded.duplicates,
            "laatste_locatie": last_location(recorded.driver),
        }
    )


@operation(
    "/transporteurs/<uuid:transporteur_id>/chauffeurs",
    "GET",
    scope="drivers:read",
    summary="The drivers of a carrier (integrations; the caller's own carrier only)",
    tag="drivers",
    description="Ordered by naam; `actief` and `q` (text in naam, email, telefoon) filter. "
    "Each driver carries its last known position and its licence categories.",
    query=DriverQuery,
    response=DriverOut,
    many=True,
    errors=(401, 403, 404, 422),
    path_params=CARRIER_ID,
)
def carrier_drivers(transporteur_id: uuid.UUID):
    who = integration_of(transporteur_id, drivers_read="GET /users/{user_token}")
    query = parse_query(DriverQuery)
    drivers, total = service.search_drivers(
        carrier_id=who.carrier_id,
        filters=service.DriverFilters(
            q=query.q, actief=query.actief, limit=query.limit, offset=query.offset
        ),
    )
    held = licences.recorded_licences(carrier_id=who.carrier_id, driver_ids={d.id for d in drivers})
    return list_response([serialize_driver(d, held[d.id]) for d in drivers], total)
