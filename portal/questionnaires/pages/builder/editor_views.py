"""The draft editor: start a draft, show it, and one route per edit; every edit is one request
that changes the stored draft (guarded by its `versie`) and answers the re-rendered editor or,
for a field being typed in, only what follows from it. Also export and discard a draft."""

from __future__ import annotations

import json
from collections.abc import Callable

from flask import abort, flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from portal.errors import ValidationFailed
from portal.question_labels import NEW_LABELS
from portal.questionnaires import editing, service
from portal.questionnaires.editing import EditError
from portal.questionnaires.pages.builder.state import (
    EditorState,
    editor_context,
    formula_outcome,
    load_state,
    preview_context,
)
from portal.questionnaires.pages.kit import (
    alert,
    download,
    draft_or_none,
    int_arg,
    labels_context,
    questionnaire_route,
    revision_doc,
    user_names,
)
from portal.questionnaires.wording import EDIT_ERRORS
from portal.unit_of_work import refused
from portal.web import is_fragment
from portal.web.kit import current_actor, current_carrier_id, format_when


def _draft_page(questionnaire_id: str, draft, status: int = 200):
    state = load_state(questionnaire_id, draft)
    preview = preview_context(state, None)
    html = render_template("questionnaires/editor.html", **editor_context(state, **preview))
    return make_response(html, status)


@questionnaire_route("/<questionnaire_id>/concept")
def draft(questionnaire_id: str):
    """The draft editor with its live preview (or the offer to start a draft)."""
    current = draft_or_none(questionnaire_id)
    if current is None:
        latest = service.latest_revision(
            carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id
        )
        return render_template(
            "questionnaires/no_draft.html",
            questionnaire_id=questionnaire_id,
            latest=latest,
            title=service.text_field(revision_doc(latest), "title") or questionnaire_id,
            **labels_context(),
        )
    return _draft_page(questionnaire_id, current)


@questionnaire_route("/<questionnaire_id>/concept/starten", methods=("POST",))
def start(questionnaire_id: str):
    """Start a draft from the active (else newest) revision."""
    service.start_draft(
        carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id, user_id=current_user.id
    )
    return redirect(url_for(".draft", questionnaire_id=questionnaire_id), code=303)


# --- editing: one request, one change of the stored draft -----------------------------------


def _refuse(questionnaire_id: str, text: str, status: int, *, stale: bool = False):
    target = url_for(".draft", questionnaire_id=questionnaire_id)
    if is_fragment():
        return alert(text, status, stale=stale, reload_url=target)
    flash(text, "error")
    return refused(redirect(target, code=303))


def _stale(questionnaire_id: str, error: service.StaleDraft | None = None):
    who, moment = None, ""
    if error is not None and error.extra.get("gewijzigd_door"):
        user_id = error.extra["gewijzigd_door"]
        who = user_names(user_id).get(user_id)
        moment = format_when(error.extra.get("updated_at"), kind="date_time")
    if who:
        text = _(
            "Dit concept is intussen gewijzigd door %(who)s (%(when)s), bijvoorbeeld in een ander "
            "tabblad. Je laatste wijziging is niet opgeslagen, zodat niets wordt overschreven. "
            "Laad het concept opnieuw en doe je wijziging nog eens.",
            who=who,
            when=moment,
        )
    else:
        text = _(
            "Dit concept is intussen ergens anders gewijzigd, gepubliceerd of verwijderd. Je "
            "laatste wijziging is niet opgeslagen, zodat niets wordt overschreven. Laad het "
            "concept opnieuw."
        )
    return _refuse(questionnaire_id, text, 409, stale=True)


def _edit_error(questionnaire_id: str, error: EditError):
    template = EDIT_ERRORS.get(error.code, EDIT_ERRORS["path"])
    return _refuse(questionnaire_id, str(template) % error.values, 422)


