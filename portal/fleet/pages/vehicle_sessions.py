"""Who drives what: the vehicle sessions right now and their history, for all or for one
driver or vehicle, and ending a driver's session from the office."""

from __future__ import annotations

import uuid
from functools import partial

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from portal.accounts.permissions import object_route, role_required
from portal.drivers import service as drivers
from portal.fleet import service, sessions
from portal.fleet.models import VehicleSession
from portal.fleet.pages.forms import ConfirmForm, SessionFilterForm
from portal.fleet.pages.kit import SESSION_PAGE_SIZE, back_to, bp, template_helpers
from portal.unit_of_work import refused
from portal.web.kit import Pager, current_actor, current_carrier_id, format_when, parse_uuid


def session_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """A planner's route of one vehicle session (another carrier's id: 404 first)."""

    def load(session_id: uuid.UUID):
        return sessions.get_session(carrier_id=current_carrier_id(), session_id=session_id)

    return object_route(bp, rule, load, methods=methods)


@bp.route("/voertuigen/sessies")
@role_required("planner")
def sessions_page():
    """Who drives what right now, and the history of sessions, for all or for one driver or
    vehicle (?chauffeur=<driver id>, ?voertuig=<vehicle id>), newest first and paged."""
    carrier_id = current_carrier_id()
    all_drivers = drivers.list_drivers(carrier_id=carrier_id, active_only=False)
    vehicles = service.list_vehicles(carrier_id=carrier_id)
    form = SessionFilterForm(request.args)
    form.set_choices(all_drivers, vehicles)
    chauffeur, voertuig, status = (
        form.clean("chauffeur"),
        form.clean("voertuig"),
        form.clean("status"),
    )
    chauffeur_id, vehicle_id = parse_uuid(chauffeur), parse_uuid(voertuig)
    pager = Pager.asked(SESSION_PAGE_SIZE)

    current = [
        (s, plate)
        for s, plate in sessions.current_sessions(carrier_id=carrier_id)
        if (chauffeur_id is None or s.chauffeur_id == chauffeur_id)
        and (vehicle_id is None or s.vehicle_id == vehicle_id)
    ]
    history = sessions.list_sessions(
        carrier_id=carrier_id,
        filters=sessions.SessionFilters(
            chauffeur_id=chauffeur_id,
            vehicle_id=vehicle_id,
            statuses=(status,) if status else (),
            limit=SESSION_PAGE_SIZE,
            offset=pager.offset,
        ),
    )
    pager = pager.counted(history.total)
    names = {d.id: d.naam for d in all_drivers}
    plates = {v.id: v.label for v in vehicles}
    args = {
        k: v for k, v in (("chauffeur", chauffeur), ("voertuig", voertuig), ("status", status)) if v
    }
    here = pager.url("fleet.sessions_page", **args)
    return render_template(
        "fleet/sessions.html",
        form=form,
        current=current,
        history=history.sessions,
        total=history.total,
        names=names,
        plates=plates,
        driver_name=names.get(chauffeur_id) if chauffeur_id else None,
        vehicle_plate=plates.get(vehicle_id) if vehicle_id else None,
        filtered=bool(args),
        pager=pager,
        page_args=args,
        back=here,
        **template_helpers(),
    )


@session_route("/voertuigen/sessies/<uuid:session_id>/beeindigen", methods=("GET", "POST"))
def end_session(session: VehicleSession):
    """End a driver's session from the office (e.g. the driver forgot), after confirmation."""
    fallback = url_for("fleet.sessions_page")
    back = back_to(request.values.get("terug"), fallback)
    plate = (
        service.plates_by_id(carrier_id=current_carrier_id(), vehicle_ids={session.vehicle_id}).get(
            session.vehicle_id
        )
        if session.vehicle_id
        else None
    )
    name = drivers.names_by_id(
        carrier_id=current_carrier_id(), driver_ids={session.chauffeur_id}
    ).get(session.chauffeur_id, "?")
    if request.method == "GET":
        if session.status == "ended":
            flash(_("Deze sessie is al beëindigd."))
            return redirect(back, code=303)
        return render_template(
            "fleet/confirm.html",
            kind="end",
            session=session,
            plate=plate,
            driver=name,
            form=ConfirmForm(),
            action=url_for("fleet.end_session", session_id=session.id),
            back=back,
            when=partial(format_when, empty="—"),
        )
    try:
        sessions.end_session(
            carrier_id=current_carrier_id(), session_id=session.id, actor=current_actor()
        )
    except sessions.SessionConflict:
        flash(_("Deze sessie is al beëindigd."))
        return refused(redirect(back, code=303))
    if plate:
        flash(_("De sessie van %(naam)s op %(plate)s is beëindigd.", naam=name, plate=plate))
    else:
        flash(_("De wachtende sessie van %(naam)s is afgebroken.", naam=name))
    return redirect(back, code=303)
