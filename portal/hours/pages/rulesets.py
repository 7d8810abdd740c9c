"""The carrier's pay rule sets in the portal (/uren/regels, role planner): the list with the
set that holds today, a new set (from the newest one, or the CAO preset), changing a set and
deleting one after confirmation. The service's refusals carry codes; they are worded here,
at the field they are about."""

from __future__ import annotations

import re
import uuid
from datetime import date, datetime, timedelta
from itertools import pairwise

from babel.lists import format_list
from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import format_date, get_locale
from flask_babel import gettext as _

from portal.accounts.permissions import object_route, role_required
from portal.errors import NotFound, ValidationFailed
from portal.hours import cao
from portal.hours.pages.forms import SOORT_LABELS
from portal.hours.pages.kit import rulesets_bp as bp
from portal.hours.pages.ruleset_forms import (
    RuleSetForm,
    add_empty_rows,
    amounts,
    fill,
    rules_from,
    used_rows,
)
from portal.hours.pages.ruleset_labels import (
    DEEL_LABELS,
    FEESTDAG_LABELS,
    OVERUREN_HELP,
    OVERUREN_LABELS,
    SAMENLOOP_HELP,
    SAMENLOOP_LABELS,
    WEEKDAG_NAMEN,
    source_text,
)
from portal.hours.pay_models import RuleSet
from portal.hours.payroll import rulesets
from portal.hours.totals import IsoWeek
from portal.unit_of_work import portal_write
from portal.web.kit import current_actor, current_carrier_id, current_zone

ROLES = ("planner",)
PRESET = "preset"


def _day(value: date | str) -> str:
    return format_date(date.fromisoformat(str(value)), "EEEE d MMMM yyyy")


def _locked(error: rulesets.RuleSetLocked) -> str:
    p = error.params
    week, vanaf = p["week"].label, _day(p["vanaf"])
    if p["actie"] == "verwijderen":
        return _(
            "Deze regelset kan niet weg: week %(week)s is goedgekeurd en met deze regels "
            "berekend. Heropen die week eerst, of voeg een nieuwe regelset toe vanaf "
            "%(vanaf)s of later.",
            week=week,
            vanaf=vanaf,
        )
    if p["actie"] == "aanmaken":
        return _(
            "Week %(week)s is goedgekeurd en zou met deze regels anders uitkomen. Laat de "
            "regelset op %(vanaf)s of later beginnen, of heropen die week eerst.",
            week=week,
            vanaf=vanaf,
        )
    return _(
        "Deze regels kunnen niet meer veranderen: week %(week)s is goedgekeurd en met deze "
        "regels berekend. Voeg een nieuwe regelset toe vanaf %(vanaf)s of later.",
        week=week,
        vanaf=vanaf,
    )


def _days(names: list[str]) -> str:
    """Day names as a list the user reads: "maandag, dinsdag en woensdag"."""
    return format_list(names, locale=get_locale())


