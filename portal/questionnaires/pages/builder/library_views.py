"""The builder's list of questionnaires, a new questionnaire, importing one from JSON, and a
questionnaire's own address (which sends to its draft or its revisions)."""

from __future__ import annotations

from dataclasses import dataclass

import orjson
from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user
from werkzeug.exceptions import RequestEntityTooLarge

from portal import plain_text
from portal.accounts.permissions import role_required
from portal.errors import Conflict
from portal.extensions import csrf
from portal.questionnaires import editing, engine, service
from portal.questionnaires.pages.forms import NewQuestionnaireForm
from portal.questionnaires.pages.kit import (
    EDIT_ROLES,
    READ_ROLES,
    activity_suggestions,
    alert,
    bp,
    draft_or_none,
    is_author,
    labels_context,
    questionnaire_route,
    user_names,
)
from portal.questionnaires.wording import show_value
from portal.unit_of_work import portal_write
from portal.validators import control_character_message
from portal.web import is_fragment
from portal.web.kit import current_actor, current_carrier_id

# --- the list and a new questionnaire -------------------------------------------------------


@bp.route("")
@role_required(*READ_ROLES)
def index():
    """The carrier's questionnaires by activity type, with their active revision and draft."""
    items = service.overview(carrier_id=current_carrier_id())
    names = user_names(*(item.draft.gewijzigd_door for item in items if item.draft))
    return render_template(
        "questionnaires/index.html", items=items, names=names, **labels_context()
    )


@bp.route("/nieuw", methods=["GET", "POST"])
@role_required(*EDIT_ROLES)
@portal_write
def new():
    """Start a questionnaire: a title, its id (suggested from the title) and activity type."""
    form = NewQuestionnaireForm(request.form if request.method == "POST" else None)
    if request.method == "GET":
        form.activity_type.data = request.args.get("activiteit", "")
    if request.method == "POST" and form.validate():
        questionnaire_id = form.filled_id()
        doc = {
            "schema_version": 1,
            "questionnaire_id": questionnaire_id,
            "title": form.title.data.strip(),
            "activity_type": form.activity_type.data.strip(),
            "questions": [],
        }
        if not questionnaire_id:
            form.questionnaire_id.errors.append(_("Geef een id: de titel levert er geen op."))
        else:
            try:
                service.create_draft(
                    carrier_id=current_carrier_id(),
                    doc=doc,
                    user_id=current_user.id,
                    actor=current_actor(),
                )
            except Conflict:
                form.questionnaire_id.errors.append(
                    _("Er is al een vragenlijst met id “%(id)s”.", id=questionnaire_id)
                )
            else:
                flash(
                    _("Vragenlijst “%(title)s” aangemaakt. Voeg nu vragen toe.", title=doc["title"])
                )
                return redirect(url_for(".draft", questionnaire_id=questionnaire_id), code=303)
    status = 422 if request.method == "POST" else 200
    html = render_template(
        "questionnaires/new.html", form=form, suggestions=activity_suggestions(), **labels_context()
    )
    return make_response(html, status)


# --- import -------------------------------------------------------------------------------


@dataclass
class Imported:
    doc: dict | None = None
    error: str | None = None
    note: str | None = None


def _read_import() -> Imported:
    """The JSON object an author uploaded or pasted, or why it cannot be used."""
    upload = request.files.get("bestand")
    pasted = request.form.get("json", "")
    if upload is not None and upload.filename:
        data = upload.read(service.MAX_DRAFT_BYTES + 1)
        if not data.strip() and len(data) <= service.MAX_DRAFT_BYTES:
            return Imported(error=_("Het bestand is leeg."))
    elif pasted.strip():
        data = pasted.encode("utf-8", "replace")
    else:
        return Imported(error=_("Kies een JSON-bestand of plak de JSON in het tekstvak."))
    if len(data) > service.MAX_DRAFT_BYTES:
        return Imported(error=_("Dit is groter dan 1 MB; een vragenlijst mag hoogstens 1 MB zijn."))
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "depth" in exc.msg:  # the parser's own limit (its reason is English)
            return Imported(error=_("Deze JSON is te diep genest om een vragenlijst te zijn."))
        return Imported(
            error=_(
                "Dit is geen geldige JSON (regel %(line)s, kolom %(column)s).",
                line=exc.lineno,
                column=exc.colno,
            )
        )
    if not isinstance(doc, dict):
        return Imported(
            error=_("Een vragenlijst is één JSON-object ({…}), geen lijst, tekst of getal.")
        )
    if editing.json_depth(doc) > editing.MAX_JSON_DEPTH:
        return Imported(error=_("Deze JSON is te diep genest om een vragenlijst te zijn."))
    if found := plain_text.controls_in(doc):
        path, code_point = found[0]
        return Imported(error=f"{path}: {control_character_message(code_point)}")
    if editing.count_questions(doc) > editing.MAX_NODES:
        return Imported(
            error=_("Een vragenlijst heeft hoogstens %(limit)s vragen.", limit=editing.MAX_NODES)
        )
    return Imported(doc=doc)


