"""Tariff operations of the API, for integrations with a key (scopes tariffs:read and
tariffs:write): the carrier's default price per activity type and each customer's own, each
from a day on. The same rules as the portal's /facturatie/tarieven (billing.tariffs)."""

from __future__ import annotations

import uuid

from flask import current_app, request

from portal.api.core import (
    PreconditionFailed,
    json_response,
    list_response,
    operation,
    parse_body,
    parse_query,
    principal,
    write,
)
from portal.billing import tariffs
from portal.billing.tariff_schemas import (
    TariffIn,
    TariffOut,
    TariffQuery,
    TariffUpdate,
    serialize_tariff,
)
from portal.errors import Forbidden

TARIEF_ID = {"tarief_id": {"description": "the tariff's id", "uuid": True}}
AMOUNTS = (
    'Amounts are decimal strings with a point ("4.35", "0.0450"), never JSON numbers; `prijs` '
    "takes at most 4 decimals, the other amounts and percentages 2."
)
FIELD_ERRORS = (
    "Refused fields are listed in `errors` as {field, code, message}: an amount that is no "
    "decimal string; `prijs`, `minimum`, `wachttijd_per_uur`, `weekend_toeslag_procent`, "
    "`btw_procent` (code out_of_range, or too_many_decimals with `params.places`); `eenheid` "
    "(code required: grondslag eenheid names its unit); `klant_id` (code unknown: no customer "
    "of the carrier); `afronding_minuten` (code not_allowed, with `params.allowed`); "
    "`btw_procent` (code vat_rate_category, with `params.categorie`: above 0 with category S, "
    "0 with Z, E, AE and O); `btw_vrijstellingsreden` (code required with E, AE and O). "
    "A second tariff of the same owner (customer or default), activity type "
    "and `geldig_vanaf` answers 409 with `code` tariff_exists."
)

PRICED = (
    "Billing lines already priced keep their amounts: a line is priced when its task is "
    "completed and again when its work is reported, under the tariff that holds then. Per "
    "hour, the line bills the time the task's own records give it (the driver's activities on "
    "the task, else its start to its completion), at least `minimum_minuten`, rounded up per "
    "`afronding_minuten`; without recorded time it has no price (prijs_reden no_duration)."
)
REQUIRED = (
    "Required: `activity_type`, `geldig_vanaf`, `grondslag` and `prijs` (and `eenheid` with "
    "grondslag eenheid)."
)
CHANGE = (
    "Only the fields sent change; null clears an optional field (`klant_id` null makes it the "
    "carrier's default). The tariff as changed is checked whole, as the portal checks it."
)
NO_ETAG = (
    "A tariff carries no version (no ETag) yet: a request with If-Match naming an ETag "
    "answers 412 and changes nothing, rather than change it unconditionally."
)


def _who():
    """Integrations only (their key's scope is checked before the handler runs)."""
    who = principal()
    if who.kind != "api_key":
        raise Forbidden("Tariffs are managed in the portal and by integrations (API keys).")
    return who


def _unconditional() -> None:
    """An If-Match naming an ETag cannot hold for a tariff, which has none (RFC 9110 13.1.1)."""
    if "If-Match" in request.headers and not request.if_match.star_tag:
        raise PreconditionFailed("A tariff has no ETag: send the request without If-Match.")


@operation(
    "/tarieven",
    "GET",
    scope="tariffs:read",
    summary="The carrier's tariffs, filtered and paged",
    tag="tariffs",
    description="The carrier's defaults first (klant_id null), then the customers' own; per "
    "activity type the newest `geldig_vanaf` first. " + AMOUNTS,
    query=TariffQuery,
    response=TariffOut,
    many=True,
    errors=(401, 403, 422),
)
def list_tariffs():
    who = _who()
    query = parse_query(TariffQuery)
    page = tariffs.find_tariffs(
        carrier_id=who.carrier_id,
        filters=tariffs.TariffFilters(
            klant_id=query.klant_id,
            activity_type=query.activity_type,
            standaard=query.standaard,
            limit=query.limit,
            offset=query.offset,
        ),
    )
    return list_response([serialize_tariff(t) for t in page.tariffs], page.total)


@operation(
    "/tarieven",
    "POST",
    scope="tariffs:write",
    summary="Add a tariff: a customer's own (klant_id) or the carrier's default",
    tag="tariffs",
    description=" ".join((REQUIRED, AMOUNTS, FIELD_ERRORS)),
    body=TariffIn,
    response=TariffOut,
    status=201,
    headers={"Location": "the tariff's address"},
    errors=(401, 403, 409, 413, 415, 422),
)
@write
def create_tariff():
    who = _who()
    body = parse_body(TariffIn)
    tariff = tariffs.create_tariff(
        carrier_id=who.carrier_id, data=tariffs.TariffIn(**body.model_dump()), actor=who.actor
    )
    return json_response(
        serialize_tariff(tariff),
        status=201,
        headers={"Location": f"/api/v1/tarieven/{tariff.id}"},
    )


@operation(
    "/tarieven/<uuid:tarief_id>",
    "GET",
    scope="tariffs:read",
    summary="One tariff",
    tag="tariffs",
    description=AMOUNTS,
    response=TariffOut,
    errors=(401, 403, 404),
    path_params=TARIEF_ID,
)
def get_tariff(tarief_id: uuid.UUID):
    who = _who()
    return json_response(
        serialize_tariff(tariffs.get_tariff(carrier_id=who.carrier_id, tariff_id=tarief_id))
    )


@operation(
    "/tarieven/<uuid:tarief_id>",
    "PATCH",
    scope="tariffs:write",
    summary="Change a tariff's fields",
    tag="tariffs",
    description=" ".join((CHANGE, NO_ETAG, PRICED, AMOUNTS, FIELD_ERRORS)),
    body=TariffUpdate,
    response=TariffOut,
    errors=(401, 403, 404, 409, 412, 413, 415, 422),
    path_params=TARIEF_ID,
)
@write
def update_tariff(tarief_id: uuid.UUID):
    who = _who()
    tariffs.get_tariff(carrier_id=who.carrier_id, tariff_id=tarief_id)  # 404 first
    _unconditional()
    changes = parse_body(TariffUpdate).model_dump(exclude_unset=True)
    tariff = tariffs.change_tariff(
        carrier_id=who.carrier_id, tariff_id=tarief_id, changes=changes, actor=who.actor
    )
    return json_response(serialize_tariff(tariff))


@operation(
    "/tarieven/<uuid:tarief_id>",
    "DELETE",
    scope="tariffs:write",
    summary="Delete a tariff",
    tag="tariffs",
    description=f"{PRICED} {NO_ETAG}",
    status=204,
    errors=(401, 403, 404, 412),
    path_params=TARIEF_ID,
)
@write
def delete_tariff(tarief_id: uuid.UUID):
    who = _who()
    tariffs.get_tariff(carrier_id=who.carrier_id, tariff_id=tarief_id)  # 404 first
    _unconditional()
    tariffs.delete_tariff(carrier_id=who.carrier_id, tariff_id=tarief_id, actor=who.actor)
    return current_app.response_class(status=204)