def word(code: str, params: dict, form: RuleSetForm) -> str:
    """A refusal of valideer_regelset (or the service) in the user's language."""
    dag = params.get("dag", "")
    dag = str(WEEKDAG_NAMEN.get(dag, dag))
    texts = {
        "geldig_vanaf_geen_maandag": lambda: _(
            "Kies een maandag: %(datum)s is geen maandag. Regels gelden per hele week.",
            datum=_day(form.geldig_vanaf.data),
        ),
        "geldig_vanaf_dubbel": lambda: _(
            "Er is al een regelset vanaf %(datum)s. Wijzig die, of kies een andere maandag.",
            datum=_day(params["geldig_vanaf"]),
        ),
        "contracturen_ongeldig": lambda: _(
            "Tussen 0 en 60 uur, in hele minuten (bijvoorbeeld 40 of 32,5)."
        ),
        "soort_onbekend": lambda: _("Kies alleen activiteiten uit de lijst."),
        "procent_ongeldig": lambda: _("Vul een heel percentage in, bijvoorbeeld 130."),
        "procent_te_laag": lambda: _(
            "Minstens %(min)s%% (100%% is het gewone loon).", min=params["min"]
        ),
        "procent_te_hoog": lambda: _("Hoogstens %(max)s%%.", max=params["max"]),
        "samenloop_onbekend": lambda: _("Kies een van de twee."),
        "overuren_grens_onbekend": lambda: _("Kies een van de regels voor overuren."),
        "ja_nee_ongeldig": lambda: _("Kies ja of nee."),
        "toeslag_ongeldig": lambda: _(
            "Tussen %(min)s%% en %(max)s%% (0 is geen toeslag).",
            min=params["min"],
            max=params["max"],
        ),
        "venster_naam_ongeldig": lambda: _("Geef elke rij een eigen naam."),
        "dag_ongeldig": lambda: _("Kies minstens één dag."),
        "tijd_ongeldig": lambda: _("Vul een tijd in zoals 19:00 (00:00 tot 24:00)."),
        "venster_leeg": lambda: _(
            "Het einde (%(tot)s) moet na het begin (%(van)s) liggen.",
            van=params["van"],
            tot=params["tot"],
        ),
        "venster_gat": lambda: _(
            "Op %(dag)s valt %(van)s tot %(tot)s buiten elke rij. Elke dag die een rij noemt, "
            "moet van 00:00 tot 24:00 precies één keer gedekt zijn.",
            dag=dag,
            van=params["van"],
            tot=params["tot"],
        ),
        "venster_overlap": lambda: _(
            "Op %(dag)s overlappen “%(een)s” en “%(ander)s”: elke tijd hoort bij één rij.",
            dag=dag,
            een=params["vensters"][0],
            ander=params["vensters"][1],
        ),
        "feestdag_onbekend": lambda: _("Kies alleen feestdagen uit de lijst."),
        "drempel_ongeldig": lambda: _("Tussen 0 en 24 uur, in hele minuten."),
        "bedrag_ongeldig": lambda: _("Vul een bedrag in, bijvoorbeeld 4,35."),
        "bedrag_negatief": lambda: _("Een bedrag kan niet negatief zijn."),
        "max_dag_ongeldig": lambda: _("Meer dan 0 en hoogstens 25 uur, in hele minuten."),
    }
    found = texts.get(code)
    return found() if found else _("Deze regel klopt niet (%(code)s).", code=code)


ROW_FIELD = re.compile(r"^vensters\[(\d+)\](?:\.(naam|dagen|van|tot|procent))?$")


def place(form: RuleSetForm, errors: list[dict]) -> tuple[list[str], list[str]]:
    """The service's errors at their fields; returns the windows table's own errors (a gap,
    an overlap) and those no field shows (for the top of the form)."""
    general = []
    rows = used_rows(form)
    paths = {a.veld: i for i, a in enumerate(amounts_of(form))}
    # A gap or overlap on several days is one message naming the days.
    days: dict[tuple, list[str]] = {}
    for error in errors:
        if error["field"] == "vensters":
            p = error.get("params") or {}
            key = (error["code"], p.get("van"), p.get("tot"), tuple(p.get("vensters") or ()))
            days.setdefault(key, []).append(str(WEEKDAG_NAMEN.get(p.get("dag"), p.get("dag"))))
    table = [
        word(code, {"van": van, "tot": tot, "vensters": names, "dag": _days(named)}, form)
        for (code, van, tot, names), named in days.items()
    ]
    for error in errors:
        field = error["field"]
        if field == "vensters":
            continue
        text = word(error["code"], error.get("params") or {}, form)
        row = ROW_FIELD.match(field)
        if row and int(row.group(1)) < len(rows):
            entry = form.vensters.entries[rows[int(row.group(1))]].form
            target = entry[row.group(2) or "tot"]
            target.errors = [*target.errors, text]
        elif field in paths and paths[field] < len(form.bedragen.entries):
            target = form.bedragen.entries[paths[field]]
            target.errors = [*target.errors, text]
        else:
            name = {"max_dag_min": "max_dag", "verblijfkosten.drempel_min": "drempel"}.get(
                field, field
            )
            if name in form and name not in ("csrf_token", "vensters", "bedragen"):
                form[name].errors = [*form[name].errors, text]
            else:
                general.append(text)
    return table, general