def _edit(
    questionnaire_id: str,
    change: Callable[[dict], object],
    *,
    respond: Callable[[EditorState, object], object] | None = None,
):
    """Load the draft, check its versie, apply change, store it, answer the editor."""
    draft = draft_or_none(questionnaire_id)
    versie = int_arg(request.form.get("versie"))
    if draft is None or versie is None or draft.versie != versie:
        error = None
        if draft is not None:
            error = service.StaleDraft(
                "stale", gewijzigd_door=draft.gewijzigd_door, updated_at=draft.updated_at
            )
        return _stale(questionnaire_id, error)
    doc = service.draft_document(draft)
    try:
        outcome = change(doc)
    except EditError as error:
        return _edit_error(questionnaire_id, error)
    try:
        saved = service.save_draft(
            carrier_id=current_carrier_id(),
            questionnaire_id=questionnaire_id,
            doc=doc,
            expected_versie=versie,
            user_id=current_user.id,
        )
    except service.StaleDraft as error:
        return _stale(questionnaire_id, error)
    except ValidationFailed:
        return _edit_error(questionnaire_id, EditError("too_big"))
    state = load_state(questionnaire_id, saved)
    if not is_fragment():
        anchor = outcome if isinstance(outcome, str) else ""
        if isinstance(outcome, tuple) and outcome and isinstance(outcome[0], int):
            anchor = "#" + editing.dom_id(outcome)
        return redirect(url_for(".draft", questionnaire_id=questionnaire_id) + anchor, code=303)
    if respond is not None:
        return respond(state, outcome)
    return _editor_fragment(state)


def _editor_fragment(state: EditorState, focus: dict | None = None):
    response = make_response(
        render_template("questionnaires/_editor.html", **editor_context(state))
    )
    response.headers["HX-Trigger"] = json.dumps({"draftChanged": True})
    if focus:
        response.headers["HX-Trigger-After-Settle"] = json.dumps({"builderFocus": focus})
    return response


def _focus(kind: str, path: tuple[int, ...], **more) -> Callable:
    def respond(state: EditorState, outcome: object):
        target = outcome if isinstance(outcome, tuple) else path
        return _editor_fragment(state, {"kind": kind, "id": editing.dom_id(target), **more})

    return respond


def _path_arg(name: str = "pad") -> tuple[int, ...]:
    try:
        return editing.parse_path(request.form.get(name, ""))
    except EditError:
        return (-1,)


def _saved_fields(state: EditorState, path: tuple[int, ...]):
    """After a typed change: only what follows from it, never the inputs being typed in."""
    response = make_response(
        render_template("questionnaires/_saved.html", path=path, **editor_context(state))
    )
    response.headers["HX-Trigger"] = json.dumps({"draftChanged": True})
    return response


@questionnaire_route("/<questionnaire_id>/concept/algemeen", methods=("POST",))
def save_general(questionnaire_id: str):
    """The title and activity type of the draft."""

    def change(doc: dict) -> None:
        for key in ("title", "activity_type"):
            if key in request.form:
                doc[key] = request.form.get(key, "").strip()

    return _edit(questionnaire_id, change, respond=lambda state, _o: _saved_fields(state, ()))


@questionnaire_route("/<questionnaire_id>/concept/vraag", methods=("POST",))
def save_question(questionnaire_id: str):
    """Fields of one question; `volledig` asks for the whole editor back (the form's shape
    follows the change: another type, another question to depend on, other options)."""
    path = _path_arg()

    def change(doc: dict) -> str:
        changed = editing.apply_fields(doc, path, request.form)
        editing.follow_changes(doc, path, changed)
        return "#" + editing.dom_id(path)

    if request.form.get("volledig"):
        focus = request.form.get("focus", "")
        return _edit(questionnaire_id, change, respond=_focus("field", path, field=focus))
    return _edit(questionnaire_id, change, respond=lambda state, _o: _saved_fields(state, path))


@questionnaire_route("/<questionnaire_id>/concept/vraag/toevoegen", methods=("POST",))
def add_question(questionnaire_id: str):
    """A new question of a type at the end of the questionnaire or of a group."""
    parent = _path_arg("in")
    qtype = request.form.get("type", "")

    def change(doc: dict) -> tuple[int, ...]:
        label = str(NEW_LABELS.get(qtype, _("Nieuwe vraag")))
        return editing.add_question(doc, parent, qtype, label)

    return _edit(questionnaire_id, change, respond=_focus("new", parent))


@questionnaire_route("/<questionnaire_id>/concept/vraag/verplaatsen", methods=("POST",))
def move_question(questionnaire_id: str):
    """One step (op, neer, in, uit) or to a place (naar_ouder, naar_index) after a drop."""
    path = _path_arg()
    direction = request.form.get("richting", "")

    def change(doc: dict) -> tuple[int, ...]:
        if direction:
            return editing.move(doc, path, direction)
        index = int_arg(request.form.get("naar_index"))
        if index is None:
            raise EditError("path")
        return editing.move_to(doc, path, _path_arg("naar_ouder"), index)

    return _edit(questionnaire_id, change, respond=_focus("move", path, action=direction))


