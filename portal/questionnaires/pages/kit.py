"""The builder's blueprint and what its views share: who may read and edit, the route of one
questionnaire (loaded before anything else), the request size limit, the names every template
uses, and the small answers (a download, a message above the editor)."""

from __future__ import annotations

from functools import partial

import orjson
from flask import Blueprint, abort, make_response, render_template, request
from flask_login import current_user

from portal.accounts import service as accounts
from portal.accounts.permissions import object_route
from portal.labels import ACTIVITY_LABELS, activity_label
from portal.question_labels import OPERATOR_LABELS, TYPE_GROUPS, TYPE_LABELS, field_label
from portal.questionnaires import engine, service
from portal.questionnaires.wording import format_number, input_text, show_value
from portal.web.kit import current_carrier_id, format_when

bp = Blueprint("questionnaires", __name__, url_prefix="/vragenlijsten")

READ_ROLES = ("planner", "author")
EDIT_ROLES = ("author",)
# A questionnaire is at most MAX_DRAFT_BYTES of JSON; a form carrying one may add a little.
REQUEST_LIMIT = service.MAX_DRAFT_BYTES + 64 * 1024
REVISIONS_PAGE = 100


# --- helpers ------------------------------------------------------------------------------


def is_author() -> bool:
    return current_user.has_role(*EDIT_ROLES)


def int_arg(value: object) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


@bp.before_app_request
def _limit_request() -> None:
    """A questionnaire is at most 1 MB: refuse a bigger body before any of it is parsed.

    An app-level hook, so it runs before the portal's own hooks read a form.
    """
    if request.blueprint == bp.name:
        request.max_content_length = REQUEST_LIMIT
        request.max_form_memory_size = REQUEST_LIMIT


def questionnaire_route(rule: str, methods: tuple[str, ...] = ("GET",), *, edit: bool = True):
    """A route of one of the carrier's questionnaires. It must exist (a draft or a revision)
    before anything else happens, so another carrier's id is a 404 whatever the method; then
    a POST's CSRF token is checked (its size is bounded by the blueprint's request hook)."""

    def load(questionnaire_id: str, **values):
        if not engine.ID_RE.fullmatch(questionnaire_id) or not service.questionnaire_exists(
            carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id
        ):
            abort(404)
        return {"questionnaire_id": questionnaire_id, **values}

    roles = EDIT_ROLES if edit else READ_ROLES
    return object_route(bp, rule, load, methods=methods, roles=roles)


def user_names(*user_ids) -> dict:
    return accounts.user_names(carrier_id=current_carrier_id(), user_ids=set(user_ids))


def labels_context() -> dict:
    """What every builder template uses to name things."""
    return {
        "type_labels": TYPE_LABELS,
        "type_groups": TYPE_GROUPS,
        "operator_labels": OPERATOR_LABELS,
        "field_label": field_label,
        "show_value": show_value,
        "format_number": format_number,
        "input_text": input_text,
        "activity_label": activity_label,
        "when": partial(format_when, kind="date_time"),
        "is_author": is_author(),
    }


def draft_or_none(questionnaire_id: str):
    return service.get_draft(carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id)


def activity_suggestions() -> list[tuple[str, str]]:
    known = service.known_activity_types(carrier_id=current_carrier_id())
    names = dict.fromkeys([*ACTIVITY_LABELS, *known])
    return [(name, activity_label(name)) for name in names]


def revision_doc(revision) -> dict:
    doc = orjson.loads(revision.definition)
    return doc if isinstance(doc, dict) else {}


def download(doc: object, filename: str):
    body = orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
    response = make_response(body)
    response.headers["Content-Type"] = "application/json; charset=utf-8"
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def alert(text: str, status: int, *, stale: bool = False, reload_url: str | None = None):
    """A message above the editor (htmx), replacing whatever message was there."""
    html = render_template(
        "questionnaires/_alert.html", text=text, stale=stale, reload_url=reload_url
    )
    response = make_response(html, status)
    response.headers["HX-Retarget"] = "#builder-alert"
    response.headers["HX-Reswap"] = "innerHTML"
    return response
