"""The templates' pages: the list, a task saved as a template, edit, and delete after a
confirmation."""

from __future__ import annotations

import uuid

from flask import make_response, render_template, request, url_for
from flask_babel import gettext as _

from portal.accounts.permissions import object_route, role_required
from portal.customers import service as customers
from portal.errors import Conflict, ValidationFailed
from portal.labels import activity_label
from portal.series import service as series_service
from portal.series.models import TaskTemplate
from portal.series.pages.forms import ConfirmForm, TemplateForm
from portal.series.pages.kit import (
    WORDING,
    bp,
    capability_names,
    done,
    needed_for,
    template_route,
)
from portal.tasks import service as tasks
from portal.unit_of_work import refused
from portal.web.kit import current_actor, current_carrier_id, errors_at_fields


@bp.route("/sjablonen")
@role_required("planner")
def templates():
    """The carrier's templates, with how many series each makes."""
    carrier_id = current_carrier_id()
    found = series_service.list_templates(carrier_id=carrier_id)
    names = capability_names(carrier_id, {c for t in found for c in t.capaciteiten or ()})
    return render_template(
        "series/templates.html",
        templates=found,
        customers=customers.names(carrier_id=carrier_id),
        capability_names=names,
        activity_label=activity_label,
    )


def _form(carrier_id: uuid.UUID, codes=(), formdata=None) -> TemplateForm:
    form = TemplateForm(formdata)
    form.set_choices(customers.names(carrier_id=carrier_id), capability_names(carrier_id, codes))
    return form


def _render(form, *, action: str, back: str, template=None, task=None, status=200, errors=()):
    html = render_template(
        "series/template_form.html",
        form=form,
        template=template,
        task=task,
        action=action,
        back=back,
        errors=list(errors),
    )
    return make_response(html, status)


def _load_task(task_id: uuid.UUID):
    return tasks.get_task(carrier_id=current_carrier_id(), task_id=task_id, archived=True)


@object_route(bp, "/taken/<uuid:task_id>/sjabloon", _load_task, methods=("GET", "POST"))
def from_task(task):
    """Save a task as a template ("Opslaan als sjabloon"): its name and what it needs."""
    carrier_id = current_carrier_id()
    action = url_for("series.from_task", task_id=task.id)
    back = url_for("task_detail.show", task_id=task.id)
    form = _form(carrier_id, formdata=request.form if request.method == "POST" else None)
    if request.method == "GET":
        form.naam.data, form.type.data = task.naam, task.type
        form.klant_id.data = str(task.klant_id or "")
        form.duur_min.data = task.duur_min
        form.capaciteiten.data = needed_for(carrier_id, task.type)
        return _render(form, action=action, back=back, task=task)
    if not form.validate():
        return _render(form, action=action, back=back, task=task, status=422)
    try:
        saved = series_service.template_from_task(
            carrier_id=carrier_id, task_id=task.id, data=form.template_data(), actor=current_actor()
        )
    except ValidationFailed as error:
        errors = errors_at_fields(form, error.errors, WORDING)
        return _render(form, action=action, back=back, task=task, status=422, errors=errors)
    return done(
        "series.templates",
        _("Sjabloon %(naam)s is opgeslagen. Plan er een reeks mee.", naam=saved.naam),
    )


@template_route("/sjablonen/<uuid:sjabloon_id>/bewerken", methods=("GET", "POST"))
def edit_template(template: TaskTemplate):
    """Edit a template; series made from it use it for the occurrences they make next."""
    carrier_id = current_carrier_id()
    action = url_for("series.edit_template", sjabloon_id=template.id)
    back = url_for("series.templates")
    codes = template.capaciteiten or ()
    form = _form(carrier_id, codes, request.form if request.method == "POST" else None)
    if request.method == "GET":
        for name in ("naam", "type", "duur_min"):
            form[name].data = getattr(template, name)
        form.klant_id.data = str(template.klant_id or "")
        form.capaciteiten.data = list(codes)
        return _render(form, action=action, back=back, template=template)
    if not form.validate():
        return _render(form, action=action, back=back, template=template, status=422)
    try:
        series_service.update_template(
            carrier_id=carrier_id,
            template_id=template.id,
            data=form.template_data(),
            actor=current_actor(),
        )
    except ValidationFailed as error:
        errors = errors_at_fields(form, error.errors, WORDING)
        return _render(form, action=action, back=back, template=template, status=422, errors=errors)
    return done("series.templates", _("Sjabloon %(naam)s is opgeslagen.", naam=template.naam))


@template_route("/sjablonen/<uuid:sjabloon_id>/verwijderen", methods=("GET", "POST"))
def delete_template(template: TaskTemplate):
    """Delete a template after a confirmation; one that series use stays."""
    carrier_id = current_carrier_id()
    used = series_service.template_in_use(carrier_id=carrier_id, template_id=template.id)
    form = ConfirmForm()
    if request.method == "GET":
        return render_template(
            "series/confirm.html",
            kind="template",
            subject=template,
            count=used,
            form=form,
            action=url_for("series.delete_template", sjabloon_id=template.id),
            back=url_for("series.templates"),
        )
    try:
        series_service.delete_template(
            carrier_id=carrier_id, template_id=template.id, actor=current_actor()
        )
    except Conflict:
        return refused(
            done("series.templates", _("Er worden nog reeksen van dit sjabloon gemaakt."))
        )
    return done("series.templates", _("Sjabloon %(naam)s is verwijderd.", naam=template.naam))
