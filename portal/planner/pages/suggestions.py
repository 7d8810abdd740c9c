"""The task form's panel of suggested drivers (an htmx fragment): every driver ranked with
a combination and the reasons; a driver who fails a hard rule is listed with why."""

from __future__ import annotations

import uuid

from flask import render_template

from portal.accounts.permissions import object_route
from portal.planner import suggestions
from portal.planner.pages.kit import RULE_WORDS, WARNING_WORDS, bp
from portal.web.kit import current_carrier_id


def _load(task_id: uuid.UUID):
    return suggestions.for_task(carrier_id=current_carrier_id(), task_id=task_id)


@object_route(bp, "/taken/<uuid:task_id>/suggesties", _load)
def suggested(found):
    """The ranked drivers for a task without a driver."""
    return render_template(
        "planner/_suggestions.html",
        found=found,
        rule_words=RULE_WORDS,
        warning_words=WARNING_WORDS,
    )
