"""A task's moves on the board: status changes, moving to another driver, day or time,
cancel, reopen, delete and duplicate."""

from __future__ import annotations

from datetime import datetime

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _

from portal import problems
from portal.drivers import service as drivers_service
from portal.errors import Conflict, ValidationFailed
from portal.fleet import service as fleet
from portal.tasks import lifecycle, service
from portal.tasks.models import Task
from portal.tasks.pages.cards import _card
from portal.tasks.pages.forms import (
    BLOCKER_LABELS,
    STATUS_LABELS,
    VEHICLE_ALONG,
    VEHICLE_STAYS,
    MoveForm,
)
from portal.tasks.pages.kit import (
    _back,
    _drivers_for,
    _instant,
    _load,
    _local,
    _message,
    _trigger,
    task_route,
)
from portal.unit_of_work import refused
from portal.web import is_fragment
from portal.web.kit import current_actor, current_carrier_id, current_zone, format_when, parse_uuid

# --- status ---------------------------------------------------------------------------


@task_route("/taken/<uuid:task_id>/status", methods=("POST",))
def change_status(task: Task):
    """Move a task along the state machine; completion lists what still blocks it."""
    to = request.form.get("status", "")
    task_id, name = task.id, task.naam
    try:
        moved = lifecycle.move_task(
            carrier_id=current_carrier_id(),
            task_id=task_id,
            to=to,
            actor=current_actor(),
            office=True,
        )
    except lifecycle.IllegalMove as error:
        allowed = [str(STATUS_LABELS[s]) for s in error.extra.get("allowed", [])]
        text = (
            _("Deze statuswijziging kan niet. Mogelijk: %(allowed)s.", allowed=", ".join(allowed))
            if allowed
            else _("Deze taak kan geen andere status meer krijgen.")
        )
        return _status_refused(task_id, name, text, [], 409)
    except ValidationFailed as error:
        # A blocker with a code says itself in the planner's language; the rest by its field.
        blockers = [
            {"label": None, "message": problems.say(e["code"], e.get("params"), e["message"])}
            if e.get("code")
            else {"label": BLOCKER_LABELS.get(e["field"], e["field"]), "message": e["message"]}
            for e in error.errors
        ]
        text = (
            _("Taak “%(naam)s” kan nog niet worden afgerond:", naam=name)
            if to == "afgerond"
            else _("Deze status bestaat niet.")
        )
        return _status_refused(task_id, name, text, blockers, 422)
    label = STATUS_LABELS[moved.status]
    if not is_fragment():
        flash(_("Taak “%(naam)s” is nu %(status)s.", naam=name, status=str(label).lower()))
        return redirect(_back(), code=303)
    return _trigger(_card(moved))


def _status_refused(task_id, name, text: str, blockers: list[dict], status: int):
    if not is_fragment():
        flash(text, "error")
        for blocker in blockers:
            label = f"{blocker['label']}: " if blocker["label"] else ""
            flash(f"{label}{blocker['message']}", "error")
        return refused(redirect(_back(), code=303))
    task = _load(task_id)
    return _card(task, status, notice={"text": text, "blockers": blockers})


# --- moving ---------------------------------------------------------------------------


@task_route("/taken/<uuid:task_id>/verplaats", methods=("GET", "POST"))
def move(task: Task):
    """Move a task to another driver, day or time: dropped on the board, or by this form."""
    form = MoveForm(request.form if request.method == "POST" else None)
    form.set_choices(_drivers_for(task))
    if request.method == "GET":
        return _move_asked(task, form)
    data = _move_data(task, form) if form.validate() else {}
    if any(f.errors for f in form):
        if request.headers.get("HX-Target") == "board-message":
            errors = "; ".join(str(e) for f in form for e in f.errors)
            return _message(errors, "error", 422, changed=False)
        return _move_form(task, form, 422)
    return _save_move(task, data, expected_version=form.versie.data)


def _move_asked(task: Task, form: MoveForm):
    """The move form filled in with where the task is now; a card dropped on another
    driver's lane (`chauffeur_id`) with a vehicle asks whether the vehicle goes along."""
    local = _local(task.gepland_op)
    form.chauffeur_id.data = str(task.chauffeur_id) if task.chauffeur_id else ""
    form.datum.data = local.date() if local else datetime.now(current_zone()).date()
    form.tijd.data = local.time() if local else None
    form.versie.data = task.versie
    form.terug.data = _back()
    form.voertuig.data = VEHICLE_ALONG
    dropped = request.args.get("chauffeur_id")
    choices = {value for value, *_rest in form.chauffeur_id.iter_choices()}
    if dropped is not None and dropped in choices:
        form.chauffeur_id.data = dropped
        if task.vehicle_id and dropped != (str(task.chauffeur_id) if task.chauffeur_id else ""):
            return _move_form(task, form, ask_vehicle=True)
    return _move_form(task, form)


def _move_data(task: Task, form: MoveForm) -> dict:
    """The changes a valid move form asks for: only the fields it posted (a drop on a lane
    sends the driver, one on a day the date). A missing day or time is an error at its
    field."""
    data: dict = {}
    if "chauffeur_id" in request.form:
        data["chauffeur_id"] = parse_uuid(form.chauffeur_id.data)
        # Without the answer "los", the vehicle goes along (as a drop always did).
        changed = data["chauffeur_id"] != task.chauffeur_id
        if changed and task.vehicle_id and form.voertuig.data == VEHICLE_STAYS:
            data["vehicle_id"] = None
    if "datum" in request.form or "tijd" in request.form:
        local = _local(task.gepland_op)
        day = form.datum.data or (local.date() if local else None)
        clock = form.tijd.data or (local.time() if local else None)
        if day is None:
            form.datum.errors.append(_("Kies een datum."))
        elif clock is None:
            form.tijd.errors.append(_("Kies een tijd."))
        else:
            data["gepland_op"] = _instant(day, clock)
    return data


