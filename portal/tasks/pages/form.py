"""Creating and editing a task in one form, with the planning warnings of what it would
save."""

from __future__ import annotations

from datetime import date, datetime

from flask import (
    flash,
    get_template_attribute,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.accounts.permissions import role_required
from portal.customers import service as customers
from portal.drivers import service as drivers_service
from portal.errors import Conflict, ValidationFailed
from portal.fleet import service as fleet
from portal.questionnaires import service as questionnaires
from portal.tasks import service
from portal.tasks.models import Task
from portal.tasks.pages.forms import STATUS_LABELS
from portal.tasks.pages.kit import (
    CLOSED,
    _back,
    _drivers_for,
    _instant,
    _load,
    _local,
    board_back,
    bp,
    task_page_url,
    task_route,
)
from portal.tasks.pages.task_forms import TaskForm
from portal.tasks.pages.trailer import TRAILER_WORDS, apply_form_choice, own_trailer
from portal.unit_of_work import portal_write
from portal.web import is_fragment
from portal.web.kit import (
    current_actor,
    current_carrier_id,
    current_zone,
    errors_at_fields,
    parse_uuid,
)

# --- create and edit ------------------------------------------------------------------


def _task_form(task: Task | None) -> TaskForm:
    form = TaskForm(request.form if request.method == "POST" else None)
    types = {task.type} if task else set()
    active, _total = questionnaires.list_active(carrier_id=current_carrier_id(), limit=200)
    types |= {revision.activity_type for revision in active}
    form.set_choices(
        drivers=_drivers_for(task),
        vehicles=fleet.list_vehicles(carrier_id=current_carrier_id()),
        types=types,
    )
    _route_choices(form, task)
    return form


def _route_choices(form: TaskForm, task: Task | None) -> None:
    """Active customers (and the task's own, even when deactivated since), and the places
    of the customer the form names (posted, else the task's)."""
    carrier_id = current_carrier_id()
    names = customers.names(carrier_id=carrier_id, active_only=True)
    if task is not None and task.klant_id and task.klant_id not in names:
        names.update(customers.names_by_id(carrier_id=carrier_id, customer_ids={task.klant_id}))
    chosen = parse_uuid(form.klant_id.data) if request.method == "POST" else None
    if request.method != "POST" and task is not None:
        chosen = task.klant_id
    places = []
    if chosen in names:
        places = customers.places_by_customer(carrier_id=carrier_id, customer_ids={chosen})[chosen]
    form.set_route_choices(names, places)
    form.route_places = {str(p.id): p for p in places}


def _render_form(form: TaskForm, task: Task | None, status: int = 200, *, notice=None):
    template = "tasks/_form.html" if is_fragment() else "tasks/form.html"
    action = url_for("tasks.edit", task_id=task.id) if task else url_for("tasks.new")
    locked = bool(task and task.status in CLOSED)
    html = render_template(
        template,
        form=form,
        task=task,
        action=action,
        notice=notice,
        back=board_back(form.terug.data),
        locked=locked,
        status_labels=STATUS_LABELS,
        task_page_url=task_page_url,
        check_url=_check_url(task),
        **_warning_context([] if locked else _form_warnings(form, task)),
    )
    return make_response(html, status)


def _check_url(task: Task | None) -> str:
    return url_for("tasks.check", task_id=task.id) if task else url_for("tasks.check_new")


def _form_warnings(form: TaskForm, task: Task | None) -> list:
    """The planning warnings of what the form would save, as far as its fields read."""

    def ok(name: str) -> bool:
        return not form[name].errors

    def text(name: str) -> str | None:
        value = form[name].data
        return value.strip() or None if ok(name) and isinstance(value, str) else None

    data = {
        "type": form.type.data if ok("type") and form.type.data else (task.type if task else ""),
        "naam": text("naam") or (task.naam if task else ""),
        "gepland_op": _planned_at(form) if ok("gepland_datum") and ok("gepland_tijd") else None,
        "duur_min": form.duur_min.data if ok("duur_min") else None,
        "vehicle_id": parse_uuid(form.vehicle_id.data) if ok("vehicle_id") else None,
        "vdm_nummer": text("vdm_nummer"),
        "land": text("land"),
    }
    chauffeur_id = parse_uuid(form.chauffeur_id.data) if ok("chauffeur_id") else None
    if data["gepland_op"] is None and not data["vdm_nummer"]:
        return []  # nothing to check yet (a new, empty form): no query
    return service.draft_warnings(
        carrier_id=current_carrier_id(), driver_id=chauffeur_id, data=data, task=task
    )


def _warning_context(warnings: list) -> dict:
    """The warnings with the driver names and plates their texts need."""
    if not warnings:
        return {"warnings": [], "warning_names": {}, "warning_plates": {}}
    driver_ids = {w.params.get("chauffeur_id") for w in warnings} - {None}
    vehicle_ids = {w.params.get("vehicle_id") for w in warnings} - {None}
    return {
        "warnings": warnings,
        "warning_names": drivers_service.names_by_id(
            carrier_id=current_carrier_id(), driver_ids=driver_ids
        ),
        "warning_plates": fleet.plates_by_id(
            carrier_id=current_carrier_id(), vehicle_ids=vehicle_ids
        ),
    }


def _warnings_fragment(form: TaskForm, task: Task | None):
    """The form's warnings region (htmx, while the planner edits)."""
    form.validate()
    html = render_template(
        "tasks/_form_warnings.html", **_warning_context(_form_warnings(form, task))
    )
    return make_response(html)


@bp.route("/taken/formulier/route", methods=["POST"])
@role_required("planner")
def route_fields():
    """The form's customer and route fields again (htmx, when the customer or a place
    changes): the chosen customer's places to choose from, and a chosen place's address
    filled in. Saves nothing."""
    task = None
    task_id = parse_uuid(request.form.get("taak_id"))
    if task_id is not None:
        task = _load(task_id)
    form = _task_form(task)

    def changed(name: str) -> bool:
        return (form[name].data or "") != request.form.get(f"vorige_{name}", "")

    if changed("klant_id"):
        for end in ("laad", "los"):
            form[f"{end}locatie_id"].data = ""
    for end in ("laad", "los"):
        place = form.route_places.get(form[f"{end}locatie_id"].data or "")
        if place is not None and changed(f"{end}locatie_id"):
            for name in ("adres", "postcode", "stad", "land"):
                form[f"{end}_{name}"].data = getattr(place, name)
                form[f"{end}_{name}"].raw_data = None
    return render_template("tasks/_route_fields.html", form=form, task=task)


@bp.route("/taken/nieuw/controle", methods=["POST"])
@role_required("planner")
@portal_write
def check_new():
    """The planning warnings of a new task's form as filled in so far; saves nothing."""
    return _warnings_fragment(_task_form(None), None)


@task_route("/taken/<uuid:task_id>/controle", methods=("POST",))
def check(task: Task):
    """The planning warnings of a task's form as changed so far; saves nothing."""
    return _warnings_fragment(_task_form(task), task)


# The tasks service's refusals the form words at their field. They carry no stable code
# (yet): they are known by the field they name.
REFUSED_AT_FIELD = {
    "chauffeur_id": _l("Deze chauffeur bestaat niet (meer)."),
    "vehicle_id": _l("Dit voertuig bestaat niet (meer)."),
    "min_fotos": _l("Het minimum is groter dan het maximum."),
}


def _apply_service_errors(form: TaskForm, error: ValidationFailed) -> list[str]:
    """Put the service's errors the form words at their fields; the rest, as the service
    says them, in a list for the form's top."""

    def worded(item: dict) -> bool:
        return item.get("field") in REFUSED_AT_FIELD and item["field"] in form

    at_fields = [{**item, "code": item["field"]} for item in error.errors if worded(item)]
    errors_at_fields(form, at_fields, REFUSED_AT_FIELD)
    return [
        f"{item.get('field')}: {item.get('message')}" for item in error.errors if not worded(item)
    ]


def _after_save(task: Task) -> str:
    """Back to the board the planner came from, else to the task's day."""
    back = board_back(request.form.get("terug"))
    if back != url_for("tasks.index"):
        return back
    local = _local(task.gepland_op)
    return url_for("tasks.index", datum=local.date().isoformat()) if local else back


def _saved(task: Task, text: str):
    flash(text)
    # Saved, and still worth a second look: the warnings come along to the board.
    context = _warning_context(
        service.planning_warnings(carrier_id=current_carrier_id(), tasks=[task]).get(task.id, [])
    )
    wording = get_template_attribute("tasks/_warnings.html", "warning_text")
    for warning in context["warnings"]:
        # The macro answers Markup (autoescaped); the flash wants the plain sentence.
        line = wording(warning, context["warning_names"], context["warning_plates"])
        flash(_("Let op: %(warning)s", warning=line.striptags()), "warning")
    target = _after_save(task)
    if is_fragment():
        response = make_response("", 200)
        response.headers["HX-Redirect"] = target
        return response
    return redirect(target, code=303)


def _planned_at(form: TaskForm) -> datetime | None:
    if form.gepland_datum.data is None or form.gepland_tijd.data is None:
        return None
    return _instant(form.gepland_datum.data, form.gepland_tijd.data)


@bp.route("/taken/nieuw", methods=["GET", "POST"])
@role_required("planner")
@portal_write
def new():
    """A new task: the form, prefilled with the board's day and driver."""
    form = _task_form(None)
    if request.method == "GET":
        try:
            form.gepland_datum.data = date.fromisoformat(request.args.get("datum", ""))
        except ValueError:
            form.gepland_datum.data = datetime.now(current_zone()).date()
        driver = request.args.get("chauffeur", "")
        if driver in {value for value, *_rest in form.chauffeur_id.iter_choices()}:
            form.chauffeur_id.data = driver
        form.land.data = "NL"
        form.terug.data = board_back(request.args.get("terug"))
        return _render_form(form, None)
    if not form.validate():
        return _render_form(form, None, 422)
    data = form.task_data()
    data["gepland_op"] = _planned_at(form)
    try:
        task = service.create_task(
            carrier_id=current_carrier_id(),
            driver_id=parse_uuid(form.chauffeur_id.data),
            data=data,
            actor=current_actor(),
        )
    except ValidationFailed as error:
        general = _apply_service_errors(form, error)
        return _render_form(form, None, 422, notice={"errors": general})
    refused = apply_form_choice(task, form.getrokken_id.data)
    if refused:  # 422: nothing is saved
        general = errors_at_fields(form, refused, TRAILER_WORDS)
        return _render_form(form, None, 422, notice={"errors": general})
    return _saved(task, _("Taak “%(naam)s” is aangemaakt.", naam=task.naam))


@task_route("/taken/<uuid:task_id>/bewerken", methods=("GET", "POST"))
def edit(task: Task):
    """Edit every field of a task; the version it started from guards against overwrites."""
    form = _task_form(task)
    if request.method == "GET":
        local = _local(task.gepland_op)
        for name in (*TaskForm.TEXT_FIELDS, *TaskForm.NUMBER_FIELDS, *TaskForm.FLAG_FIELDS):
            form[name].data = getattr(task, name)
        form.type.data = task.type
        for name in TaskForm.ROUTE_CHOICES:
            value = getattr(task, name)
            form[name].data = str(value) if value else ""
        form.chauffeur_id.data = str(task.chauffeur_id) if task.chauffeur_id else ""
        form.vehicle_id.data = str(task.vehicle_id) if task.vehicle_id else ""
        form.getrokken_id.data = own_trailer(task)
        form.gepland_datum.data = local.date() if local else None
        form.gepland_tijd.data = local.time() if local else None
        form.versie.data = task.versie
        form.terug.data = _back()
        return _render_form(form, task)
    if not form.validate():
        return _render_form(form, task, 422)
    data = form.task_data()
    data["gepland_op"] = _planned_at(form)
    data["chauffeur_id"] = parse_uuid(form.chauffeur_id.data)
    if form.versie.data is None:
        form.versie.errors = [_("Laad het formulier opnieuw.")]
        return _render_form(form, task, 422)
    try:
        saved = service.update_task(
            carrier_id=current_carrier_id(),
            task_id=task.id,
            data=data,
            actor=current_actor(),
            expected_version=form.versie.data,
        )
    except service.PreconditionFailed:
        # Keep the planner's input; saving again knowingly overwrites the other change.
        current = _load(task.id)
        form.versie.data = current.versie
        form.versie.raw_data = [str(current.versie)]
        return _render_form(form, current, 412, notice={"conflict": True})
    except Conflict:
        return _render_form(form, _load(task.id), 409, notice={"closed": True})
    except ValidationFailed as error:
        general = _apply_service_errors(form, error)
        return _render_form(form, _load(task.id), 422, notice={"errors": general})
    refused = apply_form_choice(saved, form.getrokken_id.data)
    if refused:  # 422: nothing is saved
        general = errors_at_fields(form, refused, TRAILER_WORDS)
        return _render_form(form, _load(task.id), 422, notice={"errors": general})
    return _saved(saved, _("Taak “%(naam)s” is opgeslagen.", naam=saved.naam))
