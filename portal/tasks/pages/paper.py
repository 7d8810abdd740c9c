"""The planner's page to complete a task on a paper delivery note (tasks/paper.py): the
reason and the scan, every problem at its field, and the task page after it says so."""

from __future__ import annotations

import uuid

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal import problems
from portal.accounts.permissions import object_route
from portal.errors import ValidationFailed
from portal.files import service as files
from portal.tasks import lifecycle, paper, service
from portal.tasks.models import Task
from portal.tasks.pages.forms import PaperCompletionForm
from portal.unit_of_work import refused
from portal.web.kit import current_actor, current_carrier_id, errors_at_fields

bp = Blueprint("task_paper", __name__)

# The service's fields as the form names them, and its problems as the page words them (by
# their stable code; "required" by the field it is missing at)
FIELDS = {"scan": "bon"}
REQUIRED = {
    "reden": _l("Vul de reden in."),
    "bon": _l("Kies de scan van de papieren afleverbon."),
    "temperatuur": _l("Neem de gemeten temperatuur van de bon over."),
    "desinfectie": _l("De bon moet de desinfectie bevestigen."),
}
WORDING = {
    "required": lambda error: (
        REQUIRED.get(error.get("field")) or f"{error.get('field')}: {error.get('message')}"
    ),
    "not_a_scan": _l("De scan moet een PDF, JPEG of PNG zijn."),
}


def _load(task_id: uuid.UUID) -> Task:
    return service.get_task(carrier_id=current_carrier_id(), task_id=task_id)


def _upload_message(error: ValidationFailed) -> str:
    """The files' upload check (English) as the planner reads it at the scan's field."""
    message = str(error.errors[0].get("message", "")) if error.errors else ""
    if message.startswith("the file is larger"):
        megabytes = int(current_app.config["FILE_MAX_BYTES"]) // (1024 * 1024)
        return _("Het bestand is groter dan %(mb)s MB.", mb=megabytes)
    if message.startswith("the file is empty"):
        return _("Het bestand is leeg.")
    if message.startswith(("not a readable image", "the image claims")):
        return _("Dit beeld is beschadigd of te groot; scan de bon opnieuw.")
    return _("Dit is geen PDF, JPEG of PNG. Scan of fotografeer de bon als PDF, JPEG of PNG.")


def _form(task: Task) -> PaperCompletionForm:
    """The form with the fields this task needs from the paper: the temperature and the
    disinfection only when the task asks for them and the driver did not give them."""
    form = PaperCompletionForm()
    if task.required_temperatuur is None or task.gemeten_temperatuur is not None:
        del form.temperatuur
    if not task.required_desinfectie or task.desinfectie_bevestigd:
        del form.desinfectie
    return form


def _page(task: Task, form: PaperCompletionForm, status: int = 200, general=()):
    blockers = lifecycle.completion_blockers(carrier_id=current_carrier_id(), task=task)
    context = {
        "task": task,
        "form": form,
        "general": list(general),
        "covered": [
            problems.say(b["code"], b.get("params"), b["message"])
            for b in blockers
            if b["code"] in paper.STANDS_FOR
        ],
    }
    return render_template("tasks/paper.html", **context), status


@object_route(bp, "/taken/<uuid:task_id>/papieren-bon", _load, methods=("GET", "POST"))
def complete(task: Task):
    """Ask for the reason and the scan, then complete the task on the paper note."""
    back = url_for("task_detail.show", task_id=task.id)
    if not paper.can_complete_on_paper(task):
        flash(
            _("Deze taak is niet open: afronden op papier kan alleen bij een open taak."), "error"
        )
        return refused(redirect(back, code=303))
    form = _form(task)
    if request.method == "GET":
        form.versie.data = task.versie
        return _page(task, form)
    valid = form.validate()
    upload = form.bon.data
    if upload and not form.bon.errors:
        # A wrong file is told at once, with the other fields' problems.
        try:
            paper.check_scan_type(upload.stream)
        except ValidationFailed as error:
            form.bon.errors = [_upload_message(error)]
            valid = False
    if not valid:
        return _page(task, form, 422)
    carrier_id, actor = current_carrier_id(), current_actor()
    try:
        scan = paper.store_scan(
            carrier_id=carrier_id, stream=upload.stream, filename=upload.filename, actor=actor
        )
    except ValidationFailed as error:
        form.bon.errors = [_upload_message(error)]
        return _page(task, form, 422)
    try:
        paper.complete_on_paper(
            carrier_id=carrier_id,
            task_id=task.id,
            actor=actor,
            reden=form.reden.data,
            scan_id=scan.id,
            temperatuur=form.temperatuur.data if "temperatuur" in form else None,
            desinfectie_bevestigd=form.desinfectie.data if "desinfectie" in form else None,
            expected_version=form.versie.data,
        )
    except ValidationFailed as error:
        files.discard(scan)
        errors = [{**e, "field": FIELDS.get(e.get("field"), e.get("field"))} for e in error.errors]
        return _page(task, form, 422, errors_at_fields(form, errors, WORDING))
    except (lifecycle.IllegalMove, service.PreconditionFailed):
        files.discard(scan)
        flash(
            _("Deze taak is intussen gewijzigd. Bekijk haar opnieuw en probeer het nog eens."),
            "error",
        )
        return refused(redirect(back, code=303))
    flash(_("Taak “%(naam)s” is afgerond op de papieren afleverbon.", naam=task.naam))
    return redirect(back, code=303)
