"""The tariffs in the portal (/facturatie/tarieven, role planner): the carrier's default
price per activity and each customer's own, each from a day on; add, change, delete."""

from __future__ import annotations

import uuid

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.accounts.permissions import object_route, role_required
from portal.billing import tariffs
from portal.billing.models import Tariff
from portal.billing.pages.kit import tariffs_bp as bp
from portal.billing.pages.tariff_forms import (
    ROUNDING_LABELS,
    VAT_CATEGORY_LABELS,
    TariffForm,
    reason_text,
    vat_rate_text,
)
from portal.customers import service as customers
from portal.errors import Conflict, ValidationFailed
from portal.labels import activity_label
from portal.tasks.pages.forms import activity_choices
from portal.unit_of_work import portal_write
from portal.web.kit import current_actor, current_carrier_id, errors_at_fields

ROLES = ("planner",)
# The service's refusals as the planner reads them: by field and code, else by code.
BY_FIELD = {
    ("eenheid", "required"): _l("Vul de eenheid in, bijvoorbeeld ton."),
    ("klant_id", "unknown"): _l("Deze klant kennen we niet."),
}
BY_CODE = {
    "not_a_number": _l("Vul een bedrag in, bijvoorbeeld 4,35."),
    "out_of_range": _l("Dit bedrag kan niet."),
    "too_many_decimals": _l("Te veel cijfers achter de komma."),
    "required": _l("Vul dit in."),
}


SHORT = {"vracht": _l("per vracht"), "uur": _l("per uur"), "km": _l("per kilometer")}


def per(tariff: Tariff) -> str:
    """What the price is for: "per ton", "per vracht", "per uur"."""
    if tariff.grondslag == "eenheid":
        return _("per %(unit)s", unit=tariff.eenheid or _("eenheid"))
    return str(SHORT.get(tariff.grondslag, tariff.grondslag))


def rounding(tariff: Tariff) -> str:
    """How an hourly tariff bills the recorded time: "per kwartier naar boven, minimaal 60
    min"; empty for another basis or when it bills to the minute without a minimum."""
    if tariff.grondslag != "uur":
        return ""
    parts = []
    if tariff.afronding_minuten != 1:
        parts.append(
            _("%(unit)s naar boven", unit=ROUNDING_LABELS.get(tariff.afronding_minuten, ""))
        )
    if tariff.minimum_minuten:
        parts.append(_("minimaal %(min)s min", min=tariff.minimum_minuten))
    return ", ".join(parts)


def _context(**extra) -> dict:
    return {
        "per": per,
        "rounding": rounding,
        "vat_labels": VAT_CATEGORY_LABELS,
        "activity_label": activity_label,
        **extra,
    }


@bp.get("")
@role_required(*ROLES)
def index():
    carrier_id = current_carrier_id()
    names = customers.names(carrier_id=carrier_id)
    chosen = request.args.get("klant")
    klant_id = None
    if chosen:
        try:
            klant_id = uuid.UUID(chosen)
        except ValueError:
            klant_id = None
    rows = tariffs.list_tariffs(carrier_id=carrier_id, customer_id=klant_id)
    return render_template(
        "billing/tariffs.html", **_context(rows=rows, names=names, klant_id=klant_id)
    )


def _form(carrier_id: uuid.UUID, formdata=None, tariff: Tariff | None = None, **data) -> TariffForm:
    """The form; an edited tariff's own activity type stays a choice (an integration may
    have priced a type the list does not name)."""
    form = TariffForm(formdata, **data)
    extra = {tariff.activity_type} if tariff is not None else set()
    form.set_choices(customers.names(carrier_id=carrier_id), activity_choices(extra))
    return form


def _data(form: TariffForm) -> tariffs.TariffIn:
    return tariffs.TariffIn(
        klant_id=uuid.UUID(form.klant_id.data) if form.klant_id.data else None,
        activity_type=form.activity_type.data or "",
        geldig_vanaf=form.geldig_vanaf.data,
        grondslag=form.grondslag.data,
        eenheid=form.eenheid.data,
        prijs=form.prijs.data,
        minimum=form.minimum.data,
        wachttijd_vrij_minuten=form.wachttijd_vrij_minuten.data or 0,
        wachttijd_per_uur=form.wachttijd_per_uur.data,
        weekend_toeslag_procent=form.weekend_toeslag_procent.data,
        btw_procent=form.btw_procent.data if form.btw_procent.data is not None else 21,
        btw_categorie=form.btw_categorie.data or "S",
        btw_vrijstellingsreden=form.btw_vrijstellingsreden.data,
        afronding_minuten=int(form.afronding_minuten.data),
        minimum_minuten=form.minimum_minuten.data or 0,
    )


