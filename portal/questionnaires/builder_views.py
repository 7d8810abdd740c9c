"""The questionnaire builder: questionnaires per activity type, the draft editor with its live
preview, publishing, and the history of revisions with comparison and restore.

Authors edit; planners read the list, the revisions and their comparison. The draft is the
source of truth on the server: every edit is one request that changes the stored draft
(guarded by its `versie`, so a second tab never overwrites silently) and answers the
re-rendered editor, or, for a field being typed in, only what follows from it (problems, the
save status), so nothing the author is typing is replaced. Every route works as a plain page
and form; htmx requests get fragments.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import orjson
from flask import (
    Blueprint,
    abort,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_login import current_user
from werkzeug.exceptions import RequestEntityTooLarge

from portal.accounts import service as accounts
from portal.accounts.permissions import object_route, role_required
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.extensions import csrf
from portal.labels import ACTIVITY_LABELS, activity_label
from portal.problems import say as say_problem
from portal.questionnaires import diff as differ
from portal.questionnaires import editing, engine, service
from portal.questionnaires.editing import EditError
from portal.questionnaires.forms import NewQuestionnaireForm
from portal.questionnaires.labels import (
    NEW_LABELS,
    OPERATOR_LABELS,
    TYPE_GROUPS,
    TYPE_LABELS,
    field_label,
)
from portal.questionnaires.wording import (
    EDIT_ERRORS,
    answer_problem_text,
    format_number,
    input_text,
    problem_text,
    show_value,
)
from portal.tasks import service as tasks_service
from portal.unit_of_work import portal_write, refused
from portal.web import is_fragment
from portal.web.kit import current_actor, current_carrier_id, format_when

bp = Blueprint("questionnaires", __name__, url_prefix="/vragenlijsten")

READ_ROLES = ("planner", "author")
EDIT_ROLES = ("author",)
# A questionnaire is at most MAX_DRAFT_BYTES of JSON; a form carrying one may add a little.
REQUEST_LIMIT = service.MAX_DRAFT_BYTES + 64 * 1024
REVISIONS_PAGE = 100
_ID_RE = re.compile(r"[A-Za-z0-9_.-]{1,100}")


# --- helpers ------------------------------------------------------------------------------


def _is_author() -> bool:
    return current_user.has_role(*EDIT_ROLES)


def _int(value: object) -> int | None:
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
        if not _ID_RE.fullmatch(questionnaire_id) or not service.questionnaire_exists(
            carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id
        ):
            abort(404)
        return {"questionnaire_id": questionnaire_id, **values}

    roles = EDIT_ROLES if edit else READ_ROLES
    return object_route(bp, rule, load, methods=methods, roles=roles)


def _names(*user_ids) -> dict:
    return accounts.user_names(carrier_id=current_carrier_id(), user_ids=set(user_ids))


def _labels() -> dict:
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
        "is_author": _is_author(),
    }


def _draft_or_none(questionnaire_id: str):
    return service.get_draft(carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id)


def _activity_suggestions() -> list[tuple[str, str]]:
    known = service.known_activity_types(carrier_id=current_carrier_id())
    names = dict.fromkeys([*ACTIVITY_LABELS, *known])
    return [(name, activity_label(name)) for name in names]


def _revision_doc(revision) -> dict:
    doc = orjson.loads(revision.definition)
    return doc if isinstance(doc, dict) else {}


# --- the list and a new questionnaire -------------------------------------------------------


@bp.route("")
@role_required(*READ_ROLES)
def index():
    """The carrier's questionnaires by activity type, with their active revision and draft."""
    items = service.overview(carrier_id=current_carrier_id())
    names = _names(*(item.draft.gewijzigd_door for item in items if item.draft))
    return render_template("questionnaires/index.html", items=items, names=names, **_labels())


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
        "questionnaires/new.html", form=form, suggestions=_activity_suggestions(), **_labels()
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
    if editing.count_questions(doc) > editing.MAX_NODES:
        return Imported(
            error=_("Een vragenlijst heeft hoogstens %(limit)s vragen.", limit=editing.MAX_NODES)
        )
    return Imported(doc=doc)