def _import_page(questionnaire_id: str | None, error: str | None = None, status: int = 200):
    draft = draft_or_none(questionnaire_id) if questionnaire_id else None
    html = render_template(
        "questionnaires/import.html",
        questionnaire_id=questionnaire_id,
        draft=draft,
        error=error,
        limit_mb=service.MAX_DRAFT_BYTES // 1_000_000,
        **labels_context(),
    )
    return make_response(html, status)


def _problem_count_note(doc: dict) -> str:
    _canonical, problems = engine.check_definition(doc)
    if not problems:
        return _("De controle vond geen problemen.")
    return _(
        "De controle vond %(n)s probleem/problemen; je ziet ze bij de vragen.", n=len(problems)
    )


@bp.route("/importeren", methods=["GET", "POST"])
@csrf.exempt
@role_required(*EDIT_ROLES)
@portal_write
def import_new():
    """A new questionnaire from a JSON file (its questionnaire_id names it)."""
    if request.method == "GET":
        return _import_page(None)
    csrf.protect()  # here, not before the view: the body is size-checked first
    imported = _read_import()
    if imported.error:
        return _import_page(None, imported.error, 422)
    doc = imported.doc
    questionnaire_id = doc.get("questionnaire_id")
    if not isinstance(questionnaire_id, str) or not engine.ID_RE.fullmatch(questionnaire_id):
        return _import_page(
            None,
            _(
                "Het bestand heeft geen bruikbaar “questionnaire_id” (letters, cijfers, '_', '.' "
                "en '-'), dus Rijplan weet niet welke vragenlijst dit is."
            ),
            422,
        )
    try:
        service.create_draft(
            carrier_id=current_carrier_id(), doc=doc, user_id=current_user.id, actor=current_actor()
        )
    except Conflict:
        return _import_page(
            None,
            _(
                "Vragenlijst “%(id)s” bestaat al. Open die en importeer in haar concept.",
                id=questionnaire_id,
            ),
            409,
        )
    flash(_("Geïmporteerd als concept. %(note)s", note=_problem_count_note(doc)))
    return redirect(url_for(".draft", questionnaire_id=questionnaire_id), code=303)


@questionnaire_route("/<questionnaire_id>/concept/importeren", methods=("GET", "POST"))
def import_draft(questionnaire_id: str):
    """Replace the draft by an uploaded or pasted definition (kept even with problems)."""
    if request.method == "GET":
        return _import_page(questionnaire_id)
    imported = _read_import()
    if imported.error:
        return _import_page(questionnaire_id, imported.error, 422)
    doc = imported.doc
    note = _problem_count_note({**doc, "questionnaire_id": questionnaire_id})
    if doc.get("questionnaire_id") not in (None, questionnaire_id):
        note += " " + _(
            "Het id “%(old)s” uit het bestand is vervangen door “%(new)s”.",
            old=show_value(doc.get("questionnaire_id")),
            new=questionnaire_id,
        )
    service.replace_draft(
        carrier_id=current_carrier_id(),
        questionnaire_id=questionnaire_id,
        doc=doc,
        user_id=current_user.id,
        actor=current_actor(),
        action="imported",
    )
    flash(_("Geïmporteerd in het concept. %(note)s", note=note))
    return redirect(url_for(".draft", questionnaire_id=questionnaire_id), code=303)


@bp.errorhandler(RequestEntityTooLarge)
def _too_large(error):
    """A body over the limit: said plainly where the author is, never a bare 413."""
    endpoint = request.endpoint or ""
    questionnaire_id = (request.view_args or {}).get("questionnaire_id")
    message = _("Dit is groter dan 1 MB; een vragenlijst mag hoogstens 1 MB zijn.")
    if endpoint.endswith(("import_new", "import_draft")):
        return _import_page(questionnaire_id, message, 413)
    if is_fragment():
        return alert(message, 413)
    flash(message, "error")
    if questionnaire_id:
        return redirect(url_for(".draft", questionnaire_id=questionnaire_id), code=303)
    return redirect(url_for(".index"), code=303)


# --- the questionnaire and its draft --------------------------------------------------------


@questionnaire_route("/<questionnaire_id>", edit=False)
def show(questionnaire_id: str):
    """A questionnaire: its draft for an author who has one, else its revisions."""
    if is_author() and draft_or_none(questionnaire_id) is not None:
        return redirect(url_for(".draft", questionnaire_id=questionnaire_id))
    return redirect(url_for(".revisions", questionnaire_id=questionnaire_id))