def amounts_of(form: RuleSetForm) -> list:
    return form.amounts if hasattr(form, "amounts") else []


def _base(carrier_id: uuid.UUID, basis: str | None) -> tuple[str, cao.PayRules]:
    """What a new set starts from: the set named by basis, the preset, or the newest set."""
    if basis == PRESET:
        return PRESET, cao.cao_preset(rulesets.PRESET_FROM)
    if basis:
        try:
            row = rulesets.get_rule_set(carrier_id=carrier_id, rule_set_id=uuid.UUID(basis))
        except (ValueError, NotFound):
            pass
        else:
            return str(row.id), rulesets.as_rules(row)
    row, rules = rulesets.template(carrier_id=carrier_id)
    return (str(row.id) if row else PRESET), rules


def _render(form: RuleSetForm, base: cao.PayRules, row: RuleSet | None, status=200, **extra):
    form.amounts = amounts(base)
    for amount, entry in zip(form.amounts, form.bedragen.entries, strict=False):
        entry.label.text = amount.naam
    html = render_template(
        "hours/rulesets/form.html",
        form=form,
        row=row,
        bron=source_text(base.bron),
        amounts=form.amounts,
        deel_labels=DEEL_LABELS,
        samenloop_help=SAMENLOOP_HELP,
        overuren_help=OVERUREN_HELP,
        table_errors=extra.pop("table_errors", []),
        general=extra.pop("general", []),
        **extra,
    )
    return make_response(html, status)


def _today() -> date:
    return datetime.now(current_zone()).date()


@bp.get("")
@role_required(*ROLES)
def index():
    carrier_id = current_carrier_id()
    rows = rulesets.stored(carrier_id=carrier_id)
    today = _today()
    listed = [(row, rulesets.as_rules(row)) for row in rows]
    # A set holds up to and including the Sunday before the next set's Monday.
    ends = {row.id: nxt.geldig_vanaf - timedelta(days=1) for row, nxt in pairwise(rows)}
    holding = rulesets.holding(rows, today)
    preset = cao.cao_preset(rulesets.PRESET_FROM)
    in_force = rulesets.as_rules(holding) if holding else preset
    return render_template(
        "hours/rulesets/index.html",
        listed=list(reversed(listed)),
        ends=ends,
        holding=holding,
        today=today,
        preset=preset,
        in_force=in_force,
        in_force_overtime=in_force.overtime_threshold(IsoWeek.of(today).jaar),
        samenloop_labels=SAMENLOOP_LABELS,
        samenloop_help=SAMENLOOP_HELP,
        overuren_labels=OVERUREN_LABELS,
    )


def _submit(form: RuleSetForm, base: cao.PayRules, row: RuleSet | None):
    """Save the posted form; the form again (422) with every problem at its field if refused.
    The button "Rij toevoegen" only adds an empty row to the windows table."""
    if request.form.get("actie") == "rij":
        add_empty_rows(form, 1)
        return _render(form, base, row)
    form.amounts = amounts(base)
    general: list[str] = []
    table: list[str] = []
    if form.validate():
        rules = rules_from(form, base)
        try:
            if row is None:
                rulesets.create_rule_set(
                    carrier_id=current_carrier_id(), rules=rules, actor=current_actor()
                )
            else:
                rulesets.update_rule_set(
                    carrier_id=current_carrier_id(),
                    rule_set_id=row.id,
                    rules=rules,
                    actor=current_actor(),
                )
        except ValidationFailed as error:
            table, general = place(form, error.errors)
        except rulesets.RuleSetLocked as error:
            general = [_locked(error)]
        else:
            flash(
                _(
                    "De regelset vanaf %(datum)s is opgeslagen.",
                    datum=_day(rules.geldig_vanaf),
                )
            )
            return redirect(url_for("rulesets.index"), code=303)
    return _render(form, base, row, 422, table_errors=table, general=general)