def _import_page(questionnaire_id: str | None, error: str | None = None, status: int = 200):
    draft = _draft_or_none(questionnaire_id) if questionnaire_id else None
    html = render_template(
        "questionnaires/import.html",
        questionnaire_id=questionnaire_id,
        draft=draft,
        error=error,
        limit_mb=service.MAX_DRAFT_BYTES // 1_000_000,
        **_labels(),
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
    if not isinstance(questionnaire_id, str) or not _ID_RE.fullmatch(questionnaire_id):
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
        return _alert(message, 413)
    flash(message, "error")
    if questionnaire_id:
        return redirect(url_for(".draft", questionnaire_id=questionnaire_id), code=303)
    return redirect(url_for(".index"), code=303)


# --- the questionnaire and its draft --------------------------------------------------------


@questionnaire_route("/<questionnaire_id>", edit=False)
def show(questionnaire_id: str):
    """A questionnaire: its draft for an author who has one, else its revisions."""
    if _is_author() and _draft_or_none(questionnaire_id) is not None:
        return redirect(url_for(".draft", questionnaire_id=questionnaire_id))
    return redirect(url_for(".revisions", questionnaire_id=questionnaire_id))


@dataclass
class EditorState:
    """Everything the editor shows of a draft."""

    questionnaire_id: str
    draft: object
    doc: dict
    items: list
    flat: list
    canonical: dict | None
    located: editing.Located
    earlier: dict = field(default_factory=dict)
    pool: list = field(default_factory=list)
    refs: dict = field(default_factory=dict)
    operands: list = field(default_factory=list)
    editor_name: str = ""
    basis: int | None = None

    def text(self, key: str) -> str:
        value = self.doc.get(key)
        return value if isinstance(value, str) else ""

    def candidates(self, item) -> list:
        return self.pool[: self.earlier.get(item.path, 0)]

    def ref_of(self, item) -> dict | None:
        condition = item.question.get("visible_if")
        ref = condition.get("question_id") if isinstance(condition, dict) else None
        return self.refs.get(ref) if isinstance(ref, str) else None

    def problems_at(self, item) -> list[tuple[str, str]]:
        return [(name, problem_text(name, p)) for name, p in self.located.at(item.path)]

    def invalid(self, item, *names: str) -> bool:
        found = self.located.fields_at(item.path)
        return any(name in found or any(f.startswith(name + ".") for f in found) for name in names)

    def fixable(self, item) -> bool:
        codes = {p.code for _n, p in self.located.at(item.path)}
        return bool(codes & {"unknown_field", "field_not_allowed"})

    def general_problems(self) -> list[tuple[str, str]]:
        return [(name, problem_text(name, p)) for name, p in self.located.general]

    def summary(self) -> list[tuple[object, str, str]]:
        """(item or None, field, text) of every problem, in document order."""
        result = [(None, name, text) for name, text in self.general_problems()]
        for item in self.flat:
            result += [(item, name, text) for name, text in self.problems_at(item)]
        return result


def _state(questionnaire_id: str, draft) -> EditorState:
    doc = service.draft_document(draft)
    canonical, problems = engine.check_definition(doc)
    items = editing.tree(doc)
    flat = editing.walk(items)
    state = EditorState(
        questionnaire_id=questionnaire_id,
        draft=draft,
        doc=doc,
        items=items,
        flat=flat,
        canonical=canonical,
        located=editing.locate(problems),
    )
    seen: set[str] = set()
    for item in flat:
        state.earlier[item.path] = len(state.pool)
        if item.qid and item.qid not in seen and item.qtype not in (None, "group", "info"):
            state.pool.append(item)
        if item.qid and item.qid not in seen:
            state.refs[item.qid] = item.question
            if item.qtype in engine.FORMULA_OPERAND_TYPES:
                state.operands.append(item.qid)
        if item.qid:
            seen.add(item.qid)
    state.editor_name = _names(draft.gewijzigd_door).get(draft.gewijzigd_door, "")
    if draft.basis_revisie_id:
        try:
            basis = service.get_revision(
                carrier_id=current_carrier_id(), revision_id=draft.basis_revisie_id
            )
            state.basis = basis.revisie
        except NotFound:
            state.basis = None
    return state


def _editor_context(state: EditorState, **extra) -> dict:
    return {
        "s": state,
        "questionnaire_id": state.questionnaire_id,
        "suggestions": _activity_suggestions(),
        "new_labels": NEW_LABELS,
        "path_text": editing.path_text,
        "dom_id": editing.dom_id,
        "fields_for": engine.fields_for,
        "validation_keys_for": engine.validation_keys_for,
        "operators_for": _ui_operators,
        "shown_fields": shown_fields,
        "formula_outcome": formula_outcome,
        **_labels(),
        **extra,
    }


def shown_fields(qtype: str | None) -> set[str]:
    """The fields the editor offers for a question of this type (a subset of what fits)."""
    shown = {"id", "type", "label", "visible_if"}
    if qtype is None:
        return shown
    if qtype not in ("group", "info"):
        shown.add("required")
    if qtype not in ("group", "info", "calculated", "photo", "signature", "document_scan"):
        shown |= {"readonly", "default_value"}
    if qtype in ("number", "integer", "calculated"):
        shown.add("unit")
    by_type = {"max_files", "options", "validation", "formula"}
    return shown | (set(engine.fields_for(qtype)) & by_type)


def formula_outcome(formula: object, refs: dict) -> dict:
    """What the formula field says under it: the parser's error, or the ids it uses."""
    outcome = {"error": None, "uses": [], "unknown": [], "unfit": [], "empty": False}
    if not isinstance(formula, str) or not formula.strip():
        outcome["empty"] = True
        return outcome
    try:
        used = sorted(engine.formula_references(formula))
    except engine.FormulaError as exc:
        outcome["error"] = say_problem(exc.reason, exc.params, str(exc))
        return outcome
    outcome["uses"] = used
    outcome["unknown"] = [ref for ref in used if ref not in refs]
    outcome["unfit"] = [
        ref
        for ref in used
        if ref in refs and refs[ref].get("type") not in engine.FORMULA_OPERAND_TYPES
    ]
    return outcome


def _ui_operators(ref: dict | None, current: str | None = None) -> list[str]:
    """The comparisons the visible_if editor offers for a referenced question."""
    rtype = ref.get("type") if ref else None
    operators = list(engine.operators_for(rtype))
    if rtype in ("photo", "signature", "document_scan", "location"):
        # Comparing file ids or coordinates by value means nothing to an author.
        operators = ["not_empty", "empty"]
    if current and current not in operators:
        operators.append(current)
    return operators


def _draft_page(questionnaire_id: str, draft, status: int = 200):
    state = _state(questionnaire_id, draft)
    preview = _preview_context(state, None)
    html = render_template("questionnaires/editor.html", **_editor_context(state, **preview))
    return make_response(html, status)


@questionnaire_route("/<questionnaire_id>/concept")
def draft(questionnaire_id: str):
    """The draft editor with its live preview (or the offer to start a draft)."""
    current = _draft_or_none(questionnaire_id)
    if current is None:
        latest = service.latest_revision(
            carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id
        )
        return render_template(
            "questionnaires/no_draft.html",
            questionnaire_id=questionnaire_id,
            latest=latest,
            title=service.text_field(_revision_doc(latest), "title") or questionnaire_id,
            **_labels(),
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


def _alert(text: str, status: int, *, stale: bool = False, reload_url: str | None = None):
    """A message above the editor (htmx), replacing whatever message was there."""
    html = render_template(
        "questionnaires/_alert.html", text=text, stale=stale, reload_url=reload_url
    )
    response = make_response(html, status)
    response.headers["HX-Retarget"] = "#builder-alert"
    response.headers["HX-Reswap"] = "innerHTML"
    return response


def _refuse(questionnaire_id: str, text: str, status: int, *, stale: bool = False):
    target = url_for(".draft", questionnaire_id=questionnaire_id)
    if is_fragment():
        return _alert(text, status, stale=stale, reload_url=target)
    flash(text, "error")
    return refused(redirect(target, code=303))


def _stale(questionnaire_id: str, error: service.StaleDraft | None = None):
    who, moment = None, ""
    if error is not None and error.extra.get("gewijzigd_door"):
        user_id = error.extra["gewijzigd_door"]
        who = _names(user_id).get(user_id)
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
    draft = _draft_or_none(questionnaire_id)
    versie = _int(request.form.get("versie"))
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
    state = _state(questionnaire_id, saved)
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
        render_template("questionnaires/_editor.html", **_editor_context(state))
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
        render_template("questionnaires/_saved.html", path=path, **_editor_context(state))
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
        index = _int(request.form.get("naar_index"))
        if index is None:
            raise EditError("path")
        return editing.move_to(doc, path, _path_arg("naar_ouder"), index)

    return _edit(questionnaire_id, change, respond=_focus("move", path, action=direction))


@questionnaire_route("/<questionnaire_id>/concept/vraag/verwijderen", methods=("GET", "POST"))
def remove_question(questionnaire_id: str):
    """Remove a question (a group with everything in it) after a confirmation."""
    if request.method == "GET":
        current = _draft_or_none(questionnaire_id)
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
            **_labels(),
        )
    path = _path_arg()

    def change(doc: dict) -> str:
        editing.remove_question(doc, path)
        return ""

    def respond(state: EditorState, _outcome):
        # Focus lands on the question that took its place, else the one before, else "add".
        siblings = path[:-1]
        items = editing.tree(state.doc)
        holder = items
        for index in siblings:
            holder = holder[index].children if index < len(holder) else []
        if holder:
            target = (*siblings, min(path[-1], len(holder) - 1))
            return _editor_fragment(state, {"kind": "card", "id": editing.dom_id(target)})
        form_id = "add-" + (editing.dom_id(siblings) if siblings else "q")
        return _editor_fragment(state, {"kind": "add", "id": form_id})

    return _edit(questionnaire_id, change, respond=respond)


@questionnaire_route("/<questionnaire_id>/concept/vraag/opties", methods=("POST",))
def edit_options(questionnaire_id: str):
    """Add, remove or move one option of a select or multiselect question."""
    path = _path_arg()
    action = request.form.get("actie", "")
    index = _int(request.form.get("index")) if request.form.get("index") else -1

    def change(doc: dict) -> tuple:
        question = editing.question_at(doc, path)
        if action not in ("toevoegen", "verwijderen", "op", "neer"):
            raise EditError("action")
        before = list(question.get("options") or [])
        focus = editing.option_edit(question, action, index if index is not None else -1)
        if action == "verwijderen" and 0 <= (index or 0) < len(before):
            removed = before[index]
            default = question.get("default_value")
            if default == removed:
                question.pop("default_value", None)
            elif isinstance(default, list):
                question["default_value"] = [v for v in default if v != removed] or None
                if question["default_value"] is None:
                    del question["default_value"]
        return path, focus

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
        if path == ():
            for key in list(doc):
                if key not in ("schema_version", "questionnaire_id", "title", "activity_type",
                               "questions"):  # fmt: skip
                    del doc[key]
            return
        question = editing.question_at(doc, path)
        allowed = set(engine.fields_for(question.get("type")))
        for key in list(question):
            if key not in allowed:
                del question[key]
        for nested, keys in (
            ("validation", engine.validation_keys_for(question.get("type"))),
            ("visible_if", ("question_id", "operator", "value")),
        ):
            if isinstance(question.get(nested), dict):
                question[nested] = {k: v for k, v in question[nested].items() if k in keys}
                if not question[nested]:
                    del question[nested]

    return _edit(questionnaire_id, change, respond=_focus("card", path))


@questionnaire_route("/<questionnaire_id>/concept/formule", methods=("POST",))
def check_formula(questionnaire_id: str):
    """Check a formula as it is typed: the parser's error, or "ok" with the ids it uses."""
    current = _draft_or_none(questionnaire_id)
    if current is None:
        abort(404)
    refs = editing.by_id(service.draft_document(current))
    outcome = formula_outcome(request.form.get("formula", ""), refs)
    return render_template("questionnaires/_formula.html", outcome=outcome, refs=refs, **_labels())


# --- the preview ----------------------------------------------------------------------------


def _display(question: dict, value: object) -> object:
    """A JSON answer as what its input shows."""
    qtype = question.get("type")
    if value is None:
        return [] if qtype == "multiselect" else ""
    if qtype == "multiselect":
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
    if qtype == "location" and isinstance(value, dict):
        return {"lat": input_text(value.get("lat")), "lng": input_text(value.get("lng"))}
    return input_text(value)


def _preview_context(state: EditorState, form) -> dict:
    """The form as the driver sees it, run through the same engine as the server's check."""
    definition = state.canonical
    if definition is None:
        return {"preview": None}
    shown = set(form.get("getoond", "").split(",")) if form is not None else set()
    answers: dict = {}
    raw: dict = {}
    nodes = differ.flatten(definition)
    for node in nodes:
        question = node.question
        qid, qtype = question.get("id"), question.get("type")
        if qtype in ("group", "info", "calculated", "photo", "signature", "document_scan"):
            continue
        if question.get("readonly"):
            raw[qid] = _display(question, question.get("default_value"))
            continue
        name = "a-" + qid
        if form is not None and qid in shown and not form.get("leegmaken"):
            value = editing.answer_value(question, form, name)
            if qtype == "multiselect":
                raw[qid] = form.getlist(name)
            elif qtype == "location":
                raw[qid] = {"lat": form.get(name + ".lat", ""), "lng": form.get(name + ".lng", "")}
            else:
                raw[qid] = form.get(name, "")
        elif form is not None and form.get("leegmaken"):
            value = question.get("default_value")
            raw[qid] = _display(question, value)
        else:
            value = question.get("default_value")
            raw[qid] = _display(question, value)
        if value is not None:
            answers[qid] = value
    final = form is not None and form.get("controleer") == "1"
    cleaned, problems = engine.validate_answers(definition, answers, final=final)
    visible = engine.visible_questions(definition, answers)
    by_question: dict[str, list[str]] = {}
    questions = {node.question.get("id"): node.question for node in nodes}
    for problem in problems:
        if problem.question_id in questions:
            text = answer_problem_text(questions[problem.question_id], problem)
            by_question.setdefault(problem.question_id, []).append(text)
    return {
        "preview": {
            "items": editing.tree(definition),
            "visible": visible,
            "raw": raw,
            "cleaned": cleaned,
            "problems": by_question,
            "final": final,
            "problem_count": sum(len(v) for v in by_question.values()),
            "shown": ",".join(
                node.question["id"] for node in nodes if node.question.get("id") in visible
            ),
            "cleaned_json": orjson.dumps(cleaned, option=orjson.OPT_INDENT_2).decode(),
        }
    }


@questionnaire_route("/<questionnaire_id>/concept/voorbeeld", methods=("GET", "POST"))
def preview(questionnaire_id: str):
    """The live preview: answers in, the engine's visibility, errors and formulas out."""
    current = _draft_or_none(questionnaire_id)
    if current is None:
        abort(404)
    state = _state(questionnaire_id, current)
    context = _preview_context(state, request.form if request.method == "POST" else None)
    template = (
        "questionnaires/_preview.html" if is_fragment() else "questionnaires/preview_page.html"
    )
    return render_template(template, **_editor_context(state, **context))


# --- export, discard ------------------------------------------------------------------------


def _download(doc: object, filename: str):
    body = orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
    response = make_response(body)
    response.headers["Content-Type"] = "application/json; charset=utf-8"
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@questionnaire_route("/<questionnaire_id>/concept/export")
def export_draft(questionnaire_id: str):
    """The draft as a .json file (with whatever problems it has)."""
    current = _draft_or_none(questionnaire_id)
    if current is None:
        abort(404)
    return _download(service.draft_document(current), f"{questionnaire_id}-concept.json")


@questionnaire_route("/<questionnaire_id>/concept/verwijderen", methods=("GET", "POST"))
def discard(questionnaire_id: str):
    """Throw the draft away after a confirmation."""
    current = _draft_or_none(questionnaire_id)
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
            editor=_names(current.gewijzigd_door).get(current.gewijzigd_door, ""),
            **_labels(),
        )
    service.discard_draft(
        carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id, actor=current_actor()
    )
    flash(_("Het concept van “%(id)s” is verwijderd.", id=questionnaire_id))
    if revisions:
        return redirect(url_for(".revisions", questionnaire_id=questionnaire_id), code=303)
    return redirect(url_for(".index"), code=303)


