"""The draft's live preview: answers in, the engine's visibility, errors and formulas out."""

from __future__ import annotations

from flask import abort, render_template, request

from portal.questionnaires.pages.builder.state import editor_context, load_state, preview_context
from portal.questionnaires.pages.kit import draft_or_none, questionnaire_route
from portal.web import is_fragment


@questionnaire_route("/<questionnaire_id>/concept/voorbeeld", methods=("GET", "POST"))
def preview(questionnaire_id: str):
    """The live preview: answers in, the engine's visibility, errors and formulas out."""
    current = draft_or_none(questionnaire_id)
    if current is None:
        abort(404)
    state = load_state(questionnaire_id, current)
    context = preview_context(state, request.form if request.method == "POST" else None)
    template = (
        "questionnaires/_preview.html" if is_fragment() else "questionnaires/preview_page.html"
    )
    return render_template(template, **editor_context(state, **context))
