"""What the planning board's views share: the blueprint, the route of one task, the way
back to the board and the answer of a write."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, date, datetime, time

from flask import Blueprint, flash, make_response, redirect, render_template, request, url_for

from portal.accounts.permissions import object_route
from portal.drivers import service as drivers_service
from portal.tasks import service
from portal.tasks.models import Task
from portal.unit_of_work import refused
from portal.web import is_fragment
from portal.web.kit import current_carrier_id, current_zone, safe_back

bp = Blueprint("tasks", __name__)

CLOSED = ("afgerond", "geannuleerd")


# --- helpers --------------------------------------------------------------------------


def task_page_url(task_id: uuid.UUID) -> str:
    return url_for("task_detail.show", task_id=task_id)


def board_back(target: str | None) -> str:
    """Where to return after a write: a board URL only (no open redirect)."""
    board = url_for("tasks.index")
    return safe_back(target, within=board, fallback=board, exact=True)


def _back() -> str:
    return board_back(request.values.get("terug"))


def _local(moment: datetime | None) -> datetime | None:
    return moment.astimezone(current_zone()) if moment else None


def _instant(day: date, clock: time) -> datetime:
    """A wall-clock time on a day in the carrier's zone, as a UTC instant."""
    return datetime.combine(
        day, clock.replace(second=0, microsecond=0), tzinfo=current_zone()
    ).astimezone(UTC)


def _trigger(response, **events):
    """Tell the page's other regions that tasks changed (HX-Trigger)."""
    response.headers["HX-Trigger"] = json.dumps({"tasksChanged": True, **events})
    return response


def _message(text: str, category: str = "info", status: int = 200, *, changed: bool = True):
    """The outcome of a write: for htmx a message in the board's message region (also when
    the request came from the dialog) and a board refresh; without JavaScript a flash and a
    redirect back to the board with its filters."""
    if not is_fragment():
        flash(text, category)
        back = redirect(_back(), code=303)
        return refused(back) if status >= 400 else back
    response = make_response(
        render_template("tasks/_message.html", text=text, category=category), status
    )
    if request.headers.get("HX-Target") != "board-message":
        response.headers["HX-Retarget"] = "#board-message"
        response.headers["HX-Reswap"] = "innerHTML"
    return _trigger(response) if changed else response


def _load(task_id: uuid.UUID) -> Task:
    return service.get_task(carrier_id=current_carrier_id(), task_id=task_id)


def task_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one task (another carrier's id: 404 whatever the method)."""
    return object_route(bp, rule, lambda task_id: _load(task_id), methods=methods)


def _drivers_for(task: Task | None = None) -> list:
    """Active drivers, plus the task's own driver when that one is no longer active."""
    drivers = drivers_service.list_drivers(carrier_id=current_carrier_id())
    if task and task.chauffeur_id and task.chauffeur_id not in {d.id for d in drivers}:
        drivers.append(
            drivers_service.get_driver(carrier_id=current_carrier_id(), driver_id=task.chauffeur_id)
        )
    return drivers