# --- publishing -----------------------------------------------------------------------------


def _publish_page(questionnaire_id: str, current, *, error: str | None = None, status=200):
    doc = service.draft_document(current)
    canonical, problems = engine.check_definition({**doc, "questionnaire_id": questionnaire_id})
    activity_type = doc.get("activity_type") if isinstance(doc.get("activity_type"), str) else ""
    replaced = service.revisions_replaced(
        carrier_id=current_carrier_id(),
        questionnaire_id=questionnaire_id,
        activity_type=activity_type,
    )
    impact = [
        (
            revision,
            tasks_service.count_open_pinned(
                carrier_id=current_carrier_id(), revision_id=revision.id
            ),
        )
        for revision in replaced
    ]
    numbers = service.revision_numbers(
        carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id
    )
    own = next((r for r in replaced if r.questionnaire_id == questionnaire_id), None)
    if own is None and numbers:
        own = service.revision_by_number(
            carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id, revisie=numbers[0]
        )
    base = _revision_doc(own) if own else {}
    changes = differ.compare(base, canonical or doc)
    html = render_template(
        "questionnaires/publish.html",
        questionnaire_id=questionnaire_id,
        draft=current,
        doc=doc,
        problems=[(n, problem_text(n, p)) for n, p in editing.locate(problems).general]
        + [
            (n, problem_text(n, p))
            for _path, items in editing.locate(problems).by_path.items()
            for n, p in items
        ],
        impact=impact,
        own=own,
        next_number=(numbers[0] if numbers else 0) + 1,
        diff=changes,
        error=error,
        **_labels(),
    )
    return make_response(html, status)


