"""Publishing a draft and the history of revisions: the list, one revision, its export, restoring
it as the draft, and comparing two versions."""

from __future__ import annotations

from flask import abort, flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from portal.errors import ValidationFailed
from portal.questionnaires import diff as differ
from portal.questionnaires import editing, engine, service
from portal.questionnaires.pages.kit import (
    REVISIONS_PAGE,
    download,
    draft_or_none,
    int_arg,
    is_author,
    labels_context,
    questionnaire_route,
    revision_doc,
    user_names,
)
from portal.questionnaires.wording import problem_text
from portal.tasks import service as tasks_service
from portal.web.kit import current_actor, current_carrier_id

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
    base = revision_doc(own) if own else {}
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
        **labels_context(),
    )
    return make_response(html, status)


@questionnaire_route("/<questionnaire_id>/publiceren", methods=("GET", "POST"))
def publish(questionnaire_id: str):
    """What publishing affects (open tasks, the changes), then publish on confirmation."""
    current = draft_or_none(questionnaire_id)
    if current is None:
        flash(_("Er is geen concept om te publiceren."), "error")
        return redirect(url_for(".revisions", questionnaire_id=questionnaire_id), code=303)
    if request.method == "GET":
        return _publish_page(questionnaire_id, current)
    try:
        revision = service.publish_draft(
            carrier_id=current_carrier_id(),
            questionnaire_id=questionnaire_id,
            expected_versie=int_arg(request.form.get("versie")),
            actor=current_actor(),
        )
    except ValidationFailed as error:
        text = _(
            "Niet gepubliceerd: het concept heeft %(n)s probleem/problemen. Los ze op in de "
            "editor en probeer het opnieuw.",
            n=len(error.errors),
        )
        return _publish_page(questionnaire_id, draft_or_none(questionnaire_id), error=text,
                             status=422)  # fmt: skip
    except service.StaleDraft:
        text = _(
            "Het concept is gewijzigd sinds je deze pagina opende. Bekijk de wijzigingen "
            "hieronder opnieuw en publiceer dan."
        )
        return _publish_page(questionnaire_id, draft_or_none(questionnaire_id), error=text,
                             status=409)  # fmt: skip
    flash(
        _(
            "Revisie %(n)s van “%(title)s” is gepubliceerd en actief. Nieuwe taken van deze "
            "activiteit krijgen haar; open taken houden hun revisie.",
            n=revision.revisie,
            title=service.text_field(revision_doc(revision), "title") or questionnaire_id,
        )
    )
    return redirect(url_for(".revisions", questionnaire_id=questionnaire_id), code=303)


# --- revisions ------------------------------------------------------------------------------


@questionnaire_route("/<questionnaire_id>/revisies", edit=False)
def revisions(questionnaire_id: str):
    """Every revision: number, date, active, question count; compare and restore from here."""
    offset = max(int_arg(request.args.get("offset", "0")) or 0, 0)
    rows, total = service.list_revisions(
        carrier_id=current_carrier_id(),
        questionnaire_id=questionnaire_id,
        limit=REVISIONS_PAGE,
        offset=offset,
    )
    current = draft_or_none(questionnaire_id) if is_author() else None
    counted = [(row, editing.count_questions(revision_doc(row))) for row in rows]
    title = service.text_field(revision_doc(rows[0]), "title") if rows else ""
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
        editor=user_names(current.gewijzigd_door).get(current.gewijzigd_door, "")
        if current
        else "",
        **labels_context(),
    )


def _revision(questionnaire_id: str, revisie: int):
    return service.revision_by_number(
        carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id, revisie=revisie
    )


@questionnaire_route("/<questionnaire_id>/revisies/<int:revisie>", edit=False)
def revision(questionnaire_id: str, revisie: int):
    """One revision, read-only, as a tree of its questions."""
    row = _revision(questionnaire_id, revisie)
    doc = revision_doc(row)
    return render_template(
        "questionnaires/revision.html",
        questionnaire_id=questionnaire_id,
        row=row,
        doc=doc,
        items=editing.tree(doc),
        numbers=service.revision_numbers(
            carrier_id=current_carrier_id(), questionnaire_id=questionnaire_id
        ),
        **labels_context(),
    )


@questionnaire_route("/<questionnaire_id>/revisies/<int:revisie>/export", edit=False)
def export_revision(questionnaire_id: str, revisie: int):
    """A revision as a .json file."""
    row = _revision(questionnaire_id, revisie)
    return download(revision_doc(row), f"{questionnaire_id}-revisie-{revisie}.json")


@questionnaire_route(
    "/<questionnaire_id>/revisies/<int:revisie>/herstellen", methods=("GET", "POST")
)
def restore(questionnaire_id: str, revisie: int):
    """Make an earlier revision the draft (replacing the draft, after a confirmation)."""
    row = _revision(questionnaire_id, revisie)
    current = draft_or_none(questionnaire_id)
    if request.method == "GET":
        return render_template(
            "questionnaires/confirm.html",
            action="restore",
            questionnaire_id=questionnaire_id,
            row=row,
            draft=current,
            editor=user_names(current.gewijzigd_door).get(current.gewijzigd_door, "")
            if current
            else "",
            **labels_context(),
        )
    service.replace_draft(
        carrier_id=current_carrier_id(),
        questionnaire_id=questionnaire_id,
        doc=editing.tidy(revision_doc(row)),
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
    current = draft_or_none(questionnaire_id) if is_author() else None
    choices = [*(["concept"] if current is not None else []), *map(str, numbers)]
    if len(choices) < 2:
        flash(_("Er is nog niets om te vergelijken: er is maar één versie."), "error")
        return redirect(url_for(".revisions", questionnaire_id=questionnaire_id), code=303)
    old = request.args.get("van") or choices[1]
    new = request.args.get("naar") or choices[0]
    if old not in choices or new not in choices:
        abort(404)

    def load(choice: str) -> tuple[dict, str]:
        if choice == "concept":
            return service.draft_document(current), _("Concept")
        row = _revision(questionnaire_id, int(choice))
        return revision_doc(row), _("Revisie %(n)s", n=row.revisie)

    old_doc, old_name = load(old)
    new_doc, new_name = load(new)
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
        van=old,
        naar=new,
        old_name=old_name,
        new_name=new_name,
        old_items=editing.tree(old_doc),
        new_items=editing.tree(new_doc),
        old_status=old_status,
        new_status=new_status,
        new_changes=new_changes,
        diff=result,
        title=service.text_field(new_doc, "title") or questionnaire_id,
        **labels_context(),
    )
