"""The admin page of the carrier's settings: its name, time zone and home base address."""

from __future__ import annotations

from zoneinfo import available_timezones

from babel import Locale
from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from wtforms import SelectChoice

from portal.accounts import management
from portal.accounts.admin_kit import ROLES, apply_errors, bp, history_of, page_context
from portal.accounts.forms import SettingsForm
from portal.accounts.permissions import role_required
from portal.accounts.service import current_carrier_of
from portal.errors import ValidationFailed
from portal.unit_of_work import portal_write
from portal.web.kit import current_actor, current_carrier_id


def _countries() -> list[SelectChoice]:
    """Countries by their name in the user's language (Babel's CLDR data), NL first."""
    locale = get_locale() or Locale("nl")
    names = {
        code: name
        for code, name in locale.territories.items()
        if len(code) == 2 and code.isalpha() and code not in ("ZZ", "XA", "XB")
    }
    first = ["NL", "BE", "DE"]
    rest = sorted((c for c in names if c not in first), key=lambda c: names[c])
    return [SelectChoice("", "—")] + [SelectChoice(c, names[c]) for c in first + rest]


def _render_settings(form: SettingsForm, status: int = 200, general=()):
    carrier = current_carrier_of(current_carrier_id())
    html = render_template(
        "admin/settings.html",
        **page_context(
            form=form,
            general=list(general),
            zones=sorted(available_timezones()),
            history=history_of("carrier", carrier.id),
        ),
    )
    return make_response(html, status)


@bp.route("/instellingen", methods=["GET", "POST"])
@role_required(*ROLES)
@portal_write
def settings():
    """The carrier's name, time zone and home base address."""
    carrier = current_carrier_of(current_carrier_id())
    form = SettingsForm(obj=carrier if request.method == "GET" else None)
    form.thuisbasis_land.choices = _countries()
    if request.method == "GET":
        if not carrier.thuisbasis_land:
            form.thuisbasis_land.data = "NL"
        return _render_settings(form)
    if not form.validate():
        return _render_settings(form, 422)
    try:
        management.update_settings(
            carrier_id=current_carrier_id(),
            settings=management.CarrierSettings(
                naam=form.naam.data,
                tijdzone=(form.tijdzone.data or "").strip(),
                thuisbasis_straat=form.thuisbasis_straat.data,
                thuisbasis_postcode=form.thuisbasis_postcode.data,
                thuisbasis_plaats=form.thuisbasis_plaats.data,
                thuisbasis_land=form.thuisbasis_land.data,
                thuisbasis_lat=form.thuisbasis_lat.data,
                thuisbasis_lng=form.thuisbasis_lng.data,
            ),
            actor=current_actor(),
        )
    except ValidationFailed as error:
        general = apply_errors(form, error)
        return _render_settings(form, 422, general)
    flash(_("De instellingen zijn opgeslagen."))
    return redirect(url_for("admin.settings"), code=303)