@questionnaire_route("/<questionnaire_id>/publiceren", methods=("GET", "POST"))
def publish(questionnaire_id: str):
    """What publishing affects (open tasks, the changes), then publish on confirmation."""
    current = _draft_or_none(questionnaire_id)
    if current is None:
        flash(_("Er is geen concept om te publiceren."), "error")
        return redirect(url_for(".revisions", questionnaire_id=questionnaire_id), code=303)
    if request.method == "GET":
        return _publish_page(questionnaire_id, current)
    try:
        revision = service.publish_draft(
            carrier_id=current_carrier_id(),
            questionnaire_id=questionnaire_id,
            expected_versie=_int(request.form.get("versie")),
            actor=current_actor(),
        )
    except ValidationFailed as error:
        text = _(
            "Niet gepubliceerd: het concept heeft %(n)s probleem/problemen. Los ze op in de "
            "editor en probeer het opnieuw.",
            n=len(error.errors),
        )
        return _publish_page(questionnaire_id, _draft_or_none(questionnaire_id), error=text,
                             status=422)  # fmt: skip
    except service.StaleDraft:
        text = _(
            "Het concept is gewijzigd sinds je deze pagina opende. Bekijk de wijzigingen "
            "hieronder opnieuw en publiceer dan."
        )
        return _publish_page(questionnaire_id, _draft_or_none(questionnaire_id), error=text,
                             status=409)  # fmt: skip
    flash(
        _(
            "Revisie %(n)s van “%(id)s” is gepubliceerd en actief. Nieuwe taken van deze "
            "activiteit krijgen haar; open taken houden hun revisie.",
            n=revision.revisie,
            id=questionnaire_id,
        )
    )
    return redirect(url_for(".revisions", questionnaire_id=questionnaire_id), code=303)