def _save(form: TariffForm, tariff: Tariff | None):
    """Save the form's tariff; the page again with the problems at the fields when refused."""
    general: list[str] = []
    if form.validate():
        try:
            if tariff is None:
                tariffs.create_tariff(
                    carrier_id=current_carrier_id(), data=_data(form), actor=current_actor()
                )
            else:
                tariffs.update_tariff(
                    carrier_id=current_carrier_id(),
                    tariff_id=tariff.id,
                    data=_data(form),
                    actor=current_actor(),
                )
        except ValidationFailed as error:
            wording = {e.get("code"): _refusal_text for e in error.errors if e.get("code")}
            general = errors_at_fields(form, error.errors, wording)
        except Conflict:
            form.geldig_vanaf.errors = [
                *form.geldig_vanaf.errors,
                _("Er is al een tarief voor deze klant en activiteit vanaf die dag."),
            ]
        else:
            flash(_("Het tarief is opgeslagen."))
            return redirect(url_for("tariffs.index"), code=303)
    html = render_template(
        "billing/tariff_form.html", **_context(form=form, tariff=tariff, general=general)
    )
    return make_response(html, 422)


def _refusal_text(error: dict) -> str:
    """A refusal of the service in the planner's words (its English message when unknown)."""
    key = (error.get("field"), error.get("code"))
    if key in BY_FIELD:
        return str(BY_FIELD[key])
    return _field_text(error) or str(BY_CODE.get(error.get("code"), error["message"]))


def _field_text(error: dict) -> str | None:
    """The wording of a refusal that belongs to its field (the hours and VAT rules)."""
    field, code = error.get("field"), error.get("code")
    categorie = (error.get("params") or {}).get("categorie", "")
    if field == "afronding_minuten":
        return _("Kies hoe de tijd wordt afgerond uit de lijst.")
    if field == "minimum_minuten":
        return _("Tussen 0 en 1440 minuten.")
    if field == "btw_categorie":
        return _("Kies een btw-categorie uit de lijst.")
    if (field, code) == ("btw_procent", "vat_rate_category"):
        return vat_rate_text(categorie)
    if (field, code) == ("btw_vrijstellingsreden", "required"):
        return reason_text(categorie)
    if (field, code) == ("btw_vrijstellingsreden", "too_long"):
        return _("Hoogstens 300 tekens.")
    return None


@bp.route("/nieuw", methods=["GET", "POST"])
@role_required(*ROLES)
@portal_write
def new():
    carrier_id = current_carrier_id()
    if request.method == "POST":
        return _save(_form(carrier_id, request.form), None)
    klant = request.args.get("klant", "")
    form = _form(carrier_id, klant_id=klant)
    return render_template(
        "billing/tariff_form.html", **_context(form=form, tariff=None, general=[])
    )


def tariff_route(rule: str, methods=("GET",)):
    def load(tariff_id: uuid.UUID):
        return tariffs.get_tariff(carrier_id=current_carrier_id(), tariff_id=tariff_id)

    return object_route(bp, rule, load, methods=methods, roles=ROLES)


@tariff_route("/<uuid:tariff_id>", methods=("GET", "POST"))
def edit(tariff: Tariff):
    carrier_id = current_carrier_id()
    if request.method == "POST":
        return _save(_form(carrier_id, request.form, tariff), tariff)
    form = _form(
        carrier_id,
        tariff=tariff,
        klant_id=str(tariff.klant_id) if tariff.klant_id else "",
        activity_type=tariff.activity_type,
        geldig_vanaf=tariff.geldig_vanaf,
        grondslag=tariff.grondslag,
        eenheid=tariff.eenheid,
        prijs=tariff.prijs,
        minimum=tariff.minimum,
        wachttijd_vrij_minuten=tariff.wachttijd_vrij_minuten,
        wachttijd_per_uur=tariff.wachttijd_per_uur,
        weekend_toeslag_procent=tariff.weekend_toeslag_procent,
        btw_procent=tariff.btw_procent,
        btw_categorie=tariff.btw_categorie,
        btw_vrijstellingsreden=tariff.btw_vrijstellingsreden,
        afronding_minuten=str(tariff.afronding_minuten),
        minimum_minuten=tariff.minimum_minuten,
    )
    return render_template(
        "billing/tariff_form.html", **_context(form=form, tariff=tariff, general=[])
    )


@tariff_route("/<uuid:tariff_id>/verwijderen", methods=("GET", "POST"))
def delete(tariff: Tariff):
    if request.method == "GET":
        return render_template(
            "admin/confirm.html",
            title=_(
                "Tarief voor %(activity)s vanaf %(day)s verwijderen?",
                activity=activity_label(tariff.activity_type),
                day=tariff.geldig_vanaf.strftime("%d-%m-%Y"),
            ),
            text=_("Het tarief verdwijnt; facturatieregels die er al zijn veranderen niet."),
            button=_("Ja, verwijderen"),
            danger=True,
            action=url_for("tariffs.delete", tariff_id=tariff.id),
            back=url_for("tariffs.index"),
            problem=None,
        )
    tariffs.delete_tariff(
        carrier_id=current_carrier_id(), tariff_id=tariff.id, actor=current_actor()
    )
    flash(_("Het tarief is verwijderd."))
    return redirect(url_for("tariffs.index"), code=303)
