"""Questionnaire operations of the API."""

from __future__ import annotations

from portal.api.core import list_response, operation, parse_query, principal
from portal.questionnaires import service
from portal.questionnaires.schemas import (
    ActivityQuestionnaireOut,
    ActivityQuestionnaireQuery,
    serialize_revision,
)


@operation(
    "/activity_questionnaires",
    "GET",
    summary="The active questionnaire per activity type of the caller's carrier",
    tag="questionnaires",
    query=ActivityQuestionnaireQuery,
    response=ActivityQuestionnaireOut,
    many=True,
    errors=(401, 422),
)
def activity_questionnaires():
    query = parse_query(ActivityQuestionnaireQuery)
    rows, total = service.list_active(
        carrier_id=principal().carrier_id,
        activity_type=query.activity_type,
        limit=query.limit,
        offset=query.offset,
    )
    return list_response([serialize_revision(row) for row in rows], total)
