"""Filled-in questionnaires in the portal: a list per driver, task, activity and period, and
one session on a page of its own, both readable on screen and on paper.

Every session shows against the revision it answered (its own labels, units and order), so
publishing a new revision never changes how earlier answers read.
"""

from __future__ import annotations

import uuid

from flask import Blueprint, render_template, request, url_for
from flask_babel import lazy_gettext as _l
from wtforms import Field, SelectChoice, SelectField
from wtforms.validators import ValidationError

from portal.accounts.permissions import role_required
from portal.drivers import service as drivers
from portal.labels import activity_label
from portal.questionnaires import answering, presenting
from portal.questionnaires import service as questionnaires
from portal.validators import DayField, PortalForm
from portal.web import is_fragment
from portal.web.kit import Pager, current_carrier_id, page_arg, parse_uuid

bp = Blueprint("answers", __name__)

PER_PAGE = 20
# Planners read what drivers answered; authors read the answers to their questionnaires.
READERS = ("planner", "author")
STATUS_CHOICES = (("", _l("Alle")), ("ingediend", _l("Ingediend")), ("open", _l("Nog open")))


class AnswerFilterForm(PortalForm):
    """The list's filters, from the query string (nothing changes, so no CSRF token)."""

    class Meta:
        csrf = False

    chauffeur = SelectField(_l("Chauffeur"), choices=[], validate_choice=False)
    activity_type = SelectField(_l("Activiteit"), choices=[], validate_choice=False)
    status = SelectField(
        _l("Status"), choices=[SelectChoice(v, label) for v, label in STATUS_CHOICES], default=""
    )
    van = DayField(_l("Van"))
    tot = DayField(_l("Tot en met"))

    def validate_chauffeur(self, field: Field) -> None:
        if field.data and field.data not in {c.value for c in field.choices}:
            raise ValidationError(_l("Deze chauffeur kennen we niet."))

    def validate_tot(self, field: Field) -> None:
        if self.van.data and field.data and field.data < self.van.data:
            raise ValidationError(_l("De einddatum ligt voor de begindatum."))


def _optional_days(form: AnswerFilterForm) -> None:
    """Van and tot may stay empty here (all time), unlike billing's period."""
    for field in (form.van, form.tot):
        if not getattr(field, "raw", None):
            field.data = None
            field.validators = []
            field.pre_validate = lambda _form: None


@bp.get("/antwoorden")
@role_required(*READERS)
def index():
    carrier_id = current_carrier_id()
    form = AnswerFilterForm(request.args)
    all_drivers = drivers.list_drivers(carrier_id=carrier_id, active_only=False)
    by_token = {d.user_token: d for d in all_drivers}
    form.chauffeur.choices = [SelectChoice("", _l("Alle chauffeurs"))] + [
        SelectChoice(d.user_token, d.naam if d.actief else f"{d.naam} ({_l('inactief')})")
        for d in all_drivers
    ]
    types = sorted(set(questionnaires.activity_types(carrier_id=carrier_id)), key=lambda t: str(t))
    form.activity_type.choices = [SelectChoice("", _l("Alle activiteiten"))] + [
        SelectChoice(t, activity_label(t)) for t in types
    ]
    _optional_days(form)
    valid = form.validate()
    task_id = parse_uuid(request.args.get("taak"))
    page = page_arg()
    sessions, total = [], 0
    if valid:
        driver = by_token.get(form.chauffeur.data) if form.chauffeur.data else None
        result = answering.list_sessions(
            carrier_id=carrier_id,
            filters=answering.SessionFilters(
                task_id=task_id,
                driver_id=driver.id if driver else None,
                activity_type=form.activity_type.data or None,
                status=form.status.data or None,
                start=form.van.data,
                end=form.tot.data,
                limit=PER_PAGE,
                offset=(page - 1) * PER_PAGE,
            ),
        )
        sessions = presenting.present(carrier_id=carrier_id, sessions=result.sessions)
        total = result.total
    names = {d.id: d.naam for d in all_drivers}
    args = {k: v for k, v in request.args.items() if k != "pagina" and v}
    context = {
        "form": form,
        "valid": valid,
        "sessions": sessions,
        "total": total,
        "pager": Pager(page, PER_PAGE, total),
        "names": names,
        "task_id": task_id,
        "args": args,
        "driver": by_token.get(form.chauffeur.data) if form.chauffeur.data else None,
    }
    template = "answers/_list.html" if is_fragment() else "answers/index.html"
    return render_template(template, **context), 200 if valid else 422


@bp.get("/antwoorden/<uuid:answer_session_id>")
@role_required(*READERS)
def show(answer_session_id: uuid.UUID):
    carrier_id = current_carrier_id()
    pair = answering.session_with_answers(carrier_id=carrier_id, session_id=answer_session_id)
    view = presenting.present(carrier_id=carrier_id, sessions=[pair])[0]
    names = drivers.names_by_id(carrier_id=carrier_id, driver_ids={view.chauffeur_id})
    back = request.referrer if _same_site(request.referrer) else url_for("answers.index")
    return render_template(
        "answers/show.html", s=view, driver_name=names.get(view.chauffeur_id), back=back
    )


def _same_site(url: str | None) -> bool:
    return bool(url) and url.startswith(request.host_url)


@bp.app_context_processor
def _helpers():
    return {"osm_url": presenting.osm_url}
