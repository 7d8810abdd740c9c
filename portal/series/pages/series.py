"""The series' pages: the list, a new series from a template with a live preview of its next
occurrences, a series with its occurrences, its change (which says how many future
occurrences changed), and its end after a confirmation that counts what goes."""

from __future__ import annotations

from flask import make_response, render_template, request, url_for
from flask_babel import format_datetime, ngettext

from portal.accounts.permissions import role_required
from portal.drivers import service as drivers
from portal.errors import ValidationFailed
from portal.fleet import service as fleet
from portal.series import planning, rules
from portal.series import service as series_service
from portal.series.models import TaskSeries
from portal.series.pages.forms import ConfirmForm, SeriesForm
from portal.series.pages.kit import (
    PREVIEW_COUNT,
    WORDING,
    bp,
    done,
    helpers,
    preview_rows,
    series_route,
)
from portal.tasks import service as tasks
from portal.unit_of_work import portal_write
from portal.web.kit import current_actor, current_carrier_id, errors_at_fields


@bp.route("/reeksen")
@role_required("planner")
def index():
    """The running series (and the ended ones when asked)."""
    carrier_id = current_carrier_id()
    ended = request.args.get("beeindigd") == "1"
    found = series_service.list_series(carrier_id=carrier_id, ended=ended)
    templates = {t.id: t for t in series_service.list_templates(carrier_id=carrier_id)}
    return render_template(
        "series/index.html",
        series=found,
        templates=templates,
        ended=ended,
        driver_names=drivers.names_by_id(
            carrier_id=carrier_id, driver_ids={s.chauffeur_id for s in found}
        ),
        **helpers(),
    )


def _form(formdata=None) -> SeriesForm:
    carrier_id = current_carrier_id()
    form = SeriesForm(formdata)
    form.set_choices(
        series_service.list_templates(carrier_id=carrier_id),
        drivers.list_drivers(carrier_id=carrier_id),
        fleet.list_vehicles(carrier_id=carrier_id, active_only=True),
    )
    return form


def _preview(form: SeriesForm) -> dict:
    """The preview of the form's rule: its next occurrences, or why it makes none."""
    data = form.series_data()
    if not data["startdatum"]:
        return {"rows": [], "problem": None}
    rule = series_service.rule_of(data)
    problems = rules.rule_errors(rule)
    if problems and problems[0]["code"] == "reeks_geen_dagen":
        return {"rows": [], "problem": None}  # nothing chosen yet: the preview says what to do
    if problems:
        return {"rows": [], "problem": _worded(problems)}
    today = series_service.today(current_carrier_id())
    return {"rows": preview_rows(rules.preview(rule, today=today, count=PREVIEW_COUNT))}


def _worded(problems: list[dict]) -> str:
    problem = problems[0]
    text = WORDING.get(problem["code"])
    if text is None:
        return problem["message"]
    return str(text) % problem["params"] if problem.get("params") else str(text)


def _render(form, series=None, status=200, errors=()):
    action = url_for("series.edit", reeks_id=series.id) if series else url_for("series.new")
    back = url_for("series.show", reeks_id=series.id) if series else url_for("series.index")
    html = render_template(
        "series/form.html",
        form=form,
        series=series,
        action=action,
        back=back,
        errors=list(errors),
        preview=_preview(form),
        **helpers(),
    )
    return make_response(html, status)


@bp.route("/reeksen/voorbeeld")
@role_required("planner")
def preview():
    """The preview of the rule the form holds now (htmx swaps it in as the form changes)."""
    form = _form(request.args)
    response = make_response(
        render_template("series/_preview.html", preview=_preview(form), **helpers())
    )
    response.headers["Vary"] = "HX-Request"
    return response