def _save_move(task: Task, data: dict, *, expected_version: int | None):
    """Save the move and say where the task went; a stale version, a closed task or a
    driver that is gone is said in the board's message region."""
    name = task.naam
    try:
        moved = service.update_task(
            carrier_id=current_carrier_id(),
            task_id=task.id,
            data=data,
            actor=current_actor(),
            expected_version=expected_version,
        )
    except service.PreconditionFailed:
        return _message(
            _("Deze taak is intussen gewijzigd. Het bord is ververst; probeer het opnieuw."),
            "error",
            412,
        )
    except Conflict:
        return _message(
            _("Een afgeronde of geannuleerde taak kan niet meer worden verplaatst."), "error", 409
        )
    except ValidationFailed:
        return _message(_("Deze chauffeur bestaat niet (meer)."), "error", 422)
    driver = drivers_service.names_by_id(
        carrier_id=current_carrier_id(), driver_ids={moved.chauffeur_id}
    ).get(moved.chauffeur_id) or _("niet toegewezen")
    when = format_when(moved.gepland_op, empty=_("zonder datum"))
    return _message(
        _("“%(naam)s” verplaatst: %(driver)s, %(when)s.", naam=name, driver=driver, when=when)
    )


def _move_form(task: Task, form: MoveForm, status: int = 200, *, ask_vehicle: bool = False):
    """The move dialog (or page); ask_vehicle: the short question after a drop on another
    driver's lane, whether the task's vehicle goes along."""
    if ask_vehicle and is_fragment():
        template = "tasks/_move_vehicle.html"
    else:
        template = "tasks/_move.html" if is_fragment() else "tasks/move.html"
    plate = None
    if task.vehicle_id:
        plate = fleet.plates_by_id(
            carrier_id=current_carrier_id(), vehicle_ids={task.vehicle_id}
        ).get(task.vehicle_id)
    to = parse_uuid(form.chauffeur_id.data)
    driver = drivers_service.names_by_id(carrier_id=current_carrier_id(), driver_ids={to}).get(to)
    html = render_template(template, task=task, form=form, back=_back(), plate=plate, driver=driver)
    return make_response(html, status)


# --- cancel, delete, duplicate ----------------------------------------------------------


@task_route("/taken/<uuid:task_id>/annuleren", methods=("GET", "POST"))
def cancel(task: Task):
    """Cancel a task after a confirmation (a dialog with JavaScript, this page without)."""
    if request.method == "GET":
        return _confirm(task, "cancel")
    name = task.naam
    try:
        lifecycle.move_task(
            carrier_id=current_carrier_id(),
            task_id=task.id,
            to="geannuleerd",
            actor=current_actor(),
            office=True,
        )
    except lifecycle.IllegalMove:
        return _message(
            _("Taak “%(naam)s” kan niet meer worden geannuleerd.", naam=name), "error", 409
        )
    return _message(_("Taak “%(naam)s” is geannuleerd.", naam=name))


@task_route("/taken/<uuid:task_id>/heropenen", methods=("GET", "POST"))
def reopen(task: Task):
    """Reopen a completed task after a confirmation: its billing line waits for the next
    completion (an exported one stays as it was)."""
    if request.method == "GET":
        return _confirm(task, "reopen")
    name = task.naam
    if task.status != "afgerond":
        return _message(
            _("Taak “%(naam)s” is niet afgerond en kan dus niet worden heropend.", naam=name),
            "error",
            409,
        )
    lifecycle.move_task(
        carrier_id=current_carrier_id(),
        task_id=task.id,
        to="gestart",
        actor=current_actor(),
        office=True,
    )
    return _message(_("Taak “%(naam)s” is heropend en staat weer op gestart.", naam=name))


@task_route("/taken/<uuid:task_id>/verwijderen", methods=("GET", "POST"))
def delete(task: Task):
    """Delete a task after a confirmation; one that holds work is archived instead."""
    if request.method == "GET":
        return _confirm(task, "delete")
    name = task.naam
    outcome = service.delete_task(
        carrier_id=current_carrier_id(), task_id=task.id, actor=current_actor()
    )
    if outcome == "archived":
        return _message(
            _(
                "Taak “%(naam)s” is gearchiveerd, niet verwijderd: er is al werk op "
                "vastgelegd, en dat blijft bewaard.",
                naam=name,
            )
        )
    return _message(_("Taak “%(naam)s” is verwijderd.", naam=name))


def _confirm(task: Task, action: str):
    template = "tasks/_confirm.html" if is_fragment() else "tasks/confirm.html"
    can_cancel = "geannuleerd" in lifecycle.allowed_moves(task, office=True)
    return render_template(
        template,
        task=task,
        action=action,
        can_cancel=can_cancel,
        can_reopen=task.status == "afgerond",
        back=_back(),
        when=format_when(task.gepland_op, empty=_("zonder datum")),
    )


@task_route("/taken/<uuid:task_id>/dupliceer", methods=("POST",))
def duplicate(task: Task):
    """Copy a task as a new planned one and open the copy's form."""
    copy = service.duplicate_task(
        carrier_id=current_carrier_id(), task_id=task.id, actor=current_actor()
    )
    flash(_("Kopie gemaakt van “%(naam)s”. Pas aan wat anders is en sla op.", naam=task.naam))
    target = url_for("tasks.edit", task_id=copy.id, terug=_back())
    if is_fragment():
        response = make_response("", 200)
        response.headers["HX-Redirect"] = target
        return response
    return redirect(target, code=303)
