""" "Plan de week" and "Plan de dag": start a proposal for a period (the worker solves it),
watch it (htmx polls the fragment until it is solved), see it as a diff and accept it
entirely or per task in one unit of work."""

from __future__ import annotations

import uuid
from datetime import date, datetime, time, timedelta

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import IntegerField, RadioField, SelectChoice
from wtforms.validators import InputRequired, NumberRange

from portal.accounts.permissions import object_route, role_required
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.planner import accepting, service
from portal.planner.models import FINISHED
from portal.planner.pages.kit import RULE_WORDS, STATUS_WORDS, bp, diff_lines, period_text
from portal.unit_of_work import portal_write, refused
from portal.validators import DayField, PortalForm
from portal.web import is_fragment
from portal.web.kit import current_actor, current_carrier_id, current_zone, format_when

POLL = "2s"


class PlanForm(PortalForm):
    """The period to plan: a day or the week (Monday to Sunday) of a day."""

    periode = RadioField(
        _l("Plan"),
        choices=[SelectChoice("week", _l("de week")), SelectChoice("dag", _l("de dag"))],
        default="week",
        validators=[InputRequired()],
    )
    datum = DayField(_l("Datum"), validators=[InputRequired()])
    seconden = IntegerField(
        _l("Rekentijd (seconden)"), default=8, validators=[NumberRange(min=1, max=60)]
    )


def _period(form: PlanForm) -> tuple[datetime, datetime]:
    day: date = form.datum.data
    if form.periode.data == "week":
        day -= timedelta(days=day.weekday())
    van = datetime.combine(day, time(0), tzinfo=current_zone())
    return van, van + timedelta(days=7 if form.periode.data == "week" else 1)


def _index(form: PlanForm, status: int = 200):
    carrier_id = current_carrier_id()
    html = render_template(
        "planner/index.html",
        form=form,
        proposals=service.recent_proposals(carrier_id=carrier_id),
        status_words=STATUS_WORDS,
        when=format_when,
        period=period_text,
    )
    return make_response(html, status)


@bp.route("/planning/voorstellen", methods=("GET", "POST"))
@role_required("planner")
@portal_write
def index():
    """The planner's proposals; a POST starts one and shows it."""
    form = PlanForm()
    if request.method == "GET":
        if not form.datum.data:
            form.datum.data = datetime.now(current_zone()).date()
        return _index(form)
    if not form.validate():
        return _index(form, 422)
    van, tot = _period(form)
    try:
        proposal = service.start_proposal(
            carrier_id=current_carrier_id(), van=van, tot=tot, actor=current_actor(),
            seconden=form.seconden.data or service.DEFAULT_SECONDS,
        )  # fmt: skip
    except ValidationFailed as error:
        form.datum.errors = [e["message"] for e in error.errors]
        return _index(form, 422)
    return redirect(url_for("planner.show", voorstel_id=proposal.id), code=303)


def _load(voorstel_id: uuid.UUID):
    return service.get_proposal(carrier_id=current_carrier_id(), proposal_id=voorstel_id)


def _context(proposal) -> dict:
    finished = proposal.status in FINISHED
    return {
        "proposal": proposal,
        "finished": finished,
        "lines": diff_lines(proposal.id) if finished else [],
        "rule_words": RULE_WORDS,
        "status_words": STATUS_WORDS,
        "poll": POLL,
        "when": format_when,
        "period": period_text(proposal),
    }


@object_route(bp, "/planning/voorstellen/<uuid:voorstel_id>", _load)
def show(proposal):
    """One proposal: while it is solved a fragment that polls; then the diff to accept."""
    if is_fragment():
        return render_template("planner/_proposal.html", **_context(proposal))
    return render_template("planner/proposal.html", **_context(proposal))


@object_route(bp, "/planning/voorstellen/<uuid:voorstel_id>/accepteren", _load, methods=("POST",))
def accept(proposal):
    """Accept the ticked tasks (or all): one unit of work; a refusal names the tasks."""
    back = redirect(url_for("planner.show", voorstel_id=proposal.id), code=303)
    chosen = None
    if request.form.get("alles") != "1":
        try:
            chosen = [uuid.UUID(value) for value in request.form.getlist("taken")]
        except ValueError as error:
            raise NotFound("no such task") from error
        if not chosen:
            flash(_("Kies de taken die je wilt accepteren."), "error")
            return refused(back)
    try:
        accepted = accepting.accept(
            carrier_id=current_carrier_id(), proposal_id=proposal.id, actor=current_actor(),
            task_ids=chosen,
        )  # fmt: skip
    except Conflict as error:
        flash(_refusal(error), "error")
        return refused(back)
    except ValidationFailed:
        flash(_("Die taken staan niet (meer) open in dit voorstel."), "error")
        return refused(back)
    flash(_("%(n)s taken ingepland.", n=len(accepted)))
    return back


def _refusal(error: Conflict) -> str:
    code = error.extra.get("code")
    count = len(error.extra.get("taken") or [])
    if code == "taken_gewijzigd":
        return _(
            "Niets ingepland: %(n)s taken zijn gewijzigd sinds het voorstel werd gemaakt. "
            "Maak een nieuw voorstel.",
            n=count,
        )
    if code == "regels_geschonden":
        return _(
            "Niets ingepland: voor %(n)s taken zou het plan nu een regel breken. "
            "Maak een nieuw voorstel.",
            n=count,
        )
    return _("Het voorstel is nog niet klaar.")