@bp.route("/reeksen/nieuw", methods=["GET", "POST"])
@role_required("planner")
@portal_write
def new():
    """A new series from a template (?sjabloon=): its occurrences are planned at once."""
    carrier_id = current_carrier_id()
    form = _form(request.form if request.method == "POST" else None)
    if request.method == "GET":
        chosen = request.args.get("sjabloon")
        if chosen:
            form.sjabloon_id.data = chosen
            form.naam.data = next(
                (t.label for t in form.sjabloon_id.choices if t.value == chosen), ""
            )
        form.startdatum.data = series_service.today(carrier_id)
        return _render(form)
    if not form.validate():
        return _render(form, status=422)
    try:
        series = series_service.create_series(
            carrier_id=carrier_id, data=form.series_data(), actor=current_actor()
        )
        made = planning.plan_series(
            carrier_id=carrier_id,
            series=series,
            today=series_service.today(carrier_id),
            weeks=planning.WEEKS_AHEAD,
            actor=current_actor(),
        )
    except ValidationFailed as error:
        return _render(form, status=422, errors=errors_at_fields(form, error.errors, WORDING))
    text = ngettext(
        "Reeks %(naam)s is opgeslagen; %(num)s taak is ingepland.",
        "Reeks %(naam)s is opgeslagen; %(num)s taken zijn ingepland.",
        made,
        naam=series.naam,
    )
    return done("series.show", text, reeks_id=series.id)


@series_route("/reeksen/<uuid:reeks_id>")
def show(series: TaskSeries):
    """A series: its rule and its occurrences, each with its task and whether it follows."""
    carrier_id = current_carrier_id()
    occurrences = planning.occurrences_of(carrier_id=carrier_id, series_id=series.id)
    task_names = tasks.names_by_id(
        carrier_id=carrier_id, task_ids={o.taak_id for o in occurrences if o.taak_id}
    )
    template = series_service.get_template(carrier_id=carrier_id, template_id=series.sjabloon_id)
    context = {
        "series": series,
        "template": template,
        "occurrences": occurrences,
        "task_names": task_names,
        "driver_names": drivers.names_by_id(
            carrier_id=carrier_id, driver_ids={series.chauffeur_id}
        ),
        "plates": fleet.plates_by_id(carrier_id=carrier_id, vehicle_ids={series.vehicle_id}),
        "ended_at": format_datetime(series.beeindigd_op) if series.beeindigd_op else None,
    }
    return render_template("series/show.html", **context, **helpers())


@series_route("/reeksen/<uuid:reeks_id>/bewerken", methods=("GET", "POST"))
def edit(series: TaskSeries):
    """Change a series: its future, unchanged, unstarted occurrences change with it."""
    carrier_id = current_carrier_id()
    form = _form(request.form if request.method == "POST" else None)
    if request.method == "GET":
        form.fill(series)
        return _render(form, series)
    if not form.validate():
        return _render(form, series, 422)
    try:
        _saved, changed = planning.update_series(
            carrier_id=carrier_id,
            series_id=series.id,
            data=form.series_data(),
            actor=current_actor(),
            today=series_service.today(carrier_id),
        )
    except ValidationFailed as error:
        return _render(form, series, 422, errors_at_fields(form, error.errors, WORDING))
    text = ngettext(
        "Reeks opgeslagen: %(num)s toekomstige taak is aangepast.",
        "Reeks opgeslagen: %(num)s toekomstige taken zijn aangepast.",
        changed,
    )
    return done("series.show", text, reeks_id=series.id)


@series_route("/reeksen/<uuid:reeks_id>/beeindigen", methods=("GET", "POST"))
def end(series: TaskSeries):
    """End a series after a confirmation that counts the occurrences that go."""
    carrier_id = current_carrier_id()
    today = series_service.today(carrier_id)
    if request.method == "GET":
        count = planning.to_end(carrier_id=carrier_id, series_id=series.id, today=today)
        return render_template(
            "series/confirm.html",
            kind="end",
            subject=series,
            count=count,
            form=ConfirmForm(),
            action=url_for("series.end", reeks_id=series.id),
            back=url_for("series.show", reeks_id=series.id),
        )
    removed = planning.end_series(
        carrier_id=carrier_id, series_id=series.id, actor=current_actor(), today=today
    )
    text = ngettext(
        "Reeks beëindigd: %(num)s geplande taak is verwijderd.",
        "Reeks beëindigd: %(num)s geplande taken zijn verwijderd.",
        removed,
    )
    return done("series.show", text, reeks_id=series.id)