# --- revisions ------------------------------------------------------------------------------


@questionnaire_route("/<questionnaire_id>/revisies", edit=False)
def revisions(questionnaire_id: str):
    """Every revision: number, date, active, question count; compare and restore from here."""
    offset = max(_int(request.args.get("offset", "0")) or 0, 0)
    rows, total = service.list_revisions(
        carrier_id=current_carrier_id(),
        questionnaire_id=questionnaire_id,
        limit=REVISIONS_PAGE,
        offset=offset,
    )
    current = _draft_or_none(questionnaire_id) if _is_author() else None
    counted = [(row, editing.count_questions(_revision_doc(row))) for row in rows]
    title = service.text_field(_revision_doc(rows[0]), "title") if rows else ""
    if current is not None and not title:
        title = service.text_field(service.draft_document(current), "title")
    numbers = service.revision_numbers(
        carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id
    )
    return render_template(
        "questionnaires/revisions.html",
        questionnaire_id=questionnaire_id,
        title=title or questionnaire_id,
        rows=counted,
        total=total,
        offset=offset,
        page=REVISIONS_PAGE,
        numbers=numbers,
        draft=current,
        editor=_names(current.gewijzigd_door).get(current.gewijzigd_door, "") if current else "",
        **_labels(),
    )


def _revision(questionnaire_id: str, revisie: int):
    return service.revision_by_number(
        carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id, revisie=revisie
    )