@questionnaire_route("/<questionnaire_id>/concept/vraag/verwijderen", methods=("GET", "POST"))
def remove_question(questionnaire_id: str):
    """Remove a question (a group with everything in it) after a confirmation."""
    if request.method == "GET":
        current = draft_or_none(questionnaire_id)
        try:
            path = editing.parse_path(request.args.get("pad", ""))
            entry = editing.entry_at(service.draft_document(current), path) if current else None
        except EditError:
            abort(404)
        if current is None:
            abort(404)
        template = (
            "questionnaires/_confirm_remove.html"
            if is_fragment()
            else "questionnaires/confirm_remove.html"
        )
        question = entry if isinstance(entry, dict) else {}
        return render_template(
            template,
            questionnaire_id=questionnaire_id,
            draft=current,
            path=editing.path_text(path),
            question=question,
            nested=editing.count_questions(question),
            **labels_context(),
        )
    path = _path_arg()

    def change(doc: dict) -> str:
        editing.remove_question(doc, path)
        return ""

    def respond(state: EditorState, _outcome):
        return _editor_fragment(state, editing.focus_after_remove(state.doc, path))

    return _edit(questionnaire_id, change, respond=respond)


@questionnaire_route("/<questionnaire_id>/concept/vraag/opties", methods=("POST",))
def edit_options(questionnaire_id: str):
    """Add, remove or move one option of a select or multiselect question."""
    path = _path_arg()
    action = request.form.get("actie", "")
    index = int_arg(request.form.get("index")) if request.form.get("index") else -1

    def change(doc: dict) -> tuple:
        question = editing.question_at(doc, path)
        return path, editing.edit_option(question, action, index)

    def respond(state: EditorState, outcome):
        _path, focus = outcome
        target = {"kind": "option", "id": editing.dom_id(path), "index": focus}
        return _editor_fragment(state, target)

    return _edit(questionnaire_id, change, respond=respond)


@questionnaire_route("/<questionnaire_id>/concept/vraag/opschonen", methods=("POST",))
def clean_question(questionnaire_id: str):
    """Drop the fields the checker does not know or that do not fit the question's type."""
    path = _path_arg()

    def change(doc: dict) -> None:
        editing.prune_fields(doc, path)

    return _edit(questionnaire_id, change, respond=_focus("card", path))


@questionnaire_route("/<questionnaire_id>/concept/formule", methods=("POST",))
def check_formula(questionnaire_id: str):
    """Check a formula as it is typed: the parser's error, or "ok" with the ids it uses."""
    current = draft_or_none(questionnaire_id)
    if current is None:
        abort(404)
    refs = editing.by_id(service.draft_document(current))
    outcome = formula_outcome(request.form.get("formula", ""), refs)
    return render_template(
        "questionnaires/_formula.html", outcome=outcome, refs=refs, **labels_context()
    )


# --- export, discard ------------------------------------------------------------------------


@questionnaire_route("/<questionnaire_id>/concept/export")
def export_draft(questionnaire_id: str):
    """The draft as a .json file (with whatever problems it has)."""
    current = draft_or_none(questionnaire_id)
    if current is None:
        abort(404)
    return download(service.draft_document(current), f"{questionnaire_id}-concept.json")


@questionnaire_route("/<questionnaire_id>/concept/verwijderen", methods=("GET", "POST"))
def discard(questionnaire_id: str):
    """Throw the draft away after a confirmation."""
    current = draft_or_none(questionnaire_id)
    if current is None:
        abort(404)
    revisions = service.revision_numbers(
        carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id
    )
    if request.method == "GET":
        return render_template(
            "questionnaires/confirm.html",
            action="discard",
            questionnaire_id=questionnaire_id,
            draft=current,
            revisions=revisions,
            editor=user_names(current.gewijzigd_door).get(current.gewijzigd_door, ""),
            **labels_context(),
        )
    service.discard_draft(
        carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id, actor=current_actor()
    )
    flash(_("Het concept van “%(id)s” is verwijderd.", id=questionnaire_id))
    if revisions:
        return redirect(url_for(".revisions", questionnaire_id=questionnaire_id), code=303)
    return redirect(url_for(".index"), code=303)
