"""A task's vehicle combination on its page: the towed vehicle behind its vehicle (its own
coupling for the task, else the vehicle's coupling of the day, the default) and choosing
another trailer for this task only, or going back to the day's."""

from __future__ import annotations

from flask import flash, redirect, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.errors import ValidationFailed
from portal.fleet import couplings, rules
from portal.fleet import service as fleet
from portal.fleet.pages.couplings import COUPLING_WORDS
from portal.tasks import combinations
from portal.tasks.models import Task
from portal.tasks.pages.kit import task_page_url, task_route
from portal.unit_of_work import refused
from portal.web.kit import current_actor, current_carrier_id, parse_uuid

DAY_DEFAULT = ""  # the form's choice "the day's coupling"
# A refused trailer worded at the task form's field.
TRAILER_WORDS = {**COUPLING_WORDS, "no_vehicle": _l("Kies eerst een voertuig voor de taak.")}


def trailer_section(task: Task) -> dict:
    """What the task page shows of its combination: the towed vehicle, whether it is the
    task's own choice, and the trailers that fit its vehicle (none without a vehicle)."""
    carrier_id = current_carrier_id()
    if task.vehicle_id is None:
        return {"trailer": None, "trailer_own": False, "trailer_options": []}
    towed = combinations.towed_of_tasks(carrier_id=carrier_id, tasks=[task]).get(task.id)
    own = couplings.list_couplings(carrier_id=carrier_id, task_id=task.id)
    vehicles = fleet.list_vehicles(carrier_id=carrier_id, active_only=True)
    motor = next((v for v in vehicles if v.id == task.vehicle_id), None)
    options = [
        v
        for v in vehicles
        if motor is not None
        and motor.soort in rules.MOTORISED
        and rules.coupling_problem(motor.soort, v.soort) is None
    ]
    return {
        "trailer": towed,
        "trailer_own": bool(own) and own[0].trekkend_id == task.vehicle_id,
        "trailer_options": options,
    }


@task_route("/taken/<uuid:task_id>/aanhanger", methods=("POST",))
def choose_trailer(task: Task):
    """Couple the chosen trailer for this task, or go back to the day's coupling."""
    carrier_id, actor = current_carrier_id(), current_actor()
    back = redirect(task_page_url(task.id), code=303)
    chosen = request.form.get("getrokken_id", DAY_DEFAULT)
    if chosen == DAY_DEFAULT:
        couplings.uncouple_task(carrier_id=carrier_id, task_id=task.id, actor=actor)
        flash(_("De taak rijdt weer met de koppeling van de dag."))
        return back
    towed_id = parse_uuid(chosen)
    if task.vehicle_id is None or towed_id is None:
        flash(_("Kies eerst een voertuig voor de taak."), "error")
        return refused(back)
    try:
        couplings.couple(
            carrier_id=carrier_id,
            motor_id=task.vehicle_id,
            towed_id=towed_id,
            task_id=task.id,
            actor=actor,
        )
    except (couplings.CouplingRefused, ValidationFailed) as error:
        flash(_worded(error.errors[0]), "error")
        return refused(back)
    flash(_("De aanhanger is voor deze taak gekozen."))
    return back


def own_trailer(task: Task) -> str:
    """The trailer the task has of its own, as the form's value ("": the day's)."""
    own = couplings.list_couplings(carrier_id=current_carrier_id(), task_id=task.id)
    return str(own[0].getrokken_id) if own and own[0].trekkend_id == task.vehicle_id else ""


def apply_form_choice(task: Task, value: str | None) -> list[dict]:
    """The task form's trailer saved for the task: "" the day's coupling (the task's own
    ended), else the chosen trailer for this task; the refusal's errors at the field."""
    carrier_id, actor = current_carrier_id(), current_actor()
    towed_id = parse_uuid(value)
    if towed_id is None:
        couplings.uncouple_task(carrier_id=carrier_id, task_id=task.id, actor=actor)
        return []
    if task.vehicle_id is None:
        return [{"field": "getrokken_id", "code": "no_vehicle", "message": "no vehicle"}]
    try:
        couplings.couple(
            carrier_id=carrier_id,
            motor_id=task.vehicle_id,
            towed_id=towed_id,
            task_id=task.id,
            actor=actor,
        )
    except (couplings.CouplingRefused, ValidationFailed) as error:
        return [{**item, "field": "getrokken_id"} for item in error.errors]
    return []


def _worded(error: dict) -> str:
    wording = COUPLING_WORDS.get(error.get("code"))
    if wording is None:
        return str(error.get("message", ""))
    params = error.get("params")
    return str(wording) % params if params else str(wording)
