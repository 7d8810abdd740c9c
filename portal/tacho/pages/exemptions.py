"""The carrier's national exemptions from EU 561/2006 by activity type (Art. 13(1)), and
which vehicles are out of scope by their speed (Art. 3(b)): docs/eu561-scope.md."""

from __future__ import annotations

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import SelectChoice, SelectField, StringField
from wtforms.validators import DataRequired, Length, Regexp

from portal.accounts.permissions import role_required
from portal.errors import ValidationFailed
from portal.fleet import service as fleet
from portal.labels import ACTIVITY_LABELS, activity_label
from portal.tacho import scope
from portal.tacho.models import VRIJSTELLING_ARTIKELEN
from portal.tacho.pages.kit import driving_bp
from portal.unit_of_work import portal_write
from portal.validators import PortalForm
from portal.web.kit import current_actor, current_carrier_id, errors_at_fields

# What each article exempts, as a planner reads it (Reg. 561/2006 Art. 13(1)).
ARTICLE_LABELS = {
    "13(1)(b)": _l(
        "Art. 13(1)(b): eigen goederen van een land-, tuinbouw-, bosbouw- of visserijbedrijf, "
        "binnen 100 km van de vestiging"
    ),
    "13(1)(c)": _l(
        "Art. 13(1)(c): land- of bosbouwtrekker voor land- of bosbouwwerk, binnen 100 km van "
        "de vestiging"
    ),
    "13(1)(l)": _l("Art. 13(1)(l): melk ophalen bij boerderijen"),
    "13(1)(n)": _l("Art. 13(1)(n): dierlijk afval of kadavers, niet voor menselijke consumptie"),
    "13(1)(p)": _l(
        "Art. 13(1)(p): levende dieren van boerderij naar markt of slachthuis, binnen 100 km"
    ),
}
WORDING = {
    "required": _l("Vul de soort activiteit in."),
    "choice": _l("Kies een artikel uit de lijst."),
}


class ExemptionForm(PortalForm):
    """An activity type carried out under a national exemption, and the article."""

    activiteit = StringField(
        _l("Soort activiteit"),
        validators=[
            DataRequired(_l("Vul de soort activiteit in.")),
            Length(max=64),
            Regexp(
                r"^[a-z0-9_-]+$", message=_l("Kleine letters, cijfers, - en _ (mest_uitrijden).")
            ),
        ],
        description=_l("Zoals op de taken, bijvoorbeeld mest_uitrijden."),
    )
    artikel = SelectField(
        _l("Vrijstelling"),
        choices=[SelectChoice(a, ARTICLE_LABELS[a]) for a in VRIJSTELLING_ARTIKELEN],
    )


def _render(form: ExemptionForm, status: int = 200):
    carrier_id = current_carrier_id()
    slow = [
        v
        for v in fleet.list_vehicles(carrier_id=carrier_id)
        if v.max_snelheid_kmh is not None and v.max_snelheid_kmh <= scope.ART_3_B_SPEED
    ]
    html = render_template(
        "tacho/driving/exemptions.html",
        form=form,
        exemptions=scope.exemptions(carrier_id=carrier_id),
        slow=slow,
        article_labels=ARTICLE_LABELS,
        activity_label=activity_label,
        known=sorted(ACTIVITY_LABELS),
    )
    return make_response(html, status)


@driving_bp.route("/rijtijden/vrijstellingen", methods=("GET", "POST"))
@role_required("planner")
@portal_write
def exemptions():
    """The carrier's exempt activity types; a POST adds or changes one."""
    form = ExemptionForm()
    if request.method == "GET":
        return _render(form)
    if not form.validate():
        return _render(form, 422)
    try:
        scope.set_exemption(
            carrier_id=current_carrier_id(),
            activiteit=form.activiteit.data,
            artikel=form.artikel.data,
            actor=current_actor(),
        )
    except ValidationFailed as error:
        errors_at_fields(form, error.errors, WORDING)
        return _render(form, 422)
    flash(_("“%(activiteit)s” is vrijgesteld.", activiteit=activity_label(form.activiteit.data)))
    return redirect(url_for("driving.exemptions"), code=303)


@driving_bp.post("/rijtijden/vrijstellingen/opheffen")
@role_required("planner")
@portal_write
def lift_exemption():
    """An activity type falls under EU 561/2006 again."""
    activiteit = (request.form.get("activiteit") or "").strip()
    try:
        scope.set_exemption(
            carrier_id=current_carrier_id(),
            activiteit=activiteit,
            artikel=None,
            actor=current_actor(),
        )
    except ValidationFailed:
        return redirect(url_for("driving.exemptions"), code=303)
    flash(_("“%(activiteit)s” valt weer onder EU 561/2006.", activiteit=activity_label(activiteit)))
    return redirect(url_for("driving.exemptions"), code=303)