@questionnaire_route("/<questionnaire_id>/revisies/<int:revisie>", edit=False)
def revision(questionnaire_id: str, revisie: int):
    """One revision, read-only, as a tree of its questions."""
    row = _revision(questionnaire_id, revisie)
    doc = _revision_doc(row)
    return render_template(
        "questionnaires/revision.html",
        questionnaire_id=questionnaire_id,
        row=row,
        doc=doc,
        items=editing.tree(doc),
        numbers=service.revision_numbers(
            carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id
        ),
        **_labels(),
    )


@questionnaire_route("/<questionnaire_id>/revisies/<int:revisie>/export", edit=False)
def export_revision(questionnaire_id: str, revisie: int):
    """A revision as a .json file."""
    row = _revision(questionnaire_id, revisie)
    return _download(_revision_doc(row), f"{questionnaire_id}-revisie-{revisie}.json")


@questionnaire_route(
    "/<questionnaire_id>/revisies/<int:revisie>/herstellen", methods=("GET", "POST")
)
def restore(questionnaire_id: str, revisie: int):
    """Make an earlier revision the draft (replacing the draft, after a confirmation)."""
    row = _revision(questionnaire_id, revisie)
    current = _draft_or_none(questionnaire_id)
    if request.method == "GET":
        return render_template(
            "questionnaires/confirm.html",
            action="restore",
            questionnaire_id=questionnaire_id,
            row=row,
            draft=current,
            editor=_names(current.gewijzigd_door).get(current.gewijzigd_door, "")
            if current
            else "",
            **_labels(),
        )
    service.replace_draft(
        carrier_id=current_carrier_id(),
        questionnaire_id=questionnaire_id,
        doc=editing.tidy(_revision_doc(row)),
        user_id=current_user.id,
        actor=current_actor(),
        action="restored",
        basis=row,
    )
    flash(
        _(
            "Revisie %(n)s is nu het concept. Pas het aan of publiceer het als nieuwe revisie.",
            n=revisie,
        )
    )
    return redirect(url_for(".draft", questionnaire_id=questionnaire_id), code=303)


