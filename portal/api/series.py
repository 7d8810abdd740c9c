"""Recurring work in the API, for integrations (scopes tasks:read and tasks:write, as the
tasks they make): task templates, and series planned from them by a recurrence rule."""

from __future__ import annotations

import uuid

from flask import current_app

from portal.api.core import (
    integration_of,
    json_response,
    list_response,
    operation,
    parse_body,
    write,
)
from portal.errors import Forbidden
from portal.series import planning
from portal.series import service as series_service
from portal.series.schemas import (
    SeriesIn,
    SeriesOut,
    SeriesUpdate,
    TemplateIn,
    TemplateOut,
    TemplateUpdate,
    serialize_series,
    serialize_template,
)

READ_SCOPE, WRITE_SCOPE = "tasks:read", "tasks:write"
CARRIER_ID = {"transporteur_id": {"description": "the caller's own carrier", "uuid": True}}
TEMPLATE_ID = {**CARRIER_ID, "sjabloon_id": {"description": "the template's id", "uuid": True}}
SERIES_ID = {**CARRIER_ID, "reeks_id": {"description": "the series' id", "uuid": True}}
TEMPLATE_ERRORS = (
    "Refused fields are listed in `errors` as {field, code, message}: naam "
    "(sjabloon_naam_bestaat: another template has the name), klant_id (unknown_customer), "
    "capaciteiten (sjabloon_kenmerk), velden.<field> (sjabloon_veld: not kept by a template "
    "or not a valid value)."
)
SERIES_ERRORS = (
    "Refused fields are listed in `errors` as {field, code, message}: a rule that yields no "
    "occurrence (reeks_leeg), more than 1000 a year (reeks_te_vaak), a weekly rule without "
    "weekdays (reeks_geen_dagen), einddatum before startdatum (reeks_einde_voor_start), "
    "sjabloon_id (reeks_geen_sjabloon), chauffeur_id (unknown_driver), vehicle_id "
    "(unknown_vehicle)."
)


def _caller(transporteur_id: uuid.UUID, scope: str):
    who = integration_of(transporteur_id, drivers_read="its own tasks")
    if scope not in who.scopes and WRITE_SCOPE not in who.scopes:
        raise Forbidden(f"The API key lacks the scope {scope!r}.")
    return who


def _today(who):
    return series_service.today(who.carrier_id)


# --- templates ----------------------------------------------------------------------------


@operation(
    "/transporteurs/<uuid:transporteur_id>/sjablonen",
    "GET",
    scope=READ_SCOPE,
    summary="The carrier's task templates by name",
    tag="series",
    response=TemplateOut,
    many=True,
    errors=(401, 403, 404),
    path_params=CARRIER_ID,
)
def list_templates(transporteur_id: uuid.UUID):
    who = _caller(transporteur_id, READ_SCOPE)
    found = series_service.list_templates(carrier_id=who.carrier_id)
    return list_response([serialize_template(t) for t in found], len(found))


@operation(
    "/transporteurs/<uuid:transporteur_id>/sjablonen",
    "POST",
    scope=WRITE_SCOPE,
    summary="Save a task template, from a task (`taak_id`) or from its fields",
    tag="series",
    description="Without `taak_id`, `naam` and `type` are required. The questionnaire "
    "follows the activity type. " + TEMPLATE_ERRORS,
    body=TemplateIn,
    response=TemplateOut,
    status=201,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=CARRIER_ID,
)
@write
def create_template(transporteur_id: uuid.UUID):
    who = _caller(transporteur_id, WRITE_SCOPE)
    body = parse_body(TemplateIn)
    data = body.model_dump(exclude_none=True, exclude={"taak_id"})
    if body.taak_id is not None:
        template = series_service.template_from_task(
            carrier_id=who.carrier_id, task_id=body.taak_id, data=data, actor=who.actor
        )
    else:
        template = series_service.create_template(
            carrier_id=who.carrier_id, data=data, actor=who.actor
        )
    return json_response(serialize_template(template), status=201)


@operation(
    "/transporteurs/<uuid:transporteur_id>/sjablonen/<uuid:sjabloon_id>",
    "GET",
    scope=READ_SCOPE,
    summary="One task template",
    tag="series",
    response=TemplateOut,
    errors=(401, 403, 404),
    path_params=TEMPLATE_ID,
)
def get_template(transporteur_id: uuid.UUID, sjabloon_id: uuid.UUID):
    who = _caller(transporteur_id, READ_SCOPE)
    template = series_service.get_template(carrier_id=who.carrier_id, template_id=sjabloon_id)
    return json_response(serialize_template(template))


@operation(
    "/transporteurs/<uuid:transporteur_id>/sjablonen/<uuid:sjabloon_id>",
    "PATCH",
    scope=WRITE_SCOPE,
    summary="Change a task template",
    tag="series",
    description="Only the fields sent change. Series made from it use it for the "
    "occurrences made next; a series' change brings its future ones in line. " + TEMPLATE_ERRORS,
    body=TemplateUpdate,
    response=TemplateOut,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=TEMPLATE_ID,
)
@write
def update_template(transporteur_id: uuid.UUID, sjabloon_id: uuid.UUID):
    who = _caller(transporteur_id, WRITE_SCOPE)
    body = parse_body(TemplateUpdate)
    template = series_service.update_template(
        carrier_id=who.carrier_id,
        template_id=sjabloon_id,
        data=body.model_dump(exclude_unset=True),
        actor=who.actor,
    )
    return json_response(serialize_template(template))