@bp.route("/nieuw", methods=["GET", "POST"])
@role_required(*ROLES)
@portal_write
def new():
    carrier_id = current_carrier_id()
    if request.method == "POST":
        form = RuleSetForm()
        _basis, base = _base(carrier_id, form.basis.data)
        return _submit(form, base, None)
    basis, base = _base(carrier_id, request.args.get("basis"))
    form = RuleSetForm(formdata=None)
    fill(form, base, basis=basis)
    form.geldig_vanaf.data = rulesets.next_monday(_today())
    return _render(form, base, None)


def rule_set_route(rule: str, methods=("GET",)):
    def load(rule_set_id: uuid.UUID):
        return rulesets.get_rule_set(carrier_id=current_carrier_id(), rule_set_id=rule_set_id)

    return object_route(bp, rule, load, methods=methods, roles=ROLES)


@rule_set_route("/<uuid:rule_set_id>", methods=("GET", "POST"))
def edit(row: RuleSet):
    base = rulesets.as_rules(row)
    if request.method == "POST":
        return _submit(RuleSetForm(), base, row)
    form = RuleSetForm(formdata=None)
    fill(form, base, basis=str(row.id))
    return _render(form, base, row)


@rule_set_route("/<uuid:rule_set_id>/verwijderen", methods=("GET", "POST"))
def delete(row: RuleSet):
    carrier_id = current_carrier_id()
    day = _day(row.geldig_vanaf)
    others = [r for r in rulesets.stored(carrier_id=carrier_id) if r.id != row.id]
    before = rulesets.holding(others, row.geldig_vanaf)
    problem = None
    try:
        if request.method == "POST":
            rulesets.delete_rule_set(
                carrier_id=carrier_id, rule_set_id=row.id, actor=current_actor()
            )
            flash(_("De regelset vanaf %(datum)s is verwijderd.", datum=day))
            return redirect(url_for("rulesets.index"), code=303)
        rulesets.check_delete(carrier_id=carrier_id, rule_set_id=row.id)
    except rulesets.RuleSetLocked as error:
        problem = _locked(error)
    if before is not None:
        text = _(
            "Vanaf %(datum)s gelden dan de regels van de regelset vanaf %(vorige)s.",
            datum=day,
            vorige=_day(before.geldig_vanaf),
        )
    elif others:
        text = _(
            "Tot de volgende regelset gelden vanaf %(datum)s dan de standaardregels van de CAO.",
            datum=day,
        )
    else:
        text = _(
            "Dit is de laatste regelset: daarna gelden de standaardregels van de CAO "
            "Beroepsgoederenvervoer (%(uren)s uur, overuren %(procent)s%%, bedragen "
            "verblijfkosten 0,00).",
            uren=40,
            procent=130,
        )
    html = render_template(
        "admin/confirm.html",
        title=_("Regelset vanaf %(datum)s verwijderen?", datum=day),
        text=text,
        button=_("Ja, verwijderen"),
        danger=True,
        action=url_for("rulesets.delete", rule_set_id=row.id),
        back=url_for("rulesets.index"),
        problem=problem,
    )
    return make_response(html, 409 if problem and request.method == "POST" else 200)


@bp.context_processor
def _helpers():
    return {
        "soort_labels": SOORT_LABELS,
        "feestdag_labels": FEESTDAG_LABELS,
        "weekdag_namen": WEEKDAG_NAMEN,
    }