@questionnaire_route("/<questionnaire_id>/vergelijken", edit=False)
def compare(questionnaire_id: str):
    """Two revisions (or a revision and the draft) side by side, the changes highlighted."""
    numbers = service.revision_numbers(
        carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id
    )
    current = _draft_or_none(questionnaire_id) if _is_author() else None
    choices = [*(["concept"] if current is not None else []), *map(str, numbers)]
    if len(choices) < 2:
        flash(_("Er is nog niets om te vergelijken: er is maar één versie."), "error")
        return redirect(url_for(".revisions", questionnaire_id=questionnaire_id), code=303)
    van = request.args.get("van") or choices[1]
    naar = request.args.get("naar") or choices[0]
    if van not in choices or naar not in choices:
        abort(404)

    def load(choice: str) -> tuple[dict, str]:
        if choice == "concept":
            return service.draft_document(current), _("Concept")
        row = _revision(questionnaire_id, int(choice))
        return _revision_doc(row), _("Revisie %(n)s", n=row.revisie)

    old_doc, old_name = load(van)
    new_doc, new_name = load(naar)
    result = differ.compare(old_doc, new_doc)
    old_status = {node.path: result.status_of(node.key) for node in result.old_nodes}
    new_status = {node.path: result.status_of(node.key) for node in result.new_nodes}
    new_changes = {
        node.path: result.questions[node.key].changes
        for node in result.new_nodes
        if node.key in result.questions
    }
    return render_template(
        "questionnaires/compare.html",
        questionnaire_id=questionnaire_id,
        choices=choices,
        van=van,
        naar=naar,
        old_name=old_name,
        new_name=new_name,
        old_items=editing.tree(old_doc),
        new_items=editing.tree(new_doc),
        old_status=old_status,
        new_status=new_status,
        new_changes=new_changes,
        diff=result,
        title=service.text_field(new_doc, "title") or questionnaire_id,
        **_labels(),
    )