@operation(
    "/transporteurs/<uuid:transporteur_id>/sjablonen/<uuid:sjabloon_id>",
    "DELETE",
    scope=WRITE_SCOPE,
    summary="Delete a task template no series is made from",
    tag="series",
    description="A template series are made from answers 409 (`code` sjabloon_in_gebruik, "
    "`reeksen` how many).",
    status=204,
    errors=(401, 403, 404, 409),
    path_params=TEMPLATE_ID,
)
@write
def delete_template(transporteur_id: uuid.UUID, sjabloon_id: uuid.UUID):
    who = _caller(transporteur_id, WRITE_SCOPE)
    series_service.delete_template(
        carrier_id=who.carrier_id, template_id=sjabloon_id, actor=who.actor
    )
    return current_app.response_class(status=204)


# --- series -------------------------------------------------------------------------------


@operation(
    "/transporteurs/<uuid:transporteur_id>/reeksen",
    "GET",
    scope=READ_SCOPE,
    summary="The carrier's running series by name",
    tag="series",
    response=SeriesOut,
    many=True,
    errors=(401, 403, 404),
    path_params=CARRIER_ID,
)
def list_series(transporteur_id: uuid.UUID):
    who = _caller(transporteur_id, READ_SCOPE)
    found = series_service.list_series(carrier_id=who.carrier_id)
    return list_response([serialize_series(s) for s in found], len(found))


@operation(
    "/transporteurs/<uuid:transporteur_id>/reeksen",
    "POST",
    scope=WRITE_SCOPE,
    summary="Plan a series from a template by a recurrence rule",
    tag="series",
    description="Its occurrences up to 4 weeks ahead are made at once (`ingepland`); "
    "`flask series plan` makes the later ones. " + SERIES_ERRORS,
    body=SeriesIn,
    response=SeriesOut,
    status=201,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=CARRIER_ID,
)
@write
def create_series(transporteur_id: uuid.UUID):
    who = _caller(transporteur_id, WRITE_SCOPE)
    body = parse_body(SeriesIn)
    data = {**body.model_dump(), "weekdagen": tuple(body.weekdagen)}
    series = series_service.create_series(carrier_id=who.carrier_id, data=data, actor=who.actor)
    made = planning.plan_series(
        carrier_id=who.carrier_id,
        series=series,
        today=_today(who),
        weeks=planning.WEEKS_AHEAD,
        actor=who.actor,
    )
    return json_response(serialize_series(series, ingepland=made), status=201)


@operation(
    "/transporteurs/<uuid:transporteur_id>/reeksen/<uuid:reeks_id>",
    "GET",
    scope=READ_SCOPE,
    summary="One series with its occurrences, and what ending it would remove",
    tag="series",
    response=SeriesOut,
    errors=(401, 403, 404),
    path_params=SERIES_ID,
)
def get_series(transporteur_id: uuid.UUID, reeks_id: uuid.UUID):
    who = _caller(transporteur_id, READ_SCOPE)
    series = series_service.get_series(carrier_id=who.carrier_id, series_id=reeks_id)
    occurrences = planning.occurrences_of(carrier_id=who.carrier_id, series_id=reeks_id)
    going = planning.to_end(carrier_id=who.carrier_id, series_id=reeks_id, today=_today(who))
    return json_response(serialize_series(series, occurrences, te_verwijderen=going))


@operation(
    "/transporteurs/<uuid:transporteur_id>/reeksen/<uuid:reeks_id>",
    "PATCH",
    scope=WRITE_SCOPE,
    summary="Change a series and its future, unchanged, unstarted occurrences",
    tag="series",
    description="Only the fields sent change. `gewijzigd` says how many occurrences changed "
    "with it; occurrences changed by hand, started, done or past stay as they are. A new "
    "rule removes the future ones and makes them again. " + SERIES_ERRORS,
    body=SeriesUpdate,
    response=SeriesOut,
    errors=(401, 403, 404, 409, 413, 415, 422),
    path_params=SERIES_ID,
)
@write
def update_series(transporteur_id: uuid.UUID, reeks_id: uuid.UUID):
    who = _caller(transporteur_id, WRITE_SCOPE)
    body = parse_body(SeriesUpdate)
    data = body.model_dump(exclude_unset=True)
    if "weekdagen" in data:
        data["weekdagen"] = tuple(data["weekdagen"] or ())
    series, changed = planning.update_series(
        carrier_id=who.carrier_id, series_id=reeks_id, data=data, actor=who.actor,
        today=_today(who),
    )  # fmt: skip
    return json_response(serialize_series(series, gewijzigd=changed))


@operation(
    "/transporteurs/<uuid:transporteur_id>/reeksen/<uuid:reeks_id>",
    "DELETE",
    scope=WRITE_SCOPE,
    summary="End a series: its future unstarted occurrences are removed",
    tag="series",
    description="`verwijderd` says how many were removed; started, done and changed ones "
    "stay, and no new ones are made. The series stays readable, ended (`beeindigd_op`).",
    response=SeriesOut,
    errors=(401, 403, 404, 409),
    path_params=SERIES_ID,
)
@write
def end_series(transporteur_id: uuid.UUID, reeks_id: uuid.UUID):
    who = _caller(transporteur_id, WRITE_SCOPE)
    removed = planning.end_series(
        carrier_id=who.carrier_id, series_id=reeks_id, actor=who.actor, today=_today(who)
    )
    series = series_service.get_series(carrier_id=who.carrier_id, series_id=reeks_id)
    return json_response(serialize_series(series, verwijderd=removed))
